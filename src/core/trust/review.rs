//! A pending change applied in part. Accepting some lessons of it gives the pending texts
//! with every other lesson change undone: an added lesson not accepted is left out, a changed
//! one keeps its accepted line, and a removed one is put back where it was (its task
//! references dropped: the tasks are numbered anew). The other lines (tasks, keywords, the
//! summary's topics) come with the first lesson accepted. Rejecting lessons takes them out of
//! the pending texts, which stay pending.

use std::collections::BTreeSet;

use crate::core::project::display_name;
use crate::core::summary::{Entry, Summary};
use crate::core::tokens::Cap;

use super::filter::{drop_from_summary, edit_lessons, tells, verified_command, without_lessons};
use super::generations::{LessonChange, Status, lesson_changes};
use super::lesson::{Kind, Lesson, LessonId, Marks};
use crate::core::extract::render::code;

/// A handbook's two texts, and the summary before its cap when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Texts {
    pub(crate) memory: String,
    pub(crate) summary: String,
    pub(crate) whole: Option<String>,
}

/// The texts after accepting the lessons `accept` of the change from `accepted` to `pending`.
pub(crate) fn partial(accepted: &Texts, pending: &Texts, accept: &BTreeSet<LessonId>, cap: Cap) -> Texts {
    let changes = lesson_changes(Some(&accepted.memory), Some(&pending.memory));
    // A note leaves when its file is deleted: the user's own act needs no review.
    let undecided: Vec<&LessonChange> = changes
        .iter()
        .filter(|c| !accept.contains(&c.lesson().id))
        .filter(|c| !(c.status == Status::Removed && c.lesson().kind == Kind::Note))
        .collect();
    let memory = revert_memory(&pending.memory, &undecided);
    let out: Vec<&Lesson> = undecided.iter().filter_map(|c| c.after.as_ref()).collect();
    let back: Vec<&Lesson> = undecided.iter().filter_map(|c| c.before.as_ref()).collect();
    let revert = |from: &str, to: &str| put_back(&drop_from_summary(from, &out), to, &back);
    let whole = pending.whole.as_deref().map(|w| revert(w, accepted.whole.as_deref().unwrap_or(&accepted.summary)));
    let summary = match whole.as_deref().and_then(|w| Summary::parse(w).ok()) {
        Some(parsed) => parsed.fit(cap),
        None => {
            let text = revert(&pending.summary, &accepted.summary);
            Summary::parse(&text).map_or(text, |s| s.fit(cap))
        }
    };
    Texts { memory, summary, whole }
}

/// The pending texts without the lessons `out`.
pub(crate) fn hold_back(pending: &Texts, out: &[&Lesson], cap: Cap) -> Texts {
    let ids: BTreeSet<LessonId> = out.iter().map(|l| l.id.clone()).collect();
    let memory = without_lessons(&pending.memory, &ids);
    let whole = pending.whole.as_deref().map(|w| drop_from_summary(w, out));
    let summary = match whole.as_deref().and_then(|w| Summary::parse(w).ok()) {
        Some(parsed) => parsed.fit(cap),
        None => drop_from_summary(&pending.summary, out),
    };
    Texts { memory, summary, whole }
}

/// `memory` (the pending text) with the `undecided` changes undone.
fn revert_memory(memory: &str, undecided: &[&LessonChange]) -> String {
    let edited = edit_lessons(memory, |lesson, line| {
        match undecided.iter().find(|c| c.after.as_ref().is_some_and(|a| a.id == lesson.id)) {
            Some(c) if c.status == Status::Added => None,
            Some(c) => c.before.as_ref().map(|b| b.line.clone()),
            None => Some(line.to_string()),
        }
    });
    let mut text = edited;
    for change in undecided.iter().filter(|c| c.status == Status::Removed) {
        if let Some(lesson) = &change.before {
            text = insert_lesson(&text, lesson);
        }
    }
    text
}

