//! Lessons as `MEMORY.md` holds them, and the reference that names each one.
//!
//! A lesson is a bullet under a task group's `## User preferences`, `## Reusable knowledge` or
//! `## Failures and how to do differently`, or a note under `# Notes`. Any engine writes this
//! layout (a model rewrites the lessons in it), so review, undo, promote and `why` work the
//! same with every engine: they read lessons from the text, never from the engine.
//!
//! A lesson's reference (`L-3f2a9c1b`) is the first eight hex digits of the blake3 hash of its
//! kind, its project and its words, without what a rebuild changes in its line (the support
//! annotation `(preference; 2 sessions)`, the task references `[Task 3]`, the marks handbook
//! adds, `[stale: …]` and `[promoted to …]`). The same lesson keeps its reference across
//! consolidations while its words stay the same; other words are another lesson. A note's
//! reference is made of its file and its words.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::core::consolidate::edits::identity;

/// A lesson's reference, `L-` and eight lower-case hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct LessonId(pub(crate) String);

impl LessonId {
    /// The reference of a lesson of `kind` in `project` saying `text`.
    pub(crate) fn of(kind: Kind, project: &str, text: &str) -> LessonId {
        let key = format!("{}\u{0}{project}\u{0}{text}", kind.name());
        LessonId(format!("L-{}", &blake3::hash(key.as_bytes()).to_hex()[..8]))
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LessonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What kind of lesson, by the section that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    /// A note the user wrote.
    Note,
    Preference,
    /// A verified command, or what an agent's closing account said.
    Knowledge,
    /// A failure, with how it was fixed when it was.
    Failure,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Note => "note",
            Kind::Preference => "preference",
            Kind::Knowledge => "knowledge",
            Kind::Failure => "failure",
        }
    }

    /// The section of a task group that holds lessons of this kind.
    pub(crate) fn section(self) -> &'static str {
        match self {
            Kind::Note => "Notes",
            Kind::Preference => "User preferences",
            Kind::Knowledge => "Reusable knowledge",
            Kind::Failure => "Failures and how to do differently",
        }
    }

    fn of_section(heading: &str) -> Option<Kind> {
        [Kind::Preference, Kind::Knowledge, Kind::Failure].into_iter().find(|k| k.section() == heading)
    }
}

/// A session behind a lesson, as `MEMORY.md` cites it under a task.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Evidence {
    pub(crate) session_id: String,
    /// As the citation gives it (RFC 3339, seconds).
    pub(crate) updated_at: String,
    pub(crate) cwd: Option<String>,
    pub(crate) rollout_path: String,
    /// The rollout summary, workspace-relative.
    pub(crate) summary_file: String,
}

/// What handbook marked on a lesson's line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Marks {
    /// `[stale: <reason>]`.
    pub(crate) stale: Option<String>,
    /// `[promoted to <file>]`.
    pub(crate) promoted: Option<String>,
}

const STALE_MARK: &str = " [stale: ";
const PROMOTED_MARK: &str = " [promoted to ";

impl Marks {
    /// `line` with these marks at its end.
    pub(crate) fn put_on(&self, line: &str) -> String {
        let mut out = line.trim_end().to_string();
        if let Some(reason) = &self.stale {
            out.push_str(&format!("{STALE_MARK}{reason}]"));
        }
        if let Some(file) = &self.promoted {
            out.push_str(&format!("{PROMOTED_MARK}{file}]"));
        }
        out
    }

    /// A line's marks, and the line without them.
    pub(crate) fn take_from(line: &str) -> (Marks, &str) {
        let mut marks = Marks::default();
        let mut rest = line.trim_end();
        loop {
            if let Some(at) = rest.rfind(PROMOTED_MARK).filter(|_| rest.ends_with(']')) {
                marks.promoted = Some(rest[at + PROMOTED_MARK.len()..rest.len() - 1].to_string());
                rest = &rest[..at];
            } else if let Some(at) = rest.rfind(STALE_MARK).filter(|_| rest.ends_with(']')) {
                marks.stale = Some(rest[at + STALE_MARK.len()..rest.len() - 1].to_string());
                rest = &rest[..at];
            } else {
                return (marks, rest);
            }
        }
    }
}

