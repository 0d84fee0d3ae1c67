//! The transcript as a model reads it: the filtered, redacted events of a session in a
//! compact text form, one event per entry with its transcript line, tool outputs clipped to
//! their head and tail (a failed command's error line always kept), and the whole cut to a
//! token budget by keeping its head and tail with a marker saying how much was dropped.
//!
//! Memory stays bounded whatever the session's size: the head stops growing at half the
//! budget, and the tail is a window that drops its oldest entries. No entry may take more
//! than a quarter of the budget (a pasted log, a heredoc), so the newest always fits.

use std::collections::VecDeque;
use std::fmt::Write;

use crate::core::extract::errors::error_line;
use crate::core::pipeline::Sink;
use crate::core::redact::{cut_after, cut_before, redact};
use crate::core::session::{Event, EventKind, Unredacted};
use crate::core::tokens::estimate;

/// Bytes kept of an assistant message.
const ASSISTANT_BYTES: usize = 2000;
/// Bytes kept of a tool call's input.
const INPUT_BYTES: usize = 600;
/// Bytes kept of a tool's output.
const OUTPUT_BYTES: usize = 1200;
/// Bytes kept of a failed tool's output: errors are what a model learns most from.
const FAILED_OUTPUT_BYTES: usize = 3000;
/// Bytes kept of a compaction summary.
const COMPACTION_BYTES: usize = 3000;
/// Bytes kept of a user message: the user's words are the best evidence, but a pasted log
/// is still a log.
const USER_BYTES: usize = 8000;
/// Bytes kept of a shell command line (a heredoc can carry a whole file).
const COMMAND_BYTES: usize = 1500;

/// Renders events for a model within a token budget.
#[derive(Debug)]
pub(crate) struct ModelTranscript {
    budget: usize,
    head: Vec<String>,
    head_tokens: usize,
    /// Once the head is full: the latest entries, within the other half of the budget.
    tail: VecDeque<(String, usize)>,
    tail_tokens: usize,
    dropped: usize,
    dropped_tokens: usize,
    head_full: bool,
}

impl ModelTranscript {
    /// A renderer for a transcript of at most about `budget` tokens.
    pub(crate) fn new(budget: usize) -> ModelTranscript {
        ModelTranscript {
            budget,
            head: Vec::new(),
            head_tokens: 0,
            tail: VecDeque::new(),
            tail_tokens: 0,
            dropped: 0,
            dropped_tokens: 0,
            head_full: false,
        }
    }

    /// Add the entry `head` + `body` (its continuation lines indented), its body clipped
    /// until the entry takes no more than a quarter of the budget.
    fn add(&mut self, head: &str, body: &str) {
        let cap = (self.budget / 4).max(16);
        let mut entry = format!("{head}{}", indented(body));
        let mut tokens = estimate(&entry) + 1;
        let mut max = body.len();
        // Tokens per byte vary (box drawing costs one a byte, runs of spaces nearly none),
        // so the cut is retried, smaller each time, until the entry fits.
        while tokens > cap && max > 0 {
            max = (max * cap / tokens).min(max - 1) * 9 / 10;
            entry = format!("{head}{}", indented(&clip(body, max)));
            tokens = estimate(&entry) + 1;
        }
        if !self.head_full && self.head_tokens + tokens <= self.budget / 2 {
            self.head_tokens += tokens;
            self.head.push(entry);
            return;
        }
        self.head_full = true;
        self.tail_tokens += tokens;
        self.tail.push_back((entry, tokens));
        // The entry just added always stays: it is the end of the session.
        while self.tail_tokens > self.budget - self.budget / 2 && self.tail.len() > 1 {
            let Some((_, tokens)) = self.tail.pop_front() else { break };
            self.tail_tokens -= tokens;
            self.dropped += 1;
            self.dropped_tokens += tokens;
        }
    }

    /// Events rendered so far (kept or dropped).
    #[cfg(test)]
    pub(crate) fn events(&self) -> usize {
        self.head.len() + self.tail.len() + self.dropped
    }

