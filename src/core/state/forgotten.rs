//! The sessions the user asked to forget (`.handbook/forgotten.json`), kept apart from the
//! rest of the state so that no damage to `sources.json` (and no rebuild of it) can bring a
//! forgotten session back. `sources.json` still carries a copy, as earlier versions kept the
//! list there alone; on loading, the two are joined.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{Reason, SourceState, Sources};
use crate::core::words::count;

/// Bumped when the file's shape changes incompatibly.
pub(crate) const FORGOTTEN_VERSION: u32 = 1;

/// `forgotten.json` as it is written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Forgotten {
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) sessions: BTreeSet<String>,
}

impl Forgotten {
    pub(crate) fn new(sessions: &BTreeSet<String>) -> Forgotten {
        Forgotten { version: FORGOTTEN_VERSION, sessions: sessions.clone() }
    }
}

/// What a run says when it rebuilds the state from nothing (`sources.json` missing) and the
/// forgotten list survived: how many sessions stay forgotten.
pub(crate) fn rebuilt_note(sources_found: bool, kept: usize) -> Option<String> {
    (!sources_found && kept > 0).then(|| format!("sources.json was rebuilt; {} kept", count(kept, "forgotten session")))
}

/// The session ids `target` names: a session id, or a transcript's path as given or made
/// absolute (`absolute`), among the known sessions and the forgotten ones. Sorted.
pub(crate) fn ids_named(sources: &Sources, target: &str, absolute: &str) -> Vec<String> {
    let mut ids: Vec<String> = sources
        .sources
        .iter()
        .filter(|(key, e)| e.session_id.as_deref() == Some(target) || *key.path == *target || *key.path == *absolute)
        .filter_map(|(_, e)| Some(e.session_id.as_deref()?.to_string()))
        .collect();
    if sources.excluded.contains(target) {
        ids.push(target.to_string());
    }
    ids.sort();
    ids.dedup();
    ids
}

/// What `forget` (or `forget --undo`) did to one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Forgetting {
    pub(crate) session_id: String,
    /// The transcripts that hold it.
    pub(crate) paths: Vec<String>,
    /// It was forgotten before this command (for `--undo`: it was not).
    pub(crate) already: bool,
}

impl Forgetting {
    /// The line `forget` prints.
    pub(crate) fn line(&self, undo: bool, removed_record: bool) -> String {
        let id = &self.session_id;
        match (undo, self.already) {
            (false, true) => format!("already forgotten: {id}; nothing to remove"),
            (false, false) => {
                let record = if removed_record { "removed its extracted record; " } else { "" };
                format!("forgot {id}: {record}its lessons go at the next consolidate")
            }
            (true, true) => format!("not forgotten: {id}; nothing to take back"),
            (true, false) => format!("took back the forget of {id}: it is read again at the next extract"),
        }
    }
}

/// Forget `id`: every transcript holding it is excluded as forgotten.
pub(crate) fn forget(sources: &mut Sources, id: &str) -> Forgetting {
    let already = !sources.excluded.insert(id.to_string());
    let mut paths = Vec::new();
    for (key, entry) in sources.sources.iter_mut().filter(|(_, e)| e.session_id.as_deref() == Some(id)) {
        entry.state = SourceState::Excluded;
        entry.reason = Some(Reason::Forgotten);
        paths.push(key.to_string());
    }
    Forgetting { session_id: id.to_string(), paths, already }
}

/// Take back the forget of `id`: its transcripts keep no reason to stay out, so the next
/// extract reads them again (see [`super::needs_revisit`]). `already` when it was not
/// forgotten.
pub(crate) fn unforget(sources: &mut Sources, id: &str) -> Forgetting {
    let already = !sources.excluded.remove(id);
    let mut paths = Vec::new();
    for (key, entry) in sources.sources.iter_mut().filter(|(_, e)| e.session_id.as_deref() == Some(id)) {
        if entry.reason == Some(Reason::Forgotten) {
            entry.reason = None;
            paths.push(key.to_string());
        }
    }
    Forgetting { session_id: id.to_string(), paths, already }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::tests::{entry, stat_at};

    #[test]
    fn a_forget_is_said_once_and_taken_back() {
        let mut sources = Sources::default();
        let stat = stat_at("2026-11-25T10:00:00Z", 10);
        sources.sources.insert("/a.jsonl".into(), entry(stat, SourceState::Extracted, 0));
        assert_eq!(ids_named(&sources, "/a.jsonl", "/a.jsonl"), ["s"]);
        let first = forget(&mut sources, "s");
        assert_eq!((first.already, first.paths.clone()), (false, vec!["/a.jsonl".to_string()]));
        assert_eq!(
            first.line(false, true),
            "forgot s: removed its extracted record; its lessons go at the next consolidate"
        );
        let again = forget(&mut sources, "s");
        assert!(again.already);
        assert_eq!(again.line(false, false), "already forgotten: s; nothing to remove");
        let back = unforget(&mut sources, "s");
        assert!(!back.already && sources.excluded.is_empty());
        let e = &sources.sources[&"/a.jsonl".into()];
        assert_eq!((e.state, e.reason.clone()), (SourceState::Excluded, None));
        assert!(unforget(&mut sources, "s").already, "nothing left to take back");
        sources.excluded.insert("gone".into());
        assert_eq!(ids_named(&sources, "gone", "/x/gone"), ["gone"], "a forgotten id is known without its transcript");
    }

    #[test]
    fn a_rebuild_says_how_many_forgotten_sessions_it_kept() {
        assert_eq!(rebuilt_note(false, 1).as_deref(), Some("sources.json was rebuilt; 1 forgotten session kept"));
        assert_eq!(rebuilt_note(false, 2).as_deref(), Some("sources.json was rebuilt; 2 forgotten sessions kept"));
        assert_eq!(rebuilt_note(true, 2), None, "nothing was rebuilt");
        assert_eq!(rebuilt_note(false, 0), None, "a first run has nothing to keep");
        let json = serde_json::to_string(&Forgotten::new(&BTreeSet::from(["s".to_string()]))).unwrap();
        assert_eq!(json, r#"{"version":1,"sessions":["s"]}"#);
    }
}
