//! An `opencode export` document, held line by line (bounded) and parsed when the file ends:
//! `{"info": <session>, "messages": [{"info": <message>, "parts": [<part>…]}…]}`.
//!
//! A damaged or cut document is read as far as it goes: every message and part that closed
//! before the damage is kept, and one warning names the line where reading stopped. Each
//! record is placed on the line of the file where its `"id"` stands.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::TAG;
use crate::core::formats::common;
use crate::core::session::LineWarning;

/// Ids whose line is remembered at most.
const MAX_IDS: usize = 1 << 20;

/// The document's lines so far.
pub(super) struct Document {
    text: String,
    /// The file line of each line of `text`, whose blank lines were never fed.
    lines: Vec<u64>,
    /// The file line each `"id": "…"` first stands on.
    ids: HashMap<String, u64>,
    max_bytes: usize,
    full: bool,
}

impl Document {
    pub(super) fn new(max_bytes: usize) -> Document {
        Document { text: String::new(), lines: Vec::new(), ids: HashMap::new(), max_bytes, full: false }
    }

    /// Hold one more line; a warning when this one no longer fits.
    pub(super) fn push(&mut self, line: u64, text: &str) -> Option<String> {
        if self.full {
            return None;
        }
        if self.text.len() + text.len() + 1 > self.max_bytes {
            self.full = true;
            let mb = self.max_bytes / (1024 * 1024);
            return Some(format!("export is over {mb} MB; it is read up to this line and the rest skipped"));
        }
        if let Some(id) = id_on(text)
            && self.ids.len() < MAX_IDS
        {
            self.ids.entry(id.to_string()).or_insert(line);
        }
        self.text.push_str(text);
        self.text.push('\n');
        self.lines.push(line);
        None
    }

    /// The records the document holds, each with its line, in stream form (see
    /// [`super::session_line`]), and a warning when it could not be read to its end.
    pub(super) fn parse(self) -> (Vec<(u64, Value)>, Option<LineWarning>) {
        let mut records = Vec::new();
        let mut de = serde_json::Deserializer::from_str(&self.text);
        let read = Top(&mut records).deserialize(&mut de).and_then(|()| de.end());
        let first = self.lines.first().copied().unwrap_or(1);
        let warning = read.err().map(|e| {
            // Past the last line is the end of the file: the last line read.
            let index = e.line().saturating_sub(1).min(self.lines.len().saturating_sub(1));
            let line = self.lines.get(index).copied().unwrap_or(first);
            let what = if e.is_eof() { "export cut short" } else { "export damaged" };
            let message = format!("{what}: {}; read what came before", common::describe(&e));
            LineWarning { line, message }
        });
        let placed = records
            .into_iter()
            .map(|record| {
                let at = |key: &str| record.get(key).and_then(Value::as_str).and_then(|id| self.ids.get(id)).copied();
                let session = || record.get("info").and_then(|i| i.get("id")).and_then(Value::as_str);
                let line = at("id").or_else(|| session().and_then(|id| self.ids.get(id).copied()));
                (line.unwrap_or(first), record)
            })
            .collect();
        (placed, warning)
    }
}

/// The id a pretty-printed line holds: `"id": "prt_…",`.
fn id_on(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("\"id\"")?.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}

fn record(kind: &str, id: Option<&str>, message: Option<&str>, data: Value) -> Value {
    let mut record = serde_json::Map::new();
    record.insert(TAG.to_string(), Value::from(kind));
    if let Some(id) = id {
        record.insert("id".to_string(), Value::from(id));
    }
    if let Some(message) = message {
        record.insert("message".to_string(), Value::from(message));
    }
    record.insert(if kind == "session" { "info" } else { "data" }.to_string(), data);
    Value::Object(record)
}

fn id_of(value: &Value) -> Option<&str> {
    value.get("id").and_then(Value::as_str)
}

/// The whole document: its session's info and its messages.
struct Top<'r>(&'r mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an opencode export: an object with `info` and `messages`")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "info" => {
                    let info: Value = map.next_value()?;
                    self.0.push(record("session", None, None, info));
                }
                "messages" => map.next_value_seed(Messages(&mut *self.0))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The `messages` array.
struct Messages<'r>(&'r mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for Messages<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Messages<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Message(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

/// One message: its info, then its parts, each kept as soon as it closed.
struct Message<'r>(&'r mut Vec<Value>);

impl<'de> DeserializeSeed<'de> for Message<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Message<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message with `info` and `parts`")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut id: Option<String> = None;
        // Parts written before their message's info wait for it.
        let mut early: Vec<Value> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "info" => {
                    let info: Value = map.next_value()?;
                    id = id_of(&info).map(str::to_string);
                    self.0.push(record("message", id.as_deref(), None, info));
                    for part in early.drain(..) {
                        self.0.push(part_record(part, id.as_deref()));
                    }
                }
                "parts" => {
                    let out =
                        if id.is_some() { Out::Records(&mut *self.0, id.as_deref()) } else { Out::Early(&mut early) };
                    map.next_value_seed(Parts(out))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if id.is_none() && !early.is_empty() {
            return Err(de::Error::custom("a message without `info` holds parts"));
        }
        Ok(())
    }
}

fn part_record(part: Value, message: Option<&str>) -> Value {
    let message = part.get("messageID").and_then(Value::as_str).or(message).map(str::to_string);
    let id = id_of(&part).map(str::to_string);
    record("part", id.as_deref(), message.as_deref(), part)
}

/// Where parts go: straight to the records, or held until their message's info.
enum Out<'r, 'i> {
    Records(&'r mut Vec<Value>, Option<&'i str>),
    Early(&'r mut Vec<Value>),
}

/// The `parts` array of a message.
struct Parts<'r, 'i>(Out<'r, 'i>);

impl<'de> DeserializeSeed<'de> for Parts<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Parts<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of parts")
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(part) = seq.next_element::<Value>()? {
            match &mut self.0 {
                Out::Records(records, message) => records.push(part_record(part, *message)),
                Out::Early(early) => early.push(part),
            }
        }
        Ok(())
    }
}
