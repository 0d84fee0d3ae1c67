//! Reader for the generic JSONL format, for tools without a reader of their own: one
//! `{"role","content","timestamp"}` object per line.
//!
//! Roles: `user`, `assistant`, `system`/`developer`, `reasoning`/`thinking`, `tool_call` and
//! `tool` (a result). Optional fields: `session_id`, `cwd`, `git_branch`, `model`, `name`
//! (the tool), `command` (a shell command line), `path` (the file a tool writes), `id` (pairs
//! a call with its result), `exit_code`, `is_error`. A `tool_call` whose content is an
//! `apply_patch` envelope writes the files it names. `content` is a string or an array of `{"type":"text","text"}`.
//! A line without `role` that carries `session_id` or `cwd` is a header.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::common::{self, Text};
use super::{FileHint, ReadError, Reader, UnknownTypes};
use crate::core::session::{Event, EventKind, LineWarning, SessionMeta, ToolCall, ToolResult, Unredacted};

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Text<'a>>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(borrow, default, alias = "sessionId")]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    git_branch: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "tool")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default, alias = "tool_call_id")]
    id: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// Reads one generic JSONL transcript.
pub(crate) struct GenericReader {
    hint: FileHint,
    meta: SessionMeta,
    unknown: UnknownTypes,
}

impl GenericReader {
    pub(crate) fn new(hint: FileHint) -> GenericReader {
        GenericReader { hint, meta: SessionMeta::default(), unknown: UnknownTypes::default() }
    }
}

/// A timestamp as RFC 3339 text or as Unix milliseconds.
fn timestamp_of(raw: Option<&RawValue>) -> Option<jiff::Timestamp> {
    let raw = raw?.get();
    if raw.starts_with('"') {
        common::parse_time(serde_json::from_str::<Cow<str>>(raw).ok().as_deref())
    } else {
        common::time_from_millis(raw.parse::<i64>().ok())
    }
}

impl Reader for GenericReader {
    fn read_line<'a>(&mut self, line: u64, text: &'a str, emit: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError> {
        let record: Record<'a> = serde_json::from_str(text).map_err(|e| ReadError::record(line, e))?;
        self.meta.saw_time(timestamp_of(record.timestamp));
        if self.meta.id.is_none() {
            SessionMeta::set_if_present(&mut self.meta.id, record.session_id.as_deref());
        }
        SessionMeta::set_if_present(&mut self.meta.cwd, record.cwd.as_deref());
        SessionMeta::set_if_present(&mut self.meta.git_branch, record.git_branch.as_deref());
        SessionMeta::set_if_present(&mut self.meta.model, record.model.as_deref());
        let Some(role) = record.role.as_deref() else {
            return match record.session_id.is_some() || record.cwd.is_some() {
                true => Ok(()),
                false => Err(ReadError::MissingField { line, field: "role" }),
            };
        };
        let content = record.content.map_or(Cow::Borrowed(""), Text::into_cow);
        let kind = match role {
            "user" | "human" => {
                self.meta.user_messages += 1;
                EventKind::User(content)
            }
            "assistant" | "ai" | "model" => EventKind::Assistant(Unredacted::new(content)),
            "system" | "developer" => EventKind::Instruction,
            "reasoning" | "thinking" => EventKind::Reasoning,
            "tool_call" => {
                let mut writes: Vec<String> = record.path.iter().map(|p| p.to_string()).collect();
                if common::is_inline_patch(&content) {
                    writes.extend(common::patch_files(&content));
                }
                EventKind::ToolCall(ToolCall {
                    id: record.id,
                    name: record.name.unwrap_or(Cow::Borrowed("shell")),
                    command: record.command,
                    writes,
                    input: Unredacted::new(content),
                    ..ToolCall::default()
                })
            }
            "tool" | "tool_result" | "function" => {
                let exit_code = record.exit_code.or_else(|| common::exit_code_from_text(&content));
                EventKind::ToolResult(ToolResult {
                    id: record.id,
                    exit_code,
                    is_error: record.is_error.unwrap_or(false),
                    stopped: common::stopped_by_user(&content),
                    output: Unredacted::new(content),
                })
            }
            other => {
                self.unknown.saw(other, line);
                return Ok(());
            }
        };
        emit(Event { line, kind });
        Ok(())
    }

    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>) {
        let mut meta = std::mem::take(&mut self.meta);
        // Without an id of its own, the file name is the id, made unique by the path: two
        // tools may both write `chat.jsonl`.
        if meta.id.is_none() {
            meta.id = Some(match (self.hint.stem.as_str(), self.hint.path_hash.as_str()) {
                ("", hash) => hash.to_string(),
                (stem, "") => stem.to_string(),
                (stem, hash) => format!("{stem}-{hash}"),
            });
        }
        (meta, std::mem::take(&mut self.unknown).into_warnings("role"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_roles_tools_and_headers() {
        let lines = [
            r#"{"session_id":"g1","cwd":"/w/tool"}"#,
            r#"{"role":"user","content":"Build it","timestamp":"2026-02-01T10:00:00Z"}"#,
            r#"{"role":"tool_call","name":"shell","command":"make","id":"c1","timestamp":1769940001000}"#,
            r#"{"role":"tool","id":"c1","content":"make: *** No rule","exit_code":2}"#,
            r#"{"role":"critic","content":"?"}"#,
            r#"{"content":"no role"}"#,
        ];
        let mut reader = GenericReader::new(FileHint { stem: "chat".into(), ..FileHint::default() });
        let mut events = Vec::new();
        let mut errors = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if let Err(e) = reader.read_line(i as u64 + 1, line, &mut |ev| events.push(ev.kind.clone())) {
                errors.push(e.to_string());
            }
        }
        let (meta, warnings) = reader.finish();
        assert_eq!(meta.id.as_deref(), Some("g1"));
        assert_eq!(meta.cwd.as_deref(), Some("/w/tool"));
        assert_eq!(meta.started.map(|t| t.to_string()).as_deref(), Some("2026-02-01T10:00:00Z"));
        assert_eq!(events.len(), 3);
        assert!(matches!(&events[2], EventKind::ToolResult(r) if r.exit_code == Some(2)));
        assert_eq!(errors, ["record has no `role`"]);
        assert_eq!(warnings[0].message, "unknown role `critic` skipped");
    }
}
