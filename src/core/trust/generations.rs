//! Generations: every baseline a consolidation (or an undo, a review, a promote) commits,
//! kept in `.handbook/generations.json` as a log entry whose tree (workspace path → content
//! hash) is a content-addressed object like the files it names. The log keeps the last
//! `keep_generations` (20); what no kept generation needs is pruned. A pending generation
//! (review mode) waits beside the log until it is accepted.
//!
//! Recording is idempotent: a tree the newest generation already has records nothing, so a
//! run killed after writing the log and then run again leaves one generation, not two.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::lesson::{Lesson, LessonId, by_id, lessons};
use crate::core::layout::NOTES_DIR;

/// Bumped when the log's shape changes incompatibly.
pub(crate) const LOG_VERSION: u32 = 1;

/// A generation's files: workspace-relative path → content hash.
pub(crate) type Tree = BTreeMap<String, String>;

/// What made a generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "made", rename_all = "lowercase")]
pub(crate) enum Made {
    Consolidate,
    /// `undo`: the workspace put back as generation `to` was.
    Undo {
        to: u64,
    },
    /// `review --accept`: all of the pending change, or some lessons of it.
    Accept,
    /// `review --reject`, when what was left of the pending change moved no lesson.
    Reject,
    Promote,
    /// A baseline rebuilt from the workspace as it was found (the old one was lost).
    Baseline,
}

impl Made {
    pub(crate) fn describe(self) -> String {
        match self {
            Made::Consolidate => "consolidate".to_string(),
            Made::Undo { to } => format!("undo: back to generation {to}"),
            Made::Accept => "review: accepted".to_string(),
            Made::Reject => "review: rejected".to_string(),
            Made::Promote => "promote".to_string(),
            Made::Baseline => "baseline: the workspace as found".to_string(),
        }
    }
}

/// What changed from the generation before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Changes {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) sessions_added: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) sessions_removed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) lessons_added: Vec<LessonId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) lessons_changed: Vec<LessonId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) lessons_removed: Vec<LessonId>,
}

impl Changes {
    /// `sessions +1 -0, lessons +2 ~1 -0`.
    pub(crate) fn counts(&self) -> String {
        format!(
            "sessions +{} -{}, lessons +{} ~{} -{}",
            self.sessions_added.len(),
            self.sessions_removed.len(),
            self.lessons_added.len(),
            self.lessons_changed.len(),
            self.lessons_removed.len()
        )
    }
}

/// One generation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Generation {
    /// Counted from 1; a pending generation has none yet (0).
    pub(crate) id: u64,
    pub(crate) at: Timestamp,
    #[serde(flatten)]
    pub(crate) made: Made,
    /// The engine that wrote its lessons (`builtin`, `openai gpt-4.1-mini`).
    pub(crate) engine: String,
    /// The object holding its [`Tree`].
    pub(crate) tree: String,
    /// The object holding the summary before its cap, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) whole: Option<String>,
    /// The manifest's renderer and cap, so an undo restores the baseline exactly.
    pub(crate) renderer: String,
    pub(crate) summary_max_tokens: usize,
    /// The sessions its handbook holds.
    pub(crate) sessions: Vec<String>,
    pub(crate) changes: Changes,
}

/// `.handbook/generations.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Log {
    pub(crate) version: u32,
    /// The id the next generation gets.
    pub(crate) next: u64,
    /// Oldest first.
    pub(crate) generations: Vec<Generation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pending: Option<Generation>,
}

impl Default for Log {
    fn default() -> Log {
        Log { version: LOG_VERSION, next: 1, generations: Vec::new(), pending: None }
    }
}

impl Log {
    /// The newest generation: what the workspace was last committed as.
    pub(crate) fn current(&self) -> Option<&Generation> {
        self.generations.last()
    }

    pub(crate) fn find(&self, id: u64) -> Option<&Generation> {
        self.generations.iter().find(|g| g.id == id)
    }

    /// The generation before the newest, which a plain `undo` goes back to.
    pub(crate) fn previous(&self) -> Option<&Generation> {
        self.generations.iter().rev().nth(1)
    }

