//! `why`: where a lesson came from (the sessions, transcript lines and dates behind it), how
//! much it is supported and used, when it was last confirmed against its tree, and why it
//! ranks where it does in `MEMORY.md` and the summary. Everything is decided here on values
//! the command gathers.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use serde::Serialize;

use super::filter::{tells, verified_command};
use super::freshness::Check;
use super::lesson::{Kind, Lesson};
use super::{HeldLesson, Promoted};
use crate::core::consolidate::merge::content_words;
use crate::core::extract::TaskFacts;
use crate::core::extract::durability::fact_of;
use crate::core::layout::timestamp;
use crate::core::project::display_name;
use crate::core::summary::Summary;
use crate::core::words::count;

/// One session behind a lesson, as its stored record tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Source {
    pub(crate) session_id: String,
    pub(crate) agent: String,
    pub(crate) transcript: String,
    /// The session's last activity.
    pub(crate) date: String,
    /// The transcript lines the lesson's facts came from (the task's line when no fact of
    /// the task is the lesson's own, as with a model's wording).
    pub(crate) lines: Vec<u64>,
    pub(crate) uses: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_used: Option<String>,
}

/// The transcript lines of `task`'s facts that `lesson` tells.
pub(crate) fn fact_lines(lesson: &Lesson, task: &TaskFacts) -> Vec<u64> {
    let words = content_words(&lesson.text);
    let alike = |text: &str| {
        let other = content_words(&fact_of(text));
        let shared = other.intersection(&words).count();
        !other.is_empty() && shared * 10 >= other.len().min(words.len()).max(1) * 7
    };
    let spans = |command: &str| {
        lesson.text.contains(&format!("`{command}`")) || lesson.text.contains(&format!("`` {command} ``"))
    };
    let mut lines: BTreeSet<u64> = BTreeSet::new();
    match lesson.kind {
        Kind::Preference => lines.extend(task.preferences.iter().filter(|p| alike(&p.text)).map(|p| p.line)),
        Kind::Knowledge => {
            let command = verified_command(lesson);
            lines.extend(task.verified.iter().filter(|v| Some(&v.command) == command.as_ref()).map(|v| v.line));
            lines.extend(task.observations.iter().filter(|o| lesson.text.contains(o.text.trim())).map(|o| o.line));
        }
        Kind::Failure => {
            for fix in task.fixes.iter().filter(|f| spans(&f.failure.command)) {
                lines.extend([fix.failure.line, fix.line]);
            }
            lines.extend(task.unresolved.iter().filter(|f| spans(&f.command)).map(|f| f.line));
        }
        Kind::Note => {}
    }
    if lines.is_empty() {
        lines.insert(task.line);
    }
    lines.into_iter().collect()
}

/// How `MEMORY.md` and the summary order lessons: use, support, recency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Standing {
    pub(crate) uses: u64,
    pub(crate) support: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last: Option<Timestamp>,
}

/// A lesson's standing from its sessions' use (`usage`: session → (uses, last activity)).
pub(crate) fn standing(lesson: &Lesson, usage: &BTreeMap<String, (u32, Timestamp)>) -> Standing {
    let known: Vec<&(u32, Timestamp)> = lesson.sessions.iter().filter_map(|s| usage.get(&s.session_id)).collect();
    Standing {
        uses: known.iter().map(|(uses, _)| u64::from(*uses)).sum(),
        support: lesson.sessions.len(),
        last: known.iter().map(|(_, at)| *at).max(),
    }
}

/// Each session's uses and last activity, from `raw_memories.md`.
pub(crate) fn usage_of(raw_memories: &str) -> BTreeMap<String, (u32, Timestamp)> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, u32, Option<Timestamp>)> = None;
    let flush = |c: Option<(String, u32, Option<Timestamp>)>, out: &mut BTreeMap<String, (u32, Timestamp)>| {
        if let Some((id, uses, Some(at))) = c {
            out.insert(id, (uses, at));
        }
    };
    for line in raw_memories.lines() {
        if let Some(id) = line.strip_prefix("## Session `").and_then(|r| r.strip_suffix('`')) {
            flush(current.take(), &mut out);
            current = Some((id.to_string(), 0, None));
        } else if let Some((_, uses, at)) = current.as_mut() {
            if let Some(n) = line.strip_prefix("usage_count: ") {
                *uses = n.trim().parse().unwrap_or(0);
            } else if let Some(t) = line.strip_prefix("updated_at: ") {
                *at = t.trim().parse().ok();
            }
        }
    }
    flush(current, &mut out);
    out
}

