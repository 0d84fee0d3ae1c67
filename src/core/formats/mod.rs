//! Transcript readers: one module per agent format, all producing the normalised
//! [`Event`] stream and [`SessionMeta`] of [`crate::core::session`].
//!
//! A reader is fed one line at a time and never sees the file, so it runs on string literals
//! in tests and on a streamed file in production. Every record type and role is an open set:
//! an unknown one is skipped, and reported once per file with the line it first appeared on.

pub mod claude;
pub mod codex;
pub mod common;
pub mod generic;

use std::collections::BTreeMap;

use crate::core::session::{Agent, Event, LineWarning, SessionMeta};

/// What a reader knows about the file before it reads a line of it.
#[derive(Debug, Clone, Default)]
pub struct FileHint {
    /// File name without the `.jsonl` extension.
    pub stem: String,
    /// The file sits in a `subagents/` folder (Claude Code 2.1 layout).
    pub in_subagents_dir: bool,
    /// A short hash of the whole path, for formats whose file names are not unique.
    pub path_hash: String,
}

impl FileHint {
    /// The hint for a file path given as text.
    pub fn from_path(path: &str) -> FileHint {
        let normalised = path.replace('\\', "/");
        let name = normalised.rsplit('/').next().unwrap_or(&normalised);
        let stem = name.strip_suffix(".jsonl").or_else(|| name.strip_suffix(".json")).unwrap_or(name).to_string();
        let parent = normalised.rsplit('/').nth(1).unwrap_or("");
        let in_subagents_dir = parent == "subagents";
        let path_hash = blake3::hash(normalised.as_bytes()).to_hex()[..8].to_string();
        FileHint { stem, in_subagents_dir, path_hash }
    }
}

/// A transcript reader: a state machine over the lines of one file.
pub trait Reader {
    /// Read one line (without its line ending), sending the events it holds to `emit`.
    /// An error means the line was skipped; the reader stays usable.
    fn read_line<'a>(&mut self, line: u64, text: &'a str, emit: &mut dyn FnMut(Event<'a>)) -> Result<(), String>;

    /// The metadata gathered over all lines, and warnings that were held back to be reported
    /// once per file (unknown record types).
    fn finish(&mut self) -> (SessionMeta, Vec<LineWarning>);
}

/// Text of the lines whose meaning later lines depend on, per format: the poll that carries
/// the output of a process started earlier (Codex `write_stdin`, `Process running with
/// session ID`), the background shell whose output another call reads (Claude Code
/// `bash_id`). A search that reads only the lines that can match must read these too, or the
/// filter would not know that a later output is an instruction file's contents.
pub fn state_lines(agent: Option<Agent>) -> &'static [&'static str] {
    const CODEX: &[&str] = &["write_stdin", "Process running with session ID"];
    const CLAUDE: &[&str] = &["in background with ID", "bash_id", "shell_id"];
    const ANY: &[&str] =
        &["write_stdin", "Process running with session ID", "in background with ID", "bash_id", "shell_id"];
    match agent {
        Some(Agent::Codex) => CODEX,
        Some(Agent::Claude) => CLAUDE,
        Some(Agent::Generic) => &[],
        None => ANY,
    }
}

/// A new reader for `agent`'s format.
pub fn reader_for(agent: Agent, hint: FileHint) -> Box<dyn Reader> {
    match agent {
        Agent::Codex => Box::new(codex::CodexReader::new(hint)),
        Agent::Claude => Box::new(claude::ClaudeReader::new(hint)),
        Agent::Generic => Box::new(generic::GenericReader::new(hint)),
    }
}

/// The format a path implies by where it lives: the agents' own folders and file names.
pub fn format_by_location(path: &str) -> Option<Agent> {
    let p = path.replace('\\', "/");
    let name = p.rsplit('/').next().unwrap_or(&p);
    if p.contains("/.codex/") || (name.starts_with("rollout-") && name.ends_with(".jsonl")) {
        Some(Agent::Codex)
    } else if p.contains("/.claude/projects/") {
        Some(Agent::Claude)
    } else {
        None
    }
}

/// What the first records of a file say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// A format handbook reads.
    Known(Agent),
    /// A transcript of an agent handbook has no reader for yet.
    Unsupported(&'static str),
}

/// Guess the format from the first records of a file. `lines` are the first few non-blank
/// lines; the first one that says something decides.
pub fn sniff<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<Sniffed> {
    lines.into_iter().find_map(sniff_line)
}

fn sniff_line(line: &str) -> Option<Sniffed> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let obj = value.as_object()?;
    let kind = obj.get("type").and_then(|t| t.as_str());
    // Gemini CLI chat recordings and pi sessions look like others at a glance.
    if obj.contains_key("projectHash") || obj.contains_key("$set") || obj.contains_key("$rewindTo") {
        return Some(Sniffed::Unsupported("Gemini CLI"));
    }
    if kind == Some("session") && obj.contains_key("cwd") {
        return Some(Sniffed::Unsupported("pi"));
    }
    sniff_known(obj, kind).map(Sniffed::Known)
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
pub struct UnknownTypes(BTreeMap<String, (u64, u64)>);

impl UnknownTypes {
    /// Remember that `line` holds a record of unknown type `kind`.
    pub fn saw(&mut self, kind: &str, line: u64) {
        // Cap the distinct names kept, so a file of junk types cannot grow this without bound.
        if self.0.len() >= 64 && !self.0.contains_key(kind) {
            return;
        }
        let entry = self.0.entry(kind.to_string()).or_insert((line, 0));
        entry.1 += 1;
    }

    /// One warning per unknown type, in order of first appearance.
    pub fn into_warnings(self, what: &str) -> Vec<LineWarning> {
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
        assert_eq!(sniff([gemini]), Some(Sniffed::Unsupported("Gemini CLI")));
        let pi = r#"{"type":"session","id":"ffae","timestamp":"2025-12-09T00:53:29.825Z","cwd":"/w"}"#;
        assert_eq!(sniff([pi]), Some(Sniffed::Unsupported("pi")));
    }

    #[test]
    fn location_names_the_agent() {
        assert_eq!(format_by_location("/home/u/.codex/sessions/2026/01/02/rollout-x.jsonl"), Some(Agent::Codex));
        assert_eq!(format_by_location("/home/u/.claude/projects/-home-u-app/abc.jsonl"), Some(Agent::Claude));
        assert_eq!(format_by_location("/tmp/export.jsonl"), None);
    }

    #[test]
    fn file_hints_know_sub_agent_folders() {
        let hint = FileHint::from_path("/p/.claude/projects/x/s1/subagents/agent-a1.jsonl");
        assert_eq!(hint.stem, "agent-a1");
        assert!(hint.in_subagents_dir);
        assert!(!FileHint::from_path("/fixtures/subagents/projects/x/s1.jsonl").in_subagents_dir);
    }
}
