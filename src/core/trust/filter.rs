//! What the user's decisions do to the text of a handbook: a stale lesson keeps its line in
//! `MEMORY.md`, marked with why, and leaves the summary; a promoted lesson keeps its line,
//! marked with where it went, and leaves the summary (the team file says it now); a lesson
//! held back (rejected, or undone) leaves both. The same decisions on the same text give the
//! same bytes, and applying them twice changes nothing.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::extract::render::{code, one_line};
use crate::core::project::display_name;
use crate::core::summary::{Entry, Summary};
use crate::core::tokens::Cap;

use super::lesson::{Kind, Lesson, LessonId, Marks, lessons};

/// The lessons to mark or keep out, by reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Withheld {
    /// Stale, with why.
    pub(crate) stale: BTreeMap<LessonId, String>,
    /// Promoted, with the file's name.
    pub(crate) promoted: BTreeMap<LessonId, String>,
    /// Out of the handbook altogether.
    pub(crate) held: BTreeSet<LessonId>,
}

impl Withheld {
    /// Whether the summary keeps `id` out.
    pub(crate) fn keeps_out(&self, id: &LessonId) -> bool {
        self.stale.contains_key(id) || self.promoted.contains_key(id) || self.held.contains(id)
    }

    fn marks(&self, id: &LessonId) -> Marks {
        Marks { stale: self.stale.get(id).cloned(), promoted: self.promoted.get(id).cloned() }
    }
}

/// `memory` with the held lessons taken out (a note's whole block) and every lesson's marks
/// set as `withheld` says (marks it no longer says come off). A lesson section left empty
/// goes with its heading.
pub(crate) fn mark_memory(memory: &str, withheld: &Withheld) -> String {
    edit_lessons(memory, |lesson, line| {
        (!withheld.held.contains(&lesson.id)).then(|| withheld.marks(&lesson.id).put_on(Marks::take_from(line).1))
    })
}

/// `memory` without the lessons `ids` names, every other line as it is.
pub(crate) fn without_lessons(memory: &str, ids: &BTreeSet<LessonId>) -> String {
    edit_lessons(memory, |lesson, line| (!ids.contains(&lesson.id)).then(|| line.to_string()))
}

/// `memory` with each lesson's line (a note's heading) replaced by what `edit` makes of it,
/// or taken out (a note with its whole block) when `edit` gives `None`. A lesson section left
/// empty goes with its heading.
pub(crate) fn edit_lessons(memory: &str, edit: impl Fn(&Lesson, &str) -> Option<String>) -> String {
    let found = lessons(memory);
    let by_line: BTreeMap<usize, &Lesson> = found.iter().map(|l| (l.line_number, l)).collect();
    let mut out: Vec<String> = Vec::new();
    let mut skip_note = false;
    for (index, line) in memory.lines().enumerate() {
        if skip_note && (line.starts_with("## Note: ") || line.starts_with("# ")) {
            skip_note = false;
        }
        if skip_note {
            continue;
        }
        match by_line.get(&(index + 1)) {
            Some(lesson) => match edit(lesson, line) {
                Some(edited) => out.push(edited),
                None => skip_note = lesson.kind == Kind::Note,
            },
            None => out.push(line.to_string()),
        }
    }
    let mut text = drop_empty_sections(&out).join("\n");
    if memory.ends_with('\n') && !text.is_empty() {
        text.push('\n');
    }
    text
}

