//! Reader for Gemini CLI chat recordings: `~/.gemini/tmp/<project>/chats/session-*.jsonl`, the
//! older whole-file `session-*.json`, and sub-agent recordings in `chats/<parent id>/`.
//!
//! A recording is an operation log, not a transcript: the first line is the session's
//! metadata; a message record (`{"id","type",…}`) is written again in full whenever its tool
//! calls, results or token counts change; `{"$set":{…}}` patches the metadata, and a
//! `messages` list in it replaces every message; `{"$rewindTo":"<id>"}` deletes that message
//! and all after it. Which messages survive is known only at the end, so the reader keeps the
//! last copy of each message (in first-seen order) and sends its events at [`Reader::drain`].
//! Rewound and replaced messages are never sent: nothing downstream can learn from them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::common;
use super::{FileHint, ReadError, Reader, UnknownTypes};
use crate::core::session::{Event, EventKind, LineWarning, SessionMeta, ToolCall, ToolResult, Unredacted};

/// Part kinds it knows, including those that carry nothing to learn from (media, code runs).
const PART_KINDS: &[&str] = &[
    "text",
    "thought",
    "thoughtSignature",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "executableCode",
    "codeExecutionResult",
    "videoMetadata",
    "mediaResolution",
    "partMetadata",
    "toolCall",
    "toolResponse",
];

/// Bytes of a whole-file `.json` recording held at most until it can be parsed.
const MAX_DOCUMENT_BYTES: usize = 64 * 1024 * 1024;

/// A line of a recording in the union of the fields of its records: metadata (`sessionId`,
/// `projectHash`, …), a message (`id`, `type`, `content`, …), `$set` or `$rewindTo`.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Parts<'a>>,
    #[serde(rename = "displayContent", borrow, default)]
    display_content: Option<Parts<'a>>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<Vec<ToolCallRecord<'a>>>,
    #[serde(default)]
    thoughts: Option<Vec<IgnoredAny>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "projectHash", default)]
    project_hash: Option<IgnoredAny>,
    #[serde(rename = "startTime", borrow, default)]
    start_time: Option<Cow<'a, str>>,
    #[serde(rename = "lastUpdated", borrow, default)]
    last_updated: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    summary: Option<Cow<'a, str>>,
    #[serde(default)]
    directories: Option<Vec<String>>,
    /// `main` or `subagent` on the metadata line.
    #[serde(rename = "kind", borrow, default)]
    conversation: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    messages: Option<Vec<Record<'a>>>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<Box<Record<'a>>>,
    #[serde(rename = "$rewindTo", borrow, default)]
    rewind_to: Option<Cow<'a, str>>,
}

/// A `ToolCallRecord` of a `gemini` message: the call, and its result once it has one.
#[derive(Deserialize)]
struct ToolCallRecord<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<Parts<'a>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct FunctionResponse<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
}

