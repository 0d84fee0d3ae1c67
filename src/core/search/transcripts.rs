//! Searching the transcripts themselves, through the same readers and filter as extraction:
//! what a search can find is only what extraction could learn from, redacted. Reasoning,
//! injected instruction bodies and instruction files never reach the sink, and secrets are
//! replaced before any text is matched or kept.

use std::borrow::Cow;

use regex::bytes::{Regex, RegexBuilder};

use crate::core::filter::{INSTRUCTION_FILES, WITHHELD};
use crate::core::formats::state_lines;
use crate::core::pipeline::Sink;
use crate::core::redact::{context_start, redact};
use crate::core::search::Query;
use crate::core::session::{Agent, Event, EventKind};

/// Longest text kept per record, in bytes: the matching lines of a record, not a whole
/// tool output.
const KEPT_BYTES: usize = 4096;
/// Texts up to this size are redacted whole; longer ones only around their matches.
const WHOLE_BYTES: usize = 16 * 1024;
/// Lines redacted after a matching line in a long text.
const CONTEXT_LINES: usize = 2;

/// A transcript line whose redacted text matches the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// 1-based line of the transcript.
    pub(crate) line: u64,
    /// The matching lines of the record's texts, redacted.
    pub(crate) text: String,
}

/// Collects the records of one transcript that match the query.
pub(crate) struct TranscriptSink<'q> {
    query: &'q Query,
    pub(crate) found: Vec<Found>,
}

impl<'q> TranscriptSink<'q> {
    pub(crate) fn new(query: &'q Query) -> TranscriptSink<'q> {
        TranscriptSink { query, found: Vec::new() }
    }

    fn consider(&mut self, line: u64, raw: &str) {
        // Redaction only removes text, so a record that does not match raw cannot match at
        // all; most records are dropped here, before any redaction work. The placeholder for
        // withheld instruction files is not the session's text.
        if raw == WITHHELD || !self.query.is_match(raw) {
            return;
        }
        let mut kept = String::new();
        for piece in redacted_pieces(raw, self.query) {
            for text_line in piece.lines().filter(|l| *l != WITHHELD && self.query.is_match(l)) {
                if kept.len() + text_line.len() > KEPT_BYTES && !kept.is_empty() {
                    break;
                }
                if !kept.is_empty() {
                    kept.push('\n');
                }
                kept.push_str(text_line);
            }
        }
        if kept.is_empty() {
            return;
        }
        match self.found.last_mut() {
            Some(found) if found.line == line => {
                if found.text.len() + kept.len() <= KEPT_BYTES && !found.text.lines().any(|l| kept.contains(l)) {
                    found.text.push('\n');
                    found.text.push_str(&kept);
                }
            }
            _ => self.found.push(Found { line, text: kept }),
        }
    }
}

/// The redacted text around the query's matches in `raw`. A short text (or one holding a
/// private key, whose block spans many lines) is redacted whole; in a long one (a build log)
/// only the lines around each matching line are, reaching back far enough for a secret whose
/// key sits above its value ([`context_start`]). That keeps a search over large tool outputs
/// fast.
fn redacted_pieces<'t>(raw: &'t str, query: &Query) -> Vec<Cow<'t, str>> {
    if raw.len() <= WHOLE_BYTES || raw.contains("PRIVATE KEY") {
        return vec![redact(raw)];
    }
    let mut windows: Vec<std::ops::Range<usize>> = Vec::new();
    let mut budget = KEPT_BYTES;
    for (range, _) in query.matches(raw) {
        if windows.last().is_some_and(|w| range.start < w.end) {
            continue;
        }
        let start = context_start(raw, range.start);
        let end = lines_forward(raw, range.end, CONTEXT_LINES + 1);
        match windows.last_mut() {
            Some(last) if start <= last.end => last.end = end,
            _ => windows.push(start..end),
        }
        budget = budget.saturating_sub(end - start);
        if budget == 0 {
            break;
        }
    }
    windows.into_iter().map(|w| redact(&raw[w])).collect()
}

