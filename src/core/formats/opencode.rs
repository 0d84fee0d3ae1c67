//! Reader for opencode sessions, whichever store they come from: the SQLite database and the
//! older `storage/` tree reach it as a stream of one JSON record per line that the edge builds
//! from their rows and files ([`session_line`], [`message_line`], [`part_line`]), and a file
//! written by `opencode export` is read as the whole JSON document it is.
//!
//! Records, in order: the session's info, then each message's info followed by its parts.
//! Parts carry the text: `text` (a `synthetic` one is the harness's, and dropped), `tool` (call
//! and result in one, by `state.status`), `file` (an attachment: its path, never its body),
//! `patch` (files a step changed); `reasoning` is dropped. A user message with a `system`
//! prompt is scaffolding; an assistant message with `summary: true` is a compaction summary.
//! A session with a `parentID` is a sub-agent's. Every event knows its message and part, so a
//! lesson can cite `message msg_…, part prt_…` where other formats cite a line.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::common;
use super::{FileHint, ReadError, Reader, UnknownTypes};
use crate::core::session::{Event, EventKind, LineWarning, SessionMeta, ToolCall, ToolResult, Unredacted};

mod document;

/// The key every line of the record stream carries, naming the record.
const TAG: &str = "opencode";

/// Bytes of an export document held at most; past that the rest of the file is skipped.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024 * 1024;

/// Places of events kept at most; later events are cited by line.
const MAX_PLACES: usize = 1 << 20;

/// The stream line of a session's info (a JSON object with its `id`).
pub(crate) fn session_line(info: &Value) -> String {
    serde_json::json!({ TAG: "session", "info": info }).to_string()
}

/// The stream line of message `id`, whose info is the JSON text `data` (a database row's
/// `data` column lacks the message's own id, which this adds).
pub(crate) fn message_line(id: &str, data: &str) -> String {
    record_line("message", &[("id", id)], data)
}

/// The stream line of part `id` of message `message`, whose body is the JSON text `data`.
pub(crate) fn part_line(id: &str, message: &str, data: &str) -> String {
    record_line("part", &[("id", id), ("message", message)], data)
}

/// The stream line that says a record could not be read: the reader warns at its line.
pub(crate) fn skipped_line(what: &str, why: &str) -> String {
    serde_json::json!({ TAG: "skipped", "what": what, "why": why }).to_string()
}

/// One record with its ids, and its data spliced in as it is when it is one line of valid
/// JSON (the common case, and the cheap one: tool outputs can be megabytes).
fn record_line(kind: &str, ids: &[(&str, &str)], data: &str) -> String {
    let mut head = serde_json::Map::new();
    head.insert(TAG.to_string(), Value::from(kind));
    for (key, value) in ids {
        head.insert((*key).to_string(), Value::from(*value));
    }
    let head = Value::Object(head).to_string();
    let splice = |data: &str| format!("{},\"data\":{data}}}", &head[..head.len() - 1]);
    match serde_json::from_str::<&serde_json::value::RawValue>(data) {
        Ok(_) if memchr::memchr2(b'\n', b'\r', data.as_bytes()).is_none() => splice(data),
        Ok(_) => match serde_json::from_str::<Value>(data) {
            Ok(value) => splice(&value.to_string()),
            Err(e) => skipped_line(&format!("{kind} {}", ids[0].1), &common::describe(&e)),
        },
        Err(e) => skipped_line(&format!("{kind} {}", ids[0].1), &format!("data is not JSON: {}", common::describe(&e))),
    }
}

/// Who wrote a message, and how its parts read.
#[derive(Debug, Clone, Copy, Default)]
struct MessageState {
    user: bool,
    /// An assistant message that summarises the history before it (a compaction).
    summary: bool,
    /// Its user text was counted as a user message already.
    counted: bool,
}

/// How the lines of the file are read.
enum Mode {
    /// No line read yet.
    Undecided,
    /// The record stream: one record per line.
    Records,
    /// An export: the whole document, parsed at the end.
    Document(document::Document),
}

