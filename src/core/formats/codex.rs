//! Reader for OpenAI Codex CLI rollouts: the `{timestamp,type,payload}` envelope of current
//! versions and the bare-item shape of mid-2025 versions.
//!
//! Codex writes user and assistant text twice, as a `response_item` message and as an
//! `event_msg`. Prompts are taken from `event_msg.user_message` (what the user typed, without
//! harness context) and assistant text from `response_item`; the other copy is dropped. A
//! sub-agent or forked rollout starts with a copy of its parent's history, recognised by
//! timestamps older than its own start, and dropped.
//!
//! Each line is parsed once, into one struct holding the union of the payload fields, so the
//! bulky strings (tool outputs) are scanned a single time.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::common::{self, LooseText, Text, ToolInput};
use super::{FileHint, ReadError, Reader, UnknownTypes};
use crate::core::filter::{WITHHELD, names_instruction_file};
use crate::core::session::{Event, EventKind, LineWarning, SessionMeta, ToolCall, ToolResult, Unredacted};

/// Top-level record types this reader knows, including those it deliberately skips.
const KNOWN_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "token_usage_record",
    "world_state",
    "retained_context",
    "security_risk_score",
    "realtime_item",
];

/// Tool names that run a shell command.
const SHELL_TOOLS: &[&str] = &["shell", "container.exec", "shell_command", "exec_command", "local_shell", "bash"];

/// One line: the envelope, and the legacy header's fields.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<Payload<'a>>,
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
    // The legacy header line.
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(default)]
    git: Option<Git>,
    #[serde(default)]
    record_type: Option<serde::de::IgnoredAny>,
}

/// The union of the fields of every payload this reader uses: `session_meta`,
/// `turn_context`, `response_item`, `event_msg` and `compacted`.
#[derive(Deserialize, Default)]
struct Payload<'a> {
    /// The item or event kind (`message`, `function_call`, `user_message`, ...).
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    forked_from_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source: Option<&'a RawValue>,
    #[serde(default)]
    git: Option<Git>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Text<'a>>,
    #[serde(borrow, default)]
    message: Option<Text<'a>>,
    #[serde(borrow, default)]
    thread_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// A JSON document encoded as a string, or (in some versions) the document itself.
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<LooseText<'a>>,
    #[serde(borrow, default)]
    input: Option<LooseText<'a>>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Git {
    #[serde(default)]
    branch: Option<String>,
    #[serde(default)]
    repository_url: Option<String>,
}

/// `{"subagent": …}` in `session_meta.source`.
#[derive(Deserialize)]
struct Source {
    #[serde(default)]
    subagent: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ShellAction {
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    query: Option<String>,
}

/// The JSON form older versions used for a command's output.
#[derive(Deserialize)]
struct StructuredOutput<'a> {
    #[serde(borrow)]
    output: Cow<'a, str>,
    #[serde(default)]
    metadata: Option<OutputMetadata>,
}

#[derive(Deserialize)]
struct OutputMetadata {
    #[serde(default)]
    exit_code: Option<i64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    ResponseItem,
    EventMsg,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Speaker {
    User,
    Assistant,
}

/// Recent message texts, to drop the second copy Codex writes of each one.
#[derive(Default)]
struct Echoes {
    recent: VecDeque<(Stream, Speaker, u64)>,
    user_from_events: bool,
    assistant_from_items: bool,
}

impl Echoes {
    const WINDOW: usize = 16;

