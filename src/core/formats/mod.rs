//! Transcript readers: one module per agent format, all producing the normalised
//! [`Event`] stream and [`SessionMeta`] of [`crate::core::session`].
//!
//! A reader is fed one line at a time and never sees the file, so it runs on string literals
//! in tests and on a streamed file in production. Every record type and role is an open set:
//! an unknown one is skipped, and reported once per file with the line it first appeared on.

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod common;
pub(crate) mod gemini;
pub(crate) mod generic;
pub(crate) mod opencode;
pub(crate) mod pi;
#[cfg(test)]
mod properties;

use std::collections::BTreeMap;
use std::fmt;

use crate::core::session::{Agent, Event, LineWarning, SessionMeta};

/// What a reader knows about the file before it reads a line of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileHint {
    /// File name without the `.jsonl` (or `.jsonl.zst`) extension.
    pub(crate) stem: String,
    /// The file sits in a `subagents/` folder (Claude Code 2.1 layout).
    pub(crate) in_subagents_dir: bool,
    /// A short hash of the whole path, for formats whose file names are not unique.
    pub(crate) path_hash: String,
    /// Name of the folder the file is in (a Gemini CLI sub-agent's parent session id).
    pub(crate) folder: String,
    /// The project directory the agent's own records map the file's folder to, when the
    /// edge found one (Gemini CLI's `projects.json`).
    pub(crate) project: Option<String>,
}

impl FileHint {
    /// The hint for a file path given as text.
    pub(crate) fn from_path(path: &str) -> FileHint {
        let normalised = path.replace('\\', "/");
        let name = normalised.rsplit('/').next().unwrap_or(&normalised);
        let stem = [".jsonl.zst", ".jsonl", ".json"]
            .iter()
            .find_map(|extension| name.strip_suffix(extension))
            .unwrap_or(name)
            .to_string();
        let parent = normalised.rsplit('/').nth(1).unwrap_or("");
        let in_subagents_dir = parent == "subagents";
        let path_hash = blake3::hash(normalised.as_bytes()).to_hex()[..8].to_string();
        FileHint { stem, in_subagents_dir, path_hash, folder: parent.to_string(), project: None }
    }
}