/// `memory` with `lesson`'s line put back at the end of its section of its group (the
/// section, or the group, made when it is gone), without its task references.
fn insert_lesson(memory: &str, lesson: &Lesson) -> String {
    let Some(key) = lesson.project.as_deref() else { return memory.to_string() };
    let (marks, bare) = Marks::take_from(lesson.line.as_str());
    let bare = bare.find(" [Task ").map_or(bare, |at| &bare[..at]);
    let line = marks.put_on(bare);
    let mut lines: Vec<String> = memory.lines().map(str::to_string).collect();
    let heading = format!("# Task Group: {key}");
    let section = format!("## {}", lesson.kind.section());
    let Some(group) = lines.iter().position(|l| l.trim_end() == heading) else {
        lines.extend([String::new(), heading, String::new(), section, String::new(), line]);
        return lines.join("\n") + "\n";
    };
    let group_end = (group + 1..lines.len()).find(|&i| lines[i].starts_with("# ")).unwrap_or(lines.len());
    match (group..group_end).find(|&i| lines[i].trim_end() == section) {
        Some(start) => {
            let end = (start + 1..group_end).find(|&i| lines[i].starts_with('#')).unwrap_or(group_end);
            let last = (start..end).rev().find(|&i| lines[i].starts_with("- ")).unwrap_or(start + 1);
            lines.insert(last + 1, line);
        }
        None => {
            let mut at = group_end;
            while at > group + 1 && lines[at - 1].trim().is_empty() {
                at -= 1;
            }
            for (offset, new) in [String::new(), section, String::new(), line].into_iter().enumerate() {
                lines.insert(at + offset, new);
            }
        }
    }
    lines.join("\n") + "\n"
}

/// `summary` with the entries of `from` that tell `lessons` put back into the same section,
/// after the entry they followed there when it is still there (a verified command joins its
/// project's tip).
fn put_back(summary: &str, from: &str, lessons: &[&Lesson]) -> String {
    let (Ok(mut into), Ok(source)) = (Summary::parse(summary), Summary::parse(from)) else {
        return summary.to_string();
    };
    for lesson in lessons {
        let name = lesson.project.as_deref().map(display_name).unwrap_or_default();
        if let Some(command) = verified_command(lesson) {
            join_tip(&mut into, &name, &code(&command));
            continue;
        }
        for section in source.sections.iter().filter(|s| !s.heading.contains("What's in Memory")) {
            let Some(target) = into.sections.iter_mut().find(|s| s.heading == section.heading) else { continue };
            for (i, entry) in section.entries.iter().enumerate() {
                let first = entry.lines.first().map_or("", String::as_str);
                if !tells(first, lesson, &name) || target.entries.contains(entry) {
                    continue;
                }
                let after = i.checked_sub(1).and_then(|p| target.entries.iter().position(|e| *e == section.entries[p]));
                let at = after.map_or(target.entries.len(), |p| p + 1);
                target.entries.insert(at, entry.clone());
            }
        }
    }
    into.render()
}

