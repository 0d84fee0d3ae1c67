//! What happened to each transcript on an `extract` run, as the per-session lines and JSON
//! objects of its report, and the hints for a run that found nothing to do.

use jiff::SignedDuration;
use serde::Serialize;

use super::coverage::Class;
use super::{Coverage, Reason, SourceState};
use crate::core::extract::Memory;
use crate::core::session::{Agent, LineWarning};
use crate::core::words::count;

/// What happened to one file this run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SessionReport {
    pub(crate) path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<Agent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) session_id: Option<String>,
    pub(crate) outcome: SourceState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) project: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    pub(crate) tasks: usize,
    pub(crate) preferences: usize,
    pub(crate) verified_commands: usize,
    pub(crate) fixes: usize,
    pub(crate) unresolved_errors: usize,
    pub(crate) files_touched: usize,
    pub(crate) warnings: Vec<LineWarning>,
}

impl SessionReport {
    pub(crate) fn new(path: &str, outcome: SourceState) -> SessionReport {
        SessionReport {
            path: path.to_string(),
            agent: None,
            session_id: None,
            outcome,
            reason: None,
            project: None,
            title: None,
            tasks: 0,
            preferences: 0,
            verified_commands: 0,
            fixes: 0,
            unresolved_errors: 0,
            files_touched: 0,
            warnings: Vec::new(),
        }
    }

    /// A report of `outcome` and why.
    pub(crate) fn because(path: &str, outcome: SourceState, reason: impl ToString) -> SessionReport {
        SessionReport { reason: Some(reason.to_string()), ..SessionReport::new(path, outcome) }
    }

    /// Count what an extraction found.
    pub(crate) fn counts_from(&mut self, memory: &Memory) {
        let tasks = &memory.facts.tasks;
        self.tasks = tasks.len();
        self.preferences = tasks.iter().map(|t| t.preferences.len()).sum();
        self.verified_commands = tasks.iter().map(|t| t.verified.len()).sum();
        self.fixes = tasks.iter().map(|t| t.fixes.len()).sum();
        self.unresolved_errors = tasks.iter().map(|t| t.unresolved.len()).sum();
        self.files_touched = tasks.iter().map(|t| t.files.len()).sum();
        self.title = tasks.first().map(|t| t.title.clone());
    }

    /// The one-line text form.
    pub(crate) fn line(&self) -> String {
        let detail = match self.outcome {
            SourceState::Extracted => {
                let mut parts = vec![count(self.tasks, "task")];
                for (n, noun) in [
                    (self.preferences, "preference"),
                    (self.verified_commands, "verified command"),
                    (self.fixes, "fix"),
                    (self.unresolved_errors, "unresolved error"),
                ] {
                    if n > 0 {
                        parts.push(count(n, noun));
                    }
                }
                parts.join(", ")
            }
            SourceState::NoOp => "nothing reusable".to_string(),
            _ => self.reason.clone().unwrap_or_default(),
        };
        format!("{}: {} ({detail})", self.outcome.name(), self.path)
    }
}

/// Warnings shown per file before the rest are only counted.
const WARNINGS_SHOWN_PER_FILE: usize = 10;

/// The warnings of a file's unreadable lines as they are shown: the first few by line, then
/// how many more.
pub(crate) fn warning_lines(key: &str, warnings: &[LineWarning]) -> Vec<String> {
    let mut lines: Vec<String> = warnings
        .iter()
        .take(WARNINGS_SHOWN_PER_FILE)
        .map(|warning| format!("{key}:{}: {}", warning.line, warning.message))
        .collect();
    let more = warnings.len().saturating_sub(WARNINGS_SHOWN_PER_FILE);
    if more > 0 {
        lines.push(format!("{key}: {}", count(more, "more warning")));
    }
    lines
}

/// What a run's flags are, as far as its hints need them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HintFlags<'a> {
    pub(crate) sessions: &'a [String],
    pub(crate) min_idle: SignedDuration,
    pub(crate) max_age: SignedDuration,
}

/// What to try when a run found nothing to do for a reason a flag changes.
pub(crate) fn hints(flags: HintFlags<'_>, coverage: &Coverage) -> Vec<String> {
    let mut hints = Vec::new();
    if !flags.sessions.is_empty() && coverage.counts.sessions == 0 {
        hints.push(format!(
            "no transcript matches --session {}: give a session id or a part of a transcript's path",
            flags.sessions.join(", ")
        ));
    }
    let nothing_read = coverage.counts.extracted + coverage.counts.no_op == 0;
    if nothing_read {
        let windows = windows_left_out(flags, coverage);
        hints.extend(windows.iter().map(LeftOut::line));
    }
    hints
}