/// Why a lesson ranks where it does in `MEMORY.md`, among `peers` (the lessons of its kind
/// and project, in the order written).
pub(crate) fn rank_in_memory(lesson: &Lesson, peers: &[&Lesson], usage: &BTreeMap<String, (u32, Timestamp)>) -> String {
    if lesson.kind == Kind::Note {
        return "notes come first in MEMORY.md and in the summary's preferences, newest first: they are your own words"
            .to_string();
    }
    let position = peers.iter().position(|p| p.id == lesson.id).map_or(0, |p| p + 1);
    let mine = standing(lesson, usage);
    let mut text = format!(
        "{position} of {} in the {} of {} in MEMORY.md, ordered by use (citations of their sessions), then support, then recency: {}",
        peers.len(),
        lesson.kind.section(),
        lesson.project.as_deref().unwrap_or("?"),
        describe(&mine)
    );
    if position > 1 {
        let above = standing(peers[position - 2], usage);
        text.push_str(&format!("; the one above: {}", describe(&above)));
        if above == mine {
            text.push_str(" (a tie, settled by the kind of lesson, then its words)");
        }
    }
    if let Some(below) = peers.get(position) {
        text.push_str(&format!("; the one below: {}", describe(&standing(below, usage))));
    }
    text
}

fn describe(standing: &Standing) -> String {
    let last = standing.last.map(|t| format!(", last {}", t.strftime("%Y-%m-%d"))).unwrap_or_default();
    format!("{}, {}{last}", count(standing.uses as usize, "use"), count(standing.support, "session"))
}

/// What a lesson's state keeps it from (held back, stale, promoted).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct State<'a> {
    pub(crate) check: Option<&'a Check>,
    pub(crate) held: Option<&'a HeldLesson>,
    pub(crate) promoted: Option<&'a Promoted>,
}

/// Where a lesson is in the summary (`summary`, and `whole` before its cap), or why it is not.
pub(crate) fn place_in_summary(
    lesson: &Lesson,
    summary: &str,
    whole: Option<&str>,
    state: State,
    cap: usize,
) -> String {
    let name = lesson.project.as_deref().map(display_name).unwrap_or_default();
    if let Some((line, heading, position, of)) = find_entry(lesson, summary, &name) {
        return format!("in the summary at memory_summary.md:{line}, {position} of {of} in {heading}");
    }
    if let Some(reason) = state.check.and_then(Check::reason) {
        return format!("not in the summary: it is stale ({reason})");
    }
    if let Some(promoted) = state.promoted {
        return format!("not in the summary: it was promoted to {}, which tells it now", promoted.file);
    }
    if let Some(held) = state.held {
        return format!("not in the handbook: {} on {}", held.why.name(), timestamp(held.at));
    }
    if whole.is_some_and(|w| find_entry(lesson, w, &name).is_some()) {
        return format!("not in the summary: cut by its {cap}-token cap, which keeps the higher-ranked entries");
    }
    "kept in MEMORY.md only: the summary tells each project's top tips and the top preferences, and this one ranks below them (or is of a kind it leaves out, such as a failure a task got past)".to_string()
}

/// The summary entry that tells `lesson`: its line, its section, and its place among the
/// section's entries.
fn find_entry(lesson: &Lesson, summary: &str, name: &str) -> Option<(usize, String, usize, usize)> {
    let parsed = Summary::parse(summary).ok()?;
    let command = verified_command(lesson).map(|c| crate::core::extract::render::code(&c));
    for section in &parsed.sections {
        for (i, entry) in section.entries.iter().enumerate() {
            let first = entry.lines.first().map_or("", String::as_str);
            let lists = command
                .as_ref()
                .is_some_and(|c| first.starts_with(&format!("- {name}: verified ")) && first.contains(c.as_str()));
            if lists || tells(first, lesson, name) {
                let line = summary.lines().position(|l| l == first).map_or(0, |p| p + 1);
                let heading = section.heading.trim_start_matches('#').trim().to_string();
                return Some((line, heading, i + 1, section.entries.len()));
            }
        }
    }
    None
}

/// Everything `why` says of a lesson.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Explained {
    pub(crate) id: String,
    pub(crate) kind: Kind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) project: Option<String>,
    pub(crate) text: String,
    /// Where it was found: `MEMORY.md:18`, `the pending generation`, `generation 3`.
    pub(crate) found: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
    pub(crate) sessions: Vec<Source>,
    pub(crate) support: usize,
    pub(crate) uses: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_confirmed: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) stale: Option<String>,
    pub(crate) rank: String,
    pub(crate) summary: String,
}

