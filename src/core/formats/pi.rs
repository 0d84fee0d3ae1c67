//! Reader for pi (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`) and Oh My Pi
//! (`~/.omp/agent/sessions/…`) sessions, which share one format.
//!
//! Version 1 files are an append-only list of entries and are read as they stream. Versions
//! 2 and 3 are a tree (`id`/`parentId`): a user who goes back to an earlier point leaves the
//! branch they were on, and the session is the path from the last entry back to its root.
//! Nothing on an abandoned branch may be learned, so a tree is held until the file ends and
//! only that path is sent ([`Reader::drain`]). A fork (`parentSession`, v1 `branchedFrom`)
//! starts with a copy of its parent's entries, older than its own header, which are dropped as
//! the copies they are. Oh My Pi adds a title slot before the header, `title_change`,
//! `session_init` (its sub-agents), `fileMention` and `pythonExecution`; the system prompt
//! (pi's `system`, Oh My Pi's `developer` messages), extension messages and thinking carry no
//! text past the reader.

use std::borrow::Cow;
use std::collections::HashMap;

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::common::{self, LooseText};
use super::{FileHint, ReadError, Reader, UnknownTypes};
use crate::core::session::{Event, EventKind, LineWarning, SessionMeta, ToolCall, ToolResult, Unredacted};

/// The newest session version this reader was written against.
const KNOWN_VERSION: u64 = 3;

/// Entry types read for their metadata only, or deliberately skipped: harness state,
/// bookkeeping and settings that say nothing about the work.
const SKIPPED_TYPES: &[&str] = &[
    "thinking_level_change",
    "custom",
    "label",
    "usage",
    "context_edit",
    "model_usage",
    "service_tier_change",
    "reset_boundary",
    "ttsr_injection",
    "credential_pin",
    "mode_change",
];

/// One line: the header, the Oh My Pi title slot, or an entry, in the union of their fields.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "parentSession", borrow, default)]
    parent_session: Option<Cow<'a, str>>,
    #[serde(rename = "branchedFrom", borrow, default)]
    branched_from: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    title: Option<Cow<'a, str>>,
    /// `session_info`: the name the user gave the session.
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// pi's `model_change` and v1 header.
    #[serde(rename = "modelId", borrow, default)]
    model_id: Option<Cow<'a, str>>,
    /// Oh My Pi's `model_change`: `provider/modelId`.
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    summary: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
}

/// An `AgentMessage`, in the union of the fields of its roles.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    /// A string, or a list of content blocks.
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
    #[serde(borrow, default)]
    details: Option<&'a RawValue>,
    /// `bashExecution`.
    #[serde(borrow, default)]
    command: Option<Cow<'a, str>>,
    /// `pythonExecution` (Oh My Pi).
    #[serde(borrow, default)]
    code: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<LooseText<'a>>,
    #[serde(rename = "exitCode", default)]
    exit_code: Option<i64>,
    #[serde(default)]
    cancelled: Option<bool>,
    /// `fileMention` (Oh My Pi): files the user attached with `@path`.
    #[serde(borrow, default)]
    files: Option<Vec<MentionedFile<'a>>>,
    #[serde(borrow, default)]
    summary: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct MentionedFile<'a> {
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<LooseText<'a>>,
}

/// A content block of an assistant message, in the union of the fields of its kinds.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The arguments of pi's tools that name a command or a file.
#[derive(Deserialize, Default)]
struct Arguments {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    file_path: Option<String>,
}

/// Oh My Pi's tool result details.
#[derive(Deserialize)]
struct Details {
    #[serde(rename = "exitCode", default)]
    exit_code: Option<i64>,
}

/// What one entry says about the session, applied only if the entry is on the active path.
#[derive(Default)]
struct Effects {
    model: Option<String>,
    title: Option<String>,
    user_messages: u32,
    subagent: bool,
}

/// One entry of a tree, held until the file ends.
struct Node {
    id: String,
    parent: Option<String>,
    line: u64,
    events: Vec<Event<'static>>,
    effects: Effects,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// No header or entry has said yet.
    Unknown,
    /// Version 1: entries without ids, in order.
    List,
    /// Versions 2 and 3: a tree of entries.
    Tree,
}