/// Sessions a run left out on purpose: how many, why, and what would include them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct LeftOut {
    pub(crate) sessions: u64,
    /// Why, as a phrase: `still active`, `too old`, `deferred`, `sub-agent`, `forgotten`...
    pub(crate) why: &'static str,
    /// What brings them in: a flag, a setting or a command.
    pub(crate) include: String,
    /// The sentence the run prints.
    #[serde(skip)]
    text: String,
}

impl LeftOut {
    fn new(sessions: u64, why: &'static str, include: impl Into<String>, text: String) -> LeftOut {
        LeftOut { sessions, why, include: include.into(), text }
    }

    /// The line a run prints about them.
    pub(crate) fn line(&self) -> String {
        self.text.clone()
    }
}

/// What else a run needs to know to say what would include what it left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Caps {
    /// The per-run session limit, when one applied.
    pub(crate) limit: Option<usize>,
    /// The per-run allowance of model input tokens, when one applied.
    pub(crate) input_tokens: Option<u64>,
}

fn windows_left_out(flags: HintFlags<'_>, coverage: &Coverage) -> Vec<LeftOut> {
    let mut out = Vec::new();
    if coverage.counts.still_active > 0 {
        let hours = flags.min_idle.as_secs_f64() / 3600.0;
        let text = format!(
            "{} left alone: sessions written to in the last {hours} h count as still active; --min-idle 0 (or --all) reads them now",
            count(coverage.counts.still_active as usize, "session")
        );
        out.push(LeftOut::new(coverage.counts.still_active, "still active", "--min-idle 0", text));
    }
    if coverage.counts.too_old > 0 {
        let days = flags.max_age.as_secs_f64() / 86_400.0;
        let text = format!(
            "{} left alone: sessions untouched for over {days} days are too old; --all (or a longer --max-age) reads them",
            count(coverage.counts.too_old as usize, "session")
        );
        out.push(LeftOut::new(coverage.counts.too_old, "too old", "--all", text));
    }
    out
}

/// Every group of sessions a run left out on purpose, with what would include them: the
/// windows, the per-run caps, and the exclusions a setting or a command undoes.
pub(crate) fn left_out(flags: HintFlags<'_>, caps: Caps, coverage: &Coverage) -> Vec<LeftOut> {
    let mut out = windows_left_out(flags, coverage);
    if coverage.counts.deferred > 0 {
        let n = count(coverage.counts.deferred as usize, "session");
        let (include, text) = match caps {
            Caps { limit: Some(limit), .. } => (
                "--limit 0".to_string(),
                format!("{n} wait for a later run (at most {limit} a run); --limit 0 reads them all now"),
            ),
            Caps { input_tokens: Some(tokens), .. } => (
                "--max-input-tokens-per-run 0".to_string(),
                format!(
                    "{n} wait for a later run (the allowance of {tokens} input tokens a run ran out); the next run reads them"
                ),
            ),
            _ => ("the next run".to_string(), format!("{n} wait for a later run, which reads them")),
        };
        out.push(LeftOut::new(coverage.counts.deferred, "deferred", include, text));
    }
    let excluded = |reason: &Reason| coverage.reasons.get(&(Class::Excluded, reason.label().to_string())).copied();
    if let Some(n) = excluded(&Reason::SubAgent) {
        let text = format!(
            "{} left out as sub-agents; --include-subagents extracts them on their own",
            count(n as usize, "session")
        );
        out.push(LeftOut::new(n, "sub-agent", "--include-subagents", text));
    }
    if let Some(n) = excluded(&Reason::ExternalContext) {
        let text = format!(
            "{} left out for using web or MCP tools; HANDBOOK_EXCLUDE_EXTERNAL_CONTEXT=false includes them",
            count(n as usize, "session")
        );
        out.push(LeftOut::new(n, "external context", "HANDBOOK_EXCLUDE_EXTERNAL_CONTEXT=false", text));
    }
    if let Some(n) = excluded(&Reason::Forgotten) {
        let text = format!(
            "{} left out as forgotten; `handbook forget --undo <id>` takes a forget back",
            count(n as usize, "session")
        );
        out.push(LeftOut::new(n, "forgotten", "handbook forget --undo", text));
    }
    out
}

