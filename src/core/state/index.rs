//! The indexes of the state store, so that no decision about one session scans every known
//! one: sessions by id (who else holds this session?) and gone transcripts by size and
//! modification time (did this new file move here?). Lookups by key, and the sessions of one
//! transcript, are the store's own ordered map.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use smallvec::SmallVec;

use super::{FileStat, SourceEntry, SourceKey, SourceState, Sources};

/// What the edges found of the known transcripts before a run decides anything: the ones
/// that are no longer on disk, and the extracted sessions whose stage-1 record is missing.
/// Everything else is taken to exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Presence {
    gone: HashSet<String>,
    /// Session ids whose record is not there to be read.
    records_missing: HashSet<String>,
    /// Sessions gone from a file that holds many (a database), by path and id: the file is
    /// still there, the session is not.
    members_gone: HashSet<(String, String)>,
}

impl Presence {
    pub(crate) fn new(gone: HashSet<String>) -> Presence {
        Presence { gone, ..Presence::default() }
    }

    /// The same, knowing which sessions of many-session files are gone (see [`members_gone`]).
    pub(crate) fn members_gone(self, sources: &Sources) -> Presence {
        Presence { members_gone: members_gone(sources), ..self }
    }

    /// False when session `session_id` was found gone from the file at `path` that held it,
    /// or the file itself is gone.
    pub(crate) fn holds(&self, path: &str, session_id: Option<&str>) -> bool {
        let gone = session_id.is_some_and(|id| self.members_gone.contains(&(path.to_string(), id.to_string())));
        self.exists(path) && !gone
    }

    /// The same, with these sessions' records found missing.
    pub(crate) fn records_missing(self, sessions: HashSet<String>) -> Presence {
        Presence { records_missing: sessions, ..self }
    }

    /// False when the transcript at `path` was found gone.
    pub(crate) fn exists(&self, path: &str) -> bool {
        !self.gone.contains(path)
    }

    /// False when the stage-1 record of `session_id` was found missing.
    pub(crate) fn has_record(&self, session_id: &str) -> bool {
        !self.records_missing.contains(session_id)
    }
}

/// The sessions of many-session files that are marked vanished while their file is not.
fn members_gone(sources: &Sources) -> HashSet<(String, String)> {
    sources
        .sources
        .iter()
        .filter(|(key, entry)| entry.state == SourceState::Vanished && key.member.is_some())
        .filter_map(|(key, _)| Some((key.path.to_string(), key.member.as_deref()?.to_string())))
        .collect()
}

/// The store's indexes, kept up to date as entries settle. The sessions of one transcript
/// need none: the store's map is ordered by path, so they sit together in it.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// The keys each session id is known at, by a hash of the id (a hundred thousand ids
    /// are not copied; a key found is checked against its entry). Built on the first
    /// question (a run that reads nothing asks none), then kept up to date.
    by_session: OnceCell<BySession>,
    /// Gone transcripts with a known hash, by size and modification time: a new file with
    /// the same ones (and the same hash) is the same transcript, moved.
    moved: HashMap<(u64, i64), String>,
}

impl Index {
    /// The indexes of `sources`, where `presence` says which transcripts are gone.
    pub(crate) fn build(sources: &Sources, presence: &Presence) -> Index {
        let mut gone: Vec<&String> = presence.gone.iter().collect();
        gone.sort();
        let mut moved = HashMap::new();
        for path in gone {
            // A database's session has its rows' size and time, not a file's: no file moves as it.
            // On equal stats the last path wins.
            if let Some(entry) = sources.sources.get(&SourceKey::file(path.as_str()))
                && entry.hash.is_some()
            {
                moved.insert((entry.size, entry.mtime_ns), path.clone());
            }
        }
        Index { by_session: OnceCell::new(), moved }
    }

    /// Note that `key` now holds `entry` (it held `old` before).
    pub(crate) fn insert(&mut self, key: &SourceKey, old: Option<&SourceEntry>, entry: &SourceEntry) {
        let Some(by_session) = self.by_session.get_mut() else { return };
        if let Some(old_id) = old.and_then(|o| o.session_id.as_deref())
            && entry.session_id.as_deref() != Some(old_id)
        {
            forget(by_session, old_id, key);
        }
        if let Some(id) = &entry.session_id {
            let keys = by_session.entry(id_hash(id)).or_default();
            if let Err(at) = keys.binary_search(key) {
                keys.insert(at, key.clone());
            }
        }
    }

    /// Note that `key` no longer holds `entry`.
    pub(crate) fn remove(&mut self, key: &SourceKey, entry: &SourceEntry) {
        if let (Some(by_session), Some(id)) = (self.by_session.get_mut(), &entry.session_id) {
            forget(by_session, id, key);
        }
    }

    /// True when a gone transcript had this size and time (see [`Index::take_moved`]).
    pub(crate) fn may_have_moved(&self, stat: FileStat) -> bool {
        self.moved.contains_key(&(stat.size, stat.mtime_ns))
    }

