//! The state of every known session in memory during a run: `sources.json` with its
//! indexes kept in step, and a record of what changed, so every change goes through one
//! place and a save writes only what changed.

use std::collections::BTreeSet;

use jiff::Timestamp;

use super::index::{Index, Presence};
use super::{FileStat, SourceEntry, SourceKey, SourceState, Sources};

/// The known sessions, their indexes, which transcripts are gone, and what changed.
#[derive(Debug)]
pub(crate) struct Store {
    sources: Sources,
    index: Index,
    presence: Presence,
    /// Keys whose entry changed (or went) since loading: what a save must write.
    changed: BTreeSet<SourceKey>,
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

    pub(crate) fn get(&self, key: &SourceKey) -> Option<&SourceEntry> {
        self.sources.sources.get(key)
    }

    /// Record `entry` as the state of `key`.
    pub(crate) fn settle(&mut self, key: &SourceKey, entry: SourceEntry) {
        self.index.insert(key, self.sources.sources.get(key), &entry);
        self.sources.sources.insert(key.clone(), entry);
        self.changed.insert(key.clone());
    }

    /// A session's transcript only touched: the same bytes at a new modification time.
    pub(crate) fn touch(&mut self, key: &SourceKey, stat: FileStat) {
        if let Some(entry) = self.sources.sources.get_mut(key) {
            entry.mtime_ns = stat.mtime_ns;
            self.changed.insert(key.clone());
        }
    }

    /// The transcript at `from` is now at `to`, unchanged: every session it holds follows.
    pub(crate) fn move_file(&mut self, from: &str, to: &str) {
        for key in self.index.sessions_of(from) {
            if let Some(entry) = self.sources.sources.remove(&key) {
                self.index.remove(&key, &entry);
                self.changed.insert(key.clone());
                self.settle(&SourceKey { path: to.to_string(), member: key.member }, entry);
            }
        }
    }

    /// Mark a session gone; the sessions it cited are returned, their usage changed.
    pub(crate) fn vanish(&mut self, key: &SourceKey) -> Vec<String> {
        match self.sources.sources.get_mut(key) {
            Some(entry) => {
                entry.state = SourceState::Vanished;
                self.changed.insert(key.clone());
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
    pub(crate) fn extracted_at(&mut self, now: Timestamp) {
        self.sources.last_extract = Some(now);
    }

    /// Each changed key with its entry now, or `None` when it is no longer known.
    pub(crate) fn changes(&self) -> impl Iterator<Item = (&SourceKey, Option<&SourceEntry>)> {
        self.changed.iter().map(|key| (key, self.sources.sources.get(key)))
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
        store.touch(&"/a".into(), FileStat { mtime_ns: 2, ..stat });
        store.move_file("/b", "/moved");
        store.vanish(&"/c".into());
        let changes: Vec<(String, bool)> = store.changes().map(|(k, e)| (k.to_string(), e.is_some())).collect();
        let expected = [("/a", true), ("/b", false), ("/c", true), ("/moved", true)];
        assert_eq!(changes, expected.map(|(k, e)| (k.to_string(), e)));
    }

    #[test]
    fn every_session_of_a_moved_file_follows_it() {
        let stat = FileStat { size: 1, mtime_ns: 1 };
        let mut sources = Sources::default();
        for id in ["ses_1", "ses_2"] {
            sources.sources.insert(SourceKey::member("/old/o.db", id), entry(stat, SourceState::Extracted, 0));
        }
        let mut store = Store::new(sources, Presence::default());
        store.move_file("/old/o.db", "/new/o.db");
        let keys: Vec<&SourceKey> = store.sources().sources.keys().collect();
        assert_eq!(keys, [&SourceKey::member("/new/o.db", "ses_1"), &SourceKey::member("/new/o.db", "ses_2")]);
        assert_eq!(store.index().sessions_of("/old/o.db"), Vec::<SourceKey>::new());
    }
}