/// One part of a Gemini `PartListUnion`, by what it holds.
enum Part<'a> {
    Text {
        text: Cow<'a, str>,
        thought: bool,
    },
    Call(FunctionCall<'a>),
    Response(FunctionResponse<'a>),
    /// Media, code runs and other parts that carry nothing to learn from.
    Other,
    /// A part of a kind this reader does not know, by its first key.
    Unknown(String),
}

/// A `PartListUnion`: a string, one part, or a list of parts and strings.
struct Parts<'a>(Vec<Part<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Parts<'a>, D::Error> {
        struct PartsVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for PartsVisitor<'a> {
            type Value = Parts<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("text, a part, or a list of parts")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Parts<'a>, E> {
                Ok(Parts(vec![Part::text(Cow::Borrowed(v))]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Parts<'a>, E> {
                Ok(Parts(vec![Part::text(Cow::Owned(v.to_string()))]))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Parts<'a>, E> {
                Ok(Parts(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Parts<'a>, A::Error> {
                Ok(Parts(vec![part_from_map(map)?]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts<'a>, A::Error> {
                let mut parts = Vec::new();
                while let Some(Parts(mut more)) = seq.next_element::<Parts<'de>>()? {
                    parts.append(&mut more);
                }
                Ok(Parts(parts))
            }
        }
        deserializer.deserialize_any(PartsVisitor(PhantomData))
    }
}

impl<'a> Part<'a> {
    fn text(text: Cow<'a, str>) -> Part<'a> {
        Part::Text { text, thought: false }
    }
}

/// A part object, read in one pass: its kind is the key that holds its data.
fn part_from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Part<'de>, A::Error> {
    let mut part = None;
    let mut thought = false;
    let mut unknown = None;
    while let Some(key) = map.next_key::<Cow<'de, str>>()? {
        match key.as_ref() {
            "text" => part = map.next_value::<Option<Cow<'de, str>>>()?.map(Part::text).or(part),
            "thought" => thought = map.next_value::<Option<bool>>()?.unwrap_or(false),
            "functionCall" => part = Some(Part::Call(map.next_value()?)),
            "functionResponse" => part = Some(Part::Response(map.next_value()?)),
            known => {
                map.next_value::<IgnoredAny>()?;
                if !PART_KINDS.contains(&known) && unknown.is_none() {
                    unknown = Some(known.to_string());
                }
            }
        }
    }
    Ok(match part {
        Some(Part::Text { text, .. }) => Part::Text { text, thought },
        Some(part) => part,
        None => unknown.map_or(Part::Other, Part::Unknown),
    })
}

/// A message as it stands after the lines read so far: its events, ready to send.
struct Held {
    id: String,
    events: Vec<Event<'static>>,
    time: Option<jiff::Timestamp>,
    /// It carries the user's own words.
    from_user: bool,
}

/// How the file is laid out, known from its first line.
enum Layout {
    Undecided,
    /// One record per line (`.jsonl`).
    Lines,
    /// One pretty-printed `ConversationRecord` over many lines (`.json`), gathered here.
    Document(Document),
}

#[derive(Default)]
struct Document {
    text: String,
    first_line: u64,
    /// The line each `"id": "…"` first appears on, for the provenance of its message.
    id_lines: HashMap<String, u64>,
    too_big: bool,
}

/// Reads one Gemini CLI chat recording.
pub(crate) struct GeminiReader {
    hint: FileHint,
    meta: SessionMeta,
    layout: Layout,
    messages: Vec<Held>,
    /// Message id → its index in `messages`.
    index: HashMap<String, usize>,
    unknown_types: UnknownTypes,
    unknown_parts: UnknownTypes,
    /// Records with none of the fields a record has, by their first key.
    unknown_records: UnknownTypes,
    warnings: Vec<LineWarning>,
}

impl GeminiReader {
    pub(crate) fn new(hint: FileHint) -> GeminiReader {
        let mut meta = SessionMeta::default();
        SessionMeta::set_if_present(&mut meta.cwd, hint.project.as_deref());
        GeminiReader {
            hint,
            meta,
            layout: Layout::Undecided,
            messages: Vec::new(),
            index: HashMap::new(),
            unknown_types: UnknownTypes::default(),
            unknown_parts: UnknownTypes::default(),
            unknown_records: UnknownTypes::default(),
            warnings: Vec::new(),
        }
    }

    /// Apply one record, read from `line` (whose text is `text`), to the replay.
    fn apply(&mut self, line: u64, text: &str, record: Record<'_>) {
        if let Some(target) = record.rewind_to.as_deref() {
            self.rewind(target);
        } else if record.id.is_some() {
            self.upsert(line, record);
        } else if let Some(set) = record.set {
            self.metadata(line, *set);
        } else if record.session_id.is_some() || record.project_hash.is_some() {
            self.metadata(line, record);
        } else {
            // Rare enough to parse again for the name of what it is.
            let keys = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text).ok();
            let first = keys.and_then(|k| k.keys().next().cloned()).unwrap_or_else(|| "{}".to_string());
            self.unknown_records.saw(&first, line);
        }
    }

    /// Drop `target` and every message after it; an id never seen clears them all, as Gemini
    /// CLI itself does.
    fn rewind(&mut self, target: &str) {
        let keep = self.index.get(target).copied().unwrap_or(0);
        for held in self.messages.drain(keep..) {
            self.index.remove(&held.id);
        }
    }

    /// Metadata, from the first line, a `$set`, or a whole-file document.
    fn metadata(&mut self, line: u64, record: Record<'_>) {
        if self.meta.id.is_none() {
            SessionMeta::set_if_present(&mut self.meta.id, record.session_id.as_deref());
        }
        self.meta.saw_time(common::parse_time(record.start_time.as_deref()));
        self.meta.saw_time(common::parse_time(record.last_updated.as_deref()));
        SessionMeta::set_if_present(&mut self.meta.title, record.summary.as_deref());
        if let Some(first) = record.directories.as_ref().and_then(|d| d.first()) {
            SessionMeta::set_if_present(&mut self.meta.cwd, Some(first));
        }
        if let Some(kind) = record.conversation.as_deref() {
            self.meta.is_subagent = kind == "subagent";
        }
        if let Some(messages) = record.messages {
            // A checkpoint (session start, resume, compression): the list is the whole history.
            self.messages.clear();
            self.index.clear();
            for message in messages {
                self.upsert(line, message);
            }
        }
    }

    /// Keep the newest copy of a message, in the place its first copy took.
    fn upsert(&mut self, line: u64, record: Record<'_>) {
        let Some(id) = record.id.as_deref().map(str::to_string) else { return };
        let line = self.document_line(&id).unwrap_or(line);
        let time = common::parse_time(record.timestamp.as_deref());
        let (events, from_user) = self.events_of(line, &id, record);
        let held = Held { id: id.clone(), events, time, from_user };
        match self.index.get(&id) {
            Some(&at) => self.messages[at] = held,
            None => {
                self.index.insert(id, self.messages.len());
                self.messages.push(held);
            }
        }
    }

    /// The line a message of a whole-file document starts on, when it could be found.
    fn document_line(&self, id: &str) -> Option<u64> {
        match &self.layout {
            Layout::Document(doc) => doc.id_lines.get(id).copied().or(Some(doc.first_line)),
            _ => None,
        }
    }

    /// The events a message stands for, and whether it carries the user's own words.
    fn events_of(&mut self, line: u64, id: &str, record: Record<'_>) -> (Vec<Event<'static>>, bool) {
        let kind = record.kind.as_deref().unwrap_or("");
        let mut events = Vec::new();
        let mut push = |kind: EventKind<'_>| events.push(Event { line, kind }.into_owned());
        let mut from_user = false;
        match kind {
            "user" => {
                let (text, calls) = self.split_parts(line, record.content);
                // What the user typed, when the harness expanded it (`@file` contents).
                let shown = record.display_content.map(|d| self.split_parts(line, Some(d)).0);
                let typed = shown.filter(|t| !t.trim().is_empty()).unwrap_or(text);
                calls.into_iter().for_each(&mut push);
                if let Some(kind) = user_text(typed) {
                    from_user = matches!(kind, EventKind::User(_));
                    push(kind);
                }
            }
            "gemini" => {
                SessionMeta::set_if_present(&mut self.meta.model, record.model.as_deref());
                if record.thoughts.is_some_and(|t| !t.is_empty()) {
                    push(EventKind::Reasoning);
                }
                let recorded: HashSet<String> =
                    record.tool_calls.iter().flatten().filter_map(|c| c.id.as_deref().map(str::to_string)).collect();
                let (text, calls) = self.split_parts(line, record.content);
                if !text.trim().is_empty() {
                    push(EventKind::Assistant(Unredacted::new(text)));
                }
                for (n, call) in calls.into_iter().enumerate() {
                    // A call the message also records in `toolCalls` is read from there.
                    match call {
                        EventKind::ToolCall(c) if c.id.as_deref().is_some_and(|i| recorded.contains(i)) => {}
                        EventKind::ToolCall(mut c) => {
                            c.id = c.id.or_else(|| Some(Cow::Owned(format!("{id}#{n}"))));
                            push(EventKind::ToolCall(c));
                        }
                        other => push(other),
                    }
                }
                for call in record.tool_calls.into_iter().flatten() {
                    self.tool_call_record(line, call).into_iter().for_each(&mut push);
                }
            }
            "info" | "error" | "warning" => push(EventKind::Instruction),
            unknown => self.unknown_types.saw(unknown, line),
        }
        (events, from_user)
    }

    /// The text of a part list (thoughts dropped, as reasoning), and the calls and responses
    /// it holds, as events.
    fn split_parts<'a>(&mut self, line: u64, parts: Option<Parts<'a>>) -> (Cow<'a, str>, Vec<EventKind<'a>>) {
        let mut texts = Vec::new();
        let mut events = Vec::new();
        for part in parts.map(|p| p.0).unwrap_or_default() {
            match part {
                Part::Text { thought: true, .. } => events.push(EventKind::Reasoning),
                Part::Text { text, .. } => texts.push(text),
                Part::Call(call) => {
                    let name = call.name.unwrap_or(Cow::Borrowed("function"));
                    events.push(EventKind::ToolCall(tool_call(call.id, name, call.args)));
                }
                Part::Response(response) => events.push(EventKind::ToolResult(function_response(response))),
                Part::Other => {}
                Part::Unknown(kind) => self.unknown_parts.saw(&kind, line),
            }
        }
        (common::join_texts(texts.into_iter()), events)
    }

    /// A `toolCalls` entry: the call, then its result when it has one.
    fn tool_call_record<'a>(&mut self, line: u64, record: ToolCallRecord<'a>) -> Vec<EventKind<'a>> {
        let name = record.name.unwrap_or(Cow::Borrowed("tool"));
        let call = tool_call(record.id.clone(), name, record.args);
        let shell = call.command.is_some();
        let status = record.status.as_deref().unwrap_or("");
        let mut events = vec![EventKind::ToolCall(call)];
        let failed = matches!(status, "error" | "cancelled");
        let responses = record.result.map(|r| self.split_parts(line, Some(r)));
        let result = match responses {
            Some((text, parts)) => {
                let mut outputs: Vec<Cow<str>> = parts
                    .into_iter()
                    .filter_map(|p| match p {
                        EventKind::ToolResult(r) => Some(Cow::Owned(r.output.for_scanning().to_string())),
                        _ => None,
                    })
                    .collect();
                if !text.is_empty() {
                    outputs.push(text);
                }
                Some(common::join_texts(outputs.into_iter()))
            }
            None if failed => Some(Cow::Borrowed("")),
            None => None,
        };
        if let Some(output) = result {
            let output = unwrapped(&output);
            let (output, exit_code) = if shell { shell_result(output, status) } else { (output.to_string(), None) };
            events.push(EventKind::ToolResult(ToolResult {
                id: record.id,
                is_error: failed || exit_code.is_some_and(|c| c != 0),
                exit_code,
                stopped: status == "cancelled",
                output: Unredacted::new(output),
            }));
        }
        events
    }

    /// Gather a whole-file document's line; it is parsed once the file ends.
    fn gather(&mut self, line: u64, text: &str) {
        let Layout::Document(doc) = &mut self.layout else { return };
        if doc.too_big {
            return;
        }
        if doc.text.len() + text.len() > MAX_DOCUMENT_BYTES {
            doc.too_big = true;
            doc.text = String::new();
            self.warnings.push(LineWarning {
                line,
                message: format!(
                    "whole-file session is over {} MB; not read (convert it to .jsonl by resuming it in Gemini CLI)",
                    MAX_DOCUMENT_BYTES / (1024 * 1024)
                ),
            });
            return;
        }
        if let Some(id) = id_on_line(text) {
            doc.id_lines.entry(id.to_string()).or_insert(line);
        }
        doc.text.push_str(text);
        doc.text.push('\n');
    }

    /// Parse a gathered whole-file document into the replay.
    fn parse_document(&mut self) {
        let Layout::Document(doc) = &mut self.layout else { return };
        if doc.too_big || doc.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut doc.text);
        let first_line = doc.first_line;
        match serde_json::from_str::<Record>(&text) {
            Ok(record) => {
                self.metadata(first_line, record);
                self.cite_document_lines(&text, first_line);
            }
            Err(error) => {
                let at = first_line + (error.line() as u64).saturating_sub(1);
                let message = match error.classify() {
                    serde_json::error::Category::Eof => "whole-file session cut short",
                    _ => "whole-file session is not a conversation record",
                };
                let detail = common::describe(&error);
                self.warnings.push(LineWarning { line: at, message: format!("{message}: {detail}; not read") });
            }
        }
    }
}