/// A transcript reader: a state machine over the lines of one file.
pub(crate) trait Reader {
    /// Read one line (without its line ending), sending the events it holds to `emit`.
    /// An error means the line was skipped; the reader stays usable.
    fn read_line<'a>(&mut self, line: u64, text: &'a str, emit: &mut dyn FnMut(Event<'a>)) -> Result<(), ReadError>;

    /// Send the events held back until the whole file was seen, once its last line has been
    /// read. Formats whose later lines rewrite earlier ones (upserts and rewinds, a tree whose
    /// active branch is known only at the end, a whole JSON document) hold their events until
    /// then; append-only line formats emit as they read and hold nothing.
    fn drain(&mut self, _emit: &mut dyn FnMut(Event<'_>)) {}

    /// The metadata gathered over all lines, and warnings that were held back to be reported
    /// once per file (unknown record types).
    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>);
}

/// Why a reader skipped a line of a transcript. Each knows its line, so the warning can name
/// it; the message itself does not repeat it, because warnings are printed and stored as
/// `<line>: <message>`.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The line is not JSON.
    NotJson { line: u64, source: serde_json::Error },
    /// The line's JSON stops before the record closes: a line torn by a writer, or cut.
    CutShort { line: u64, source: serde_json::Error },
    /// JSON, but not shaped like a record of the format (a number where text goes).
    UnexpectedShape { line: u64, source: serde_json::Error },
    /// A field that holds JSON as text (a tool call's arguments) does not parse.
    MalformedField { line: u64, field: &'static str, source: serde_json::Error },
    /// The record lacks the field every record of the format has.
    MissingField { line: u64, field: &'static str },
}

impl ReadError {
    /// The error for line `line`, which did not parse as a record, by what went wrong.
    pub(crate) fn record(line: u64, source: serde_json::Error) -> ReadError {
        match source.classify() {
            serde_json::error::Category::Eof => ReadError::CutShort { line, source },
            serde_json::error::Category::Data => ReadError::UnexpectedShape { line, source },
            _ => ReadError::NotJson { line, source },
        }
    }

    /// The error for a `field` of line `line` whose JSON text did not parse.
    pub(crate) fn field(line: u64, field: &'static str, source: serde_json::Error) -> ReadError {
        ReadError::MalformedField { line, field, source }
    }

    /// The transcript line that was skipped, counting from 1.
    pub(crate) fn line(&self) -> u64 {
        match self {
            ReadError::NotJson { line, .. }
            | ReadError::CutShort { line, .. }
            | ReadError::UnexpectedShape { line, .. }
            | ReadError::MalformedField { line, .. }
            | ReadError::MissingField { line, .. } => *line,
        }
    }
}

/// The JSON error is part of the message, worded for one line of a transcript (a column, not
/// serde's `line 1`), as well as the [`source`](std::error::Error::source).
impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let detail = common::describe;
        match self {
            ReadError::NotJson { source, .. } => write!(f, "not a JSON record: {}", detail(source)),
            ReadError::CutShort { source, .. } => write!(f, "record cut short: {}", detail(source)),
            ReadError::UnexpectedShape { source, .. } => {
                write!(f, "record of an unexpected shape: {}", detail(source))
            }
            ReadError::MalformedField { field, source, .. } => write!(f, "malformed {field}: {}", detail(source)),
            ReadError::MissingField { field, .. } => write!(f, "record has no `{field}`"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::NotJson { source, .. }
            | ReadError::CutShort { source, .. }
            | ReadError::UnexpectedShape { source, .. }
            | ReadError::MalformedField { source, .. } => Some(source),
            ReadError::MissingField { .. } => None,
        }
    }
}

/// Text of the lines whose meaning later lines depend on, per format: the poll that carries
/// the output of a process started earlier (Codex `write_stdin`, `Process running with
/// session ID`), the background shell whose output another call reads (Claude Code
/// `bash_id`). A search that reads only the lines that can match must read these too, or the
/// filter would not know that a later output is an instruction file's contents. A file of
/// unknown format may be a pi tree, whose every entry (`"parentId"`) the reader needs to find
/// the active branch.
pub(crate) fn state_lines(agent: Option<Agent>) -> &'static [&'static str] {
    const CODEX: &[&str] = &["write_stdin", "Process running with session ID"];
    const CLAUDE: &[&str] = &["in background with ID", "bash_id", "shell_id"];
    const ANY: &[&str] = &[
        "write_stdin",
        "Process running with session ID",
        "in background with ID",
        "bash_id",
        "shell_id",
        "\"parentId\"",
    ];
    match agent {
        Some(Agent::Codex) => CODEX,
        Some(Agent::Claude) => CLAUDE,
        // These readers need every line, which the prefilter passes anyway.
        Some(Agent::Generic | Agent::Pi | Agent::OhMyPi | Agent::Opencode | Agent::Gemini) => &[],
        None => ANY,
    }
}

/// A new reader for `agent`'s format.
pub(crate) fn reader_for(agent: Agent, hint: FileHint) -> Box<dyn Reader> {
    match agent {
        Agent::Codex => Box::new(codex::CodexReader::new(hint)),
        Agent::Claude => Box::new(claude::ClaudeReader::new(hint)),
        Agent::Generic => Box::new(generic::GenericReader::new(hint)),
        Agent::Pi | Agent::OhMyPi => Box::new(pi::PiReader::new(hint)),
        Agent::Opencode => Box::new(opencode::OpencodeReader::new(hint)),
        Agent::Gemini => Box::new(gemini::GeminiReader::new(hint)),
    }
}

/// The format a path implies by where it lives: the agents' own folders and file names.
pub(crate) fn format_by_location(path: &str) -> Option<Agent> {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or(&p);
    let rollout = name.starts_with("rollout-") && (name.ends_with(".jsonl") || name.ends_with(".jsonl.zst"));
    if p.contains("/.codex/") || rollout {
        Some(Agent::Codex)
    } else if p.contains("/.claude/projects/") {
        Some(Agent::Claude)
    } else if p.contains("/.pi/agent/sessions/") {
        Some(Agent::Pi)
    } else if p.contains("/.omp/agent/sessions/") {
        Some(Agent::OhMyPi)
    } else if p.contains("/opencode/storage/session/") || is_opencode_database(name) {
        Some(Agent::Opencode)
    } else if p.contains("/.gemini/tmp/") {
        Some(Agent::Gemini)
    } else {
        None
    }
}

/// True for an opencode database's file name: `opencode.db`, `opencode-<channel>.db`.
pub(crate) fn is_opencode_database(name: &str) -> bool {
    name == "opencode.db" || (name.starts_with("opencode-") && name.ends_with(".db"))
}

/// The agent of a file whose records say `sniffed`, lying where `located` says: the records
/// decide the format, and the folder tells apart agents that share one (pi's format under
/// Oh My Pi's folder is Oh My Pi's session).
pub(crate) fn refined(sniffed: Agent, located: Option<Agent>) -> Agent {
    match (sniffed, located) {
        (Agent::Pi, Some(Agent::OhMyPi)) => Agent::OhMyPi,
        (sniffed, _) => sniffed,
    }
}

/// What the first records of a file say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sniffed {
    /// A format handbook reads.
    Known(Agent),
    /// A transcript of an agent handbook has no reader for yet.
    Unsupported(&'static str),
}

/// Guess the format from the first records of a file. `lines` are the first few non-blank
/// lines; the first one that says something decides.
pub(crate) fn sniff<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<Sniffed> {
    let lines: Vec<&str> = lines.into_iter().collect();
    if is_opencode_export(&lines) {
        return Some(Sniffed::Known(Agent::Opencode));
    }
    lines.into_iter().find_map(sniff_line)
}

/// An `opencode export` document: one JSON object whose `info` is a session (`ses_…`),
/// pretty-printed over many lines or on one.
fn is_opencode_export(lines: &[&str]) -> bool {
    let Some(first) = lines.first().map(|l| l.trim_start()) else { return false };
    if first == "{" {
        let key = |l: &&str| l.trim_start().starts_with("\"info\"") || l.trim_start().starts_with("\"messages\"");
        let session = |l: &&str| l.trim_start().starts_with("\"id\": \"ses_");
        return lines.get(1).is_some_and(key) && lines.iter().take(8).any(session);
    }
    first.starts_with('{')
        && serde_json::from_str::<serde_json::Value>(first).is_ok_and(|v| {
            let id = v.get("info").and_then(|i| i.get("id")).and_then(|i| i.as_str());
            id.is_some_and(|id| id.starts_with("ses_")) && v.get("messages").is_some_and(|m| m.is_array())
        })
}

fn sniff_line(line: &str) -> Option<Sniffed> {
    // An older whole-file Gemini CLI session is one pretty-printed document: no line of it
    // is JSON on its own, but its metadata keys stand on lines of their own.
    if line.trim_start().starts_with("\"projectHash\":") {
        return Some(Sniffed::Known(Agent::Gemini));
    }
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let obj = value.as_object()?;
    let kind = obj.get("type").and_then(|t| t.as_str());
    // Gemini CLI chat recordings look like others at a glance.
    if obj.contains_key("projectHash") || obj.contains_key("$set") || obj.contains_key("$rewindTo") {
        return Some(Sniffed::Known(Agent::Gemini));
    }
    // Antigravity CLI's step log (`brain/<id>/.system_generated/logs/transcript_full.jsonl`).
    if obj.contains_key("step_index") && obj.contains_key("source") && kind.is_some() {
        return Some(Sniffed::Unsupported("Antigravity CLI"));
    }
    sniff_pi(obj, kind).or_else(|| sniff_known(obj, kind)).map(Sniffed::Known)
}

/// pi's header, Oh My Pi's title slot (the first line of its files) or header (fields pi's
/// lacks), or an entry of either.
fn sniff_pi(obj: &serde_json::Map<String, serde_json::Value>, kind: Option<&str>) -> Option<Agent> {
    const OMP_HEADER: [&str; 4] = ["title", "titleSource", "additionalDirectories", "previousSessionFiles"];
    match kind? {
        "title" if obj.contains_key("v") && obj.contains_key("pad") => Some(Agent::OhMyPi),
        "session" if obj.contains_key("cwd") => {
            Some(if OMP_HEADER.iter().any(|k| obj.contains_key(*k)) { Agent::OhMyPi } else { Agent::Pi })
        }
        "message" if obj.get("message").is_some_and(|m| m.get("role").is_some()) => Some(Agent::Pi),
        "model_change" | "thinking_level_change" | "compaction" | "branch_summary" | "custom_message"
            if obj.contains_key("parentId") =>
        {
            Some(Agent::Pi)
        }
        _ => None,
    }
}

fn sniff_known(obj: &serde_json::Map<String, serde_json::Value>, kind: Option<&str>) -> Option<Agent> {
    if obj.contains_key("payload") && obj.contains_key("timestamp") && kind.is_some() {
        return Some(Agent::Codex);
    }
    // Codex before the envelope: a bare header, then `{"record_type":"state"}` lines.
    if kind.is_none() && obj.contains_key("id") && obj.contains_key("timestamp") && obj.contains_key("instructions") {
        return Some(Agent::Codex);
    }
    if obj.contains_key("record_type") {
        return Some(Agent::Codex);
    }
    // Generic records may carry `sessionId` too; Claude entries never carry top-level `role`.
    if obj.contains_key("role") && obj.contains_key("content") {
        return Some(Agent::Generic);
    }
    let claude_keys = obj.contains_key("sessionId") || obj.contains_key("parentUuid") || obj.contains_key("leafUuid");
    if kind.is_some() && claude_keys {
        return Some(Agent::Claude);
    }
    if matches!(kind, Some("file-history-snapshot" | "summary" | "queue-operation")) {
        return Some(Agent::Claude);
    }
    None
}

/// Record types a reader met but does not know, with the first line and the count, so they
/// are reported once per file rather than once per line.
#[derive(Debug, Default)]
pub(crate) struct UnknownTypes(BTreeMap<String, (u64, u64)>);

impl UnknownTypes {
    /// Remember that `line` holds a record of unknown type `kind`.
    pub(crate) fn saw(&mut self, kind: &str, line: u64) {
        // Cap the distinct names kept, so a file of junk types cannot grow this without bound.
        if self.0.len() >= 64 && !self.0.contains_key(kind) {
            return;
        }
        let entry = self.0.entry(kind.to_string()).or_insert((line, 0));
        entry.1 += 1;
    }