    /// Record `generation` (its id is given here) and keep the newest `keep`; the id, or
    /// `None` when the newest generation already has its tree and whole summary.
    pub(crate) fn record(&mut self, mut generation: Generation, keep: usize) -> Option<u64> {
        if self.current().is_some_and(|g| g.tree == generation.tree && g.whole == generation.whole) {
            return None;
        }
        generation.id = self.next;
        self.next += 1;
        self.generations.push(generation);
        let over = self.generations.len().saturating_sub(keep.max(1));
        self.generations.drain(..over);
        Some(self.next - 1)
    }

    /// Drop every generation (and the pending one) whose handbook holds `session`, and take
    /// its id out of the others' changes: nothing of a forgotten session stays. The ids
    /// dropped (0 for the pending one).
    pub(crate) fn forget(&mut self, session: &str) -> Vec<u64> {
        let holds = |g: &Generation| g.sessions.iter().any(|s| s == session);
        let mut dropped: Vec<u64> = self.generations.iter().filter(|g| holds(g)).map(|g| g.id).collect();
        self.generations.retain(|g| !holds(g));
        if self.pending.as_ref().is_some_and(holds) {
            self.pending = None;
            dropped.push(0);
        }
        for generation in &mut self.generations {
            let changes = &mut generation.changes;
            changes.sessions_added.retain(|s| s != session);
            changes.sessions_removed.retain(|s| s != session);
        }
        dropped
    }
}

/// The sessions a `raw_memories.md` holds, each with its last activity.
pub(crate) fn sessions_of(raw_memories: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in raw_memories.lines() {
        if let Some(id) = line.strip_prefix("## Session `").and_then(|rest| rest.strip_suffix('`')) {
            current = Some(id.to_string());
            out.insert(id.to_string(), String::new());
        } else if let (Some(id), Some(at)) = (&current, line.strip_prefix("updated_at: ")) {
            out.insert(id.clone(), at.trim().to_string());
            current = None;
        }
    }
    out
}

/// How one lesson differs between two handbooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Added,
    Changed,
    Removed,
}

impl Status {
    pub(crate) fn sign(self) -> char {
        match self {
            Status::Added => '+',
            Status::Changed => '~',
            Status::Removed => '-',
        }
    }
}

/// A lesson that differs: as it was, and as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LessonChange {
    pub(crate) status: Status,
    pub(crate) before: Option<Lesson>,
    pub(crate) after: Option<Lesson>,
}

impl LessonChange {
    /// The lesson as it is, or as it was when it is gone.
    pub(crate) fn lesson(&self) -> &Lesson {
        // Every change has a side: added and changed have `after`, removed has `before`.
        self.after.as_ref().or(self.before.as_ref()).expect("a change has a lesson on one side")
    }
}

/// The lessons that differ from the `MEMORY.md` text `old` to `new` (`None`: no handbook),
/// added first, then changed, then removed, each in the order its text has them.
pub(crate) fn lesson_changes(old: Option<&str>, new: Option<&str>) -> Vec<LessonChange> {
    let old = by_id(old.map(lessons).unwrap_or_default());
    let new = by_id(new.map(lessons).unwrap_or_default());
    let mut out = Vec::new();
    for (id, lesson) in &new {
        match old.get(id) {
            None => out.push(LessonChange { status: Status::Added, before: None, after: Some(lesson.clone()) }),
            Some(was) if was.line != lesson.line => out.push(LessonChange {
                status: Status::Changed,
                before: Some(was.clone()),
                after: Some(lesson.clone()),
            }),
            Some(_) => {}
        }
    }
    for (id, lesson) in &old {
        if !new.contains_key(id) {
            out.push(LessonChange { status: Status::Removed, before: Some(lesson.clone()), after: None });
        }
    }
    out.sort_by_key(|c| (c.status, c.lesson().line_number));
    out
}