/// Reads one pi or Oh My Pi session.
pub(crate) struct PiReader {
    hint: FileHint,
    meta: SessionMeta,
    shape: Shape,
    saw_header: bool,
    /// The header's time, when the session is a fork whose older entries are copies.
    fork_start: Option<Timestamp>,
    /// Oh My Pi's title slot, which always holds the current title.
    slot_title: Option<String>,
    nodes: Vec<Node>,
    /// Entries of a tree without an `id`, which no path can reach: the first line and count.
    without_id: Option<(u64, u64)>,
    unknown_types: UnknownTypes,
    unknown_roles: UnknownTypes,
    warnings: Vec<LineWarning>,
}

impl PiReader {
    pub(crate) fn new(hint: FileHint) -> PiReader {
        PiReader {
            hint,
            meta: SessionMeta::default(),
            shape: Shape::Unknown,
            saw_header: false,
            fork_start: None,
            slot_title: None,
            nodes: Vec::new(),
            without_id: None,
            unknown_types: UnknownTypes::default(),
            unknown_roles: UnknownTypes::default(),
            warnings: Vec::new(),
        }
    }

    fn header(&mut self, line: u64, header: &Line<'_>) {
        // pi writes one header; anything that looks like a second one says nothing new.
        if self.saw_header {
            return;
        }
        self.saw_header = true;
        SessionMeta::set_if_present(&mut self.meta.id, header.id.as_deref());
        SessionMeta::set_if_present(&mut self.meta.cwd, header.cwd.as_deref());
        SessionMeta::set_if_present(&mut self.meta.model, header.model_id.as_deref());
        SessionMeta::set_if_present(&mut self.meta.title, header.title.as_deref());
        let version = header.version.and_then(|v| serde_json::from_str::<u64>(v.get()).ok()).unwrap_or(1);
        if version > KNOWN_VERSION {
            self.warnings.push(LineWarning {
                line,
                message: format!(
                    "session version {version} is newer than the {KNOWN_VERSION} this reader knows; read as far as it goes"
                ),
            });
        }
        if self.shape == Shape::Unknown {
            self.shape = if version >= 2 { Shape::Tree } else { Shape::List };
        }
        let parent = header.parent_session.as_deref().or(header.branched_from.as_deref());
        if let Some(parent) = parent.filter(|p| !p.trim().is_empty()) {
            self.meta.parent = Some(session_id_of(parent));
            self.fork_start = common::parse_time(header.timestamp.as_deref());
        }
    }

    /// The events of one entry, sent to `emit`, and what it says about the session.
    fn entry<'a>(&mut self, line: u64, entry: Line<'a>, emit: &mut dyn FnMut(Event<'a>), effects: &mut Effects) {
        let kind = entry.kind.as_deref().unwrap_or("");
        match kind {
            "message" => {
                if let Some(message) = entry.message {
                    self.message(line, message, emit, effects);
                }
            }
            "model_change" => {
                let model = entry.model_id.as_deref().or(entry.model.as_deref().map(without_provider));
                effects.model = model.map(str::to_string);
            }
            "compaction" | "branch_summary" => emit(Event { line, kind: EventKind::Compaction(entry.summary) }),
            "custom_message" => emit(Event { line, kind: EventKind::Instruction }),
            "session_info" => effects.title = entry.name.map(Cow::into_owned),
            "title_change" => effects.title = entry.title.map(Cow::into_owned),
            // An Oh My Pi sub-agent's first entry: its system prompt and the task it was given.
            "session_init" => {
                effects.subagent = true;
                emit(Event { line, kind: EventKind::Instruction });
            }
            known if SKIPPED_TYPES.contains(&known) => {}
            unknown => self.unknown_types.saw(unknown, line),
        }
    }