/// Add `span` to the project's `verified …` tip, or make that tip.
fn join_tip(summary: &mut Summary, name: &str, span: &str) {
    let Some(tips) = summary.sections.iter_mut().find(|s| s.heading.trim_start_matches('#').trim() == "General Tips")
    else {
        return;
    };
    let prefix = format!("- {name}: verified ");
    match tips.entries.iter_mut().find(|e| e.lines.first().is_some_and(|l| l.starts_with(&prefix))) {
        Some(tip) if tip.lines[0][prefix.len()..].split(", ").any(|c| c == span) => {}
        Some(tip) => tip.lines[0].push_str(&format!(", {span}")),
        None => tips.entries.push(Entry { lines: vec![format!("{prefix}{span}")] }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::consolidate::tests::{record, task};
    use crate::core::consolidate::{Input, consolidate};
    use crate::core::extract::shell::CommandKind;
    use crate::core::extract::signals::SignalKind;
    use crate::core::extract::{Signal, Verified};
    use crate::core::trust::lesson::lessons;

    const CAP: Cap = Cap { tokens: Some(2500), chars: None };

    fn texts(preferences: &[&str], commands: &[&str]) -> Texts {
        let mut t = task("Work on the app");
        for p in preferences {
            t.preferences.push(Signal { kind: SignalKind::Preference, text: (*p).into(), line: 3 });
        }
        for c in commands {
            t.verified.push(Verified { command: (*c).into(), kind: CommandKind::Test, line: 5 });
        }
        let sessions = vec![record("s1", "github.com/acme/app", 20, vec![t])];
        let output = consolidate(&Input { sessions: &sessions, notes: &[], cap: CAP });
        Texts { memory: output.memory, summary: output.summary, whole: Some(output.whole_summary) }
    }

    fn id(texts: &Texts, words: &str) -> LessonId {
        lessons(&texts.memory).into_iter().find(|l| l.text.contains(words)).unwrap().id
    }

    #[test]
    fn accepting_some_lessons_applies_them_and_keeps_the_rest_as_they_were() {
        let accepted = texts(&["We use pnpm, not npm.", "Keep the changelog short."], &["pytest -q tests"]);
        let pending =
            texts(&["We use pnpm, not npm.", "Always run the linter first."], &["pytest -q tests", "npm run e2e"]);
        let linter = id(&pending, "linter");
        let applied = partial(&accepted, &pending, &BTreeSet::from([linter.clone()]), CAP);
        assert!(applied.memory.contains("Always run the linter first."), "{}", applied.memory);
        assert!(applied.summary.contains("Always run the linter first."), "{}", applied.summary);
        assert!(
            !applied.memory.contains("npm run e2e") && !applied.summary.contains("npm run e2e"),
            "{}",
            applied.summary
        );
        assert!(
            applied.memory.contains("Keep the changelog short."),
            "a removal not accepted stays: {}",
            applied.memory
        );
        assert!(applied.summary.contains("Keep the changelog short."), "{}", applied.summary);
        // What is left pending is exactly what was not decided.
        let left: Vec<(Status, String)> = lesson_changes(Some(&applied.memory), Some(&pending.memory))
            .iter()
            .map(|c| (c.status, c.lesson().text.clone()))
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert!(left.iter().any(|(s, t)| *s == Status::Added && t.contains("npm run e2e")));
        assert!(left.iter().any(|(s, t)| *s == Status::Removed && t.contains("changelog")));
        // Accepting everything gives the pending texts.
        let all: BTreeSet<LessonId> = lesson_changes(Some(&accepted.memory), Some(&pending.memory))
            .iter()
            .map(|c| c.lesson().id.clone())
            .collect();
        let whole = partial(&accepted, &pending, &all, CAP);
        assert_eq!((whole.memory, whole.summary), (pending.memory.clone(), pending.summary.clone()));
        // Accepting nothing puts every lesson back as it was.
        let none = partial(&accepted, &pending, &BTreeSet::new(), CAP);
        let lessons_of = |t: &str| lessons(t).into_iter().map(|l| l.text).collect::<BTreeSet<_>>();
        assert_eq!(lessons_of(&none.memory), lessons_of(&accepted.memory));
    }

    #[test]
    fn holding_back_takes_lessons_out_of_the_pending_texts() {
        let pending = texts(&["We use pnpm, not npm.", "Always run the linter first."], &["npm run e2e"]);
        let found = lessons(&pending.memory);
        let out: Vec<&Lesson> = found.iter().filter(|l| l.text.contains("linter") || l.text.contains("e2e")).collect();
        let held = hold_back(&pending, &out, CAP);
        assert!(!held.memory.contains("linter") && !held.summary.contains("linter"), "{}", held.summary);
        assert!(!held.memory.contains("npm run e2e") && !held.summary.contains("npm run e2e"));
        assert!(held.summary.contains("We use pnpm"));
    }
}