    /// The gone transcript a new file of this size and time may be, once: a second file
    /// with the same stats is not the same move.
    pub(crate) fn take_moved(&mut self, stat: FileStat) -> Option<String> {
        self.moved.remove(&(stat.size, stat.mtime_ns))
    }

    /// Another session, still on disk, that was extracted as `session_id`: it keeps the
    /// session, and `key` is its duplicate. The first by key wins.
    pub(crate) fn owner<'a>(
        &'a self,
        sources: &Sources,
        session_id: &str,
        key: &SourceKey,
        presence: &Presence,
    ) -> Option<&'a SourceKey> {
        let by_session = self.by_session.get_or_init(|| by_session(sources));
        by_session.get(&id_hash(session_id))?.iter().find(|other| {
            let entry = sources.sources.get(*other);
            *other != key
                && entry
                    .is_some_and(|e| e.state == SourceState::Extracted && e.session_id.as_deref() == Some(session_id))
                && presence.exists(&other.path)
        })
    }
}

/// Keys by the hash of their session id (see [`id_hash`]), each hash's keys in order. Nearly
/// every id is known at one key, kept in place rather than in a list of its own.
type BySession = HashMap<u64, SmallVec<[SourceKey; 1]>>;

/// The hash a session id is indexed by; ids that share one are told apart by their entries.
fn id_hash(id: &str) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    hasher.finish()
}

/// Every key by its session id, each id's keys in order.
fn by_session(sources: &Sources) -> BySession {
    let mut index = BySession::new();
    // In key order: each id's keys come sorted.
    for (key, entry) in &sources.sources {
        if let Some(id) = &entry.session_id {
            index.entry(id_hash(id)).or_default().push(key.clone());
        }
    }
    index
}

/// The sessions `sources` knows in the transcript at `path`, in order.
pub(crate) fn sessions_of(sources: &Sources, path: &str) -> Vec<SourceKey> {
    let from = SourceKey::file(path);
    sources.sources.range(from..).map(|(key, _)| key).take_while(|key| *key.path == *path).cloned().collect()
}

fn forget(map: &mut BySession, id: &str, key: &SourceKey) {
    let at = id_hash(id);
    if let Some(keys) = map.get_mut(&at) {
        keys.retain(|k| k != key);
        if keys.is_empty() {
            map.remove(&at);
        }
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
        assert_eq!(index.owner(&sources, "s", &"/c".into(), &everywhere), Some(&"/a".into()));
        assert_eq!(index.owner(&sources, "s", &"/a".into(), &everywhere), Some(&"/b".into()));
        let a_gone = Presence::new(HashSet::from(["/a".to_string()]));
        assert_eq!(index.owner(&sources, "s", &"/c".into(), &a_gone), Some(&"/b".into()));
        assert_eq!(index.owner(&sources, "other", &"/c".into(), &everywhere), None);
    }

    #[test]
    fn a_settled_entry_moves_between_session_ids() {
        let mut sources = Sources::default();
        sources.sources.insert("/a".into(), extracted("old"));
        let mut index = Index::build(&sources, &Presence::default());
        assert_eq!(index.owner(&sources, "old", &"/z".into(), &Presence::default()), Some(&"/a".into()));
        let renamed = extracted("new");
        let a = SourceKey::file("/a");
        index.insert(&a, sources.sources.get(&a), &renamed);
        sources.sources.insert(a.clone(), renamed);
        assert_eq!(index.owner(&sources, "new", &"/z".into(), &Presence::default()), Some(&a));
        assert_eq!(index.owner(&sources, "old", &"/z".into(), &Presence::default()), None);
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

        let mut sources = Sources::default();
        sources.sources.insert(SourceKey::member("/gone.db", "ses_1"), extracted("ses_1"));
        let presence = Presence::new(HashSet::from(["/gone.db".to_string()]));
        let mut index = Index::build(&sources, &presence);
        assert_eq!(index.take_moved(stat), None, "a database's session has no file's size and time");
    }

    #[test]
    fn a_file_of_many_sessions_knows_them_all() {
        let mut sources = Sources::default();
        sources.sources.insert(SourceKey::member("/o.db", "ses_1"), extracted("ses_1"));
        sources.sources.insert(SourceKey::member("/o.db", "ses_2"), extracted("ses_2"));
        sources.sources.insert("/a.jsonl".into(), extracted("a"));
        let index = Index::build(&sources, &Presence::default());
        assert_eq!(
            sessions_of(&sources, "/o.db"),
            [SourceKey::member("/o.db", "ses_1"), SourceKey::member("/o.db", "ses_2")]
        );
        assert_eq!(sessions_of(&sources, "/o"), Vec::<SourceKey>::new(), "a path that only starts the same is another");
        let everywhere = Presence::default();
        let other = SourceKey::member("/copy.db", "ses_2");
        assert_eq!(index.owner(&sources, "ses_2", &other, &everywhere), Some(&SourceKey::member("/o.db", "ses_2")));
    }
}