    fn message<'a>(&mut self, line: u64, message: Message<'a>, emit: &mut dyn FnMut(Event<'a>), effects: &mut Effects) {
        let role = message.role.as_deref().unwrap_or("");
        match role {
            "user" => {
                let text = user_text(message.content);
                if !text.trim().is_empty() {
                    effects.user_messages += 1;
                    emit(Event { line, kind: EventKind::User(text) });
                }
            }
            "assistant" => {
                if let Some(model) = message.model.as_deref().filter(|m| !m.trim().is_empty()) {
                    effects.model = Some(model.to_string());
                }
                assistant_blocks(line, message.content, emit);
            }
            "toolResult" => emit(Event { line, kind: EventKind::ToolResult(tool_result(message)) }),
            "bashExecution" | "pythonExecution" => user_execution(line, message, emit),
            "fileMention" => mentioned_files(line, message.files.unwrap_or_default(), emit),
            "branchSummary" | "compactionSummary" => {
                emit(Event { line, kind: EventKind::Compaction(message.summary) });
            }
            "system" | "developer" | "custom" | "hookMessage" => emit(Event { line, kind: EventKind::Instruction }),
            unknown => self.unknown_roles.saw(unknown, line),
        }
    }

    /// True when a fork's entry is a copy of its parent's history.
    fn is_copied(&self, timestamp: Option<&str>) -> bool {
        match (self.fork_start, common::parse_time(timestamp)) {
            (Some(start), Some(ts)) => ts < start,
            _ => false,
        }
    }

    fn apply(&mut self, effects: Effects) {
        SessionMeta::set_if_present(&mut self.meta.model, effects.model.as_deref());
        SessionMeta::set_if_present(&mut self.meta.title, effects.title.as_deref());
        self.meta.user_messages += effects.user_messages;
        self.meta.is_subagent |= effects.subagent;
    }

    /// Hold one entry of a tree.
    fn hold(&mut self, line: u64, entry: Line<'_>) {
        let Some(id) = entry.id.as_deref().map(str::to_string) else {
            self.without_id.get_or_insert((line, 0)).1 += 1;
            return;
        };
        let parent = entry.parent_id.as_deref().map(str::to_string);
        let copied = self.is_copied(entry.timestamp.as_deref());
        let mut events = Vec::new();
        let mut effects = Effects::default();
        self.entry(line, entry, &mut |event| events.push(event.into_owned()), &mut effects);
        if copied {
            // Kept for its place in the tree; what it says was learned from the parent.
            events.clear();
            effects = Effects::default();
        }
        self.nodes.push(Node { id, parent, line, events, effects });
    }

    /// The indexes of the nodes on the path from the last entry back to its root, root first.
    fn active_path(&mut self) -> Vec<usize> {
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            index.insert(node.id.as_str(), i);
        }
        let mut path = Vec::new();
        let mut at = self.nodes.len().checked_sub(1);
        let mut broken = None;
        while let Some(i) = at {
            // A cycle (a damaged file) would walk forever; no path is longer than the tree.
            if path.len() == self.nodes.len() {
                broken = Some((self.nodes[i].line, "it runs in a circle".to_string()));
                break;
            }
            path.push(i);
            at = match self.nodes[i].parent.as_deref() {
                None => None,
                Some(parent) => match index.get(parent) {
                    Some(&p) => Some(p),
                    None => {
                        let why = format!("the parent `{parent}` of its entry is not in the file");
                        broken = Some((self.nodes[i].line, why));
                        None
                    }
                },
            };
        }
        if let Some((line, why)) = broken {
            self.warnings.push(LineWarning {
                line,
                message: format!(
                    "the active branch stops here: {why} (damaged or cut?); earlier entries were not read"
                ),
            });
        }
        path.reverse();
        path
    }
}

/// A user message's text: a string, or the text blocks of a list (images are skipped).
fn user_text(content: Option<&RawValue>) -> Cow<'_, str> {
    let Some(raw) = content else { return Cow::Borrowed("") };
    serde_json::from_str::<LooseText>(raw.get()).map_or(Cow::Borrowed(""), LooseText::into_cow)
}

