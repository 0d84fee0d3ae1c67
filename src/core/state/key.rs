//! What the state is kept by: one session. Most transcript files hold one session and are
//! known by their path alone; a file that holds many (an opencode database) keeps one entry
//! per session in it, known by the file's path and the session's id.
//!
//! On disk, `sources.json` keeps whole-file sessions under `sources` by path, as it always
//! did, and the sessions of a many-session file under `members`, by path and then by id.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use serde::de::Deserializer;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::{SourceEntry, Sources};

/// One session's place: its transcript, and its id within it when the file holds many.
///
/// The path is shared, not copied, by every holder of the key (the state, its index, the
/// list of sessions a run reads): a run over a hundred thousand sessions keeps each path once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SourceKey {
    pub(crate) path: Arc<str>,
    pub(crate) member: Option<String>,
}

impl SourceKey {
    /// The session a whole transcript file holds.
    pub(crate) fn file(path: impl Into<Arc<str>>) -> SourceKey {
        SourceKey { path: path.into(), member: None }
    }

    /// Session `id` of a file that holds many.
    pub(crate) fn member(path: impl Into<Arc<str>>, id: impl Into<String>) -> SourceKey {
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
    sources: Keyed,
    #[serde(default)]
    members: BTreeMap<String, BTreeMap<String, SourceEntry>>,
    #[serde(default)]
    excluded: std::collections::BTreeSet<String>,
    #[serde(default)]
    last_extract: Option<jiff::Timestamp>,
}

impl Serialize for Sources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let whole = || self.sources.iter().filter(|(k, _)| k.member.is_none()).map(|(k, e)| (&*k.path, e));
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

/// Write `sources.json` to `out`: JSON of the same shape as [`Sources`]'s serialization,
/// with one session to a line and no other space, so that a file of a hundred thousand
/// sessions stays greppable and quick to read back.
pub(crate) fn write_lines(sources: &Sources, out: &mut dyn Write) -> io::Result<()> {
    let mut members: BTreeMap<&str, Vec<(&str, &SourceEntry)>> = BTreeMap::new();
    write!(out, "{{\"version\":{},\n\"sources\":{{", sources.version)?;
    let mut first = true;
    for (key, entry) in &sources.sources {
        if let Some(id) = &key.member {
            members.entry(&key.path).or_default().push((id, entry));
            continue;
        }
        out.write_all(if std::mem::take(&mut first) { b"\n" } else { b",\n" })?;
        line(out, &key.path, entry)?;
    }
    out.write_all(if first { b"}" } else { b"\n}" })?;
    if !members.is_empty() {
        out.write_all(b",\n\"members\":{")?;
        for (index, (path, sessions)) in members.into_iter().enumerate() {
            out.write_all(if index == 0 { b"\n" } else { b",\n" })?;
            serde_json::to_writer(&mut *out, path)?;
            out.write_all(b":{")?;
            for (index, (id, entry)) in sessions.into_iter().enumerate() {
                out.write_all(if index == 0 { b"\n" } else { b",\n" })?;
                line(out, id, entry)?;
            }
            out.write_all(b"\n}")?;
        }
        out.write_all(b"\n}")?;
    }
    if !sources.excluded.is_empty() {
        out.write_all(b",\n\"excluded\":")?;
        serde_json::to_writer(&mut *out, &sources.excluded)?;
    }
    if let Some(at) = &sources.last_extract {
        out.write_all(b",\n\"last_extract\":")?;
        serde_json::to_writer(&mut *out, at)?;
    }
    out.write_all(b"\n}\n")
}

/// One session's line: its name (path or id), then its state.
fn line(out: &mut dyn Write, name: &str, entry: &SourceEntry) -> io::Result<()> {
    serde_json::to_writer(&mut *out, name)?;
    out.write_all(b":")?;
    Ok(serde_json::to_writer(&mut *out, entry)?)
}

/// A map written from an iterator, without collecting it first.
struct Collected<F>(F);

impl<'a, F, I> Serialize for Collected<F>
where
    F: Fn() -> I,
    I: Iterator<Item = (&'a str, &'a SourceEntry)>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map((self.0)())
    }
}

/// The smallest batch the whole-file sessions are read in (see [`Keyed`]).
const MIN_BATCH: usize = 1024;

/// The whole-file sessions of `sources.json`, read straight into the map the state keeps
/// them in: a state of a hundred thousand sessions is not built twice.
#[derive(Default)]
struct Keyed(BTreeMap<SourceKey, SourceEntry>);

impl<'de> Deserialize<'de> for Keyed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Keyed, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Keyed;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of transcript paths to their state")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Keyed, A::Error> {
                // Inserted one by one in order, a map's nodes are left about half full. Read
                // into a small map of their own instead, then appended (which rebuilds the
                // whole map with full nodes), the sessions come to full nodes, and what a
                // batch holds on its way in stays a fraction of the map. The batch grows with
                // the map, so the map is rebuilt a few times, not once per batch of a fixed size.
                let mut keyed = BTreeMap::new();
                let mut batch = BTreeMap::new();
                while let Some((path, entry)) = map.next_entry::<String, SourceEntry>()? {
                    batch.insert(SourceKey::file(path), entry);
                    if batch.len() >= (keyed.len() / 4).max(MIN_BATCH) {
                        keyed.append(&mut batch);
                    }
                }
                keyed.append(&mut batch);
                Ok(Keyed(keyed))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

impl<'de> Deserialize<'de> for Sources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Sources, D::Error> {
        let file = File::deserialize(deserializer)?;
        let mut sources = file.sources.0;
        for (path, sessions) in file.members {
            let path: Arc<str> = path.into();
            sources.extend(sessions.into_iter().map(|(id, entry)| (SourceKey::member(Arc::clone(&path), id), entry)));
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
    fn the_file_holds_a_session_to_a_line_and_reads_back_whole() {
        let known = entry(FileStat { size: 1, mtime_ns: 1 }, SourceState::Extracted, 0);
        let to_lines = |sources: &Sources| {
            let mut out = Vec::new();
            write_lines(sources, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let mut sources = Sources { version: 1, ..Sources::default() };
        assert_eq!(serde_json::from_str::<Sources>(&to_lines(&sources)).unwrap(), sources);
        sources.sources.insert("/codex/a \"b\".jsonl".into(), known.clone());
        sources.sources.insert("/codex/c.jsonl".into(), known.clone());
        sources.sources.insert(SourceKey::member("/opencode/opencode.db", "ses_1"), known.clone());
        sources.sources.insert(SourceKey::member("/opencode/opencode.db", "ses_2"), known);
        sources.excluded.insert("gone".into());
        sources.last_extract = Some("2026-11-29T12:00:00Z".parse().unwrap());
        let text = to_lines(&sources);
        assert_eq!(serde_json::from_str::<Sources>(&text).unwrap(), sources);
        let pretty: Sources = serde_json::from_str(&serde_json::to_string_pretty(&sources).unwrap()).unwrap();
        assert_eq!(pretty, sources, "a file written whole by an earlier version reads the same");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.contains("\"state\":\"extracted\"")).count(), 4, "{text}");
        assert!(lines[2].starts_with(r#""/codex/a \"b\".jsonl":{"#), "{text}");
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