impl Explained {
    /// The text `why` prints.
    pub(crate) fn lines(&self) -> Vec<String> {
        let scope = self.project.as_deref().map(|p| format!(", {p}")).unwrap_or_default();
        let mut out = vec![format!("{} ({}{scope}), {}", self.id, self.kind.name(), self.found)];
        out.extend(self.text.lines().map(|l| format!("  {l}")));
        if let Some(note) = &self.note {
            out.push(format!("written by you: {note}"));
        }
        if self.sessions.is_empty() && self.note.is_none() {
            out.push("sessions: none cited (a line added by hand, or by a model without a task reference)".into());
        }
        for s in &self.sessions {
            let lines: Vec<String> = s.lines.iter().map(u64::to_string).collect();
            let used = s.last_used.as_ref().map(|t| format!(", last used {t}")).unwrap_or_default();
            out.push(format!(
                "session {} ({}, {}): {}:{} ({}{used})",
                s.session_id,
                s.agent,
                s.date,
                s.transcript,
                lines.join(","),
                count(s.uses as usize, "use")
            ));
        }
        out.push(format!("support: {}; used {}", count(self.support, "session"), count(self.uses as usize, "time")));
        out.push(match (&self.stale, self.last_confirmed) {
            (Some(reason), Some(at)) => format!("stale: {reason} (last confirmed {})", timestamp(at)),
            (Some(reason), None) => format!("stale: {reason}"),
            (None, Some(at)) => format!("last confirmed against its working tree: {}", timestamp(at)),
            (None, None) => {
                "never confirmed: it names nothing checkable, or its working tree is not on this machine".into()
            }
        });
        out.push(format!("rank: {}", self.rank));
        out.push(self.summary.clone());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::extract::shell::CommandKind;
    use crate::core::extract::signals::SignalKind;
    use crate::core::extract::{Failure, Fix, Outcome, Signal, Verified};
    use crate::core::trust::lesson::lessons;

    const MEMORY: &str = "# Task Group: /w/app
scope: x
applies_to: x

## Task 1: t (success)

### rollout_summary_files

- rollout_summaries/a.md (cwd=/w/app, rollout_path=/t/a.jsonl, updated_at=2026-11-22T10:00:00Z, session_id=a)

## User preferences

- We use pnpm, not npm. (preference; 1 session) [Task 1]
- Keep commits small. (preference; 1 session) [Task 1]

## Reusable knowledge

- verified test command: `pnpm test` (1 session) [Task 1]

## Failures and how to do differently

- `pnpm build` failed with `missing dist` -> `pnpm build --force` worked (1 session) [Task 1]
";

    fn facts() -> TaskFacts {
        let mut t = TaskFacts { outcome: Outcome::Success, ..TaskFacts::new("t".into(), 2) };
        t.preferences.push(Signal {
            kind: SignalKind::Preference,
            text: "Please remember: we use pnpm, not npm.".into(),
            line: 4,
        });
        t.verified.push(Verified { command: "pnpm test".into(), kind: CommandKind::Test, line: 9 });
        let failure =
            Failure { command: "pnpm build".into(), error: "missing dist".into(), exit_code: Some(1), line: 11 };
        t.fixes.push(Fix {
            failure,
            attempts: 1,
            command: "pnpm build --force".into(),
            line: 13,
            edited: vec![],
            ran: vec![],
            settings: vec![],
            chain: vec![],
            before: vec![],
            work: false,
            past: false,
            alone: false,
        });
        t
    }

    #[test]
    fn each_kind_of_lesson_finds_the_lines_it_came_from() {
        let found = lessons(MEMORY);
        let lines: Vec<Vec<u64>> = found.iter().map(|l| fact_lines(l, &facts())).collect();
        assert_eq!(lines, [vec![4], vec![2], vec![9], vec![11, 13]]);
    }

    #[test]
    fn the_rank_and_the_summary_place_are_explained() {
        let found = lessons(MEMORY);
        let usage = usage_of("## Session `a`\nupdated_at: 2026-11-22T10:00:00Z\nusage_count: 3\n");
        assert_eq!(standing(&found[0], &usage).uses, 3);
        let peers: Vec<&Lesson> = found.iter().filter(|l| l.kind == Kind::Preference).collect();
        let rank = rank_in_memory(&found[1], &peers, &usage);
        assert!(
            rank.starts_with("2 of 2 in the User preferences of /w/app") && rank.contains("the one above: 3 uses"),
            "{rank}"
        );
        let summary = "v1\n\n## User preferences\n\n- We use pnpm, not npm. (preference; app)\n\n## General Tips\n\n- app: verified `pnpm test`\n";
        let place = place_in_summary(&found[0], summary, None, State::default(), 2500);
        assert_eq!(place, "in the summary at memory_summary.md:5, 1 of 1 in User preferences");
        assert!(place_in_summary(&found[2], summary, None, State::default(), 2500).contains("General Tips"));
        let whole = format!("{summary}- app: `pnpm build` failed with `missing dist` -> `pnpm build --force` worked\n");
        assert!(
            place_in_summary(&found[3], summary, Some(&whole), State::default(), 2500)
                .contains("cut by its 2500-token cap")
        );
        let check = Check { stale: vec!["`x` no longer exists".into()], ..Check::default() };
        let stale = State { check: Some(&check), ..State::default() };
        assert!(place_in_summary(&found[1], summary, None, stale, 2500).contains("stale"));
    }
}