impl LessonChange {
    /// `+ L-3f2a9c1b preference, github.com/acme/app: We use pnpm, not npm.`, then for a
    /// changed lesson its line as it was and as it is.
    pub(crate) fn lines(&self) -> Vec<String> {
        let lesson = self.lesson();
        let words = crate::core::extract::render::one_line(&lesson.text);
        // A note's title is most often its first line: then it says nothing more.
        let title = lesson.title.as_ref().filter(|t| !words.starts_with(t.trim_end_matches('…')));
        let title = title.map(|t| format!(" ({t})")).unwrap_or_default();
        let mut out = vec![format!(
            "{} {} {}, {}{title}: {words}",
            self.status.sign(),
            lesson.id,
            lesson.kind.name(),
            lesson.scope()
        )];
        if let (Status::Changed, Some(before), Some(after)) = (self.status, &self.before, &self.after) {
            out.push(format!("    was: {}", before.line.trim()));
            out.push(format!("    now: {}", after.line.trim()));
        }
        out
    }
}

/// The changes from a handbook (`MEMORY.md` text and sessions) to the next.
pub(crate) fn changes(
    old_memory: Option<&str>,
    new_memory: Option<&str>,
    old_sessions: &[String],
    new_sessions: &[String],
) -> Changes {
    let lessons = lesson_changes(old_memory, new_memory);
    let of = |status| lessons.iter().filter(|c| c.status == status).map(|c| c.lesson().id.clone()).collect();
    let old: BTreeSet<&String> = old_sessions.iter().collect();
    let new: BTreeSet<&String> = new_sessions.iter().collect();
    Changes {
        sessions_added: new.difference(&old).map(|s| (*s).clone()).collect(),
        sessions_removed: old.difference(&new).map(|s| (*s).clone()).collect(),
        lessons_added: of(Status::Added),
        lessons_changed: of(Status::Changed),
        lessons_removed: of(Status::Removed),
    }
}

/// A tree without the handbook's two texts: the inputs it was made from (sessions, notes).
pub(crate) fn inputs(tree: &Tree) -> Tree {
    let handbook = [crate::core::layout::MEMORY, crate::core::layout::SUMMARY];
    tree.iter().filter(|(p, _)| !handbook.contains(&p.as_str())).map(|(p, h)| (p.clone(), h.clone())).collect()
}

/// Whether a workspace path is a note: the user's own file, which undo never touches.
pub(crate) fn is_note(path: &str) -> bool {
    path.starts_with(&format!("{NOTES_DIR}/"))
}

/// What putting the workspace back as `target` was takes, from `current`: the files to write
/// (path → hash) and the files to remove. Notes are left as they are either way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Restore {
    pub(crate) writes: BTreeMap<String, String>,
    pub(crate) removes: Vec<String>,
}

pub(crate) fn restore(current: &Tree, target: &Tree) -> Restore {
    let writes = target
        .iter()
        .filter(|(path, hash)| !is_note(path) && current.get(*path) != Some(hash))
        .map(|(p, h)| (p.clone(), h.clone()))
        .collect();
    let removes = current.keys().filter(|p| !is_note(p) && !target.contains_key(*p)).cloned().collect();
    Restore { writes, removes }
}