impl GeminiReader {
    /// Point each event of a whole-file document at the line that holds its text, between
    /// its message's `"id"` (which Gemini CLI writes first) and the brace that closes the
    /// message: in a pretty-printed document every string stands on a line of its own, and
    /// that is the line a reader of the file looks for.
    fn cite_document_lines(&mut self, text: &str, first_line: u64) {
        let lines: Vec<&str> = text.lines().collect();
        for event in self.messages.iter_mut().flat_map(|held| held.events.iter_mut()) {
            // A message whose `"id"` was not found on a line of its own (a document not laid
            // out by Gemini CLI) cites the document's first line: searching from there for
            // every event would read the whole document once per event.
            if event.line == first_line {
                continue;
            }
            let Some(needle) = needle_of(&event.kind) else { continue };
            let from = usize::try_from(event.line.saturating_sub(first_line)).unwrap_or(usize::MAX);
            let Some(rest) = lines.get(from..) else { continue };
            let indent = |line: &str| line.len() - line.trim_start().len();
            let depth = rest.first().map_or(0, |l| indent(l));
            let message = rest.iter().take_while(|l| !(l.trim_start().starts_with('}') && indent(l) < depth));
            if let Some(offset) = message.into_iter().position(|l| l.contains(&needle)) {
                event.line += offset as u64;
            }
        }
    }
}