    /// True when this message is the copy of one already emitted from the other stream.
    fn is_copy(&mut self, stream: Stream, speaker: Speaker, text: &str) -> bool {
        // Once a stream has shown it carries this speaker, the other stream's copies go.
        match (stream, speaker) {
            (Stream::EventMsg, Speaker::User) => self.user_from_events = true,
            (Stream::ResponseItem, Speaker::Assistant) => self.assistant_from_items = true,
            (Stream::ResponseItem, Speaker::User) if self.user_from_events => return true,
            (Stream::EventMsg, Speaker::Assistant) if self.assistant_from_items => return true,
            _ => {}
        }
        let mut hasher = DefaultHasher::new();
        text.trim().hash(&mut hasher);
        let hash = hasher.finish();
        let twin = self.recent.iter().position(|&(s, who, h)| s != stream && who == speaker && h == hash);
        if let Some(index) = twin {
            self.recent.remove(index);
            return true;
        }
        if self.recent.len() == Self::WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back((stream, speaker, hash));
        false
    }
}

/// Reads one Codex rollout.
pub(crate) struct CodexReader {
    hint: FileHint,
    meta: SessionMeta,
    /// Start of this thread; older records in a sub-agent or fork are copied history.
    own_start: Option<Timestamp>,
    copies_history: bool,
    echoes: Echoes,
    unknown: UnknownTypes,
    /// Unified-exec processes still running: exec session id → the call that started them.
    running: HashMap<String, String>,
    /// `write_stdin` calls: call id → the exec session they talk to.
    stdin_calls: HashMap<String, String>,
    /// Running processes that were sent a command naming an instruction file (`cat
    /// AGENTS.md` typed into a shell): their output is that file's contents.
    tainted: HashSet<String>,
}

impl CodexReader {
    pub(crate) fn new(hint: FileHint) -> CodexReader {
        CodexReader {
            hint,
            meta: SessionMeta::default(),
            own_start: None,
            copies_history: false,
            echoes: Echoes::default(),
            unknown: UnknownTypes::default(),
            running: HashMap::new(),
            stdin_calls: HashMap::new(),
            tainted: HashSet::new(),
        }
    }

    fn session_meta(&mut self, meta: Payload<'_>) {
        // A resumed rollout may carry a second session_meta for a parent; the first one wins.
        if self.meta.id.is_some() {
            return;
        }
        SessionMeta::set_if_present(&mut self.meta.id, meta.id.as_deref());
        SessionMeta::set_if_present(&mut self.meta.cwd, meta.cwd.as_deref());
        if let Some(git) = meta.git {
            SessionMeta::set_if_present(&mut self.meta.git_branch, git.branch.as_deref());
            SessionMeta::set_if_present(&mut self.meta.git_remote, git.repository_url.as_deref());
        }
        self.own_start = common::parse_time(meta.timestamp.as_deref());
        if let Some(source) = meta.source.and_then(|s| serde_json::from_str::<Source>(s.get()).ok())
            && let Some(subagent) = source.subagent
        {
            self.meta.is_subagent = true;
            self.copies_history = true;
            let parent = subagent.pointer("/thread_spawn/parent_thread_id").and_then(|p| p.as_str());
            SessionMeta::set_if_present(&mut self.meta.parent, parent);
        }
        if meta.forked_from_id.is_some() {
            self.copies_history = true;
        }
    }