/// The blocks of an assistant message: text, thinking, tool calls. A turn that was aborted or
/// failed is read as far as it got.
fn assistant_blocks<'a>(line: u64, content: Option<&'a RawValue>, emit: &mut dyn FnMut(Event<'a>)) {
    let Some(raw) = content else { return };
    if raw.get().starts_with('"') {
        if let Ok(text) = serde_json::from_str::<Cow<str>>(raw.get()) {
            emit(Event { line, kind: EventKind::Assistant(Unredacted::new(text)) });
        }
        return;
    }
    let Ok(blocks) = serde_json::from_str::<Vec<Block<'a>>>(raw.get()) else { return };
    for block in blocks {
        let kind = match block.kind.as_deref() {
            Some("text") => match block.text {
                Some(text) if !text.trim().is_empty() => EventKind::Assistant(Unredacted::new(text)),
                _ => continue,
            },
            Some("thinking" | "redactedThinking" | "redacted_thinking") => EventKind::Reasoning,
            Some("toolCall") => EventKind::ToolCall(tool_call(block)),
            _ => continue,
        };
        emit(Event { line, kind });
    }
}

/// A `toolCall` block as a normalised call: `bash` runs a command, `write` and `edit` write a
/// file, `read` reads one.
fn tool_call(block: Block<'_>) -> ToolCall<'_> {
    let input = common::compact_input(block.arguments);
    let args: Arguments = serde_json::from_str(&input).unwrap_or_default();
    let name = block.name.unwrap_or(Cow::Borrowed("tool"));
    let path = args.path.or(args.file_path).filter(|p| !p.trim().is_empty());
    let (command, writes, reads) = match name.as_ref() {
        "bash" | "powershell" => (args.command, Vec::new(), Vec::new()),
        "write" | "edit" | "ast_edit" | "notebook_edit" => (None, path.into_iter().collect(), Vec::new()),
        "read" => (None, Vec::new(), path.into_iter().collect()),
        _ => (None, Vec::new(), Vec::new()),
    };
    ToolCall { id: block.id, name, command: command.map(Cow::Owned), writes, reads, input: Unredacted::new(input) }
}

fn tool_result(message: Message<'_>) -> ToolResult<'_> {
    let output = message
        .content
        .and_then(|raw| serde_json::from_str::<LooseText>(raw.get()).ok())
        .map_or(Cow::Borrowed(""), LooseText::into_cow);
    // Oh My Pi records a failed command's status in `details`; pi writes it into the text
    // (`Command exited with code 1`).
    let from_details =
        message.details.and_then(|raw| serde_json::from_str::<Details>(raw.get()).ok()).and_then(|d| d.exit_code);
    let exit_code = from_details.or_else(|| common::exit_code_from_text(&output));
    ToolResult {
        id: message.tool_call_id,
        exit_code,
        is_error: message.is_error == Some(true),
        stopped: common::stopped_by_user(&output),
        output: Unredacted::new(output),
    }
}

/// A command the user ran themselves (`!cmd`, or Oh My Pi's `$code`): a call and its result.
fn user_execution<'a>(line: u64, message: Message<'a>, emit: &mut dyn FnMut(Event<'a>)) {
    let id: Cow<str> = Cow::Owned(format!("user-run-{line}"));
    let (name, command, input) = match (message.command, message.code) {
        (Some(command), _) => ("bash", Some(command.clone()), command),
        (None, Some(code)) => ("python", None, code),
        (None, None) => ("bash", None, Cow::Borrowed("")),
    };
    emit(Event {
        line,
        kind: EventKind::ToolCall(ToolCall {
            id: Some(id.clone()),
            name: Cow::Borrowed(name),
            command,
            input: Unredacted::new(input),
            ..ToolCall::default()
        }),
    });
    let cancelled = message.cancelled == Some(true);
    let output = message.output.map_or(Cow::Borrowed(""), LooseText::into_cow);
    let exit_code = message.exit_code.filter(|_| !cancelled);
    let is_error = cancelled || exit_code.is_some_and(|c| c != 0);
    let result = ToolResult { id: Some(id), output: Unredacted::new(output), exit_code, is_error, stopped: cancelled };
    emit(Event { line, kind: EventKind::ToolResult(result) });
}

/// Files the user attached (`@AGENTS.md`): each a read of that file and its contents, so an
/// instruction file among them is withheld like any other read of one.
fn mentioned_files<'a>(line: u64, files: Vec<MentionedFile<'a>>, emit: &mut dyn FnMut(Event<'a>)) {
    for (n, file) in files.into_iter().enumerate() {
        let id: Cow<str> = Cow::Owned(format!("mention-{line}-{n}"));
        let path = file.path.map(Cow::into_owned).unwrap_or_default();
        let input = serde_json::json!({ "path": path }).to_string();
        emit(Event {
            line,
            kind: EventKind::ToolCall(ToolCall {
                id: Some(id.clone()),
                name: Cow::Borrowed("read"),
                reads: vec![path],
                input: Unredacted::new(input),
                ..ToolCall::default()
            }),
        });
        let output = file.content.map_or(Cow::Borrowed(""), LooseText::into_cow);
        let result = ToolResult { id: Some(id), output: Unredacted::new(output), ..ToolResult::default() };
        emit(Event { line, kind: EventKind::ToolResult(result) });
    }
}

/// `anthropic/claude-opus-4-5` → `claude-opus-4-5`.
fn without_provider(model: &str) -> &str {
    model.split_once('/').map_or(model, |(_, rest)| rest)
}

/// The session id in a session file's path (`…/<time>_<uuid>.jsonl`), or the path itself.
fn session_id_of(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    match stem.rsplit_once('_') {
        Some((_, id)) if !id.is_empty() => id.to_string(),
        _ => stem.to_string(),
    }
}

impl Reader for PiReader {
    fn read_line<'a>(&mut self, line: u64, text: &'a str, emit: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError> {
        let entry: Line<'a> = serde_json::from_str(text).map_err(|e| ReadError::record(line, e))?;
        let Some(kind) = entry.kind.as_deref() else {
            return Err(ReadError::MissingField { line, field: "type" });
        };
        self.meta.saw_time(common::parse_time(entry.timestamp.as_deref()));
        match kind {
            "session" => {
                self.header(line, &entry);
                return Ok(());
            }
            "title" => {
                SessionMeta::set_if_present(&mut self.slot_title, entry.title.as_deref());
                return Ok(());
            }
            _ => {}
        }
        if self.shape == Shape::Unknown {
            // No header: the entries say which shape the file has.
            self.shape = if entry.id.is_some() { Shape::Tree } else { Shape::List };
        }
        if self.shape == Shape::Tree {
            self.hold(line, entry);
            return Ok(());
        }
        if self.is_copied(entry.timestamp.as_deref()) {
            return Ok(());
        }
        let mut effects = Effects::default();
        self.entry(line, entry, emit, &mut effects);
        self.apply(effects);
        Ok(())
    }

    fn drain(&mut self, emit: &mut dyn FnMut(Event<'_>)) {
        let path = self.active_path();
        let mut nodes: Vec<Option<Node>> = std::mem::take(&mut self.nodes).into_iter().map(Some).collect();
        for i in path {
            let Some(node) = nodes[i].take() else { continue };
            node.events.into_iter().for_each(&mut *emit);
            self.apply(node.effects);
        }
    }

    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>) {
        let mut meta = std::mem::take(&mut self.meta);
        if let Some(title) = self.slot_title.take() {
            meta.title = Some(title);
        }
        if meta.id.is_none() {
            meta.id = Some(session_id_of(&self.hint.stem)).filter(|id| !id.is_empty());
        }
        let mut warnings = std::mem::take(&mut self.warnings);
        if let Some((line, count)) = self.without_id.take() {
            let entries = crate::core::words::count(count as usize, "entry");
            warnings.push(LineWarning { line, message: format!("{entries} of a tree without an `id` skipped") });
        }
        warnings.extend(std::mem::take(&mut self.unknown_types).into_warnings("entry type"));
        warnings.extend(std::mem::take(&mut self.unknown_roles).into_warnings("message role"));
        warnings.sort_by_key(|w| w.line);
        (meta, warnings)
    }
}

#[cfg(test)]
mod tests;