/// The start of an event's text as it is written inside a JSON string, to find its line.
fn needle_of(kind: &EventKind<'_>) -> Option<String> {
    let text = match kind {
        EventKind::User(text) | EventKind::Compaction(Some(text)) => text.as_ref(),
        EventKind::Assistant(text) => text.for_scanning(),
        EventKind::ToolCall(call) => call.command.as_deref().or(call.writes.first().map(String::as_str))?,
        EventKind::ToolResult(result) => result.output.for_scanning(),
        _ => return None,
    };
    let head: String = text.trim().lines().next()?.chars().take(48).collect();
    let quoted = serde_json::to_string(head.trim()).ok()?;
    let inner = quoted.get(1..quoted.len() - 1)?;
    (!inner.is_empty()).then(|| inner.to_string())
}

/// The user's text as an event: the harness's own context blocks are instructions, a
/// compression summary is a compaction, anything else the user's words.
fn user_text(text: Cow<'_, str>) -> Option<EventKind<'_>> {
    let head = text.trim_start();
    if head.is_empty() {
        None
    } else if head.starts_with("<session_context>") || head.starts_with("<hook_context>") {
        Some(EventKind::Instruction)
    } else if head.starts_with("<state_snapshot>") {
        Some(EventKind::Compaction(Some(text)))
    } else {
        Some(EventKind::User(text))
    }
}

/// The fields of a Gemini tool's arguments that name a command or files.
#[derive(Deserialize, Default)]
struct Args {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    file_path: Option<String>,
    #[serde(default)]
    absolute_path: Option<String>,
    #[serde(default)]
    include: Option<Vec<String>>,
    #[serde(default)]
    paths: Option<Vec<String>>,
}

/// A call as a normalised one: the shell tool runs a command, the edit tools write a file,
/// the read tools read files, and `save_memory` writes the user's `GEMINI.md`.
fn tool_call<'a>(id: Option<Cow<'a, str>>, name: Cow<'a, str>, args: Option<&'a RawValue>) -> ToolCall<'a> {
    let input = common::compact_input(args);
    let parsed: Args = serde_json::from_str(&input).unwrap_or_default();
    let path = parsed.file_path.or(parsed.absolute_path);
    let mut call = ToolCall { id, input: Unredacted::new(input), ..ToolCall::default() };
    match name.as_ref() {
        "run_shell_command" => call.command = parsed.command.map(Cow::Owned),
        "write_file" | "replace" | "edit" => call.writes = path.into_iter().collect(),
        "read_file" => call.reads = path.into_iter().collect(),
        "read_many_files" => call.reads = parsed.include.or(parsed.paths).unwrap_or_default(),
        "save_memory" => call.writes = vec!["GEMINI.md".to_string()],
        _ => {}
    }
    call.name = name;
    call
}

/// A `functionResponse` part as a result: its `output` (or `error`), or the whole response.
fn function_response(response: FunctionResponse<'_>) -> ToolResult<'_> {
    #[derive(Deserialize)]
    struct Body {
        #[serde(default)]
        output: Option<serde_json::Value>,
        #[serde(default)]
        error: Option<serde_json::Value>,
    }
    let raw = response.response.map_or("", RawValue::get);
    let body: Option<Body> = serde_json::from_str(raw).ok();
    let as_text = |v: serde_json::Value| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    };
    let (output, is_error) = match body {
        Some(Body { output: Some(output), .. }) => (as_text(output), false),
        Some(Body { error: Some(error), .. }) => (as_text(error), true),
        _ => (raw.to_string(), false),
    };
    let output = unwrapped(&output).to_string();
    let stopped = common::stopped_by_user(&output);
    ToolResult { id: response.id, output: Unredacted::new(output), exit_code: None, is_error, stopped }
}

/// Tool output without the `<untrusted_context>` wrapper Gemini CLI puts around it.
fn unwrapped(output: &str) -> &str {
    let trimmed = output.trim();
    trimmed
        .strip_prefix("<untrusted_context>")
        .and_then(|rest| rest.strip_suffix("</untrusted_context>"))
        .map_or(output, str::trim)
}

