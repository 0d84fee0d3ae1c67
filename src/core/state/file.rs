//! `sources.json` as it is written and read back. Whole-file sessions sit under `sources`
//! by path, as they always did, and the sessions of a many-session file under `members`, by
//! path and then by id. Handbook writes it one session to a line ([`write_lines`]) and reads
//! it back a line at a time ([`LineReader`]); a file of any other shape (written by hand, or
//! by an earlier version) is read as the JSON it is.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use serde::de::Deserializer;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::packing::Packing;
use super::{SourceEntry, SourceKey, Sources};

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

/// Sessions read in path order, into the map the state keeps them in, in full nodes.
#[derive(Default)]
struct Batched {
    map: BTreeMap<SourceKey, SourceEntry>,
    packing: Packing,
}

impl Batched {
    fn push(&mut self, key: SourceKey, entry: SourceEntry) {
        if self.map.insert(key, entry).is_none() {
            self.packing.added(&mut self.map);
        }
    }

    fn finish(self) -> BTreeMap<SourceKey, SourceEntry> {
        self.map
    }
}

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
                let mut keyed = Batched::default();
                while let Some((path, entry)) = map.next_entry::<String, SourceEntry>()? {
                    keyed.push(SourceKey::file(path), entry);
                }
                Ok(Keyed(keyed.finish()))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

impl<'de> Deserialize<'de> for Sources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Sources, D::Error> {
        let mut file = File::deserialize(deserializer)?;
        let whole = std::mem::take(&mut file.sources.0);
        Ok(file.with(whole))
    }
}

impl File {
    /// The state this file holds, with `whole` as its whole-file sessions.
    fn with(self, mut sources: BTreeMap<SourceKey, SourceEntry>) -> Sources {
        for (path, sessions) in self.members {
            let path: Arc<str> = path.into();
            sources.extend(sessions.into_iter().map(|(id, entry)| (SourceKey::member(Arc::clone(&path), id), entry)));
        }
        Sources { version: self.version, sources, excluded: self.excluded, last_extract: self.last_extract }
    }
}

/// Reads `sources.json` a line at a time as [`write_lines`] writes it: each session's line
/// is parsed on its own, from its bytes, several times quicker than the whole file parsed
/// from a stream, and never holding more than a line. The few lines after the sessions
/// (`members`, `excluded`, `last_extract`) are kept and parsed together at the end.
///
/// A file of any other shape is not this reader's to judge: [`LineReader::line`] says so,
/// and the caller parses the file whole, which accepts any JSON of the right shape and names
/// the place a damaged file goes wrong. Nothing the whole parse would reject is accepted
/// here: a session line must be complete JSON, and commas must stand where JSON wants them.
#[derive(Default)]
pub(crate) struct LineReader {
    part: Part,
    version: u32,
    whole: Batched,
    /// The file from the end of `sources` on, opened as an object of its own.
    tail: Vec<u8>,
}

/// Where in the file the next line belongs.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// `{"version":1,`
    #[default]
    Version,
    /// `"sources":{`, or `"sources":{}` when there are none.
    Sources,
    /// A session line, or the `}` that closes them when no comma asks for another.
    Session { more: More },
    /// Everything after `sources`.
    Tail,
}

/// What may follow the last line read among the sessions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum More {
    /// The first session, or the end of an empty map.
    FirstOrEnd,
    /// Another session: the last one ended with a comma.
    Session,
    /// The end: the last session had no comma.
    End,
}

impl LineReader {
    /// Take in the file's next line (its newline included or not). False when the file is
    /// not of the shape [`write_lines`] gives it: parse it whole instead.
    pub(crate) fn line(&mut self, line: &[u8]) -> bool {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        match self.part {
            Part::Version => self.version(text),
            Part::Sources if text == b"\"sources\":{" => {
                self.part = Part::Session { more: More::FirstOrEnd };
                true
            }
            Part::Sources => text.strip_prefix(b"\"sources\":{}").is_some_and(|rest| self.close(rest)),
            Part::Session { more } => match text.strip_prefix(b"}") {
                Some(rest) => more != More::Session && self.close(rest),
                None => more != More::End && self.session(text),
            },
            Part::Tail => {
                self.tail.extend_from_slice(text);
                self.tail.push(b'\n');
                true
            }
        }
    }

    /// The state read, or `None` when the file ended before its shape did, or its last
    /// lines are not what they should be: parse it whole instead.
    pub(crate) fn finish(self) -> Option<Sources> {
        if self.part != Part::Tail {
            return None;
        }
        let file: File = serde_json::from_slice(&self.tail).ok()?;
        file.sources.0.is_empty().then(|| file.with(self.whole.finish()))
    }

    fn version(&mut self, text: &[u8]) -> bool {
        let number = text.strip_prefix(b"{\"version\":").and_then(|rest| rest.strip_suffix(b","));
        let Some(Ok(version)) = number.map(serde_json::from_slice::<u32>) else { return false };
        self.version = version;
        self.part = Part::Sources;
        true
    }