    /// One warning per unknown type, in order of first appearance.
    pub(crate) fn into_warnings(self, what: &str) -> Vec<LineWarning> {
        let mut warnings: Vec<LineWarning> = self
            .0
            .into_iter()
            .map(|(kind, (line, count))| {
                let more = match count {
                    1 => String::new(),
                    n => format!(" ({} like it)", crate::core::words::count((n - 1) as usize, "more line")),
                };
                LineWarning { line, message: format!("unknown {what} `{kind}` skipped{more}") }
            })
            .collect();
        warnings.sort_by_key(|w| w.line);
        warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_tells_the_formats_apart() {
        let codex = r#"{"timestamp":"2026-01-02T03:04:05.000Z","type":"session_meta","payload":{"id":"x"}}"#;
        let legacy = r#"{"id":"x","timestamp":"2025-06-01T00:00:00Z","instructions":""}"#;
        let claude = r#"{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}"#;
        let snapshot = r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#;
        let generic = r#"{"role":"user","content":"hi","timestamp":"2026-01-01T00:00:00Z"}"#;
        let known = |a| Some(Sniffed::Known(a));
        assert_eq!(sniff([codex]), known(Agent::Codex));
        assert_eq!(sniff([legacy]), known(Agent::Codex));
        assert_eq!(sniff([claude]), known(Agent::Claude));
        assert_eq!(sniff([snapshot]), known(Agent::Claude));
        assert_eq!(sniff([generic]), known(Agent::Generic));
        let generic_with_id = r#"{"sessionId":"s1","role":"user","content":"hi"}"#;
        assert_eq!(sniff([generic_with_id]), known(Agent::Generic));
        assert_eq!(sniff(["not json", "{\"a\":1}"]), None);
        assert_eq!(sniff(["\u{0}\u{1}binary", generic]), known(Agent::Generic));
        let gemini = r#"{"sessionId":"1a2b","projectHash":"5f0c","startTime":"2026-03-01T10:00:00.000Z"}"#;
        assert_eq!(sniff([gemini]), known(Agent::Gemini));
        assert_eq!(sniff(["{", r#"  "sessionId": "1a2b","#, r#"  "projectHash": "5f0c","#]), known(Agent::Gemini));
        assert_eq!(sniff([r#"{"$rewindTo":"m1"}"#]), known(Agent::Gemini));
        let pi = r#"{"type":"session","id":"ffae","timestamp":"2025-12-09T00:53:29.825Z","cwd":"/w"}"#;
        assert_eq!(sniff([pi]), known(Agent::Pi));
        let entry =
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(sniff(["{\"type\":\"session\",", entry]), known(Agent::Pi));
        let slot =
            r#"{"type":"title","v":1,"title":"Fix the build","updatedAt":"2026-05-01T10:00:00.000Z","pad":"   "}"#;
        assert_eq!(sniff([slot]), known(Agent::OhMyPi));
        let omp = r#"{"type":"session","version":3,"id":"u","title":"x","timestamp":"t","cwd":"/w"}"#;
        assert_eq!(sniff([omp]), known(Agent::OhMyPi));
        let export = ["{", "  \"info\": {", "    \"id\": \"ses_6aade4081ffe216ygZUgcUQdR1\",", "    \"slug\": \"x\","];
        assert_eq!(sniff(export), known(Agent::Opencode));
        let compact = r#"{"info":{"id":"ses_1"},"messages":[]}"#;
        assert_eq!(sniff([compact]), known(Agent::Opencode));
        assert_eq!(sniff(["{", "  \"name\": \"x\","]), None, "another pretty-printed document is not one");
        let agy = r#"{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","content":"hi"}"#;
        assert_eq!(sniff([agy]), Some(Sniffed::Unsupported("Antigravity CLI")));
    }

    #[test]
    fn read_errors_say_what_was_wrong_and_keep_their_line() {
        let torn = serde_json::from_str::<serde_json::Value>(r#"{"type":"user","#).unwrap_err();
        let error = ReadError::record(15, torn);
        assert!(matches!(error, ReadError::CutShort { .. }), "{error:?}");
        assert_eq!(error.line(), 15);
        assert_eq!(error.to_string(), "record cut short: EOF while parsing a value (column 15)");
        let inner = std::error::Error::source(&error).and_then(|e| e.downcast_ref::<serde_json::Error>());
        assert_eq!(inner.map(|e| (e.line(), e.column())), Some((1, 15)), "the JSON error stays reachable");

        let junk = ReadError::record(4, serde_json::from_str::<serde_json::Value>("not json").unwrap_err());
        assert_eq!((junk.line(), junk.to_string()), (4, "not a JSON record: expected ident (column 2)".to_string()));

        let shape = serde_json::from_str::<Vec<String>>("[42]").unwrap_err();
        let shape = ReadError::record(5, shape);
        assert_eq!(
            shape.to_string(),
            "record of an unexpected shape: invalid type: integer `42`, expected a string (column 3)"
        );

        let arguments = serde_json::from_str::<String>("\"unterminated").unwrap_err();
        let field = ReadError::field(9, "arguments", arguments);
        assert_eq!(
            (field.line(), field.to_string()),
            (9, "malformed arguments: EOF while parsing a string (column 13)".to_string())
        );

        let missing = ReadError::MissingField { line: 2, field: "role" };
        assert_eq!((missing.line(), missing.to_string()), (2, "record has no `role`".to_string()));
        assert!(std::error::Error::source(&missing).is_none());
    }

    #[test]
    fn the_folder_tells_apart_agents_that_share_a_format() {
        assert_eq!(refined(Agent::Pi, Some(Agent::OhMyPi)), Agent::OhMyPi);
        assert_eq!(refined(Agent::Pi, None), Agent::Pi);
        assert_eq!(refined(Agent::Generic, Some(Agent::Codex)), Agent::Generic, "the records say what a file is");
    }

    #[test]
    fn location_names_the_agent() {
        assert_eq!(format_by_location("/home/u/.codex/sessions/2026/01/02/rollout-x.jsonl"), Some(Agent::Codex));
        assert_eq!(format_by_location("/home/u/.claude/projects/-home-u-app/abc.jsonl"), Some(Agent::Claude));
        let pi = "/home/u/.pi/agent/sessions/--home-u-app--/2026-01-02T03-04-05-000Z_1a2b.jsonl";
        assert_eq!(format_by_location(pi), Some(Agent::Pi));
        assert_eq!(format_by_location("/home/u/.omp/agent/sessions/-app/x_1a2b.jsonl"), Some(Agent::OhMyPi));
        assert_eq!(format_by_location("/tmp/export.jsonl"), None);
        assert_eq!(format_by_location("/backup/rollout-2026-01-02T03-04-05-x.jsonl.zst"), Some(Agent::Codex));
        assert_eq!(format_by_location("/backup/export.jsonl.zst"), None);
        let legacy = "/h/.local/share/opencode/storage/session/global/ses_1.json";
        assert_eq!(format_by_location(legacy), Some(Agent::Opencode));
        assert_eq!(format_by_location("/h/.local/share/opencode/opencode-dev.db"), Some(Agent::Opencode));
        let gemini = "/home/u/.gemini/tmp/app/chats/session-2026-03-01T10-00-1a2b3c4d.jsonl";
        assert_eq!(format_by_location(gemini), Some(Agent::Gemini));
    }

    #[test]
    fn file_hints_know_sub_agent_folders() {
        let hint = FileHint::from_path("/p/.claude/projects/x/s1/subagents/agent-a1.jsonl");
        assert_eq!(hint.stem, "agent-a1");
        assert!(hint.in_subagents_dir);
        assert!(!FileHint::from_path("/fixtures/subagents/projects/x/s1.jsonl").in_subagents_dir);
        assert_eq!(FileHint::from_path("/h/.codex/archived_sessions/rollout-a-b.jsonl.zst").stem, "rollout-a-b");
        assert_eq!(FileHint::from_path("/h/.gemini/tmp/p/chats/session-1.json").stem, "session-1");
    }
}
