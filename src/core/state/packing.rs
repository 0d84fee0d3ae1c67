//! Keeping the state's map of sessions in full nodes. A `BTreeMap` that keys are added to
//! one by one leaves its nodes part empty: a node that fills splits in two, and added in
//! order, keys never come back to the left half. A hundred thousand sessions added so took
//! about 1.5 times the room of the same sessions in full nodes. Rebuilt with full nodes once
//! the keys added since the last rebuild are a quarter of the map, the map stays close to
//! full, and since the rebuilds grow with the map, each key is moved a few times in all.

use std::collections::BTreeMap;

/// Maps smaller than this are never rebuilt: what they could save is too little to count.
const MIN_ADDED: usize = 1024;

/// The keys added to one map since it was last rebuilt.
#[derive(Debug, Default)]
pub(crate) struct Packing {
    added: usize,
}

impl Packing {
    /// Note that `map` gained a key, and rebuild it when it is time.
    pub(crate) fn added<K: Ord, V>(&mut self, map: &mut BTreeMap<K, V>) {
        self.added += 1;
        if self.added >= (map.len() / 4).max(MIN_ADDED) {
            pack(map);
            self.added = 0;
        }
    }
}

/// Rebuild `map` with full nodes: appending a map to another of one key builds a new tree
/// from both in order, filling each node before it starts the next. The old nodes are freed
/// as they are emptied, so the rebuild needs little more room than the map.
fn pack<K: Ord, V>(map: &mut BTreeMap<K, V>) {
    let Some((key, value)) = map.pop_first() else { return };
    let mut packed = BTreeMap::from([(key, value)]);
    packed.append(map);
    *map = packed;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_keeps_its_keys_in_order_through_the_rebuilds() {
        let mut map = BTreeMap::new();
        let mut packing = Packing::default();
        // Added out of order (newest first, as a first run settles them), then in order.
        for n in (0..5000u32).rev().chain(5000..9000) {
            assert!(map.insert(n, n * 2).is_none());
            packing.added(&mut map);
        }
        assert_eq!(map.len(), 9000);
        assert!(map.iter().enumerate().all(|(i, (k, v))| *k as usize == i && *v == k * 2));
        assert!(packing.added < map.len() / 4, "rebuilt along the way");
        let mut one = BTreeMap::from([(1, 1)]);
        pack(&mut one);
        assert_eq!(one, BTreeMap::from([(1, 1)]));
    }
}