/// The lines without a lesson section heading that has no bullet left under it.
fn drop_empty_sections(lines: &[String]) -> Vec<String> {
    let lesson_section = |l: &str| {
        l.strip_prefix("## ")
            .is_some_and(|h| [Kind::Preference, Kind::Knowledge, Kind::Failure].iter().any(|k| k.section() == h.trim()))
    };
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        if lesson_section(&lines[i]) {
            let end = (i + 1..lines.len()).find(|&j| lines[j].starts_with('#')).unwrap_or(lines.len());
            if lines[i + 1..end].iter().all(|l| l.trim().is_empty()) {
                // The blank line before the heading goes too, unless it is all there is.
                if out.last().is_some_and(|l| l.trim().is_empty()) && end < lines.len() {
                    out.pop();
                }
                i = end;
                continue;
            }
        }
        out.push(lines[i].clone());
        i += 1;
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

/// `summary` without the entries that tell the lessons `out` (a verified command leaves the
/// tip that lists it, which goes when it lists nothing else). A text that is not a summary
/// is returned as it is.
pub(crate) fn drop_from_summary(summary: &str, out: &[&Lesson]) -> String {
    if out.is_empty() {
        return summary.to_string();
    }
    let Ok(mut parsed) = Summary::parse(summary) else { return summary.to_string() };
    for section in parsed.sections.iter_mut().filter(|s| !s.heading.contains("What's in Memory")) {
        section.entries = std::mem::take(&mut section.entries)
            .into_iter()
            .filter_map(|entry| out.iter().try_fold(entry, |entry, lesson| without(entry, lesson)))
            .collect();
    }
    parsed.render()
}

/// `entry` without what tells `lesson`; `None` when nothing is left of it.
fn without(entry: Entry, lesson: &Lesson) -> Option<Entry> {
    let first = entry.lines.first().map_or("", String::as_str);
    let name = lesson.project.as_deref().map(display_name).unwrap_or_default();
    if let Some(command) = verified_command(lesson) {
        let tip = format!("- {name}: verified ");
        if let Some(list) = first.strip_prefix(&tip) {
            let span = code(&command);
            let kept: Vec<&str> = list.split(", ").filter(|c| *c != span).collect();
            if kept.is_empty() {
                return None;
            }
            let mut entry = entry.clone();
            entry.lines[0] = format!("{tip}{}", kept.join(", "));
            return Some(entry);
        }
    }
    (!tells(first, lesson, &name)).then_some(entry)
}

/// Whether a summary entry's first line tells `lesson` (`name`: its project's short name).
pub(crate) fn tells(first: &str, lesson: &Lesson, name: &str) -> bool {
    let text = lesson.text.as_str();
    match lesson.kind {
        Kind::Note => {
            let opening = lesson.text.lines().map(str::trim).find(|l| !l.is_empty()).map(one_line).unwrap_or_default();
            let start: String = opening.chars().take(60).collect();
            first.ends_with(" (note)") && !start.is_empty() && first.contains(start.trim_end_matches('…'))
        }
        Kind::Preference => {
            match first
                .strip_prefix("- ")
                .and_then(|r| r.strip_prefix(text))
                .and_then(|r| r.trim_start().strip_prefix('('))
            {
                Some(annotation) => annotation.trim_end_matches(')').split("; ").any(|part| part == name),
                None => text.chars().count() >= 24 && first.contains(text),
            }
        }
        // A tip is `- <project>: <lesson>`; the same words in another project's tip are
        // another lesson.
        Kind::Knowledge | Kind::Failure => match first.strip_prefix("- ").and_then(|r| r.split_once(": ")) {
            Some((project, rest)) if rest == text => project == name,
            // A model's summary words a lesson its own way; one that repeats it is known by it.
            _ => text.chars().count() >= 24 && first.contains(text),
        },
    }
}

/// The command of a `verified <kind> command: `…`` lesson.
pub(crate) fn verified_command(lesson: &Lesson) -> Option<String> {
    if lesson.kind != Kind::Knowledge || !lesson.text.starts_with("verified ") {
        return None;
    }
    let (_, span) = lesson.text.split_once(" command: ")?;
    let inner = span.strip_prefix("`` ").and_then(|s| s.strip_suffix(" ``"));
    let inner = inner.or_else(|| span.strip_prefix('`').and_then(|s| s.strip_suffix('`')))?;
    Some(inner.to_string())
}

/// The handbook's two texts after the decisions: `MEMORY.md` marked, and the summary (and
/// the whole summary, before its cap, when there is one) without what is kept out. The
/// summary is fitted again from the whole one, so what is freed goes to entries the cap had
/// cut.
pub(crate) fn apply(
    memory: &str,
    summary: &str,
    whole: Option<&str>,
    withheld: &Withheld,
    cap: Cap,
) -> (String, String, Option<String>) {
    let found = lessons(memory);
    let out: Vec<&Lesson> = found.iter().filter(|l| withheld.keeps_out(&l.id)).collect();
    let memory = mark_memory(memory, withheld);
    let whole = whole.map(|w| drop_from_summary(w, &out));
    let refitted = whole.as_deref().and_then(|w| Summary::parse(w).ok()).map(|s| s.fit(cap));
    let summary = refitted.unwrap_or_else(|| drop_from_summary(summary, &out));
    (memory, summary, whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::consolidate::tests::{record, task};
    use crate::core::consolidate::{Input, consolidate};
    use crate::core::extract::shell::CommandKind;
    use crate::core::extract::signals::SignalKind;
    use crate::core::extract::{Signal, Verified};

    fn handbook() -> crate::core::consolidate::Output {
        let mut t = task("Fix the lint");
        t.preferences.push(Signal { kind: SignalKind::Preference, text: "We use pnpm, not npm.".into(), line: 3 });
        t.verified.push(Verified { command: "ruff check .".into(), kind: CommandKind::Lint, line: 5 });
        t.verified.push(Verified { command: "cargo build --release".into(), kind: CommandKind::Build, line: 6 });
        let sessions = vec![record("s1", "github.com/acme/app", 20, vec![t])];
        let notes = vec![crate::core::notes::parse(
            "extensions/ad_hoc/notes/2026-11-20T10-00-00-vpn.md",
            "# Staging needs the VPN\n\nStaging needs the VPN up first.\n",
        )];
        consolidate(&Input { sessions: &sessions, notes: &notes, cap: Cap { tokens: Some(2500), chars: None } })
    }

    fn id_of(memory: &str, words: &str) -> LessonId {
        lessons(memory).into_iter().find(|l| l.text.contains(words)).map(|l| l.id).unwrap()
    }

    #[test]
    fn stale_and_promoted_lessons_stay_marked_in_memory_and_leave_the_summary() {
        let output = handbook();
        let lint = id_of(&output.memory, "ruff check");
        let pnpm = id_of(&output.memory, "pnpm");
        assert!(
            output.summary.contains("We use pnpm")
                && output.summary.contains("`cargo build --release`, `ruff check .`"),
            "{}",
            output.summary
        );
        let withheld = Withheld {
            stale: BTreeMap::from([(lint.clone(), "`lint` is no longer a script in package.json".to_string())]),
            promoted: BTreeMap::from([(pnpm.clone(), "AGENTS.md".to_string())]),
            held: BTreeSet::new(),
        };
        let cap = Cap { tokens: Some(2500), chars: None };
        let (memory, summary, whole) =
            apply(&output.memory, &output.summary, Some(&output.whole_summary), &withheld, cap);
        assert!(
            memory
                .contains("`ruff check .` (1 session) [Task 1] [stale: `lint` is no longer a script in package.json]"),
            "{memory}"
        );
        assert!(memory.contains("[promoted to AGENTS.md]"), "{memory}");
        assert!(!summary.contains("We use pnpm"), "{summary}");
        assert!(
            !summary.contains("ruff check") && summary.contains("- app: verified `cargo build --release`\n"),
            "{summary}"
        );
        assert!(!whole.unwrap().contains("ruff check"));
        // The same decisions again change nothing; none at all take the marks off.
        let again = apply(&memory, &summary, None, &withheld, cap);
        assert_eq!((again.0.as_str(), again.1.as_str()), (memory.as_str(), summary.as_str()));
        assert_eq!(mark_memory(&memory, &Withheld::default()), output.memory);
        assert_eq!(id_of(&memory, "ruff check"), lint, "marks do not change a reference");
    }

    #[test]
    fn the_same_words_in_another_project_are_left_alone() {
        let memory = "# Task Group: /w/one\n\n## Failures and how to do differently\n\n- `make` failed with `boom` -> `make clean` fixed it (1 session) [Task 1]\n\n# Task Group: /w/two\n\n## Failures and how to do differently\n\n- `make` failed with `boom` -> `make clean` fixed it (1 session) [Task 1]\n";
        let found = lessons(memory);
        assert_ne!(found[0].id, found[1].id);
        let summary = "v1\n\n## General Tips\n\n- one: `make` failed with `boom` -> `make clean` fixed it\n- two: `make` failed with `boom` -> `make clean` fixed it\n";
        let dropped = drop_from_summary(summary, &[&found[0]]);
        assert_eq!(dropped, "v1\n\n## General Tips\n\n- two: `make` failed with `boom` -> `make clean` fixed it\n");
        let model = "v1\n\n## User preferences\n\n- Keep the cart total in cents, always.\n";
        let pref = lessons(
            "# Task Group: /w/one\n\n## User preferences\n\n- Keep the cart total in cents, always. [Task 1]\n",
        );
        assert_eq!(drop_from_summary(model, &[&pref[0]]), "v1\n", "a model's line that repeats the lesson goes too");
    }

    #[test]
    fn held_lessons_leave_both_files_and_an_empty_section_goes() {
        let output = handbook();
        let pnpm = id_of(&output.memory, "pnpm");
        let note = id_of(&output.memory, "VPN");
        let withheld = Withheld { held: BTreeSet::from([pnpm, note]), ..Withheld::default() };
        let cap = Cap { tokens: Some(2500), chars: None };
        let (memory, summary, _) = apply(&output.memory, &output.summary, None, &withheld, cap);
        assert!(!memory.contains("pnpm") && !memory.contains("## User preferences"), "{memory}");
        assert!(!memory.contains("VPN up first") && memory.contains("# Notes"), "{memory}");
        assert!(memory.contains("## Reusable knowledge"), "{memory}");
        assert!(!summary.contains("pnpm") && !summary.contains("VPN"), "{summary}");
        assert!(summary.contains("ruff check ."), "{summary}");
    }
}