/// One line of `log`: `5  2026-11-29T12:00:00Z  consolidate (builtin)  sessions +1 -0, lessons +2 ~0 -0`.
pub(crate) fn log_line(generation: &Generation, current: bool) -> String {
    let id = if generation.id == 0 { "pending".to_string() } else { generation.id.to_string() };
    let tag = match (generation.id, current) {
        (0, _) => "  (waiting for review: `handbook review`)",
        (_, true) => "  (current)",
        _ => "",
    };
    format!(
        "{id:>7}  {}  {} ({})  {}{tag}",
        crate::core::layout::timestamp(generation.at),
        generation.made.describe(),
        generation.engine,
        generation.changes.counts()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(tree: &str, sessions: &[&str]) -> Generation {
        Generation {
            id: 0,
            at: "2026-11-29T12:00:00Z".parse().unwrap(),
            made: Made::Consolidate,
            engine: "builtin".into(),
            tree: tree.into(),
            whole: None,
            renderer: "builtin-1".into(),
            summary_max_tokens: 2500,
            sessions: sessions.iter().map(|s| s.to_string()).collect(),
            changes: Changes::default(),
        }
    }

    #[test]
    fn recording_is_idempotent_and_keeps_the_newest() {
        let mut log = Log::default();
        assert_eq!(log.record(generation("t1", &["a"]), 2), Some(1));
        assert_eq!(log.record(generation("t1", &["a"]), 2), None, "the same tree twice is one generation");
        assert_eq!(log.record(generation("t2", &["a", "b"]), 2), Some(2));
        assert_eq!(log.record(generation("t3", &["b"]), 2), Some(3));
        let ids: Vec<u64> = log.generations.iter().map(|g| g.id).collect();
        assert_eq!(ids, [2, 3]);
        assert_eq!(log.previous().map(|g| g.id), Some(2));
    }

    #[test]
    fn forgetting_a_session_drops_every_generation_that_holds_it() {
        let mut log = Log::default();
        log.record(generation("t1", &["a"]), 20);
        let mut second = generation("t2", &["b"]);
        second.changes.sessions_removed = vec!["a".into()];
        second.changes.sessions_added = vec!["b".into()];
        log.record(second, 20);
        log.pending = Some(generation("t3", &["a", "b"]));
        assert_eq!(log.forget("a"), [1, 0]);
        assert_eq!(log.generations.len(), 1);
        assert!(log.pending.is_none());
        assert_eq!(log.generations[0].changes.sessions_removed, Vec::<String>::new());
        assert_eq!(log.generations[0].changes.sessions_added, ["b"]);
    }

    #[test]
    fn sessions_are_read_from_raw_memories() {
        let raw = "# Raw Memories\n\n## Session `s-1`\nupdated_at: 2026-11-20T10:00:00Z\ncwd: /w\n\nraw\n\n## Session `s-2`\nupdated_at: 2026-11-21T10:00:00Z\n";
        let sessions = sessions_of(raw);
        assert_eq!(sessions["s-1"], "2026-11-20T10:00:00Z");
        assert_eq!(sessions.keys().collect::<Vec<_>>(), ["s-1", "s-2"]);
    }

    #[test]
    fn lesson_changes_are_added_changed_and_removed() {
        let old = "# Task Group: p\n\n## User preferences\n\n- keep (preference; 1 session) [Task 1]\n- grow (preference; 1 session) [Task 1]\n- go (preference; 1 session) [Task 1]\n";
        let new = "# Task Group: p\n\n## User preferences\n\n- keep (preference; 1 session) [Task 1]\n- grow (preference; 2 sessions) [Task 1][Task 2]\n- come (preference; 1 session) [Task 2]\n";
        let found: Vec<(Status, String)> =
            lesson_changes(Some(old), Some(new)).iter().map(|c| (c.status, c.lesson().text.clone())).collect();
        assert_eq!(
            found,
            [(Status::Added, "come".into()), (Status::Changed, "grow".into()), (Status::Removed, "go".into())]
        );
        let counted = changes(Some(old), Some(new), &["a".into()], &["a".into(), "b".into()]);
        assert_eq!(counted.counts(), "sessions +1 -0, lessons +1 ~1 -1");
        assert_eq!(lesson_changes(None, Some(old)).len(), 3);
    }

    #[test]
    fn restoring_leaves_notes_alone() {
        let tree =
            |pairs: &[(&str, &str)]| -> Tree { pairs.iter().map(|(p, h)| (p.to_string(), h.to_string())).collect() };
        let note = format!("{NOTES_DIR}/n.md");
        let current = tree(&[("MEMORY.md", "m2"), ("rollout_summaries/b.md", "b"), (note.as_str(), "n2")]);
        let target = tree(&[("MEMORY.md", "m1"), ("rollout_summaries/a.md", "a"), (note.as_str(), "n1")]);
        let plan = restore(&current, &target);
        assert_eq!(plan.writes.keys().collect::<Vec<_>>(), ["MEMORY.md", "rollout_summaries/a.md"]);
        assert_eq!(plan.removes, ["rollout_summaries/b.md"]);
    }
}