    /// The rendered transcript.
    pub(crate) fn finish(self) -> String {
        let mut out = self.head.join("\n");
        if self.dropped > 0 {
            let _ = write!(
                out,
                "\n[… {} events (about {} tokens) from the middle of the session dropped to fit the context …]",
                self.dropped, self.dropped_tokens
            );
        }
        for (entry, _) in self.tail {
            out.push('\n');
            out.push_str(&entry);
        }
        out
    }
}

/// Already redacted `text` cut to about `max` bytes: its head and tail at word boundaries,
/// with a marker saying how much was left out.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let head = cut_before(text, max / 2);
    let tail = cut_after(text, text.len() - max / 2);
    format!("{head}\n[… {} bytes omitted …]\n{tail}", text.len() - head.len() - tail.len())
}

/// `text` with its continuation lines indented under the entry's first line.
fn indented(text: &str) -> String {
    text.trim().replace('\n', "\n    ")
}

/// A tool output clipped to its head and tail; for a failure, its error line is kept even
/// when it sits in the part left out.
fn output(text: &Unredacted<'_>, failed: bool) -> String {
    let max = if failed { FAILED_OUTPUT_BYTES } else { OUTPUT_BYTES };
    let mut kept = text.excerpt(max);
    if failed
        && text.len() > max
        && let Some(line) = error_line(text.for_scanning())
    {
        let line = redact(&line);
        if !kept.contains(line.as_ref()) {
            let _ = write!(kept, "\n[error line: {line}]");
        }
    }
    kept
}

