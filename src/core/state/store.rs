//! The state of every known transcript in memory during a run: `sources.json` with its
//! indexes kept in step, so every change goes through one place.

use std::collections::BTreeSet;

use super::index::{Index, Presence};
use super::{FileStat, SourceEntry, SourceState, Sources};

/// The known transcripts, their indexes, which of them are gone, and which changed.
#[derive(Debug)]
pub(crate) struct Store {
    sources: Sources,
    index: Index,
    presence: Presence,
    /// Keys whose entry changed (or went) since loading: what a save must write.
    changed: BTreeSet<String>,
}

impl Store {
    pub(crate) fn new(sources: Sources, presence: Presence) -> Store {
        let index = Index::build(&sources, &presence);
        Store { sources, index, presence, changed: BTreeSet::new() }
    }

    pub(crate) fn sources(&self) -> &Sources {
        &self.sources
    }

    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    pub(crate) fn presence(&self) -> &Presence {
        &self.presence
    }

    pub(crate) fn get(&self, key: &str) -> Option<&SourceEntry> {
        self.sources.sources.get(key)
    }

    /// Record `entry` as the state of `key`.
    pub(crate) fn settle(&mut self, key: &str, entry: SourceEntry) {
        self.index.insert(key, self.sources.sources.get(key), &entry);
        self.sources.sources.insert(key.to_string(), entry);
        self.changed.insert(key.to_string());
    }

    /// A transcript only touched: the same bytes at a new modification time.
    pub(crate) fn touch(&mut self, key: &str, stat: FileStat) {
        if let Some(entry) = self.sources.sources.get_mut(key) {
            entry.mtime_ns = stat.mtime_ns;
            self.changed.insert(key.to_string());
        }
    }

    /// The transcript at `from` is now at `to`, unchanged.
    pub(crate) fn move_entry(&mut self, from: &str, to: &str) {
        if let Some(entry) = self.sources.sources.remove(from) {
            self.index.remove(from, &entry);
            self.changed.insert(from.to_string());
            self.settle(to, entry);
        }
    }

    /// Mark a transcript gone; the sessions it cited are returned, their usage changed.
    pub(crate) fn vanish(&mut self, key: &str) -> Vec<String> {
        match self.sources.sources.get_mut(key) {
            Some(entry) => {
                entry.state = SourceState::Vanished;
                self.changed.insert(key.to_string());
                entry.cited.keys().cloned().collect()
            }
            None => Vec::new(),
        }
    }

    /// The gone transcript a new file of this size and time may be (see [`Index::take_moved`]).
    pub(crate) fn take_moved(&mut self, stat: FileStat) -> Option<String> {
        self.index.take_moved(stat)
    }

    /// Note that an extract run finished at `now`.
    pub(crate) fn extracted_at(&mut self, now: jiff::Timestamp) {
        self.sources.last_extract = Some(now);
    }

    /// Each changed key with its entry now, or `None` when it is no longer known.
    pub(crate) fn changes(&self) -> impl Iterator<Item = (&str, Option<&SourceEntry>)> {
        self.changed.iter().map(|key| (key.as_str(), self.sources.sources.get(key)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::tests::entry;

    #[test]
    fn the_store_knows_what_changed_since_loading() {
        let stat = FileStat { size: 1, mtime_ns: 1 };
        let mut sources = Sources::default();
        for key in ["/a", "/b", "/c", "/d"] {
            sources.sources.insert(key.into(), entry(stat, SourceState::Extracted, 0));
        }
        let mut store = Store::new(sources, Presence::default());
        assert_eq!(store.changes().count(), 0);
        store.touch("/a", FileStat { mtime_ns: 2, ..stat });
        store.move_entry("/b", "/moved");
        store.vanish("/c");
        let changes: Vec<(&str, bool)> = store.changes().map(|(k, e)| (k, e.is_some())).collect();
        assert_eq!(changes, [("/a", true), ("/b", false), ("/c", true), ("/moved", true)]);
    }
}