/// One lesson of `MEMORY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lesson {
    pub(crate) id: LessonId,
    pub(crate) kind: Kind,
    /// The task group's key as its heading shows it; none for a note.
    pub(crate) project: Option<String>,
    /// The lesson's words: its line without the bullet, annotations and marks; a note's body.
    pub(crate) text: String,
    /// The line as written, marks and all (a note: its `## Note:` heading).
    pub(crate) line: String,
    /// 1-based, in `MEMORY.md`.
    pub(crate) line_number: usize,
    /// The `[Task N]` it cites, in its group.
    pub(crate) tasks: Vec<usize>,
    pub(crate) sessions: Vec<Evidence>,
    /// Each task it cites: the session, and which of that session's tasks it is (0-based).
    pub(crate) places: Vec<(usize, String, usize)>,
    /// A note's file, workspace-relative.
    pub(crate) note_file: Option<String>,
    /// A note's title.
    pub(crate) title: Option<String>,
    pub(crate) marks: Marks,
}

impl Lesson {
    /// The project's key, or `notes` for a note.
    pub(crate) fn scope(&self) -> &str {
        self.project.as_deref().unwrap_or("notes")
    }

    /// The evidence as (session, last activity), which tells new evidence from old.
    pub(crate) fn evidence(&self) -> BTreeMap<String, String> {
        match &self.note_file {
            Some(file) => {
                BTreeMap::from([(file.clone(), blake3::hash(self.text.as_bytes()).to_hex()[..16].to_string())])
            }
            None => self.sessions.iter().map(|e| (e.session_id.clone(), e.updated_at.clone())).collect(),
        }
    }
}

/// A task of a group: the session its rollout summary line names, and which of that
/// session's tasks it is.
#[derive(Debug, Clone, Default)]
struct Task {
    evidence: Option<Evidence>,
    index: usize,
}

/// Where the parser is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Top,
    Notes,
    Group { key: String, section: Option<Kind> },
}

/// Every lesson of a `MEMORY.md` text, in the order written.
pub(crate) fn lessons(memory: &str) -> Vec<Lesson> {
    let mut out = Vec::new();
    let mut place = Place::Top;
    let mut tasks: BTreeMap<usize, Task> = BTreeMap::new();
    let mut group_start = 0;
    let lines: Vec<&str> = memory.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(key) = line.strip_prefix("# Task Group: ") {
            finish_group(&mut out[group_start..], &tasks);
            (place, group_start) = (Place::Group { key: key.trim().to_string(), section: None }, out.len());
            tasks.clear();
        } else if line.trim_end() == "# Notes" {
            place = Place::Notes;
        } else if line.starts_with("# ") {
            place = Place::Top;
        } else if let (Place::Notes, Some(title)) = (&place, line.strip_prefix("## Note: ")) {
            let (note, next) = note(&lines, i, title);
            out.push(note);
            i = next;
            continue;
        } else if let Place::Group { key, section } = &mut place {
            if let Some(heading) = line.strip_prefix("## ") {
                *section = Kind::of_section(heading.trim());
                if let Some(n) = task_number(heading) {
                    let evidence = task_evidence(&lines[i + 1..]);
                    let same = |t: &Task| {
                        t.evidence.as_ref().map(|e| &e.session_id) == evidence.as_ref().map(|e| &e.session_id)
                    };
                    let index = tasks.values().filter(|t| same(t)).count();
                    tasks.insert(n, Task { evidence, index });
                }
            } else if let (Some(kind), Some(bullet)) = (*section, line.strip_prefix("- ")) {
                out.push(lesson(kind, key, line, bullet, i + 1));
            }
        }
        i += 1;
    }
    finish_group(&mut out[group_start..], &tasks);
    out
}

fn lesson(kind: Kind, key: &str, line: &str, bullet: &str, line_number: usize) -> Lesson {
    let (marks, bare) = Marks::take_from(bullet);
    let text = identity(bare).to_string();
    Lesson {
        id: LessonId::of(kind, key, &text),
        kind,
        project: Some(key.to_string()),
        tasks: task_refs(bare),
        places: Vec::new(),
        text,
        line: line.to_string(),
        line_number,
        sessions: Vec::new(),
        note_file: None,
        title: None,
        marks,
    }
}

