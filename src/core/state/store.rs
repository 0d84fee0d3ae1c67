//! The state of every known transcript in memory during a run: `sources.json` with its
//! indexes kept in step, so every change goes through one place.

use super::index::{Index, Presence};
use super::{FileStat, SourceEntry, SourceState, Sources};

/// The known transcripts, their indexes, and which of them are gone.
#[derive(Debug)]
pub(crate) struct Store {
    sources: Sources,
    index: Index,
    presence: Presence,
}

impl Store {
    pub(crate) fn new(sources: Sources, presence: Presence) -> Store {
        let index = Index::build(&sources, &presence);
        Store { sources, index, presence }
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
    }

    /// A transcript only touched: the same bytes at a new modification time.
    pub(crate) fn touch(&mut self, key: &str, stat: FileStat) {
        if let Some(entry) = self.sources.sources.get_mut(key) {
            entry.mtime_ns = stat.mtime_ns;
        }
    }

    /// The transcript at `from` is now at `to`, unchanged.
    pub(crate) fn move_entry(&mut self, from: &str, to: &str) {
        if let Some(entry) = self.sources.sources.remove(from) {
            self.index.remove(from, &entry);
            self.settle(to, entry);
        }
    }

    /// Mark a transcript gone; the sessions it cited are returned, their usage changed.
    pub(crate) fn vanish(&mut self, key: &str) -> Vec<String> {
        match self.sources.sources.get_mut(key) {
            Some(entry) => {
                entry.state = SourceState::Vanished;
                entry.cited.keys().cloned().collect()
            }
            None => Vec::new(),
        }
    }

    /// The gone transcript a new file of this size and time may be (see [`Index::take_moved`]).
    pub(crate) fn take_moved(&mut self, stat: FileStat) -> Option<String> {
        self.index.take_moved(stat)
    }

    pub(crate) fn into_sources(self) -> Sources {
        self.sources
    }
}