/// The end of the line `n - 1` lines after the one holding byte `at`.
fn lines_forward(text: &str, at: usize, n: usize) -> usize {
    let mut end = at;
    for _ in 0..n {
        match memchr::memchr(b'\n', &text.as_bytes()[end.min(text.len())..]) {
            Some(i) => end = end + i + 1,
            None => return text.len(),
        }
    }
    end - 1
}

impl Sink for TranscriptSink<'_> {
    fn push(&mut self, event: &Event<'_>) {
        let line = event.line;
        match &event.kind {
            EventKind::User(text) => self.consider(line, text),
            EventKind::Assistant(text) => self.consider(line, text.for_scanning()),
            EventKind::ToolCall(call) => {
                // The command is usually inside the input too; search the input, else the
                // command.
                let input = readable_input(call.input.for_scanning());
                let text: Cow<str> = match &call.command {
                    Some(command) if !input.contains(command.as_ref()) => format!("{command}\n{input}").into(),
                    _ => input,
                };
                self.consider(line, &text);
            }
            EventKind::ToolResult(result) => self.consider(line, result.output.for_scanning()),
            EventKind::Compaction(Some(summary)) => self.consider(line, summary),
            EventKind::Compaction(None) | EventKind::Reasoning | EventKind::Instruction => {}
        }
    }
}

/// A tool's input as the text it stands for: a JSON document (a Codex `function_call`'s
/// arguments) becomes its strings, one per line and a list of words on one line, so a
/// search matches and shows the command and the files it wrote as they read, not their
/// escaped form (`\"`, `\n`, `\u0067`). Any other input is kept as it is.
fn readable_input(input: &str) -> Cow<'_, str> {
    if !input.trim_start().starts_with('{') {
        return Cow::Borrowed(input);
    }
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(value) => {
            let mut lines = Vec::new();
            strings_of(&value, &mut lines);
            Cow::Owned(lines.join("\n"))
        }
        Err(_) => Cow::Borrowed(input),
    }
}

