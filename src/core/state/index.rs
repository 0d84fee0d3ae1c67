//! The indexes of the state store, so that no decision about one transcript scans every
//! known one: transcripts by session id (who else holds this session?) and gone transcripts
//! by size and modification time (did this new file move here?). Lookups by path are the
//! store's own map.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{FileStat, SourceEntry, SourceState, Sources};

/// What the edges found of the known transcripts before a run decides anything: the ones
/// that are no longer on disk. Everything else is taken to exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Presence {
    gone: HashSet<String>,
}

impl Presence {
    pub(crate) fn new(gone: HashSet<String>) -> Presence {
        Presence { gone }
    }

    /// False when the transcript at `key` was found gone.
    pub(crate) fn exists(&self, key: &str) -> bool {
        !self.gone.contains(key)
    }
}

/// The store's indexes, built once per run and kept up to date as entries settle.
#[derive(Debug, Default)]
pub(crate) struct Index {
    by_session: HashMap<String, BTreeSet<String>>,
    /// Gone transcripts with a known hash, by size and modification time: a new file with
    /// the same ones (and the same hash) is the same transcript, moved.
    moved: HashMap<(u64, i128), String>,
}

impl Index {
    pub(crate) fn build(sources: &Sources, presence: &Presence) -> Index {
        let mut index = Index::default();
        for (key, entry) in &sources.sources {
            index.insert(key, None, entry);
            if entry.hash.is_some() && !presence.exists(key) {
                // On equal stats the last path wins, as a map built in path order keeps it.
                index.moved.insert((entry.size, entry.mtime_ns), key.clone());
            }
        }
        index
    }

    /// Note that `key` now holds `entry` (it held `old` before).
    pub(crate) fn insert(&mut self, key: &str, old: Option<&SourceEntry>, entry: &SourceEntry) {
        if let Some(old_id) = old.and_then(|o| o.session_id.as_deref())
            && entry.session_id.as_deref() != Some(old_id)
        {
            self.forget(key, old_id);
        }
        if let Some(id) = &entry.session_id {
            self.by_session.entry(id.clone()).or_default().insert(key.to_string());
        }
    }

    /// Note that `key` no longer holds `entry`.
    pub(crate) fn remove(&mut self, key: &str, entry: &SourceEntry) {
        if let Some(id) = &entry.session_id {
            self.forget(key, id);
        }
    }

    fn forget(&mut self, key: &str, id: &str) {
        if let Some(keys) = self.by_session.get_mut(id) {
            keys.remove(key);
            if keys.is_empty() {
                self.by_session.remove(id);
            }
        }
    }

    /// The gone transcript a new file of this size and time may be, once: a second file
    /// with the same stats is not the same move.
    pub(crate) fn take_moved(&mut self, stat: FileStat) -> Option<String> {
        self.moved.remove(&(stat.size, stat.mtime_ns))
    }

    /// Another transcript, still on disk, that was extracted as `session_id`: it keeps the
    /// session, and `key` is its duplicate. The first by path wins.
    pub(crate) fn owner<'a>(
        &'a self,
        sources: &Sources,
        session_id: &str,
        key: &str,
        presence: &Presence,
    ) -> Option<&'a str> {
        self.by_session.get(session_id)?.iter().map(String::as_str).find(|other| {
            *other != key
                && sources.sources.get(*other).is_some_and(|e| e.state == SourceState::Extracted)
                && presence.exists(other)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::tests::entry;

    fn extracted(id: &str) -> SourceEntry {
        let mut e = entry(FileStat { size: 10, mtime_ns: 5 }, SourceState::Extracted, 0);
        e.session_id = Some(id.into());
        e.hash = Some("h".into());
        e
    }

    #[test]
    fn the_first_extracted_copy_on_disk_owns_a_session() {
        let mut sources = Sources::default();
        sources.sources.insert("/a".into(), extracted("s"));
        sources.sources.insert("/b".into(), extracted("s"));
        let mut no_op = extracted("s");
        no_op.state = SourceState::NoOp;
        sources.sources.insert("/0".into(), no_op);
        let everywhere = Presence::default();
        let index = Index::build(&sources, &everywhere);
        assert_eq!(index.owner(&sources, "s", "/c", &everywhere), Some("/a"));
        assert_eq!(index.owner(&sources, "s", "/a", &everywhere), Some("/b"));
        let a_gone = Presence::new(HashSet::from(["/a".to_string()]));
        assert_eq!(index.owner(&sources, "s", "/c", &a_gone), Some("/b"));
        assert_eq!(index.owner(&sources, "other", "/c", &everywhere), None);
    }

    #[test]
    fn a_settled_entry_moves_between_session_ids() {
        let mut sources = Sources::default();
        sources.sources.insert("/a".into(), extracted("old"));
        let mut index = Index::build(&sources, &Presence::default());
        let renamed = extracted("new");
        index.insert("/a", sources.sources.get("/a"), &renamed);
        sources.sources.insert("/a".into(), renamed);
        assert_eq!(index.owner(&sources, "new", "/z", &Presence::default()), Some("/a"));
        assert_eq!(index.owner(&sources, "old", "/z", &Presence::default()), None);
    }

    #[test]
    fn only_gone_transcripts_are_move_candidates_and_each_once() {
        let mut sources = Sources::default();
        sources.sources.insert("/gone".into(), extracted("s"));
        sources.sources.insert("/here".into(), extracted("t"));
        let presence = Presence::new(HashSet::from(["/gone".to_string()]));
        let mut index = Index::build(&sources, &presence);
        let stat = FileStat { size: 10, mtime_ns: 5 };
        assert_eq!(index.take_moved(stat).as_deref(), Some("/gone"));
        assert_eq!(index.take_moved(stat), None);
    }
}
