//! The normalised session model that every transcript reader produces.
//!
//! Readers emit [`Event`]s one at a time while they walk a transcript, so a session is never
//! held in memory as a whole. Each event keeps the line of the transcript it came from, for
//! provenance. Metadata accumulates in a [`SessionMeta`] that the reader hands over at the end.

use std::borrow::Cow;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The agent (and so the transcript format) a session came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Agent {
    /// OpenAI Codex CLI rollouts.
    Codex,
    /// Claude Code project transcripts.
    Claude,
    /// One `{"role","content","timestamp"}` object per line, for any other tool.
    Generic,
    /// pi coding agent sessions.
    Pi,
    /// Oh My Pi sessions: pi's format, with additions.
    #[serde(rename = "omp")]
    OhMyPi,
    /// opencode sessions: its SQLite database, its older `storage/` tree, `opencode export`.
    Opencode,
    /// Gemini CLI chat recordings.
    Gemini,
}

impl Agent {
    /// Every agent, in a stable order.
    pub(crate) const ALL: [Agent; 7] =
        [Agent::Codex, Agent::Claude, Agent::Generic, Agent::Pi, Agent::OhMyPi, Agent::Opencode, Agent::Gemini];

    /// The lower-case name used in files, flags and output.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::Codex => "codex",
            Agent::Claude => "claude",
            Agent::Generic => "generic",
            Agent::Pi => "pi",
            Agent::OhMyPi => "omp",
            Agent::Opencode => "opencode",
            Agent::Gemini => "gemini",
        }
    }
}

/// What a transcript says about its session, gathered while reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionMeta {
    /// The agent's own session id (a UUID for Codex and Claude).
    pub(crate) id: Option<String>,
    /// Working directory of the session (the latest one when it changed).
    pub(crate) cwd: Option<String>,
    pub(crate) git_branch: Option<String>,
    pub(crate) git_remote: Option<String>,
    /// Time of the first record.
    pub(crate) started: Option<Timestamp>,
    /// Time of the last record.
    pub(crate) updated: Option<Timestamp>,
    pub(crate) model: Option<String>,
    /// Title the agent or the user gave the session.
    pub(crate) title: Option<String>,
    /// The session this one was spawned from, when it is a sub-agent.
    pub(crate) parent: Option<String>,
    /// True for sub-agent (sidechain) sessions, which are not extracted on their own by default.
    pub(crate) is_subagent: bool,
    /// Number of records that carried the user's own words, before filtering.
    pub(crate) user_messages: u32,
    /// Where the events of a line sit in the agent's own terms, by line, for a format whose
    /// lines are not the transcript's own (opencode: `message msg_…, part prt_…`). Empty for
    /// the others, whose lessons cite the line.
    pub(crate) places: Vec<(u64, String)>,
}

impl SessionMeta {
    /// Note a record's time: the first one seen is the start, the latest the update.
    pub(crate) fn saw_time(&mut self, ts: Option<Timestamp>) {
        let Some(ts) = ts else { return };
        if self.started.is_none_or(|s| ts < s) {
            self.started = Some(ts);
        }
        if self.updated.is_none_or(|u| ts > u) {
            self.updated = Some(ts);
        }
    }

    /// How a lesson cites `line`: its place when the reader knew one, else `line N`.
    pub(crate) fn place(&self, line: u64) -> std::borrow::Cow<'_, str> {
        match self.places.binary_search_by_key(&line, |(l, _)| *l) {
            Ok(i) => std::borrow::Cow::Borrowed(&self.places[i].1),
            Err(_) => std::borrow::Cow::Owned(format!("line {line}")),
        }
    }

    /// Set `field` from `value` when the value is present and not blank.
    pub(crate) fn set_if_present(field: &mut Option<String>, value: Option<&str>) {
        if let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) {
            *field = Some(v.to_string());
        }
    }
}

/// One normalised record of a transcript.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event<'a> {
    /// 1-based line of the transcript the event came from.
    pub(crate) line: u64,
    pub(crate) kind: EventKind<'a>,
}