    /// One session's line: `"<path>":{...}`, with a comma when another follows.
    fn session(&mut self, text: &[u8]) -> bool {
        let (text, comma) = match text.strip_suffix(b",") {
            Some(text) => (text, true),
            None => (text, false),
        };
        let Some(end) = string_end(text) else { return false };
        let Some(entry) = text[end + 1..].strip_prefix(b":") else { return false };
        let (Some(path), Ok(entry)) = (path_of(&text[..=end]), serde_json::from_slice::<SourceEntry>(entry)) else {
            return false;
        };
        self.whole.push(SourceKey::file(path), entry);
        self.part = Part::Session { more: if comma { More::Session } else { More::End } };
        true
    }

    /// The end of the sessions; `rest` is what follows the `}` on its line.
    fn close(&mut self, rest: &[u8]) -> bool {
        if !rest.is_empty() && rest != b"," {
            return false;
        }
        // The tail parses as the file it ends: its own version, then the rest.
        self.tail = format!("{{\"version\":{}", self.version).into_bytes();
        self.tail.extend_from_slice(rest);
        self.tail.push(b'\n');
        self.part = Part::Tail;
        true
    }
}

/// Where the JSON string that `text` starts with ends (its closing quote).
fn string_end(text: &[u8]) -> Option<usize> {
    if text.first() != Some(&b'"') {
        return None;
    }
    let mut at = 1;
    while let Some(&byte) = text.get(at) {
        match byte {
            b'"' => return Some(at),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    None
}

/// A quoted path: borrowed when it holds no escape, as nearly every path does.
fn path_of(quoted: &[u8]) -> Option<Arc<str>> {
    match serde_json::from_slice::<&str>(quoted) {
        Ok(path) => Some(path.into()),
        Err(_) => serde_json::from_slice::<String>(quoted).ok().map(Into::into),
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
        assert_eq!(by_lines(&to_lines(&sources)), Some(sources.clone()));
        sources.sources.insert("/codex/a \"b\".jsonl".into(), known.clone());
        sources.sources.insert("/codex/c.jsonl".into(), known.clone());
        sources.sources.insert(SourceKey::member("/opencode/opencode.db", "ses_1"), known.clone());
        sources.sources.insert(SourceKey::member("/opencode/opencode.db", "ses_2"), known);
        sources.excluded.insert("gone".into());
        sources.last_extract = Some("2026-11-29T12:00:00Z".parse().unwrap());
        let text = to_lines(&sources);
        assert_eq!(serde_json::from_str::<Sources>(&text).unwrap(), sources);
        assert_eq!(by_lines(&text), Some(sources.clone()), "read a line at a time:\n{text}");
        let pretty: Sources = serde_json::from_str(&serde_json::to_string_pretty(&sources).unwrap()).unwrap();
        assert_eq!(pretty, sources, "a file written whole by an earlier version reads the same");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.iter().filter(|l| l.contains("\"state\":\"extracted\"")).count(), 4, "{text}");
        assert!(lines[2].starts_with(r#""/codex/a \"b\".jsonl":{"#), "{text}");
    }

    /// `text` read a line at a time, as the state is loaded.
    fn by_lines(text: &str) -> Option<Sources> {
        let mut reader = LineReader::default();
        text.split_inclusive('\n').all(|line| reader.line(line.as_bytes())).then(|| reader.finish())?
    }

    #[test]
    fn a_file_of_an_earlier_version_reads_as_whole_file_sessions() {
        let old = r#"{"version": 1, "sources": {"/a.jsonl": {"size": 3, "mtime_ns": 7, "state": "no-op"}}}"#;
        let sources: Sources = serde_json::from_str(old).unwrap();
        assert_eq!(sources.sources.keys().collect::<Vec<_>>(), [&SourceKey::file("/a.jsonl")]);
        assert_eq!(SourceKey::member("/o.db", "ses_1").to_string(), "/o.db (session ses_1)");
    }

    #[test]
    fn a_file_of_another_shape_is_left_to_the_whole_parse() {
        let known = entry(FileStat { size: 1, mtime_ns: 1 }, SourceState::Extracted, 0);
        let mut sources = Sources { version: 1, ..Sources::default() };
        sources.sources.insert("/a.jsonl".into(), known.clone());
        sources.sources.insert("/b.jsonl".into(), known);
        sources.excluded.insert("gone".into());
        let mut text = Vec::new();
        write_lines(&sources, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let pretty = serde_json::to_string_pretty(&sources).unwrap();
        assert_eq!(by_lines(&pretty), None, "written whole, by hand or by an earlier version");
        // Each of these is JSON the whole parse rejects, or another file's end: the line
        // reader must not take it for a state.
        let damaged = [
            text.replacen("},\n\"/b", "}\n\"/b", 1),
            text.replacen("}\n}", "},\n}", 1),
            text.replacen("\"extractor\":0}", "\"extractor\":0}}", 1),
            text.replacen("\"excluded\":[\"gone\"]", "\"excluded\":[\"gone\"", 1),
            text[..text.len() / 2].to_string(),
            text.replacen("{\"version\":1,", "{\"version\":\"1\",", 1),
        ];
        for text in damaged {
            assert!(serde_json::from_str::<Sources>(&text).is_err(), "{text}");
            assert_eq!(by_lines(&text), None, "{text}");
        }
    }
}
