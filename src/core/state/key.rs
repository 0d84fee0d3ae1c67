//! What the state is kept by: one session. Most transcript files hold one session and are
//! known by their path alone; a file that holds many (an opencode database) keeps one entry
//! per session in it, known by the file's path and the session's id.
//!
//! On disk, `sources.json` keeps whole-file sessions under `sources` by path, as it always
//! did, and the sessions of a many-session file under `members`, by path and then by id.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::Deserializer;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::{SourceEntry, Sources};

/// One session's place: its transcript, and its id within it when the file holds many.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SourceKey {
    pub(crate) path: String,
    pub(crate) member: Option<String>,
}

impl SourceKey {
    /// The session a whole transcript file holds.
    pub(crate) fn file(path: impl Into<String>) -> SourceKey {
        SourceKey { path: path.into(), member: None }
    }

    /// Session `id` of a file that holds many.
    pub(crate) fn member(path: impl Into<String>, id: impl Into<String>) -> SourceKey {
        SourceKey { path: path.into(), member: Some(id.into()) }
    }
}

impl From<&str> for SourceKey {
    fn from(path: &str) -> SourceKey {
        SourceKey::file(path)
    }
}

/// The path, and the session within it when there is one: how reports name a session.
impl fmt::Display for SourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.member {
            None => f.write_str(&self.path),
            Some(id) => {
                // An id is the agent's (or whoever wrote the database): a newline in it would
                // start a new line of the report, a tab or a control character hide what it is.
                let mut shown = String::with_capacity(id.len());
                for c in id.chars() {
                    if c.is_control() || crate::core::escape::is_unsafe(c) {
                        shown.extend(c.escape_unicode());
                    } else {
                        shown.push(c);
                    }
                }
                write!(f, "{} (session {shown})", self.path)
            }
        }
    }
}

/// `sources.json` as it is written.
#[derive(Deserialize)]
struct File {
    version: u32,
    #[serde(default)]
    sources: BTreeMap<String, SourceEntry>,
    #[serde(default)]
    members: BTreeMap<String, BTreeMap<String, SourceEntry>>,
    #[serde(default)]
    excluded: std::collections::BTreeSet<String>,
    #[serde(default)]
    last_extract: Option<jiff::Timestamp>,
}

impl Serialize for Sources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let whole = || self.sources.iter().filter(|(k, _)| k.member.is_none()).map(|(k, e)| (&k.path, e));
        let mut members: BTreeMap<&str, BTreeMap<&str, &SourceEntry>> = BTreeMap::new();
        for (key, entry) in &self.sources {
            if let Some(id) = &key.member {
                members.entry(&key.path).or_default().insert(id, entry);
            }
        }
        let fields = 2 + usize::from(!members.is_empty()) + usize::from(!self.excluded.is_empty());
        let mut out = serializer.serialize_struct("Sources", fields + usize::from(self.last_extract.is_some()))?;
        out.serialize_field("version", &self.version)?;
        out.serialize_field("sources", &Collected(whole))?;
        if !members.is_empty() {
            out.serialize_field("members", &members)?;
        }
        if !self.excluded.is_empty() {
            out.serialize_field("excluded", &self.excluded)?;
        }
        if let Some(at) = &self.last_extract {
            out.serialize_field("last_extract", at)?;
        }
        out.end()
    }
}

/// A map written from an iterator, without collecting it first.
struct Collected<F>(F);

impl<'a, F, I> Serialize for Collected<F>
where
    F: Fn() -> I,
    I: Iterator<Item = (&'a String, &'a SourceEntry)>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map((self.0)())
    }
}

impl<'de> Deserialize<'de> for Sources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Sources, D::Error> {
        let file = File::deserialize(deserializer)?;
        let mut sources: BTreeMap<SourceKey, SourceEntry> =
            file.sources.into_iter().map(|(path, entry)| (SourceKey::file(path), entry)).collect();
        for (path, sessions) in file.members {
            sources.extend(sessions.into_iter().map(|(id, entry)| (SourceKey::member(path.clone(), id), entry)));
        }
        Ok(Sources { version: file.version, sources, excluded: file.excluded, last_extract: file.last_extract })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::tests::entry;
    use crate::core::state::{FileStat, SourceState};

    #[test]
    fn sessions_of_one_file_and_whole_files_round_trip() {
        let known = entry(FileStat { size: 1, mtime_ns: 1 }, SourceState::Extracted, 0);
        let mut sources = Sources { version: 1, ..Sources::default() };
        sources.sources.insert("/codex/rollout.jsonl".into(), known.clone());
        sources.sources.insert(SourceKey::member("/opencode/opencode.db", "ses_1"), known.clone());
        sources.sources.insert(SourceKey::member("/opencode/opencode.db", "ses_2"), known);
        let json = serde_json::to_value(&sources).unwrap();
        assert!(json["sources"]["/codex/rollout.jsonl"].is_object());
        assert!(json["members"]["/opencode/opencode.db"]["ses_2"].is_object());
        assert!(json.get("excluded").is_none() && json.get("last_extract").is_none());
        let back: Sources = serde_json::from_value(json).unwrap();
        assert_eq!(back, sources);
    }

    #[test]
    fn a_file_of_an_earlier_version_reads_as_whole_file_sessions() {
        let old = r#"{"version": 1, "sources": {"/a.jsonl": {"size": 3, "mtime_ns": 7, "state": "no-op"}}}"#;
        let sources: Sources = serde_json::from_str(old).unwrap();
        assert_eq!(sources.sources.keys().collect::<Vec<_>>(), [&SourceKey::file("/a.jsonl")]);
        assert_eq!(SourceKey::member("/o.db", "ses_1").to_string(), "/o.db (session ses_1)");
    }

    #[test]
    fn a_session_id_is_shown_on_one_line_with_its_controls_written_out() {
        assert_eq!(
            SourceKey::member("/o.db", "ses\nfailed: x\t\u{1b}").to_string(),
            "/o.db (session ses\\u{a}failed: x\\u{9}\\u{1b})"
        );
    }
}