    fn response_item<'a>(
        &mut self,
        line: u64,
        item: Payload<'a>,
        emit: &mut dyn FnMut(Event<'a>),
    ) -> Result<(), ReadError> {
        let text = |t: Option<Text<'a>>| t.map_or(Cow::Borrowed(""), Text::into_cow);
        let kind = match item.kind.as_deref().unwrap_or("") {
            "message" => {
                let content = text(item.content);
                match item.role.as_deref() {
                    Some("user") => {
                        if self.echoes.is_copy(Stream::ResponseItem, Speaker::User, &content) {
                            return Ok(());
                        }
                        self.meta.user_messages += 1;
                        EventKind::User(content)
                    }
                    Some("assistant") => {
                        if self.echoes.is_copy(Stream::ResponseItem, Speaker::Assistant, &content) {
                            return Ok(());
                        }
                        EventKind::Assistant(Unredacted::new(content))
                    }
                    _ => EventKind::Instruction,
                }
            }
            "reasoning" => EventKind::Reasoning,
            "function_call" => {
                let name = item.name.unwrap_or(Cow::Borrowed("function"));
                let args = match item.arguments {
                    Some(raw) if raw.get().starts_with('"') => serde_json::from_str::<Cow<str>>(raw.get())
                        .map_err(|e| ReadError::field(line, "arguments", e))?,
                    Some(raw) => Cow::Borrowed(raw.get()),
                    None => Cow::Borrowed(""),
                };
                if name == "write_stdin" {
                    // Not a new command: input to (or a poll of) one already running.
                    if let (Some(call), Some(session)) = (item.call_id, exec_session_of(&args)) {
                        if stdin_chars_of(&args).is_some_and(|chars| names_instruction_file(&chars)) {
                            self.tainted.insert(session.clone());
                        }
                        self.stdin_calls.insert(call.into_owned(), session);
                    }
                    return Ok(());
                }
                EventKind::ToolCall(tool_call(item.call_id, name, args))
            }
            "custom_tool_call" => {
                let input = item.input.map_or(Cow::Borrowed(""), LooseText::into_cow);
                let name = item.name.unwrap_or(Cow::Borrowed("custom_tool"));
                let writes = if name == "apply_patch" { common::patch_files(&input) } else { Vec::new() };
                EventKind::ToolCall(ToolCall {
                    id: item.call_id,
                    name,
                    command: None,
                    writes,
                    reads: Vec::new(),
                    input: Unredacted::new(input),
                })
            }
            "function_call_output" | "custom_tool_call_output" => {
                let mut result = tool_output(item.call_id, item.output);
                let polled = result.id.as_deref().and_then(|id| self.stdin_calls.remove(id));
                if let Some(session) = polled {
                    // The exit status of a process started earlier arrives with a later poll.
                    let Some(started_by) = self.running.get(&session).cloned() else { return Ok(()) };
                    if result.exit_code.is_none() {
                        return Ok(());
                    }
                    self.running.remove(&session);
                    result.id = Some(Cow::Owned(started_by));
                    if self.tainted.remove(&session) {
                        result.output = Unredacted::new(WITHHELD);
                    }
                } else if result.exit_code.is_none()
                    && let Some(session) = running_session(result.output.for_scanning())
                {
                    // Still running: the result comes with a later `write_stdin` poll.
                    if let Some(call) = &result.id {
                        self.running.insert(session, call.to_string());
                    }
                    return Ok(());
                }
                EventKind::ToolResult(result)
            }
            "local_shell_call" => {
                let action: ShellAction = match item.action {
                    Some(raw) => {
                        serde_json::from_str(raw.get()).map_err(|e| ReadError::field(line, "local_shell_call", e))?
                    }
                    None => ShellAction { command: Vec::new(), query: None },
                };
                let command = common::command_from_argv(&action.command);
                EventKind::ToolCall(ToolCall {
                    id: item.call_id,
                    name: Cow::Borrowed("local_shell"),
                    input: Unredacted::new(command.clone()),
                    command: Some(Cow::Owned(command)),
                    ..ToolCall::default()
                })
            }
            "web_search_call" => {
                let query = item
                    .action
                    .and_then(|raw| serde_json::from_str::<ShellAction>(raw.get()).ok())
                    .and_then(|a| a.query)
                    .unwrap_or_default();
                EventKind::ToolCall(ToolCall {
                    id: item.call_id,
                    name: Cow::Borrowed("web_search"),
                    input: Unredacted::new(query),
                    ..ToolCall::default()
                })
            }
            // Opaque or bookkeeping items (compaction blobs, ghost snapshots, tool search,
            // image generation, newer internal kinds) carry nothing to learn from.
            _ => return Ok(()),
        };
        emit(Event { line, kind });
        Ok(())
    }

    fn event_msg<'a>(&mut self, line: u64, msg: Payload<'a>, emit: &mut dyn FnMut(Event<'a>)) {
        let text = msg.message.map_or(Cow::Borrowed(""), Text::into_cow);
        let kind = match msg.kind.as_deref().unwrap_or("") {
            "user_message" => {
                if self.echoes.is_copy(Stream::EventMsg, Speaker::User, &text) {
                    return;
                }
                self.meta.user_messages += 1;
                EventKind::User(text)
            }
            "agent_message" => {
                if self.echoes.is_copy(Stream::EventMsg, Speaker::Assistant, &text) {
                    return;
                }
                EventKind::Assistant(Unredacted::new(text))
            }
            "agent_reasoning" | "agent_reasoning_raw_content" => EventKind::Reasoning,
            "thread_name_updated" => {
                SessionMeta::set_if_present(&mut self.meta.title, msg.thread_name.as_deref());
                return;
            }
            // Runtime events (token counts, turn markers, command and patch echoes of items
            // already read) add nothing.
            _ => return,
        };
        emit(Event { line, kind });
    }

    /// True when a record is part of the parent history a sub-agent or fork starts with.
    fn is_copied_history(&self, timestamp: Option<&str>, metadata: Option<&RawValue>) -> bool {
        if metadata.is_some_and(|m| m.get().contains("\"inherited_user_message\":true")) {
            return true;
        }
        if !self.copies_history {
            return false;
        }
        match (self.own_start, common::parse_time(timestamp)) {
            (Some(start), Some(ts)) => ts < start,
            _ => false,
        }
    }