/// Reads one opencode session.
pub(crate) struct OpencodeReader {
    hint: FileHint,
    meta: SessionMeta,
    mode: Mode,
    messages: HashMap<String, MessageState>,
    unknown_parts: UnknownTypes,
    unknown_roles: UnknownTypes,
    unknown_records: UnknownTypes,
    warnings: Vec<LineWarning>,
}

impl OpencodeReader {
    pub(crate) fn new(hint: FileHint) -> OpencodeReader {
        OpencodeReader {
            hint,
            meta: SessionMeta::default(),
            mode: Mode::Undecided,
            messages: HashMap::new(),
            unknown_parts: UnknownTypes::default(),
            unknown_roles: UnknownTypes::default(),
            unknown_records: UnknownTypes::default(),
            warnings: Vec::new(),
        }
    }

    fn warn(&mut self, line: u64, message: String) {
        self.warnings.push(LineWarning { line, message });
    }

    /// Read one record of the stream.
    fn stream_record(&mut self, line: u64, record: &Value, emit: &mut dyn FnMut(Event<'static>)) {
        let kind = record.get(TAG).and_then(Value::as_str).unwrap_or("");
        let data = record.get("data").unwrap_or(&Value::Null);
        let id = |value: &Value| value.get("id").and_then(Value::as_str).map(str::to_string);
        match kind {
            "session" => self.session(record.get("info").unwrap_or(&Value::Null)),
            "message" => {
                let id = id(record).or_else(|| id(data)).unwrap_or_default();
                self.message(line, &id, data, emit);
            }
            "part" => {
                let message = record.get("message").and_then(Value::as_str).map(str::to_string);
                let message = message.or_else(|| text(data, "messageID").map(str::to_string)).unwrap_or_default();
                let id = id(record).or_else(|| id(data)).unwrap_or_default();
                self.part(line, &message, &id, data, emit);
            }
            "skipped" => {
                let what = text(record, "what").unwrap_or("a record");
                let why = text(record, "why").unwrap_or("unreadable");
                self.warn(line, format!("{what} could not be read: {why}; skipped"));
            }
            other => self.unknown_records.saw(other, line),
        }
    }

    /// A session's info: its id, parent, title and folder.
    fn session(&mut self, info: &Value) {
        SessionMeta::set_if_present(&mut self.meta.id, text(info, "id"));
        SessionMeta::set_if_present(&mut self.meta.parent, text(info, "parentID"));
        self.meta.is_subagent = self.meta.parent.is_some();
        SessionMeta::set_if_present(&mut self.meta.title, text(info, "title"));
        if self.meta.cwd.is_none() {
            SessionMeta::set_if_present(&mut self.meta.cwd, text(info, "directory"));
        }
        let time = info.get("time").unwrap_or(&Value::Null);
        self.meta.saw_time(millis(time, "created"));
        self.meta.saw_time(millis(time, "updated"));
    }

    /// A message's info: who wrote it, where, with which model; a custom system prompt in a
    /// user message is scaffolding.
    fn message(&mut self, line: u64, id: &str, info: &Value, emit: &mut dyn FnMut(Event<'static>)) {
        let role = text(info, "role").unwrap_or("");
        let state = MessageState {
            user: role == "user",
            summary: role == "assistant" && info.get("summary").and_then(Value::as_bool) == Some(true),
            counted: false,
        };
        self.messages.insert(id.to_string(), state);
        self.meta.saw_time(millis(info.get("time").unwrap_or(&Value::Null), "created"));
        if self.meta.id.is_none() {
            SessionMeta::set_if_present(&mut self.meta.id, text(info, "sessionID"));
        }
        match role {
            "assistant" => {
                let cwd = info.get("path").and_then(|p| text(p, "cwd"));
                SessionMeta::set_if_present(&mut self.meta.cwd, cwd);
                SessionMeta::set_if_present(&mut self.meta.model, text(info, "modelID"));
            }
            "user" => {
                if self.meta.model.is_none() {
                    SessionMeta::set_if_present(
                        &mut self.meta.model,
                        info.get("model").and_then(|m| text(m, "modelID")),
                    );
                }
                if text(info, "system").is_some_and(|s| !s.trim().is_empty()) {
                    self.place(line, id, None);
                    emit(Event { line, kind: EventKind::Instruction });
                }
            }
            other => self.unknown_roles.saw(if other.is_empty() { "none" } else { other }, line),
        }
    }

    /// One part of message `message`.
    fn part(&mut self, line: u64, message: &str, id: &str, part: &Value, emit: &mut dyn FnMut(Event<'static>)) {
        let state = self.messages.get(message).copied().unwrap_or_default();
        let kind = match text(part, "type").unwrap_or("") {
            "text" => match self.text_part(message, state, part) {
                Some(kind) => kind,
                None => return,
            },
            "reasoning" => EventKind::Reasoning,
            "tool" => {
                let (call, result) = tool(part, id);
                self.place(line, message, Some(id));
                emit(Event { line, kind: EventKind::ToolCall(call) });
                let Some(result) = result else { return };
                EventKind::ToolResult(result)
            }
            "file" => EventKind::ToolCall(file(part, id)),
            "patch" => {
                let files: Vec<String> = strings(part.get("files"));
                let input = Unredacted::new(files.join("\n"));
                EventKind::ToolCall(ToolCall {
                    name: Cow::Borrowed("patch"),
                    writes: files,
                    input,
                    ..ToolCall::default()
                })
            }
            // Bookkeeping: steps, snapshots, retries, mentions, a compaction request.
            "step-start" | "step-finish" | "snapshot" | "agent" | "subtask" | "retry" | "compaction" => return,
            other => {
                self.unknown_parts.saw(if other.is_empty() { "none" } else { other }, line);
                return;
            }
        };
        self.place(line, message, Some(id));
        emit(Event { line, kind });
    }

    /// The event of a text part, by who wrote its message; none for the harness's own text.
    fn text_part(&mut self, message: &str, state: MessageState, part: &Value) -> Option<EventKind<'static>> {
        let body = text(part, "text").filter(|t| !t.trim().is_empty())?;
        if part.get("synthetic").and_then(Value::as_bool) == Some(true) {
            return None;
        }
        let body = Cow::Owned(body.to_string());
        Some(if state.user {
            if !state.counted {
                self.meta.user_messages += 1;
                if let Some(state) = self.messages.get_mut(message) {
                    state.counted = true;
                }
            }
            EventKind::User(body)
        } else if state.summary {
            EventKind::Compaction(Some(body))
        } else {
            EventKind::Assistant(Unredacted::new(body))
        })
    }

    /// Remember where `line`'s events sit: ids only when they look like ids, so nothing odd
    /// reaches a rendered lesson through them.
    fn place(&mut self, line: u64, message: &str, part: Option<&str>) {
        let plain =
            |id: &str| !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !plain(message) || part.is_some_and(|p| !plain(p)) || self.meta.places.len() >= MAX_PLACES {
            return;
        }
        if self.meta.places.last().is_some_and(|(last, _)| *last == line) {
            return;
        }
        let place = match part {
            Some(part) => format!("message {message}, part {part}"),
            None => format!("message {message}"),
        };
        self.meta.places.push((line, place));
    }
}

/// A tool part: the call, and its result once the tool finished.
fn tool(part: &Value, part_id: &str) -> (ToolCall<'static>, Option<ToolResult<'static>>) {
    let name = text(part, "tool").unwrap_or("tool").to_string();
    let id = text(part, "callID").unwrap_or(part_id).to_string();
    let state = part.get("state").unwrap_or(&Value::Null);
    let input = state.get("input").unwrap_or(&Value::Null);
    let path = text(input, "filePath").or_else(|| text(input, "path")).map(str::to_string);
    let mut call = ToolCall {
        id: Some(Cow::Owned(id.clone())),
        command: text(input, "command").filter(|_| name == "bash").map(|c| Cow::Owned(c.to_string())),
        input: Unredacted::new(if input.is_null() { String::new() } else { input.to_string() }),
        ..ToolCall::default()
    };
    match name.as_str() {
        "edit" | "write" | "multiedit" => call.writes.extend(path),
        "patch" | "apply_patch" => {
            let patch = text(input, "patchText").or_else(|| text(input, "patch")).unwrap_or("");
            call.writes.extend(common::patch_files(patch));
            call.writes.extend(path.filter(|p| !call.writes.contains(p)));
        }
        "read" => call.reads.extend(path),
        _ => {}
    }
    call.name = Cow::Owned(name);
    let exit_code = state.get("metadata").and_then(|m| m.get("exit")).and_then(Value::as_i64);
    let result = |output: &Value, is_error: bool| {
        let output = loose(output);
        ToolResult {
            id: Some(Cow::Owned(id.clone())),
            stopped: common::stopped_by_user(&output),
            output: Unredacted::new(output),
            exit_code,
            is_error,
        }
    };
    let result = match text(state, "status") {
        Some("completed") => Some(result(state.get("output").unwrap_or(&Value::Null), false)),
        Some("error") => Some(result(state.get("error").unwrap_or(&Value::Null), true)),
        _ => None,
    };
    (call, result)
}

/// A file attached to a message: the path it names, read; its body never.
fn file(part: &Value, id: &str) -> ToolCall<'static> {
    let source = part.get("source").and_then(|s| text(s, "path"));
    let url = text(part, "url").and_then(|u| u.strip_prefix("file://"));
    let path = source.or(url).or_else(|| text(part, "filename")).unwrap_or("").to_string();
    ToolCall {
        id: Some(Cow::Owned(id.to_string())),
        name: Cow::Borrowed("file"),
        input: Unredacted::new(path.clone()),
        reads: vec![path].into_iter().filter(|p| !p.is_empty()).collect(),
        ..ToolCall::default()
    }
}

fn text<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

fn millis(value: &Value, key: &str) -> Option<jiff::Timestamp> {
    common::time_from_millis(value.get(key).and_then(Value::as_i64))
}

fn strings(value: Option<&Value>) -> Vec<String> {
    let items = value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    items.iter().filter_map(Value::as_str).map(str::to_string).collect()
}

/// Text as it is, anything else as its JSON, nothing as nothing.
fn loose(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl Reader for OpencodeReader {
    fn read_line<'a>(&mut self, line: u64, text: &'a str, emit: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError> {
        if let Mode::Undecided = self.mode {
            // The record stream opens with a whole record; an export with `{` or a bare object.
            let record = serde_json::from_str::<Value>(text).ok().filter(|r| r.get(TAG).is_some());
            self.mode = match record {
                Some(_) => Mode::Records,
                None => Mode::Document(document::Document::new(MAX_DOCUMENT_BYTES)),
            };
        }
        match &mut self.mode {
            Mode::Document(doc) => {
                if let Some(warning) = doc.push(line, text) {
                    self.warn(line, warning);
                }
                Ok(())
            }
            _ => {
                let record: Value = serde_json::from_str(text).map_err(|e| ReadError::record(line, e))?;
                if record.get(TAG).is_none() {
                    return Err(ReadError::MissingField { line, field: TAG });
                }
                self.stream_record(line, &record, &mut |event| emit(event));
                Ok(())
            }
        }
    }

    fn drain(&mut self, emit: &mut dyn FnMut(Event<'_>)) {
        let Mode::Document(doc) = std::mem::replace(&mut self.mode, Mode::Records) else { return };
        let (records, warning) = doc.parse();
        if let Some(warning) = warning {
            self.warnings.push(warning);
        }
        for (line, record) in records {
            self.stream_record(line, &record, &mut |event| emit(event));
        }
    }

    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>) {
        let mut meta = std::mem::take(&mut self.meta);
        // A legacy session file is named by its session's id.
        if meta.id.is_none() && self.hint.stem.starts_with("ses_") {
            meta.id = Some(self.hint.stem.clone());
        }
        meta.places.sort_by_key(|(line, _)| *line);
        meta.places.dedup_by_key(|(line, _)| *line);
        let mut warnings = std::mem::take(&mut self.warnings);
        warnings.extend(std::mem::take(&mut self.unknown_records).into_warnings("record"));
        warnings.extend(std::mem::take(&mut self.unknown_roles).into_warnings("message role"));
        warnings.extend(std::mem::take(&mut self.unknown_parts).into_warnings("part type"));
        warnings.sort_by_key(|w| w.line);
        (meta, warnings)
    }
}

#[cfg(test)]
mod tests;