impl Sink for ModelTranscript {
    fn push(&mut self, event: &Event<'_>) {
        let line = event.line;
        match &event.kind {
            EventKind::User(text) => self.add(&format!("[line {line}] user: "), &clip(text, USER_BYTES)),
            EventKind::Assistant(text) => {
                self.add(&format!("[line {line}] assistant: "), &text.excerpt(ASSISTANT_BYTES));
            }
            EventKind::ToolCall(call) => {
                let what = match &call.command {
                    Some(command) => format!("$ {}", clip(command, COMMAND_BYTES)),
                    None => call.input.excerpt(INPUT_BYTES),
                };
                self.add(&format!("[line {line}] tool call {}: ", call.name), &what);
            }
            EventKind::ToolResult(result) => {
                let status = match (result.exit_code, result.is_error) {
                    (Some(code), _) => format!(" (exit {code})"),
                    (None, true) => " (error)".to_string(),
                    (None, false) => String::new(),
                };
                let text = output(&result.output, result.failed());
                let text = if text.trim().is_empty() { "(no output)" } else { text.as_str() };
                self.add(&format!("[line {line}] tool result{status}: "), text);
            }
            EventKind::Compaction(Some(summary)) => {
                let summary = Unredacted::new(summary.as_ref()).excerpt(COMPACTION_BYTES);
                self.add(&format!("[line {line}] earlier part of the session, as the agent summarised it: "), &summary);
            }
            EventKind::Compaction(None) | EventKind::Reasoning | EventKind::Instruction => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::core::session::{ToolCall, ToolResult};

    fn user(line: u64, text: &str) -> Event<'_> {
        Event { line, kind: EventKind::User(Cow::Borrowed(text)) }
    }

    #[test]
    fn events_render_compactly_with_their_lines() {
        let mut t = ModelTranscript::new(10_000);
        t.push(&user(3, "Fix the build\nplease"));
        let call = ToolCall {
            name: Cow::Borrowed("Bash"),
            command: Some(Cow::Borrowed("cargo build")),
            ..ToolCall::default()
        };
        t.push(&Event { line: 4, kind: EventKind::ToolCall(call) });
        let result =
            ToolResult { output: Unredacted::new("error: linker failed"), exit_code: Some(1), ..ToolResult::default() };
        t.push(&Event { line: 5, kind: EventKind::ToolResult(result) });
        t.push(&Event { line: 6, kind: EventKind::Reasoning });
        assert_eq!(
            t.finish(),
            "[line 3] user: Fix the build\n    please\n[line 4] tool call Bash: $ cargo build\n[line 5] tool result (exit 1): error: linker failed"
        );
    }

    #[test]
    fn long_outputs_keep_head_tail_and_the_error_line() {
        let body = format!(
            "{}error[E0308]: mismatched types\n{}",
            "   Compiling crate v0.1.0\n".repeat(300),
            "note: some note\n".repeat(300)
        );
        let result = ToolResult { output: Unredacted::new(body), exit_code: Some(101), ..ToolResult::default() };
        let mut t = ModelTranscript::new(100_000);
        t.push(&Event { line: 9, kind: EventKind::ToolResult(result) });
        let text = t.finish();
        assert!(text.len() < FAILED_OUTPUT_BYTES * 5 / 4 + 200, "{}", text.len());
        assert!(text.contains("bytes omitted") && text.contains("error[E0308]: mismatched types"), "{text}");
    }

    #[test]
    fn secrets_in_outputs_are_redacted() {
        let result = ToolResult {
            output: Unredacted::new("export OPENAI_API_KEY=sk-abc123def456ghi789jkl012"),
            ..ToolResult::default()
        };
        let mut t = ModelTranscript::new(1000);
        t.push(&Event { line: 1, kind: EventKind::ToolResult(result) });
        let text = t.finish();
        assert!(text.contains("[REDACTED:openai]") && !text.contains("sk-abc123"), "{text}");
    }

    #[test]
    fn an_oversized_entry_is_clipped_and_never_empties_the_transcript() {
        let mut t = ModelTranscript::new(2000);
        t.push(&user(1, &format!("Here is the log: {}", "lorem ipsum dolor ".repeat(3000))));
        for i in 0..50 {
            t.push(&user(i + 2, &format!("short message {i}")));
        }
        let heredoc = format!("cat > notes.txt <<EOF\n{}EOF", "a line of the file\n".repeat(2000));
        let call = ToolCall { name: Cow::Borrowed("shell"), command: Some(Cow::Owned(heredoc)), ..ToolCall::default() };
        t.push(&Event { line: 60, kind: EventKind::ToolCall(call) });
        let text = t.finish();
        assert!(estimate(&text) <= 2000 + 60, "{} tokens", estimate(&text));
        assert!(text.starts_with("[line 1] user: Here is the log: lorem ipsum"), "{text}");
        assert!(text.contains("bytes omitted"), "{text}");
        assert!(text.contains("[line 60] tool call shell: $ cat > notes.txt <<EOF"), "{text}");
        assert!(text.trim_end().ends_with("EOF"), "{text}");
    }

    #[test]
    fn entries_costly_in_tokens_are_still_cut_to_fit() {
        // Box drawing costs about a token a byte, a run of spaces almost nothing: a cut by
        // bytes alone would leave this entry several times its share.
        let table = "┌────┬────┐\n│ a  │ b  │\n└────┴────┘\n".repeat(40);
        let pasted = format!("{table}{}{table}", " ".repeat(6000));
        for budget in [1000, 2000, 4000] {
            let mut t = ModelTranscript::new(budget);
            t.push(&user(1, "Fix the layout"));
            t.push(&user(99, &pasted));
            let text = t.finish();
            assert!(text.contains("[line 99] user: "), "the newest entry went missing at {budget}:\n{text}");
            assert!(estimate(&text) <= budget, "{} tokens at budget {budget}", estimate(&text));
        }
    }

    #[test]
    fn the_budget_keeps_head_and_tail_and_says_what_was_dropped() {
        let mut t = ModelTranscript::new(400);
        for i in 0..200 {
            let text = format!("message number {i} with a few more words in it");
            t.push(&Event { line: i + 1, kind: EventKind::User(Cow::Owned(text)) });
        }
        assert_eq!(t.events(), 200);
        let text = t.finish();
        assert!(estimate(&text) <= 400 + 40, "{} tokens", estimate(&text));
        assert!(text.starts_with("[line 1] user: message number 0 "));
        assert!(text.ends_with("message number 199 with a few more words in it"));
        assert!(text.contains("events (about ") && text.contains("dropped to fit the context"), "{text}");
    }
}