    fn legacy_header(&mut self, line: Line<'_>) {
        if line.record_type.is_some() {
            return;
        }
        if self.meta.id.is_none() {
            SessionMeta::set_if_present(&mut self.meta.id, line.id.as_deref());
        }
        SessionMeta::set_if_present(&mut self.meta.cwd, line.cwd.as_deref());
        if let Some(git) = line.git {
            SessionMeta::set_if_present(&mut self.meta.git_branch, git.branch.as_deref());
            SessionMeta::set_if_present(&mut self.meta.git_remote, git.repository_url.as_deref());
        }
    }
}

fn tool_call<'a>(id: Option<Cow<'a, str>>, name: Cow<'a, str>, args: Cow<'a, str>) -> ToolCall<'a> {
    let input = ToolInput::parse(&args);
    let is_shell = SHELL_TOOLS.contains(&name.as_ref()) || input.cmd.is_some();
    let mut command = if is_shell { input.shell_command() } else { None };
    let mut writes = Vec::new();
    if name == "apply_patch" {
        let patch = input.input.as_deref().or(input.patch.as_deref()).unwrap_or(&args);
        writes = common::patch_files(patch);
    } else if let Some(cmd) = command.as_deref().filter(|c| common::is_inline_patch(c)) {
        // Older versions ran `apply_patch <<'EOF' … EOF` through the shell tool.
        writes = common::patch_files(cmd);
        command = None;
    }
    ToolCall { id, name, command: command.map(Cow::Owned), writes, reads: Vec::new(), input: Unredacted::new(args) }
}

fn tool_output<'a>(call_id: Option<Cow<'a, str>>, output: Option<LooseText<'a>>) -> ToolResult<'a> {
    let text = output.map_or(Cow::Borrowed(""), LooseText::into_cow);
    // Older versions wrapped the output as `{"output": …, "metadata": {"exit_code": …}}`.
    if text.starts_with('{')
        && let Ok(structured) = serde_json::from_str::<StructuredOutput>(&text)
        && let Some(code) = structured.metadata.and_then(|m| m.exit_code)
    {
        return ToolResult {
            id: call_id,
            output: Unredacted::new(structured.output.into_owned()),
            exit_code: Some(code),
            is_error: code != 0,
            stopped: false,
        };
    }
    let exit_code = common::exit_code_from_text(&text);
    let stopped = common::stopped_by_user(&text);
    ToolResult {
        id: call_id,
        is_error: exit_code.is_some_and(|c| c != 0),
        exit_code,
        stopped,
        output: Unredacted::new(text),
    }
}

impl Reader for CodexReader {
    fn read_line<'a>(&mut self, line: u64, text: &'a str, emit: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError> {
        let record: Line<'a> = serde_json::from_str(text).map_err(|e| ReadError::record(line, e))?;
        if self.is_copied_history(record.timestamp.as_deref(), record.metadata) {
            return Ok(());
        }
        self.meta.saw_time(common::parse_time(record.timestamp.as_deref()));
        let Some(kind) = record.kind.clone() else {
            // Legacy header (`{"id","timestamp","instructions",…}`) or a state marker.
            self.legacy_header(record);
            return Ok(());
        };
        let Some(payload) = record.payload else {
            // Legacy rollouts write response items bare, without an envelope.
            let item: Payload<'a> = serde_json::from_str(text).map_err(|e| ReadError::record(line, e))?;
            return self.response_item(line, item, emit);
        };
        match kind.as_ref() {
            "session_meta" => self.session_meta(payload),
            "response_item" => return self.response_item(line, payload, emit),
            "event_msg" => self.event_msg(line, payload, emit),
            "turn_context" => {
                SessionMeta::set_if_present(&mut self.meta.cwd, payload.cwd.as_deref());
                SessionMeta::set_if_present(&mut self.meta.model, payload.model.as_deref());
            }
            "compacted" => {
                let summary = payload.message.map(Text::into_cow);
                emit(Event { line, kind: EventKind::Compaction(summary) });
            }
            known if KNOWN_TYPES.contains(&known) => {}
            unknown => self.unknown.saw(unknown, line),
        }
        Ok(())
    }

    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>) {
        let mut meta = std::mem::take(&mut self.meta);
        if meta.id.is_none() {
            meta.id = id_from_file_name(&self.hint.stem);
        }
        let warnings = std::mem::take(&mut self.unknown).into_warnings("record type");
        (meta, warnings)
    }
}