/// Lines `run_shell_command` writes before and after a command's output (older versions
/// write every one of them, with `(none)` for what did not happen).
const SHELL_HEADERS: [&str; 2] = ["Command: ", "Directory: "];
const SHELL_TRAILERS: [&str; 5] =
    ["Error: (none)", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: "];

/// A `run_shell_command` result as the command's own output and its exit status. The tool
/// writes `Output: …`, then `Error: …`, `Exit Code: N` (only when it is not zero, in current
/// versions) and process details, so a completed command that states no code exited with 0.
fn shell_result(output: &str, status: &str) -> (String, Option<i64>) {
    let mut lines: Vec<&str> = output.trim().lines().collect();
    let headers = lines.iter().take_while(|l| SHELL_HEADERS.iter().any(|h| l.starts_with(h))).count();
    let Some(first) = lines.get(headers).and_then(|l| l.strip_prefix("Output:")) else {
        return (output.to_string(), common::exit_code_from_text(output));
    };
    lines[headers] = first.strip_prefix(' ').unwrap_or(first);
    let mut lines = lines.split_off(headers);
    let mut code = None;
    let mut stated = false;
    while let Some(last) = lines.last() {
        let Some(trailer) = SHELL_TRAILERS.iter().find(|t| last.starts_with(*t)) else { break };
        if *trailer == "Exit Code: " {
            stated = true;
            code = last[trailer.len()..].trim().parse::<i64>().ok();
        }
        lines.pop();
    }
    let failed_to_run = lines.iter().any(|l| l.starts_with("Error: "));
    let text = lines.join("\n");
    let text = match text.trim() {
        "(empty)" => "",
        text => text,
    };
    let code = if stated { code } else { (status == "success" && !failed_to_run).then_some(0) };
    (text.to_string(), code)
}

/// The value of a `"id": "…"` line of a pretty-printed document.
fn id_on_line(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("\"id\": \"")?;
    let end = rest.find('"')?;
    Some(&rest[..end])
}

impl Reader for GeminiReader {
    fn read_line<'a>(&mut self, line: u64, text: &'a str, _emit: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError> {
        if matches!(self.layout, Layout::Undecided) {
            // `JSON.stringify(record, null, 2)` opens a whole-file session with a lone brace.
            self.layout = if text.trim() == "{" {
                Layout::Document(Document { first_line: line, ..Document::default() })
            } else {
                Layout::Lines
            };
        }
        if let Layout::Document(_) = self.layout {
            self.gather(line, text);
            return Ok(());
        }
        let record: Record<'_> = serde_json::from_str(text).map_err(|e| ReadError::record(line, e))?;
        self.apply(line, text, record);
        Ok(())
    }

    fn drain(&mut self, emit: &mut dyn FnMut(Event<'_>)) {
        self.parse_document();
        let mut pairing = Pairing::default();
        for held in std::mem::take(&mut self.messages) {
            self.meta.saw_time(held.time);
            if held.from_user {
                self.meta.user_messages += 1;
            }
            for event in held.events {
                if let Some(event) = pairing.admit(event) {
                    emit(event);
                }
            }
        }
        self.index.clear();
    }

    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>) {
        let mut meta = std::mem::take(&mut self.meta);
        if meta.is_subagent && !matches!(self.hint.folder.as_str(), "" | "chats") {
            // Sub-agent recordings sit in `chats/<parent session id>/`.
            meta.parent = Some(self.hint.folder.clone());
        }
        if meta.id.is_none() {
            meta.id = Some(self.hint.stem.clone()).filter(|s| !s.is_empty());
        }
        let mut warnings = std::mem::take(&mut self.warnings);
        warnings.extend(std::mem::take(&mut self.unknown_records).into_warnings("record"));
        warnings.extend(std::mem::take(&mut self.unknown_types).into_warnings("message type"));
        warnings.extend(std::mem::take(&mut self.unknown_parts).into_warnings("part kind"));
        warnings.sort_by_key(|w| w.line);
        (meta, warnings)
    }
}

/// Calls and results as they are sent: each once, and every result paired with a call.
///
/// A result is written twice (in the call's `toolCalls` entry and as the `functionResponse`
/// of the next user turn), and the filter withholds an instruction file's contents by the id
/// of the call that read it, so the second copy goes, and a response without an id (older
/// versions) takes the id of the oldest unanswered call: a turn's responses come in the order
/// of its calls.
#[derive(Default)]
struct Pairing {
    calls: HashSet<String>,
    answered: HashSet<String>,
    /// Calls without a result yet, oldest first.
    open: Vec<String>,
}

impl Pairing {
    fn admit<'a>(&mut self, event: Event<'a>) -> Option<Event<'a>> {
        let Event { line, kind } = event;
        let kind = match kind {
            EventKind::ToolCall(call) => {
                if let Some(id) = call.id.as_deref() {
                    if !self.calls.insert(id.to_string()) {
                        return None;
                    }
                    self.open.push(id.to_string());
                }
                EventKind::ToolCall(call)
            }
            EventKind::ToolResult(mut result) => {
                let id = match result.id.as_deref() {
                    Some(id) => id.to_string(),
                    None => {
                        let id = self.open.first().cloned()?;
                        result.id = Some(Cow::Owned(id.clone()));
                        id
                    }
                };
                if !self.answered.insert(id.clone()) {
                    return None;
                }
                self.open.retain(|open| *open != id);
                EventKind::ToolResult(result)
            }
            other => other,
        };
        Some(Event { line, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events, meta, and every warning and skipped line, of `lines` read in one file.
    pub(super) fn read_with(hint: FileHint, lines: &[&str]) -> (SessionMeta, Vec<Event<'static>>, Vec<String>) {
        let mut reader = GeminiReader::new(hint);
        let mut events = Vec::new();
        let mut errors = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if let Err(e) = reader.read_line(i as u64 + 1, line, &mut |ev| events.push(ev.into_owned())) {
                errors.push(format!("{}: {e}", e.line()));
            }
        }
        reader.drain(&mut |ev| events.push(ev.into_owned()));
        let (meta, warnings) = reader.finish();
        errors.extend(warnings.into_iter().map(|w| format!("{}: {}", w.line, w.message)));
        (meta, events, errors)
    }

    fn read(lines: &[&str]) -> (SessionMeta, Vec<Event<'static>>, Vec<String>) {
        read_with(FileHint { stem: "session-2026-03-01T10-00-1a2b3c4d".into(), ..FileHint::default() }, lines)
    }

    pub(super) fn texts(events: &[Event<'_>]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::User(t) => Some(format!("user: {t}")),
                EventKind::Assistant(t) => Some(format!("gemini: {}", t.for_scanning())),
                _ => None,
            })
            .collect()
    }

    const META: &str = r#"{"sessionId":"1a2b3c4d-0000-4000-8000-000000000001","projectHash":"5f0c","startTime":"2026-03-01T10:00:00.000Z","lastUpdated":"2026-03-01T10:00:00.000Z","kind":"main"}"#;

    #[test]
    fn replays_upserts_patches_and_rewinds() {
        let (meta, events, errors) = read(&[
            META,
            r#"{"id":"m1","timestamp":"2026-03-01T10:00:05.000Z","type":"user","content":[{"text":"Why does the parser fail?"}]}"#,
            r#"{"id":"m2","timestamp":"2026-03-01T10:00:06.000Z","type":"gemini","content":"first draft","model":"gemini-2.5-pro"}"#,
            r#"{"$set":{"lastUpdated":"2026-03-01T10:00:20.000Z","summary":"Diagnose the parser"}}"#,
            r#"{"id":"m3","timestamp":"2026-03-01T10:00:30.000Z","type":"user","content":"CANARY rewound away"}"#,
            r#"{"id":"m2","timestamp":"2026-03-01T10:00:06.000Z","type":"gemini","content":"It indexes an empty slice.","model":"gemini-2.5-pro"}"#,
            r#"{"$rewindTo":"m3"}"#,
            r#"{"id":"m4","timestamp":"2026-03-01T10:00:40.000Z","type":"user","content":"Fix it."}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            texts(&events),
            ["user: Why does the parser fail?", "gemini: It indexes an empty slice.", "user: Fix it."]
        );
        let lines: Vec<u64> = events.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 6, 8], "each message keeps the line of its last copy");
        assert_eq!(meta.id.as_deref(), Some("1a2b3c4d-0000-4000-8000-000000000001"));
        assert_eq!(meta.title.as_deref(), Some("Diagnose the parser"));
        assert_eq!(meta.model.as_deref(), Some("gemini-2.5-pro"));
        assert_eq!(meta.user_messages, 2);
        assert_eq!(meta.updated.map(|t| t.to_string()).as_deref(), Some("2026-03-01T10:00:40Z"));
    }

    #[test]
    fn a_messages_list_replaces_the_history_and_an_unknown_rewind_clears_it() {
        let (_, events, _) = read(&[
            META,
            r#"{"id":"m1","type":"user","content":"CANARY replaced"}"#,
            r#"{"$set":{"messages":[{"id":"s1","type":"user","content":[{"text":"<state_snapshot>goal: fix parser</state_snapshot>"}]},{"id":"s2","type":"gemini","content":[{"text":"Got it."}]}]}}"#,
            r#"{"id":"m5","type":"user","content":"Carry on."}"#,
        ]);
        assert_eq!(texts(&events), ["gemini: Got it.", "user: Carry on."]);
        assert!(matches!(&events[0].kind, EventKind::Compaction(Some(s)) if s.contains("goal: fix parser")));
        assert_eq!(events[0].line, 3);
        let (_, events, _) = read(&[META, r#"{"id":"m1","type":"user","content":"gone"}"#, r#"{"$rewindTo":"nope"}"#]);
        assert!(events.is_empty(), "{events:?}");
    }

    #[test]
    fn tool_calls_pair_with_their_results_once() {
        let (_, events, errors) = read(&[
            META,
            r#"{"id":"m1","type":"user","content":"Run the tests"}"#,
            r#"{"id":"m2","type":"gemini","content":"","thoughts":[{"subject":"Plan","description":"CANARY thought"}],"toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"cargo test"},"status":"executing"}]}"#,
            r#"{"id":"m2","type":"gemini","content":"","thoughts":[{"subject":"Plan","description":"CANARY thought"}],"toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"cargo test"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"<untrusted_context>\nOutput: test parse ... FAILED\nExit Code: 101\nProcess Group PGID: 7\n</untrusted_context>"}}}],"status":"success"},{"id":"c2","name":"write_file","args":{"file_path":"src/parse.rs","content":"fn x() {}"},"result":[{"functionResponse":{"id":"c2","name":"write_file","response":{"output":"Wrote src/parse.rs"}}}],"status":"success"},{"id":"c3","name":"run_shell_command","args":{"command":"cargo test"},"result":[{"functionResponse":{"id":"c3","name":"run_shell_command","response":{"output":"Output: ok\nProcess Group PGID: 8"}}}],"status":"success"}]}"#,
            r#"{"id":"m3","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"duplicate"}}},{"functionResponse":{"id":"c2","name":"write_file","response":{"output":"duplicate"}}}]}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        let calls: Vec<&ToolCall> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolCall(c) => Some(c),
                _ => None,
            })
            .collect();
        let results: Vec<&ToolResult> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolResult(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 3);
        assert_eq!(calls[0].command.as_deref(), Some("cargo test"));
        assert_eq!(calls[1].writes, ["src/parse.rs"]);
        assert_eq!(results.len(), 3, "the copies in the next user turn are dropped");
        assert_eq!((results[0].exit_code, results[0].output.for_scanning()), (Some(101), "test parse ... FAILED"));
        assert!(results[0].failed());
        assert_eq!((results[2].exit_code, results[2].output.for_scanning()), (Some(0), "ok"));
        assert!(events.iter().any(|e| e.kind == EventKind::Reasoning));
        assert!(!format!("{events:?}").contains("CANARY"));
    }

    #[test]
    fn harness_context_is_not_the_users_words() {
        let (meta, events, _) = read(&[
            META,
            r#"{"$set":{"messages":[{"id":"c0","type":"user","content":[{"text":"<session_context>\n--- Context from: GEMINI.md ---\nCANARY\n</session_context>"}]}]}}"#,
            r#"{"id":"m1","type":"user","content":[{"text":"Explain lib.rs"},{"text":"--- Content from referenced files ---\nCANARY file body"}],"displayContent":[{"text":"Explain @lib.rs"}]}"#,
            r#"{"id":"m2","type":"gemini","content":[{"text":"CANARY thinking","thought":true},{"text":"It parses."}]}"#,
            r#"{"id":"m3","type":"info","content":"Request cancelled."}"#,
            r#"{"id":"m4","type":"error","content":"CANARY quota exceeded"}"#,
        ]);
        assert_eq!(texts(&events), ["user: Explain @lib.rs", "gemini: It parses."]);
        assert_eq!(meta.user_messages, 1);
        let instructions = events.iter().filter(|e| e.kind == EventKind::Instruction).count();
        assert_eq!(instructions, 3, "the session context, the notice and the error");
    }

    #[test]
    fn reading_an_instruction_file_names_it() {
        let (_, events, _) = read(&[
            META,
            r#"{"id":"m1","type":"gemini","content":"","toolCalls":[{"id":"r1","name":"read_file","args":{"file_path":"/w/GEMINI.md"},"result":[{"functionResponse":{"id":"r1","name":"read_file","response":{"output":"CANARY"}}}],"status":"success"},{"id":"r2","name":"save_memory","args":{"fact":"use pnpm"},"status":"success"}]}"#,
        ]);
        let EventKind::ToolCall(read) = &events[0].kind else { panic!("{events:?}") };
        assert_eq!(read.reads, ["/w/GEMINI.md"]);
        let EventKind::ToolCall(memory) = &events[2].kind else { panic!("{events:?}") };
        assert_eq!(memory.writes, ["GEMINI.md"]);
    }

    #[test]
    fn calls_and_responses_in_parts_pair_by_order_when_they_have_no_ids() {
        let (_, events, _) = read(&[
            META,
            r#"{"id":"m1","type":"gemini","content":[{"functionCall":{"name":"read_file","args":{"file_path":"AGENTS.md"}}}]}"#,
            r#"{"id":"m2","type":"user","content":[{"functionResponse":{"name":"read_file","response":{"output":"CANARY"}}}]}"#,
        ]);
        let ids: Vec<Option<&str>> = events
            .iter()
            .map(|e| match &e.kind {
                EventKind::ToolCall(c) => c.id.as_deref(),
                EventKind::ToolResult(r) => r.id.as_deref(),
                _ => None,
            })
            .collect();
        assert_eq!(ids, [Some("m1#0"), Some("m1#0")]);
    }

    #[test]
    fn a_whole_file_session_is_read_when_it_ends() {
        // As Gemini CLI writes it: `JSON.stringify(record, null, 2)`, each message's id first.
        let document = r#"{
  "sessionId": "0c0c0c0c-0000-4000-8000-000000000009",
  "projectHash": "ab12",
  "startTime": "2025-09-01T08:00:00.000Z",
  "lastUpdated": "2025-09-01T08:05:00.000Z",
  "messages": [
    {
      "id": "u1",
      "timestamp": "2025-09-01T08:00:01.000Z",
      "type": "user",
      "content": "Fix the build"
    },
    {
      "id": "g1",
      "timestamp": "2025-09-01T08:00:09.000Z",
      "type": "gemini",
      "content": "Done.",
      "model": "gemini-2.5-flash"
    }
  ],
  "summary": "Fix the build, then say so"
}"#;
        let lines: Vec<&str> = document.lines().collect();
        let (meta, events, errors) = read(&lines);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(texts(&events), ["user: Fix the build", "gemini: Done."]);
        let line_of = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap() as u64 + 1;
        assert_eq!(events[0].line, line_of(r#""content": "Fix the build""#), "the line that holds the text");
        assert_eq!(events[1].line, line_of(r#""content": "Done.""#));
        assert_eq!(
            (meta.title.as_deref(), meta.model.as_deref()),
            (Some("Fix the build, then say so"), Some("gemini-2.5-flash"))
        );

        let (_, events, errors) = read(&lines[..lines.len() - 3]);
        assert!(events.is_empty());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("whole-file session cut short"), "{errors:?}");
    }

    #[test]
    fn unknown_records_and_parts_are_reported_once() {
        let (_, events, errors) = read(&[
            META,
            r#"{"id":"m1","type":"user","content":[{"text":"hi"},{"hologram":{"x":1}}]}"#,
            r#"{"id":"m2","type":"narration","content":"x"}"#,
            r#"{"id":"m3","type":"narration","content":"y"}"#,
            r#"{"$future":true}"#,
            r#"{"id":"m4","type":"gemini","content":"ok","newField":{"deep":[1,2]}}"#,
            r#"{"id":"m5","type":"user","content":42}"#,
        ]);
        assert_eq!(texts(&events), ["user: hi", "gemini: ok"]);
        assert_eq!(
            errors,
            [
                "7: record of an unexpected shape: invalid type: integer `42`, expected text, a part, or a list of parts (column 37)",
                "2: unknown part kind `hologram` skipped",
                "3: unknown message type `narration` skipped (1 more line like it)",
                "5: unknown record `$future` skipped",
            ]
        );
    }

    #[test]
    fn a_sub_agent_names_its_parent_by_its_folder() {
        let hint = FileHint {
            stem: "9f9f".into(),
            folder: "1a2b3c4d-0000-4000-8000-000000000001".into(),
            ..FileHint::default()
        };
        let (meta, _, _) = read_with(
            hint,
            &[r#"{"sessionId":"9f9f","projectHash":"5f0c","kind":"subagent","directories":["/w/app"]}"#],
        );
        assert!(meta.is_subagent);
        assert_eq!(meta.parent.as_deref(), Some("1a2b3c4d-0000-4000-8000-000000000001"));
        assert_eq!(meta.cwd.as_deref(), Some("/w/app"));
        let hint = FileHint { project: Some("/w/site".into()), folder: "chats".into(), ..FileHint::default() };
        let (meta, _, _) = read_with(hint, &[META]);
        assert_eq!((meta.is_subagent, meta.parent, meta.cwd.as_deref()), (false, None, Some("/w/site")));
    }

    #[test]
    fn shell_results_give_their_output_and_status() {
        assert_eq!(shell_result("Output: (empty)\nProcess Group PGID: 1", "success"), (String::new(), Some(0)));
        assert_eq!(
            shell_result("Output: boom\nline 2\nExit Code: 2\nSignal: 9", "success"),
            ("boom\nline 2".into(), Some(2))
        );
        assert_eq!(shell_result("Output: \nError: spawn ENOENT", "success"), ("Error: spawn ENOENT".into(), None));
        assert_eq!(
            shell_result("Command was cancelled by user.", "cancelled"),
            ("Command was cancelled by user.".into(), None)
        );
        let old = "Command: go build\nDirectory: (root)\nOutput: main.go:7: undefined: cfg\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 9";
        assert_eq!(shell_result(old, "success"), ("main.go:7: undefined: cfg".into(), Some(1)));
        let killed = "Output: partial\nExit Code: (none)\nSignal: 9";
        assert_eq!(shell_result(killed, "success"), ("partial".into(), None));
        assert_eq!(unwrapped("<untrusted_context>\nhi\n</untrusted_context>"), "hi");
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::tests::{read_with, texts};
    use super::*;

    fn config() -> ProptestConfig {
        ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
    }

    /// One operation of a recording, over a few message ids so that they collide.
    #[derive(Debug, Clone)]
    enum Op {
        Message { id: u8, user: bool, word: u16 },
        Rewind(u8),
        Replace(Vec<(u8, bool, u16)>),
        Title(u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u8..6, any::<bool>(), any::<u16>()).prop_map(|(id, user, word)| Op::Message { id, user, word }),
            1 => (0u8..8).prop_map(Op::Rewind),
            1 => prop::collection::vec((0u8..6, any::<bool>(), any::<u16>()), 0..4).prop_map(Op::Replace),
            1 => any::<u16>().prop_map(Op::Title),
        ]
    }

    fn message(id: u8, user: bool, word: u16) -> serde_json::Value {
        let kind = if user { "user" } else { "gemini" };
        serde_json::json!({"id": format!("m{id}"), "type": kind, "content": [{"text": format!("w{word}")}]})
    }

    fn line_of(op: &Op) -> String {
        match op {
            Op::Message { id, user, word } => message(*id, *user, *word).to_string(),
            Op::Rewind(id) => serde_json::json!({"$rewindTo": format!("m{id}")}).to_string(),
            Op::Replace(list) => {
                let messages: Vec<_> = list.iter().map(|&(id, user, word)| message(id, user, word)).collect();
                serde_json::json!({"$set": {"messages": messages}}).to_string()
            }
            Op::Title(word) => serde_json::json!({"$set": {"summary": format!("t{word}")}}).to_string(),
        }
    }

    /// What Gemini CLI itself makes of the operations: the texts that survive, in order.
    fn replay(ops: &[Op]) -> Vec<String> {
        let mut kept: Vec<(u8, String)> = Vec::new();
        let upsert = |kept: &mut Vec<(u8, String)>, id: u8, user: bool, word: u16| {
            let text = format!("{}: w{word}", if user { "user" } else { "gemini" });
            match kept.iter().position(|(k, _)| *k == id) {
                Some(at) => kept[at].1 = text,
                None => kept.push((id, text)),
            }
        };
        for op in ops {
            match op {
                Op::Message { id, user, word } => upsert(&mut kept, *id, *user, *word),
                Op::Rewind(id) => {
                    let at = kept.iter().position(|(k, _)| k == id).unwrap_or(0);
                    kept.truncate(at);
                }
                Op::Replace(list) => {
                    kept.clear();
                    for &(id, user, word) in list {
                        upsert(&mut kept, id, user, word);
                    }
                }
                Op::Title(_) => {}
            }
        }
        kept.into_iter().map(|(_, text)| text).collect()
    }

    const META: &str = r#"{"sessionId":"s","projectHash":"p","startTime":"2026-03-01T10:00:00.000Z"}"#;

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn a_log_cut_at_a_line_reads_exactly_the_replay_of_its_lines(ops in prop::collection::vec(op(), 0..24), cut in any::<prop::sample::Index>()) {
            let mut lines = vec![META.to_string()];
            lines.extend(ops.iter().map(line_of));
            let kept = cut.index(lines.len() + 1);
            let refs: Vec<&str> = lines[..kept].iter().map(String::as_str).collect();
            let (_, events, errors) = read_with(FileHint::default(), &refs);
            prop_assert!(errors.is_empty(), "{:?}", errors);
            prop_assert_eq!(texts(&events), replay(&ops[..kept.saturating_sub(1)]));
        }

        #[test]
        fn a_line_cut_short_is_reported_and_the_rest_replayed(ops in prop::collection::vec(op(), 1..16), at in any::<prop::sample::Index>()) {
            let mut lines = vec![META.to_string()];
            lines.extend(ops.iter().map(line_of));
            let last = lines.pop().unwrap_or_default();
            let torn = &last[..at.index(last.len().max(1)).clamp(1, last.len().saturating_sub(1).max(1))];
            let mut refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            refs.push(torn);
            let (_, events, errors) = read_with(FileHint::default(), &refs);
            prop_assert_eq!(errors.len(), 1, "{:?}", errors);
            prop_assert!(errors[0].starts_with(&format!("{}: ", refs.len())), "{:?}", errors);
            prop_assert_eq!(texts(&events), replay(&ops[..ops.len() - 1]));
        }

        #[test]
        fn arbitrary_lines_never_panic(lines in prop::collection::vec(".{0,80}", 0..12)) {
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            read_with(FileHint::default(), &refs);
        }

        #[test]
        fn mutated_recordings_never_panic(ops in prop::collection::vec(op(), 0..12), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), pretty in any::<bool>()) {
            let mut text = if pretty {
                let messages: Vec<_> = ops.iter().map(|o| serde_json::from_str::<serde_json::Value>(&line_of(o)).unwrap()).collect();
                serde_json::to_string_pretty(&serde_json::json!({"sessionId": "s", "projectHash": "p", "messages": messages})).unwrap()
            } else {
                ops.iter().map(line_of).collect::<Vec<_>>().join("\n")
            }
            .into_bytes();
            for (at, byte) in flips {
                if !text.is_empty() {
                    let i = at.index(text.len());
                    text[i] = byte;
                }
            }
            let text = String::from_utf8_lossy(&text);
            let refs: Vec<&str> = text.lines().collect();
            read_with(FileHint::default(), &refs);
        }
    }
}
