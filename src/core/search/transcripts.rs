//! Searching the transcripts themselves, through the same readers and filter as extraction:
//! what a search can find is only what extraction could learn from, redacted. Reasoning,
//! injected instruction bodies and instruction files never reach the sink, and secrets are
//! replaced before any text is matched or kept.

use std::borrow::Cow;

use regex::bytes::{Regex, RegexBuilder};

use crate::core::filter::INSTRUCTION_FILES;
use crate::core::pipeline::Sink;
use crate::core::redact::redact;
use crate::core::search::Query;
use crate::core::session::{Event, EventKind};

/// Longest text kept per record, in bytes: the matching lines of a record, not a whole
/// tool output.
const KEPT_BYTES: usize = 4096;

/// A transcript line whose redacted text matches the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// 1-based line of the transcript.
    pub line: u64,
    /// The matching lines of the record's texts, redacted.
    pub text: String,
}

/// Collects the records of one transcript that match the query.
pub struct TranscriptSink<'q> {
    query: &'q Query,
    pub found: Vec<Found>,
}

impl<'q> TranscriptSink<'q> {
    pub fn new(query: &'q Query) -> TranscriptSink<'q> {
        TranscriptSink { query, found: Vec::new() }
    }

    fn consider(&mut self, line: u64, raw: &str) {
        // Redaction only removes text, so a record that does not match raw cannot match at
        // all; most records are dropped here, before any redaction work.
        if !self.query.is_match(raw) {
            return;
        }
        let redacted = redact(raw);
        let mut kept = String::new();
        for text_line in redacted.lines().filter(|l| self.query.is_match(l)) {
            if kept.len() + text_line.len() > KEPT_BYTES && !kept.is_empty() {
                break;
            }
            if !kept.is_empty() {
                kept.push('\n');
            }
            kept.push_str(text_line);
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

impl Sink for TranscriptSink<'_> {
    fn push(&mut self, event: &Event<'_>) {
        let line = event.line;
        match &event.kind {
            EventKind::User(text) => self.consider(line, text),
            EventKind::Assistant(text) => self.consider(line, text.for_scanning()),
            EventKind::ToolCall(call) => {
                // The command is usually inside the input too; search the input, else the
                // command.
                let input = call.input.for_scanning();
                let text: Cow<str> = match &call.command {
                    Some(command) if !input.contains(command.as_ref()) => format!("{command}\n{input}").into(),
                    _ => input.into(),
                };
                self.consider(line, &text);
            }
            EventKind::ToolResult(result) => self.consider(line, result.output.for_scanning()),
            EventKind::Compaction(Some(summary)) => self.consider(line, summary),
            EventKind::Compaction(None) | EventKind::Reasoning | EventKind::Instruction => {}
        }
    }
}

/// The raw-bytes test that picks the transcript lines worth decoding: lines that may match
/// the query, and lines that name an instruction file (the filter must see those calls to
/// withhold their results). `None` when every line must be decoded (a regex query).
pub fn line_prefilter(query: &Query) -> Option<Regex> {
    let words = query.json_line_pattern()?;
    let files: Vec<String> = INSTRUCTION_FILES.iter().map(|f| regex::escape(f)).collect();
    let pattern = format!("{words}|(?i:{})", files.join("|"));
    RegexBuilder::new(&pattern).size_limit(1 << 24).build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::session::{ToolResult, Unredacted};

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
        let pre = line_prefilter(&q).unwrap();
        assert!(pre.is_match(br#"{"text":"Say \"hi\" now"}"#));
        assert!(pre.is_match(br#"{"text":"caf\u00e9"}"#));
        assert!(pre.is_match("{\"text\":\"CAFÉ\"}".as_bytes()));
        assert!(pre.is_match(br#"{"input":"cat AGENTS.md"}"#));
        assert!(!pre.is_match(br#"{"text":"nothing here"}"#));
        let regex = Query::new(&["^dep.oy".to_string()], true, false).unwrap();
        assert!(line_prefilter(&regex).is_none());
    }
}