/// A note block starting at `lines[at]` (`## Note: <title>`); the lesson and the index of
/// the line after the block.
fn note(lines: &[&str], at: usize, title: &str) -> (Lesson, usize) {
    let (marks, title) = Marks::take_from(title);
    let mut end = at + 1;
    while end < lines.len() && !lines[end].starts_with("## Note: ") && !lines[end].starts_with("# ") {
        end += 1;
    }
    let block = &lines[at + 1..end];
    let file = block.iter().find_map(|l| l.strip_prefix("source: ")).map(|f| f.trim().to_string());
    let body: Vec<&str> = block.iter().copied().skip_while(|l| !l.starts_with("source: ")).skip(1).collect();
    let text = body.join("\n").trim().to_string();
    let file_key = file.clone().unwrap_or_default();
    let lesson = Lesson {
        id: LessonId::of(Kind::Note, &file_key, &text),
        kind: Kind::Note,
        project: None,
        text,
        line: lines[at].to_string(),
        line_number: at + 1,
        tasks: Vec::new(),
        sessions: Vec::new(),
        places: Vec::new(),
        note_file: file,
        title: Some(title.trim().to_string()),
        marks,
    };
    (lesson, end)
}

/// Give each lesson of a group the sessions of the tasks it cites.
fn finish_group(lessons: &mut [Lesson], tasks: &BTreeMap<usize, Task>) {
    for lesson in lessons.iter_mut().filter(|l| l.kind != Kind::Note) {
        let mut sessions: Vec<Evidence> =
            lesson.tasks.iter().filter_map(|n| tasks.get(n)).filter_map(|t| t.evidence.clone()).collect();
        sessions.sort();
        sessions.dedup();
        lesson.sessions = sessions;
        lesson.places = lesson
            .tasks
            .iter()
            .filter_map(|n| {
                let task = tasks.get(n)?;
                Some((*n, task.evidence.as_ref()?.session_id.clone(), task.index))
            })
            .collect();
    }
}

/// `Task 3: …` → 3.
fn task_number(heading: &str) -> Option<usize> {
    heading.strip_prefix("Task ")?.split(':').next()?.trim().parse().ok()
}

/// The `[Task N]` references at the end of a lesson's line.
fn task_refs(line: &str) -> Vec<usize> {
    line.match_indices("[Task ").filter_map(|(at, _)| line[at + 6..].split(']').next()?.trim().parse().ok()).collect()
}

/// The session a task's `### rollout_summary_files` line cites, from the lines after its
/// heading up to the next heading of its level.
fn task_evidence(after: &[&str]) -> Option<Evidence> {
    let line = after.iter().take_while(|l| !l.starts_with("## ")).find(|l| l.starts_with("- rollout_summaries/"))?;
    let rest = line.strip_prefix("- ")?;
    let (file, fields) = rest.split_once(" (")?;
    let fields = fields.strip_suffix(')')?;
    let field = |name: &str, next: Option<&str>| -> Option<String> {
        let start = fields.find(&format!("{name}="))? + name.len() + 1;
        let end = match next {
            Some(next) => fields[start..].find(&format!(", {next}=")).map_or(fields.len(), |e| start + e),
            None => fields.len(),
        };
        Some(fields[start..end].to_string())
    };
    let session = field("session_id", None)?;
    // A note after the session id (a model's) ends at the next comma.
    let session_id = session.split(", ").next().unwrap_or(&session).to_string();
    let cwd = field("cwd", Some("rollout_path")).filter(|c| c != "unknown");
    Some(Evidence {
        session_id,
        updated_at: field("updated_at", Some("session_id")).unwrap_or_default(),
        cwd,
        rollout_path: field("rollout_path", Some("updated_at")).unwrap_or_default(),
        summary_file: file.to_string(),
    })
}