/// The lines a run ends with on stderr: the hints, then what else it left out.
pub(crate) fn notes(flags: HintFlags<'_>, caps: Caps, coverage: &Coverage) -> Vec<String> {
    let mut lines = hints(flags, coverage);
    for left in left_out(flags, caps, coverage) {
        let line = left.line();
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::Counts;

    #[test]
    fn lines_say_the_outcome_and_why() {
        let excluded = SessionReport::because("/a.jsonl", SourceState::Excluded, "sub-agent");
        assert_eq!(excluded.line(), "excluded: /a.jsonl (sub-agent)");
        assert_eq!(SessionReport::new("/b.jsonl", SourceState::NoOp).line(), "no-op: /b.jsonl (nothing reusable)");
        let mut done = SessionReport::new("/c.jsonl", SourceState::Extracted);
        (done.tasks, done.fixes) = (2, 1);
        assert_eq!(done.line(), "extracted: /c.jsonl (2 tasks, 1 fix)");
        assert_eq!(serde_json::to_value(&done).unwrap()["outcome"], "extracted");
    }

    #[test]
    fn a_file_shows_ten_warnings_then_counts_the_rest() {
        let warnings: Vec<LineWarning> =
            (1..=12).map(|line| LineWarning { line, message: "not JSON".into() }).collect();
        let lines = warning_lines("/a.jsonl", &warnings);
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[0], "/a.jsonl:1: not JSON");
        assert_eq!(lines[10], "/a.jsonl: 2 more warnings");
    }

    #[test]
    fn hints_name_the_flag_that_would_read_what_was_left() {
        let flags = HintFlags {
            sessions: &[],
            min_idle: SignedDuration::from_hours(6),
            max_age: SignedDuration::from_hours(240),
        };
        let idle =
            Coverage { counts: Counts { sessions: 1, still_active: 1, ..Counts::default() }, ..Coverage::default() };
        assert_eq!(hints(flags, &idle).len(), 1);
        assert!(hints(flags, &idle)[0].contains("last 6 h"));
        let read_some = Coverage { counts: Counts { extracted: 1, ..idle.counts }, ..idle.clone() };
        assert!(hints(flags, &read_some).is_empty());
        let named = ["abc".to_string()];
        let nothing = Coverage::default();
        assert!(hints(HintFlags { sessions: &named, ..flags }, &nothing)[0].contains("--session abc"));
    }

    #[test]
    fn every_group_left_out_says_how_many_why_and_what_includes_it() {
        let flags = HintFlags {
            sessions: &[],
            min_idle: SignedDuration::from_hours(6),
            max_age: SignedDuration::from_hours(240),
        };
        let mut c = Coverage {
            counts: Counts { sessions: 9, extracted: 1, still_active: 2, too_old: 1, deferred: 3, ..Counts::default() },
            ..Coverage::default()
        };
        c.count_reason(Class::Excluded, &Reason::SubAgent);
        c.count_reason(Class::Excluded, &Reason::Forgotten);
        let caps = Caps { limit: Some(16), input_tokens: None };
        let left = left_out(flags, caps, &c);
        let whys: Vec<(&str, u64, &str)> = left.iter().map(|l| (l.why, l.sessions, l.include.as_str())).collect();
        assert_eq!(
            whys,
            [
                ("still active", 2, "--min-idle 0"),
                ("too old", 1, "--all"),
                ("deferred", 3, "--limit 0"),
                ("sub-agent", 1, "--include-subagents"),
                ("forgotten", 1, "handbook forget --undo"),
            ]
        );
        let lines = notes(flags, caps, &c);
        assert_eq!(lines.len(), 5, "{lines:?}");
        assert_eq!(
            lines[0],
            "2 sessions left alone: sessions written to in the last 6 h count as still active; --min-idle 0 (or --all) reads them now"
        );
        assert_eq!(lines[2], "3 sessions wait for a later run (at most 16 a run); --limit 0 reads them all now");
        let json = serde_json::to_value(&left[1]).unwrap();
        assert_eq!(json, serde_json::json!({"sessions": 1, "why": "too old", "include": "--all"}));
        let nothing_read = Coverage { counts: Counts { extracted: 0, ..c.counts }, ..c };
        assert_eq!(notes(flags, caps, &nothing_read).len(), 5, "a hint is not said twice");
    }
}