/// The strings in a JSON value, in order; a list of strings (an argv) as one line.
fn strings_of(value: &serde_json::Value, lines: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::String(s) => lines.push(s.clone()),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            lines.push(items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "));
        }
        Value::Array(items) => items.iter().for_each(|v| strings_of(v, lines)),
        Value::Object(fields) => fields.values().for_each(|v| strings_of(v, lines)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The raw-bytes tests that pick the transcript lines worth decoding.
#[derive(Debug, Clone)]
pub(crate) struct Prefilter {
    /// Lines that may match the query.
    pub(crate) words: Regex,
    /// Per format (Codex, Claude Code, generic, unknown): those, lines that name an
    /// instruction file, and lines that carry the reader's state ([`state_lines`]). The filter
    /// must see them to withhold what later lines hold, so a file with any match is read again
    /// with this.
    lines: [Regex; 4],
    /// Every line, for the formats whose readers need them all ([`reads_every_line`]).
    every: Regex,
}

impl Prefilter {
    pub(crate) fn lines(&self, agent: Option<Agent>) -> &Regex {
        match agent {
            Some(Agent::Codex) => &self.lines[0],
            Some(Agent::Claude) => &self.lines[1],
            Some(Agent::Generic) => &self.lines[2],
            Some(agent) if reads_every_line(agent) => &self.every,
            _ => &self.lines[3],
        }
    }
}

/// True for the formats whose reader must see every line: a pi session is a tree whose active
/// branch is known only at its last entry; opencode is read as whole documents and record
/// streams, whose meaning no single line carries; a Gemini CLI recording's messages are
/// rewritten, replaced and rewound by later lines that need not match the query.
fn reads_every_line(agent: Agent) -> bool {
    matches!(agent, Agent::Pi | Agent::OhMyPi | Agent::Opencode | Agent::Gemini)
}

/// The prefilter of a query; `None` when every line must be decoded (a regex query, which
/// only decoded text can answer).
pub(crate) fn prefilter(query: &Query) -> Option<Prefilter> {
    let words = query.json_line_pattern()?;
    let build = |pattern: &str| RegexBuilder::new(pattern).size_limit(1 << 24).build().ok();
    // File names in any case (`agents.md`, `AGENTS.md`); the readers' markers as they are
    // written (a case-insensitive long literal would turn into too many variants for the
    // literal search that makes this fast).
    let files: Vec<String> = INSTRUCTION_FILES.iter().map(|f| regex::escape(f)).collect();
    let lines_of = |agent: Option<Agent>| {
        let mut pattern = format!("{words}|(?i:{})", files.join("|"));
        let state: Vec<String> = state_lines(agent).iter().map(|s| regex::escape(s)).collect();
        if !state.is_empty() {
            pattern.push_str(&format!("|(?-i:{})", state.join("|")));
        }
        build(&pattern)
    };
    Some(Prefilter {
        words: build(&words)?,
        lines: [
            lines_of(Some(Agent::Codex))?,
            lines_of(Some(Agent::Claude))?,
            lines_of(Some(Agent::Generic))?,
            lines_of(None)?,
        ],
        every: build("^")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::session::{ToolCall, ToolResult, Unredacted};

    fn query(words: &[&str]) -> Query {
        Query::new(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>(), false, false).unwrap()
    }

    #[test]
    fn only_redacted_matching_lines_are_kept() {
        let q = query(&["deploy"]);
        let mut sink = TranscriptSink::new(&q);
        let output = "step one\nDeploy with OPENAI_API_KEY=sk-abc123def456ghi789jkl012\nstep three";
        let result = ToolResult { output: Unredacted::new(output), ..ToolResult::default() };
        sink.push(&Event { line: 7, kind: EventKind::ToolResult(result) });
        assert_eq!(sink.found, [Found { line: 7, text: "Deploy with OPENAI_API_KEY=[REDACTED:openai]".to_string() }]);
    }

    #[test]
    fn function_call_arguments_are_searched_as_the_text_they_stand_for() {
        let q = query(&["webhook"]);
        let mut sink = TranscriptSink::new(&q);
        let script =
            "cat > .env <<EOF\nAPI_HOST=api.internal\nSTRIPE_WEBHOOK=\\u0077hsec_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z\nEOF";
        let arguments = serde_json::json!({"command": ["bash", "-lc", script], "workdir": "/w"}).to_string();
        let call = ToolCall {
            id: None,
            name: Cow::Borrowed("shell"),
            command: Some(Cow::Borrowed("cat > .env <<EOF")),
            writes: Vec::new(),
            reads: Vec::new(),
            input: Unredacted::new(arguments),
        };
        sink.push(&Event { line: 3, kind: EventKind::ToolCall(call) });
        assert_eq!(sink.found, [Found { line: 3, text: "STRIPE_WEBHOOK=[REDACTED:stripe]".to_string() }]);
        assert_eq!(readable_input("not json {"), "not json {");
        assert_eq!(readable_input(r#"{"cmd":"make test","yield_time_ms":1000}"#), "make test");
    }

    #[test]
    fn long_outputs_are_redacted_around_their_matches() {
        let q = query(&["needle"]);
        let filler = "compiling crate v0.1.0\n".repeat(2000);
        let key = "ghp_Fake1234567890abcdefghijklmnopqrstuv";
        let text = format!("{filler}token {key}\nneedle here with {key}\nafter\n{filler}last needle\n");
        let pieces: Vec<String> = redacted_pieces(&text, &q).into_iter().map(Cow::into_owned).collect();
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].contains("needle here with [REDACTED:github]") && !pieces[0].contains(key), "{pieces:?}");
        assert!(pieces[0].lines().count() <= 3 + CONTEXT_LINES + 1, "{pieces:?}");
        assert!(pieces[1].trim_end().ends_with("last needle"), "{pieces:?}");
        // A private key's block spans lines: the text is redacted whole.
        let pem = format!("{filler}-----BEGIN PRIVATE KEY-----\nMIIEvneedleQIBADAN\n{filler}");
        assert_eq!(redacted_pieces(&pem, &q).len(), 1);
        assert!(!redacted_pieces(&pem, &q)[0].contains("MIIEvneedle"));
    }

    #[test]
    fn line_windows_stop_at_the_text_ends() {
        let text = "a\nb\nc\nd\ne";
        assert_eq!(&text[4..lines_forward(text, 4, 2)], "c\nd");
        assert_eq!(&text[0..lines_forward(text, 8, 3)], "a\nb\nc\nd\ne");
    }

    #[test]
    fn a_secret_whose_key_is_lines_above_stays_hidden() {
        let q = query(&["deploy"]);
        let filler = "compiling crate v0.1.0\n".repeat(2000);
        let text = format!("{filler}db_password:\n\n\n  Hunter2Passw0rdXyz deploy\n{filler}");
        let pieces: String = redacted_pieces(&text, &q).concat();
        assert!(!pieces.contains("Hunter2") && pieces.contains("deploy"), "{pieces}");
    }

    #[test]
    fn a_secret_is_never_found_by_its_value() {
        let q = query(&["sk-abc123def456ghi789jkl012"]);
        let mut sink = TranscriptSink::new(&q);
        let user = EventKind::User(Cow::Borrowed("use sk-abc123def456ghi789jkl012"));
        sink.push(&Event { line: 1, kind: user });
        assert!(sink.found.is_empty());
    }

    #[test]
    fn the_prefilter_sees_through_json_escapes() {
        let q = query(&["say \"hi\"", "café"]);
        let pre = prefilter(&q).unwrap();
        for line in [&br#"{"text":"Say \"hi\" now"}"#[..], br#"{"text":"caf\u00e9"}"#, "{\"text\":\"CAFÉ\"}".as_bytes()]
        {
            assert!(pre.words.is_match(line) && pre.lines(None).is_match(line), "{}", String::from_utf8_lossy(line));
        }
        assert!(pre.lines(Some(Agent::Claude)).is_match(br#"{"input":"cat AGENTS.md"}"#));
        assert!(pre.lines(Some(Agent::Codex)).is_match(br#"{"name":"write_stdin"}"#));
        assert!(!pre.lines(Some(Agent::Generic)).is_match(br#"{"name":"write_stdin"}"#));
        let pi_entry = br#"{"type":"label","id":"a","parentId":"b"}"#;
        assert!(pre.lines(Some(Agent::Pi)).is_match(pi_entry));
        assert!(pre.lines(None).is_match(pi_entry), "a file of unknown format may be a pi tree");
        assert!(!pre.lines(Some(Agent::Claude)).is_match(pi_entry));
        assert!(pre.lines(Some(Agent::Opencode)).is_match(br#"    "type": "step-start","#), "a document is read whole");
        assert!(pre.lines(Some(Agent::Gemini)).is_match(br#"{"$rewindTo":"m1"}"#));
        let upper = prefilter(&query(&["CAFÉ"])).unwrap();
        assert!(upper.words.is_match(br#"{"text":"caf\u00e9"}"#));
        let phrase = prefilter(&query(&["git commit"])).unwrap();
        assert!(phrase.words.is_match(br#"{"command":["git","commit","-m","x"]}"#));
        assert!(!pre.words.is_match(br#"{"input":"cat AGENTS.md"}"#));
        assert!(!pre.lines(None).is_match(br#"{"text":"nothing here"}"#));
        let regex = Query::new(&["^dep.oy".to_string()], true, false).unwrap();
        assert!(prefilter(&regex).is_none());
    }
}