/// The lessons of a text by reference (the first of two that share one).
pub(crate) fn by_id(lessons: Vec<Lesson>) -> BTreeMap<LessonId, Lesson> {
    let mut map = BTreeMap::new();
    for lesson in lessons {
        map.entry(lesson.id.clone()).or_insert(lesson);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const MEMORY: &str = "# Notes

Written by the user with `handbook note`: their own words, ahead of everything below.

## Note: Staging needs the VPN

source: extensions/ad_hoc/notes/2026-11-20T10-00-00-staging.md

Staging needs the VPN.
Ask ops for access.

# Task Group: github.com/acme/app
scope: 2 sessions
applies_to: cwd=/home/dev/app; reuse_rule=verified

## Task 1: Fix the build (success)

### rollout_summary_files

- rollout_summaries/a.md (cwd=/home/dev/app, rollout_path=/t/a.jsonl, updated_at=2026-11-22T10:00:00Z, session_id=aaa)

### keywords

- cargo

## Task 2: Run the tests (fail)

### rollout_summary_files

- rollout_summaries/b.md (cwd=unknown, rollout_path=/t/b, c.jsonl, updated_at=2026-11-23T10:00:00Z, session_id=bbb)

### keywords

- npm

## User preferences

- We use pnpm, not npm. (preference; 2 sessions) [Task 1][Task 2]

## Reusable knowledge

- verified test command: `npm run lint` (1 session) [Task 2] [stale: `lint` is no longer a script in package.json]

## Failures and how to do differently

- `cargo build` failed with `E0425` -> fixed (1 session) [Task 1] [promoted to AGENTS.md]
";

    #[test]
    fn every_kind_of_lesson_is_read_with_its_sessions() {
        let found = lessons(MEMORY);
        let kinds: Vec<Kind> = found.iter().map(|l| l.kind).collect();
        assert_eq!(kinds, [Kind::Note, Kind::Preference, Kind::Knowledge, Kind::Failure]);
        let note = &found[0];
        assert_eq!(note.text, "Staging needs the VPN.\nAsk ops for access.");
        assert_eq!(note.note_file.as_deref(), Some("extensions/ad_hoc/notes/2026-11-20T10-00-00-staging.md"));
        assert_eq!(note.line_number, 5);
        let pnpm = &found[1];
        assert_eq!(pnpm.text, "We use pnpm, not npm.");
        assert_eq!(pnpm.project.as_deref(), Some("github.com/acme/app"));
        let ids: Vec<&str> = pnpm.sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["aaa", "bbb"]);
        assert_eq!(pnpm.sessions[1].rollout_path, "/t/b, c.jsonl", "a comma in a path does not cut it");
        assert_eq!(pnpm.sessions[1].cwd, None);
        assert_eq!(found[2].marks.stale.as_deref(), Some("`lint` is no longer a script in package.json"));
        assert_eq!(found[2].text, "verified test command: `npm run lint`");
        assert_eq!(found[3].marks.promoted.as_deref(), Some("AGENTS.md"));
        assert_eq!(found[3].tasks, [1]);
        assert_eq!(pnpm.places, [(1, "aaa".to_string(), 0), (2, "bbb".to_string(), 0)]);
    }

    #[test]
    fn a_reference_survives_a_rebuild_that_changes_only_counts_and_marks() {
        let before = lessons(MEMORY);
        let rebuilt = MEMORY
            .replace("(preference; 2 sessions) [Task 1][Task 2]", "(preference; 3 sessions) [Task 2][Task 4]")
            .replace(" [stale: `lint` is no longer a script in package.json]", "");
        let after = lessons(&rebuilt);
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.id, b.id, "{}", a.text);
        }
        let reworded = lessons(&MEMORY.replace("We use pnpm, not npm.", "We use pnpm."));
        assert_ne!(reworded[1].id, before[1].id);
        let moved = lessons(&MEMORY.replace("github.com/acme/app", "github.com/acme/other"));
        assert_ne!(moved[1].id, before[1].id, "the same words in another project are another lesson");
        assert!(before[1].id.as_str().starts_with("L-") && before[1].id.as_str().len() == 10);
    }

    #[test]
    fn marks_round_trip() {
        let marks = Marks { stale: Some("gone".into()), promoted: Some("CLAUDE.md".into()) };
        let line = marks.put_on("- a lesson (1 session) [Task 1]");
        assert_eq!(line, "- a lesson (1 session) [Task 1] [stale: gone] [promoted to CLAUDE.md]");
        assert_eq!(Marks::take_from(&line), (marks, "- a lesson (1 session) [Task 1]"));
        assert_eq!(identity(Marks::take_from(&line).1), "- a lesson");
    }
}