impl Event<'_> {
    /// The event with every text it carries owned, for a reader that holds events back
    /// until the file ends ([`crate::core::formats::Reader::drain`]).
    pub(crate) fn into_owned(self) -> Event<'static> {
        let owned = |text: Cow<'_, str>| Cow::Owned(text.into_owned());
        let kind = match self.kind {
            EventKind::User(text) => EventKind::User(owned(text)),
            EventKind::Assistant(text) => EventKind::Assistant(text.into_owned()),
            EventKind::Reasoning => EventKind::Reasoning,
            EventKind::Instruction => EventKind::Instruction,
            EventKind::ToolCall(call) => EventKind::ToolCall(ToolCall {
                id: call.id.map(owned),
                name: owned(call.name),
                command: call.command.map(owned),
                writes: call.writes,
                reads: call.reads,
                input: call.input.into_owned(),
            }),
            EventKind::ToolResult(result) => EventKind::ToolResult(ToolResult {
                id: result.id.map(owned),
                output: result.output.into_owned(),
                exit_code: result.exit_code,
                is_error: result.is_error,
                stopped: result.stopped,
            }),
            EventKind::Compaction(summary) => EventKind::Compaction(summary.map(owned)),
        };
        Event { line: self.line, kind }
    }
}

/// What happened at one point of a session.
///
/// Reasoning and instruction records carry no text at all: nothing downstream can leak what
/// it never received.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EventKind<'a> {
    /// Text the user typed (or that arrived in the user's turn, before filtering).
    User(Cow<'a, str>),
    /// Text the assistant showed the user.
    Assistant(Unredacted<'a>),
    /// Chain of thought. Its content is dropped by the reader.
    Reasoning,
    /// Developer or system scaffolding. Its content is dropped by the reader.
    Instruction,
    ToolCall(ToolCall<'a>),
    ToolResult(ToolResult<'a>),
    /// The agent summarised earlier history to free context.
    Compaction(Option<Cow<'a, str>>),
}

/// A tool invocation by the assistant.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ToolCall<'a> {
    /// Pairs the call with its [`ToolResult`].
    pub(crate) id: Option<Cow<'a, str>>,
    pub(crate) name: Cow<'a, str>,
    /// The shell command line, when the tool runs one.
    pub(crate) command: Option<Cow<'a, str>>,
    /// Files the call writes (edits, creates, deletes), as given.
    pub(crate) writes: Vec<String>,
    /// Files the call reads, as given.
    pub(crate) reads: Vec<String>,
    /// The tool's input as compact text, for display.
    pub(crate) input: Unredacted<'a>,
}

/// The result of a tool invocation.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ToolResult<'a> {
    pub(crate) id: Option<Cow<'a, str>>,
    pub(crate) output: Unredacted<'a>,
    /// Exit status of a shell command, when the transcript records it.
    pub(crate) exit_code: Option<i64>,
    /// The agent marked the result as an error.
    pub(crate) is_error: bool,
    /// The user stopped the call before it finished (cancelled it, or refused it): what it
    /// printed by then says nothing of how it would have ended.
    pub(crate) stopped: bool,
}

impl ToolResult<'_> {
    /// True when the call failed: a non-zero exit status, or an error flag without one.
    pub(crate) fn failed(&self) -> bool {
        match self.exit_code {
            Some(code) => code != 0,
            None => self.is_error,
        }
    }
}

/// Bulky text straight from a transcript (tool inputs and outputs, assistant prose) that has
/// not been through redaction, because most of it is never kept and redacting it all would
/// cost more than the rest of a run.
///
/// Read it with [`Unredacted::for_scanning`] to look for something; keep a piece of it only
/// through [`Unredacted::excerpt`] or by redacting the piece.
///
/// Text from outside the session (a web page, an MCP server's answer: see
/// [`crate::core::external`]) is marked [`Unredacted::marked_outside`]: it can still be searched
/// (an instruction injected into a fetched page is how a hijacked agent's commands are told
/// apart), but an excerpt of it is only a marker, so no engine keeps or learns from it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Unredacted<'a>(Cow<'a, str>, bool);

impl<'a> Unredacted<'a> {
    pub(crate) fn new(text: impl Into<Cow<'a, str>>) -> Unredacted<'a> {
        Unredacted(text.into(), false)
    }

    /// The same text, marked as coming from outside the session.
    pub(crate) fn marked_outside(self) -> Unredacted<'a> {
        Unredacted(self.0, true)
    }

    /// True for text from outside the session (see [`Unredacted::marked_outside`]).
    pub(crate) fn is_marked_outside(&self) -> bool {
        self.1
    }

    /// The raw text, to search. Whatever is kept of it must be redacted.
    pub(crate) fn for_scanning(&self) -> &str {
        &self.0
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The same text, owned.
    pub(crate) fn into_owned(self) -> Unredacted<'static> {
        Unredacted(Cow::Owned(self.0.into_owned()), self.1)
    }
}

/// A problem with one line of a transcript. The rest of the session goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct LineWarning {
    pub(crate) line: u64,
    pub(crate) message: String,
}