/// The exec session a unified-exec output says is still running
/// (`Process running with session ID 7`).
fn running_session(output: &str) -> Option<String> {
    const MARKER: &str = "Process running with session ID ";
    let head = output.get(..output.len().min(512)).or(Some(output))?;
    let start = head.find(MARKER)? + MARKER.len();
    let id: String = head[start..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    (!id.is_empty()).then_some(id)
}

/// The exec session a `write_stdin` call addresses (`{"session_id": 7, "chars": ""}`).
/// The text a `write_stdin` call types into the process.
fn stdin_chars_of(args: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(args).ok()?;
    value.get("chars")?.as_str().map(str::to_string)
}

fn exec_session_of(args: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(args).ok()?;
    match value.get("session_id")? {
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The thread id at the right end of `rollout-<timestamp>-<uuid>`.
fn id_from_file_name(stem: &str) -> Option<String> {
    let stem = stem.strip_suffix(".jsonl").unwrap_or(stem);
    if stem.len() >= 36 {
        let candidate = &stem[stem.len() - 36..];
        let is_uuid = candidate.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        });
        if is_uuid {
            return Some(candidate.to_string());
        }
    }
    (!stem.is_empty()).then(|| stem.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> (SessionMeta, Vec<EventKind<'static>>, Vec<String>) {
        let mut reader = CodexReader::new(FileHint {
            stem: "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111".into(),
            ..FileHint::default()
        });
        let mut events = Vec::new();
        let mut errors = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let owned: &'static str = Box::leak(line.to_string().into_boxed_str());
            if let Err(e) = reader.read_line(i as u64 + 1, owned, &mut |ev| events.push(ev.kind)) {
                errors.push(e.to_string());
            }
        }
        let (meta, warnings) = reader.finish();
        errors.extend(warnings.into_iter().map(|w| w.message));
        (meta, events, errors)
    }

    #[test]
    fn reads_the_current_envelope_and_drops_echoed_copies() {
        let (meta, events, errors) = read(&[
            r#"{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"11111111-1111-4111-8111-111111111111","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/w/app","git":{"branch":"main","repository_url":"git@github.com:acme/app.git"},"source":"cli"}}"#,
            r#"{"timestamp":"2026-01-02T03:04:06.000Z","type":"turn_context","payload":{"cwd":"/w/app","model":"gpt-5"}}"#,
            r#"{"timestamp":"2026-01-02T03:04:07.000Z","type":"event_msg","payload":{"type":"user_message","message":"Run the tests"}}"#,
            r#"{"timestamp":"2026-01-02T03:04:07.001Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the tests"}]}}"#,
            r#"{"timestamp":"2026-01-02T03:04:08.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"secret plan"}]}}"#,
            r#"{"timestamp":"2026-01-02T03:04:09.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test\"}","call_id":"c1"}}"#,
            r#"{"timestamp":"2026-01-02T03:04:10.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a\nWall time: 1.0 seconds\nProcess exited with code 101\nOutput:\nerror[E0425]: cannot find value"}}"#,
            r#"{"timestamp":"2026-01-02T03:04:11.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Tests fail."}}"#,
            r#"{"timestamp":"2026-01-02T03:04:11.001Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Tests fail."}]}}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(meta.id.as_deref(), Some("11111111-1111-4111-8111-111111111111"));
        assert_eq!(meta.git_branch.as_deref(), Some("main"));
        assert_eq!(meta.git_remote.as_deref(), Some("git@github.com:acme/app.git"));
        assert_eq!(meta.model.as_deref(), Some("gpt-5"));
        let users = events.iter().filter(|e| matches!(e, EventKind::User(_))).count();
        let assistants = events.iter().filter(|e| matches!(e, EventKind::Assistant(_))).count();
        assert_eq!((users, assistants), (1, 1));
        assert!(events.contains(&EventKind::Reasoning));
        let call = events
            .iter()
            .find_map(|e| match e {
                EventKind::ToolCall(c) => Some(c),
                _ => None,
            })
            .unwrap();
        assert_eq!(call.command.as_deref(), Some("cargo test"));
        let result = events
            .iter()
            .find_map(|e| match e {
                EventKind::ToolResult(r) => Some(r),
                _ => None,
            })
            .unwrap();
        assert_eq!(result.exit_code, Some(101));
        assert!(result.failed());
    }

    #[test]
    fn reads_structured_outputs_patches_and_local_shell_calls() {
        let (_, events, errors) = read(&[
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"npm test\"]}","call_id":"c1"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"1 failing\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.5}}"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/a.rs\n*** End Patch","call_id":"c2"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["ls","-la"]}}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"serde flatten"}}}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        let calls: Vec<&ToolCall> = events
            .iter()
            .filter_map(|e| match e {
                EventKind::ToolCall(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls[0].command.as_deref(), Some("npm test"));
        assert_eq!(calls[1].writes, ["src/a.rs"]);
        assert_eq!(calls[2].command.as_deref(), Some("ls -la"));
        assert_eq!(calls[3].input.for_scanning(), "serde flatten");
        let result = events
            .iter()
            .find_map(|e| match e {
                EventKind::ToolResult(r) => Some(r),
                _ => None,
            })
            .unwrap();
        assert_eq!((result.exit_code, result.output.for_scanning()), (Some(1), "1 failing"));
    }

    #[test]
    fn sub_agent_rollouts_drop_the_copied_parent_history() {
        let (meta, events, _) = read(&[
            r#"{"timestamp":"2026-01-03T04:05:10.000Z","type":"session_meta","payload":{"id":"33333333-3333-4333-8333-333333333333","timestamp":"2026-01-03T04:05:10.000Z","source":{"subagent":{"thread_spawn":{"parent_thread_id":"22222222-2222-4222-8222-222222222222"}}}}}"#,
            r#"{"timestamp":"2026-01-03T04:05:07.000Z","type":"event_msg","payload":{"type":"user_message","message":"Spawn a researcher."}}"#,
            r#"{"timestamp":"2026-01-03T04:05:11.000Z","type":"event_msg","payload":{"type":"user_message","message":"Inspect fixtures."}}"#,
        ]);
        assert!(meta.is_subagent);
        assert_eq!(meta.parent.as_deref(), Some("22222222-2222-4222-8222-222222222222"));
        assert_eq!(events, [EventKind::User(Cow::Borrowed("Inspect fixtures."))]);
    }

    #[test]
    fn reads_the_legacy_bare_item_shape() {
        let (meta, events, errors) = read(&[
            r#"{"id":"0f0e0d0c-0000-4000-8000-000000000001","timestamp":"2025-06-01T10:00:00Z","instructions":"be nice","cwd":"/w/old","git":{"branch":"dev","repository_url":"https://github.com/acme/old.git"}}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the build"}]}"#,
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"c1"}"#,
            r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"ok\",\"metadata\":{\"exit_code\":0}}"}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(meta.id.as_deref(), Some("0f0e0d0c-0000-4000-8000-000000000001"));
        assert_eq!(meta.cwd.as_deref(), Some("/w/old"));
        assert_eq!(meta.git_remote.as_deref(), Some("https://github.com/acme/old.git"));
        assert_eq!(events.len(), 3);
    }

    #[test]
    fn a_long_running_command_gets_its_exit_status_from_a_later_poll() {
        let (_, events, errors) = read(&[
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo test --workspace\"}","call_id":"c1"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\nCompiling"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":7,\"chars\":\"\"}","call_id":"c2"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: b\nWall time: 5.0 seconds\nProcess exited with code 101\nOutput:\ntest result: FAILED"}}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        let results: Vec<&ToolResult> = events
            .iter()
            .filter_map(|e| match e {
                EventKind::ToolResult(r) => Some(r),
                _ => None,
            })
            .collect();
        assert_eq!(results.len(), 1);
        assert_eq!((results[0].id.as_deref(), results[0].exit_code), (Some("c1"), Some(101)));
        let calls = events.iter().filter(|e| matches!(e, EventKind::ToolCall(_))).count();
        assert_eq!(calls, 1, "write_stdin is not a command of its own");
    }

    #[test]
    fn arguments_may_be_a_document_instead_of_a_string() {
        let (_, events, errors) = read(&[
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":{"command":"make lint"},"call_id":"c1"}}"#,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(&events[0], EventKind::ToolCall(c) if c.command.as_deref() == Some("make lint")));
    }

    #[test]
    fn unknown_record_types_are_reported_once() {
        let (_, _, errors) = read(&[
            r#"{"timestamp":"t","type":"future_record","payload":{}}"#,
            r#"{"timestamp":"t","type":"future_record","payload":{}}"#,
            r#"{"timestamp":"t","type":"token_usage_record","payload":{}}"#,
        ]);
        assert_eq!(errors, ["unknown record type `future_record` skipped (1 more line like it)"]);
    }

    #[test]
    fn the_file_name_gives_the_id_when_session_meta_is_missing() {
        assert_eq!(
            id_from_file_name("rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111").as_deref(),
            Some("11111111-1111-4111-8111-111111111111")
        );
    }
}
