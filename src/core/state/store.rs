//! The state of every known session in memory during a run: `sources.json` with its
//! indexes kept in step, and a record of what changed, so every change goes through one
//! place and a save writes only what changed (or, once so much changed that the file is to
//! be written whole, keeps no list of it).

use std::collections::BTreeSet;

use jiff::Timestamp;

use super::index::{Index, Presence, sessions_of};
use super::journal::compact_now;
use super::packing::Packing;
use super::{FileStat, SourceEntry, SourceKey, SourceState, Sources};

/// The known sessions, their indexes, which transcripts are gone, and what changed.
#[derive(Debug)]
pub(crate) struct Store {
    sources: Sources,
    index: Index,
    presence: Presence,
    /// Keys whose entry changed (or went) since loading: what a save must write. `None` once
    /// the journal would grow past what rewriting the file whole costs (see
    /// [`compact_now`]): the save then writes it whole, and a first run over a hundred
    /// thousand sessions keeps no second copy of their keys.
    changed: Option<BTreeSet<SourceKey>>,
    /// Changes the journal held when the state was loaded.
    journaled: usize,
    /// Keeps the map of sessions in full nodes as sessions are added (a first run adds them all).
    packing: Packing,
}

impl Store {
    /// The store of `sources`, whose journal held `journaled` changes.
    pub(crate) fn new(sources: Sources, presence: Presence, journaled: usize) -> Store {
        let index = Index::build(&sources, &presence);
        Store { sources, index, presence, changed: Some(BTreeSet::new()), journaled, packing: Packing::default() }
    }

    /// Note that the entry of `key` changed.
    fn changed(&mut self, key: &SourceKey) {
        let Some(changed) = &mut self.changed else { return };
        changed.insert(key.clone());
        // The changes, and the line saying a run finished.
        if compact_now(self.journaled + changed.len() + 1, self.sources.sources.len()) {
            self.changed = None;
        }
    }

    pub(crate) fn sources(&self) -> &Sources {
        &self.sources
    }

    /// The sessions known in the transcript at `path`.
    pub(crate) fn sessions_of(&self, path: &str) -> Vec<SourceKey> {
        sessions_of(&self.sources, path)
    }

    /// Another session, still on disk, that was extracted as `session_id`: it keeps the
    /// session, and `key` is its duplicate (see [`Index::owner`]).
    pub(crate) fn owner(&self, session_id: &str, key: &SourceKey) -> Option<&SourceKey> {
        self.index.owner(&self.sources, session_id, key, &self.presence)
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
        if self.sources.sources.insert(key.clone(), entry).is_none() {
            self.packing.added(&mut self.sources.sources);
        }
        self.changed(key);
    }

    /// A session's transcript only touched: the same bytes at a new modification time.
    pub(crate) fn touch(&mut self, key: &SourceKey, stat: FileStat) {
        if let Some(entry) = self.sources.sources.get_mut(key) {
            entry.mtime_ns = stat.mtime_ns;
            self.changed(key);
        }
    }

    /// The transcript at `from` is now at `to`, unchanged: every session it holds follows.
    pub(crate) fn move_file(&mut self, from: &str, to: &str) {
        for key in self.sessions_of(from) {
            if let Some(entry) = self.sources.sources.remove(&key) {
                self.index.remove(&key, &entry);
                self.changed(&key);
                self.settle(&SourceKey { path: to.into(), member: key.member }, entry);
            }
        }
    }

    /// Mark a session gone; the sessions it cited are returned, their usage changed.
    pub(crate) fn vanish(&mut self, key: &SourceKey) -> Vec<String> {
        match self.sources.sources.get_mut(key) {
            Some(entry) => {
                entry.state = SourceState::Vanished;
                let cited = entry.cited.keys().cloned().collect();
                self.changed(key);
                cited
            }
            None => Vec::new(),
        }
    }

    /// True when a gone transcript had this size and time: a new file with them may be it.
    pub(crate) fn may_have_moved(&self, stat: FileStat) -> bool {
        self.index.may_have_moved(stat)
    }

    /// The gone transcript a new file of this size and time may be (see [`Index::take_moved`]).
    pub(crate) fn take_moved(&mut self, stat: FileStat) -> Option<String> {
        self.index.take_moved(stat)
    }

    /// Note that an extract run finished at `now`.
    pub(crate) fn extracted_at(&mut self, now: Timestamp) {
        self.sources.last_extract = Some(now);
    }

    /// Each changed key with its entry now (`None` when it is no longer known); `None` when
    /// so much changed that the state is to be written whole.
    pub(crate) fn changes(&self) -> Option<impl Iterator<Item = (&SourceKey, Option<&SourceEntry>)>> {
        let changed = self.changed.as_ref()?;
        Some(changed.iter().map(|key| (key, self.sources.sources.get(key))))
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
        let mut store = Store::new(sources, Presence::default(), 0);
        assert_eq!(store.changes().unwrap().count(), 0);
        store.touch(&"/a".into(), FileStat { mtime_ns: 2, ..stat });
        store.move_file("/b", "/moved");
        store.vanish(&"/c".into());
        let changes: Vec<(String, bool)> =
            store.changes().unwrap().map(|(k, e)| (k.to_string(), e.is_some())).collect();
        let expected = [("/a", true), ("/b", false), ("/c", true), ("/moved", true)];
        assert_eq!(changes, expected.map(|(k, e)| (k.to_string(), e)));
    }

    #[test]
    fn a_store_that_changed_more_than_a_journal_holds_is_written_whole() {
        let stat = FileStat { size: 1, mtime_ns: 1 };
        let mut store = Store::new(Sources::default(), Presence::default(), 0);
        for n in 0..255 {
            store.settle(&format!("/s/{n}").as_str().into(), entry(stat, SourceState::Extracted, 0));
        }
        assert_eq!(store.changes().map(Iterator::count), Some(255), "a short journal is kept");
        store.settle(&"/s/last".into(), entry(stat, SourceState::Extracted, 0));
        assert!(store.changes().is_none());
        let journaled = Store::new(store.sources().clone(), Presence::default(), 300);
        assert_eq!(journaled.changes().map(Iterator::count), Some(0), "nothing changed: nothing to write");
    }

    #[test]
    fn every_session_of_a_moved_file_follows_it() {
        let stat = FileStat { size: 1, mtime_ns: 1 };
        let mut sources = Sources::default();
        for id in ["ses_1", "ses_2"] {
            sources.sources.insert(SourceKey::member("/old/o.db", id), entry(stat, SourceState::Extracted, 0));
        }
        let mut store = Store::new(sources, Presence::default(), 0);
        store.move_file("/old/o.db", "/new/o.db");
        let keys: Vec<&SourceKey> = store.sources().sources.keys().collect();
        assert_eq!(keys, [&SourceKey::member("/new/o.db", "ses_1"), &SourceKey::member("/new/o.db", "ses_2")]);
        assert_eq!(store.sessions_of("/old/o.db"), Vec::<SourceKey>::new());
    }
}
