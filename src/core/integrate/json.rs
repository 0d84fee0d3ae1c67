//! A JSON config file read and written back in its own key order and indentation, so that
//! adding one entry to an agent's settings changes only the lines of that entry. serde_json's
//! own `Value` sorts keys unless its `preserve_order` feature is on, which would change every
//! other JSON handbook prints; this small tree keeps the order for config files alone.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::EditError;

/// A JSON value whose objects keep their keys in the order the file has them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn str(text: &str) -> Json {
        Json::String(text.to_string())
    }

    pub(crate) fn int(n: u64) -> Json {
        Json::Number(n.into())
    }

    /// An object of these entries, in this order.
    pub(crate) fn object<const N: usize>(entries: [(&str, Json); N]) -> Json {
        Json::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key`, when this is an object that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The entries of an object; `None` for anything else.
    pub(crate) fn entries_mut(&mut self) -> Option<&mut Vec<(String, Json)>> {
        match self {
            Json::Object(entries) => Some(entries),
            _ => None,
        }
    }

    /// What this is, for an error that says what was found instead.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "a list",
            Json::Object(_) => "an object",
        }
    }
}

/// The entry `key` of `entries`, added (as `empty`) at the end when missing. The last of
/// duplicate keys is the one JSON readers keep, so it is the one edited.
pub(crate) fn entry<'a>(entries: &'a mut Vec<(String, Json)>, key: &str, empty: Json) -> &'a mut Json {
    let at = match entries.iter().rposition(|(k, _)| k == key) {
        Some(at) => at,
        None => {
            entries.push((key.to_string(), empty));
            entries.len() - 1
        }
    };
    &mut entries[at].1
}

/// A parsed file and how it was laid out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    pub(crate) root: Json,
    indent: String,
    final_newline: bool,
}

impl Document {
    /// Read `text`; an empty file is an empty object. A syntax error gives its line and column.
    pub(crate) fn parse(text: &str) -> Result<Document, EditError> {
        let final_newline = text.is_empty() || text.ends_with('\n');
        let indent = indent_of(text).unwrap_or_else(|| "  ".to_string());
        if text.trim().is_empty() {
            return Ok(Document { root: Json::Object(Vec::new()), indent, final_newline });
        }
        let root: Json = serde_json::from_str(text).map_err(|e| EditError::Syntax {
            line: e.line(),
            column: e.column(),
            message: e.to_string().split(" at line ").next().unwrap_or_default().to_string(),
        })?;
        Ok(Document { root, indent, final_newline })
    }

    /// The document as text, pretty-printed with the file's own indentation (two spaces, the
    /// way the agents write their settings, when it had none).
    pub(crate) fn render(&self) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Writing into memory cannot fail, and every value here is representable JSON.
        let _ = self.root.serialize(&mut serializer);
        let mut text = String::from_utf8_lossy(&out).into_owned();
        if self.final_newline {
            text.push('\n');
        }
        text
    }
}

/// The indentation of the first indented line: the unit the file nests by.
fn indent_of(text: &str) -> Option<String> {
    text.lines().skip(1).find_map(|line| {
        let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        (!indent.is_empty() && indent.len() < line.len()).then_some(indent)
    })
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(n) => n.serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        // JSON text never holds a NaN or an infinity, so this always converts.
        Ok(serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_the_agents_own_layout_reads_back_byte_for_byte() {
        for text in [
            "{\n  \"zeta\": 1,\n  \"alpha\": [\n    true,\n    null\n  ],\n  \"m\": {}\n}\n",
            "{\n    \"b\": \"x\",\n    \"a\": 2.5\n}",
            "{\n\t\"env\": {\n\t\t\"K\": \"é\"\n\t}\n}\n",
        ] {
            let doc = Document::parse(text).unwrap();
            assert_eq!(doc.render(), text);
        }
    }

    #[test]
    fn a_syntax_error_says_where() {
        let err = Document::parse("{\n  \"a\": 1,\n  \"b\" 2\n}\n").unwrap_err();
        match err {
            EditError::Syntax { line, column, .. } => assert_eq!((line, column), (3, 7)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_file_is_an_empty_object() {
        let doc = Document::parse("").unwrap();
        assert_eq!(doc.root, Json::Object(Vec::new()));
        assert_eq!(doc.render(), "{}\n");
    }
}
