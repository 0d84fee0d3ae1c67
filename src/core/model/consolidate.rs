//! Model consolidation, the pure half: the requests and answers of a consolidation whose
//! lessons a model writes. It starts from the output of `core::consolidate`, the built-in
//! consolidator, which lays out `MEMORY.md` and `memory_summary.md` (groups, tasks, the
//! sessions they cite, what is in memory); a model rewrites only the lessons in them: each
//! task group's preferences, knowledge and failures, and the summary's profile, preferences
//! and tips. `edge::model` asks; `cmd::consolidate` then applies the user's hand edits
//! (`core::consolidate::edits`) to the result, as it does to the built-in one.
//!
//! The summary's request and answer are in `summary`.
//!
//! It is incremental: only groups the workspace diff touched are sent, each with its current
//! lessons, the raw memories of its new or changed sessions, and the sessions removed from it
//! (whose lessons are forgotten unless another session supports them). Task references are
//! renumbered across runs by session id, so `[Task 3]` always names the right task.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde_json::{Value, json};

use crate::core::extract::clip_at_word;
use crate::core::extract::render::one_line;
use crate::core::model::ground::Dropped;
use crate::core::model::{AnswerError, Prompt, json_object};
use crate::core::redact::redact;
use crate::core::templates;
use crate::core::tokens::estimate;

/// The lesson sections of a task group, in the order they are written.
pub(crate) const LESSON_SECTIONS: [&str; 3] =
    ["User preferences", "Reusable knowledge", "Failures and how to do differently"];
/// Lessons kept per section.
pub(crate) const MAX_LESSONS: usize = 30;
/// Longest lesson kept, in characters.
pub(crate) const MAX_LESSON_CHARS: usize = 400;

/// A group's lessons, one bullet each (without the leading `- `).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Lessons {
    pub(crate) sections: [Vec<String>; 3],
}

/// One `# Task Group` of `MEMORY.md`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GroupBlock {
    pub(crate) key: String,
    /// Everything but the lessons: the heading, scope, and the task blocks.
    pub(crate) skeleton: String,
    /// Each task's number and the session it came from.
    pub(crate) tasks: Vec<(u32, Option<String>)>,
    pub(crate) lessons: Lessons,
}

impl GroupBlock {
    /// The sessions of the group.
    pub(crate) fn sessions(&self) -> BTreeSet<&str> {
        self.tasks.iter().filter_map(|(_, s)| s.as_deref()).collect()
    }

    /// Task numbers, with the title line of each.
    pub(crate) fn task_titles(&self) -> Vec<(u32, String)> {
        self.skeleton
            .lines()
            .filter_map(|l| l.strip_prefix("## Task "))
            .filter_map(|rest| {
                let (n, title) = rest.split_once(':')?;
                Some((n.trim().parse().ok()?, title.trim().to_string()))
            })
            .collect()
    }
}

/// `MEMORY.md` split into the part before the task groups (notes) and the groups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MemoryDoc {
    pub(crate) preamble: String,
    pub(crate) groups: Vec<GroupBlock>,
}

impl MemoryDoc {
    pub(crate) fn parse(text: &str) -> MemoryDoc {
        let mut doc = MemoryDoc::default();
        let mut section: Option<usize> = None;
        for line in text.lines() {
            if let Some(key) = line.strip_prefix("# Task Group:") {
                doc.groups.push(GroupBlock { key: key.trim().to_string(), ..GroupBlock::default() });
                section = None;
            }
            let Some(group) = doc.groups.last_mut() else {
                doc.preamble.push_str(line);
                doc.preamble.push('\n');
                continue;
            };
            if let Some(title) = line.strip_prefix("## ") {
                section = LESSON_SECTIONS.iter().position(|s| *s == title.trim());
                if section.is_some() {
                    continue;
                }
                if let Some(n) = title.strip_prefix("Task ").and_then(|t| t.split(':').next()?.trim().parse().ok()) {
                    group.tasks.push((n, None));
                }
            } else if line.starts_with("# ") {
                section = None;
            }
            match section {
                Some(s) => {
                    if let Some(bullet) = line.trim_start().strip_prefix("- ") {
                        group.lessons.sections[s].push(bullet.trim().to_string());
                    }
                }
                None => {
                    if let Some(id) = session_annotation(line)
                        && let Some(task) = group.tasks.last_mut()
                        && task.1.is_none()
                    {
                        task.1 = Some(id.to_string());
                    }
                    group.skeleton.push_str(line);
                    group.skeleton.push('\n');
                }
            }
        }
        for group in &mut doc.groups {
            group.skeleton = format!("{}\n", group.skeleton.trim_end());
        }
        doc
    }

    pub(crate) fn render(&self) -> String {
        let mut out = self.preamble.clone();
        for group in &self.groups {
            // A blank line between blocks.
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(&group.skeleton);
            for (title, lessons) in LESSON_SECTIONS.iter().zip(&group.lessons.sections) {
                if lessons.is_empty() {
                    continue;
                }
                let _ = write!(out, "\n## {title}\n\n");
                for lesson in lessons {
                    let _ = writeln!(out, "- {lesson}");
                }
            }
        }
        out
    }

    pub(crate) fn group(&self, key: &str) -> Option<&GroupBlock> {
        self.groups.iter().find(|g| g.key == key)
    }
}

/// The `session_id=` of a `rollout_summary_files` line.
fn session_annotation(line: &str) -> Option<&str> {
    let at = line.find("session_id=")?;
    let value = line[at + "session_id=".len()..].split([',', ')', ' ']).next()?;
    (!value.is_empty()).then_some(value)
}

/// What a task reference of an older rendering points at now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskRef {
    /// The same task, under its new number.
    Task(u32),
    /// A task whose session left the group: what only it supported is forgotten.
    Removed(u32),
}

/// How the task numbers of `old` map onto `new`, matching tasks by session (and by order
/// within a session).
pub(crate) fn renumbering(old: &GroupBlock, new: &GroupBlock) -> BTreeMap<u32, TaskRef> {
    let mut new_by_session: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (n, session) in &new.tasks {
        if let Some(session) = session {
            new_by_session.entry(session).or_default().push(*n);
        }
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut map = BTreeMap::new();
    for (n, session) in &old.tasks {
        let target = session.as_deref().and_then(|s| {
            let k = seen.entry(s).or_insert(0);
            let found = new_by_session.get(s).and_then(|v| v.get(*k)).copied();
            *k += 1;
            found
        });
        map.insert(*n, target.map_or(TaskRef::Removed(*n), TaskRef::Task));
    }
    map
}

/// Rewrite the `[Task N]` references of a lesson through `map`: moved tasks get their new
/// number, removed ones become `[Removed N]`, unknown ones are dropped.
pub(crate) fn renumber(lesson: &str, map: &BTreeMap<u32, TaskRef>) -> String {
    rewrite_refs(lesson, |kind, n| match (kind, map.get(&n)) {
        ("Task", Some(TaskRef::Task(m))) => Some(format!("[Task {m}]")),
        ("Task", Some(TaskRef::Removed(r))) => Some(format!("[Removed {r}]")),
        ("Removed", _) => Some(format!("[Removed {n}]")),
        _ => None,
    })
}

/// Replace each `[Task N]` / `[Removed N]` in `text` by what `f` says (`None` drops it).
fn rewrite_refs(text: &str, mut f: impl FnMut(&str, u32) -> Option<String>) -> String {
    replace_bracketed(text, |inner| {
        let (kind, n) = inner.split_once(' ')?;
        let n: u32 = n.trim().parse().ok()?;
        matches!(kind, "Task" | "Removed").then(|| f(kind, n).unwrap_or_default())
    })
}

/// `text` with each `[inner]` that `f` has a replacement for replaced by it; brackets `f`
/// answers `None` for stay as they are.
pub(crate) fn replace_bracketed(text: &str, mut f: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.split_once(']').and_then(|(inner, tail)| f(inner).map(|r| (r, tail))) {
            Some((replacement, tail)) => {
                out.push_str(&replacement);
                rest = tail;
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Lessons of a group as the current state sent to a model, renumbered from `old`.
pub(crate) fn carried_lessons(old: &GroupBlock, new: &GroupBlock) -> Lessons {
    let map = renumbering(old, new);
    let mut lessons = Lessons::default();
    for (into, from) in lessons.sections.iter_mut().zip(&old.lessons.sections) {
        *into = from.iter().map(|l| renumber(l, &map)).collect();
    }
    lessons
}

/// Lessons as they are kept: references to removed or unknown tasks dropped, and a lesson
/// that cites no remaining task (only removed ones, or none at all) forgotten.
pub(crate) fn settle(lessons: &Lessons, tasks: &BTreeSet<u32>) -> Lessons {
    settle_counting(lessons, tasks).0
}

/// [`settle`], and how many lessons it forgot for citing no task of `tasks`, or nothing but
/// citations. Task numbers count within a group, and a group call shows only the group's
/// tasks, so a reference to a number the group lacks (another group's task, a made-up one)
/// supports nothing. Blank lines and duplicates are not counted: they claimed nothing.
pub(crate) fn settle_counting(lessons: &Lessons, tasks: &BTreeSet<u32>) -> (Lessons, usize) {
    let mut settled = Lessons::default();
    let mut forgotten = 0;
    for (into, from) in settled.sections.iter_mut().zip(&lessons.sections) {
        let mut seen = BTreeSet::new();
        for lesson in from.iter().filter(|l| !l.trim().trim_start_matches(['-', '*']).trim().is_empty()) {
            let mut refs = String::new();
            let text = rewrite_refs(lesson, |kind, n| {
                if kind == "Task" && tasks.contains(&n) && !refs.contains(&format!("[Task {n}]")) {
                    refs.push_str(&format!("[Task {n}]"));
                }
                Some(String::new())
            });
            // Every lesson cites its support; one with none left (or none given) cannot be
            // forgotten when its sessions go, so it is not kept.
            if refs.is_empty() {
                forgotten += 1;
                continue;
            }
            // Redacted before it is cut, so a cut cannot leave a fragment the patterns miss;
            // the citations go after the cut, so a long lesson keeps them.
            let body = redact(&one_line(text.trim().trim_start_matches(['-', '*', ' ']))).into_owned();
            let body = clip_at_word(&body, MAX_LESSON_CHARS.saturating_sub(refs.len() + 1));
            if body.is_empty() {
                forgotten += 1;
                continue;
            }
            let text = format!("{body} {refs}");
            if seen.insert(text.to_lowercase()) && into.len() < MAX_LESSONS {
                into.push(text);
            }
        }
    }
    (settled, forgotten)
}

/// Lines of an answer, blank ones aside: what [`settle_counting`]'s count is out of.
pub(crate) fn answered_lines(lessons: &Lessons) -> usize {
    lessons.sections.iter().flatten().filter(|l| !l.trim().trim_start_matches(['-', '*']).trim().is_empty()).count()
}

/// What a model consolidation did: the task groups sent (the others kept their lessons),
/// the calls made, and what grounding dropped, part by part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ModelRun {
    pub(crate) groups_sent: usize,
    pub(crate) calls: usize,
    pub(crate) dropped: Vec<Dropped>,
}

/// The schema of a task group's answer.
pub(crate) fn group_schema() -> Value {
    let list = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {"user_preferences": list, "reusable_knowledge": list, "failures": list},
        "required": ["user_preferences", "reusable_knowledge", "failures"],
        "additionalProperties": false
    })
}

/// A session whose raw memory a group call carries.
#[derive(Debug, Clone)]
pub(crate) struct ChangedSession<'a> {
    pub(crate) session_id: &'a str,
    /// The task numbers its tasks have in the group.
    pub(crate) tasks: Vec<u32>,
    pub(crate) raw_memory: Cow<'a, str>,
}

/// One call's worth of a task group.
pub(crate) struct GroupCall<'a> {
    pub(crate) system_template: &'a str,
    pub(crate) template: &'a str,
    pub(crate) group: &'a GroupBlock,
    pub(crate) current: &'a Lessons,
    pub(crate) changed: &'a [ChangedSession<'a>],
    /// Tasks that left the group, with their titles.
    pub(crate) removed: &'a [(u32, String)],
}

pub(crate) fn group_prompt(call: &GroupCall) -> Prompt {
    let mut tasks = String::new();
    for (n, title) in call.group.task_titles() {
        let _ = writeln!(tasks, "- Task {n}: {title}");
    }
    let mut current = String::new();
    for (title, lessons) in LESSON_SECTIONS.iter().zip(&call.current.sections) {
        let _ = writeln!(current, "{title}:");
        if lessons.is_empty() {
            current.push_str("- (none)\n");
        }
        for lesson in lessons {
            let _ = writeln!(current, "- {lesson}");
        }
    }
    let mut changed = String::new();
    for session in call.changed {
        let numbers: Vec<String> = session.tasks.iter().map(|n| format!("Task {n}")).collect();
        let _ = write!(
            changed,
            "--- session {} ({}) ---\n{}\n\n",
            session.session_id,
            numbers.join(", "),
            session.raw_memory.trim()
        );
    }
    if changed.is_empty() {
        changed.push_str("(none)\n");
    }
    let mut removed = String::new();
    for (n, title) in call.removed {
        let _ = writeln!(removed, "- Removed {n}: {title}");
    }
    if removed.is_empty() {
        removed.push_str("(none)\n");
    }
    let user = templates::render(
        call.template,
        &[
            ("project", call.group.key.as_str()),
            ("tasks", tasks.trim_end()),
            ("current_lessons", current.trim_end()),
            ("changed_sessions", changed.trim_end()),
            ("removed_tasks", removed.trim_end()),
        ],
    );
    Prompt::new(
        format!("task group {}", call.group.key),
        call.system_template.to_string(),
        &user,
        group_schema(),
        "task_group",
    )
}

/// Read a task group's answer into lessons (not yet settled).
pub(crate) fn parse_group_answer(reply: &str) -> Result<Lessons, AnswerError> {
    let object = json_object(reply)?;
    let mut lessons = Lessons::default();
    for (slot, name) in lessons.sections.iter_mut().zip(["user_preferences", "reusable_knowledge", "failures"]) {
        *slot = string_list(&object, name)?;
    }
    Ok(lessons)
}

pub(crate) fn string_list(
    object: &serde_json::Map<String, Value>,
    name: &'static str,
) -> Result<Vec<String>, AnswerError> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                // A model that answers `{"text": …}` items still meant the text.
                Value::Object(o) => o.values().find_map(|v| v.as_str().map(str::to_string)),
                _ => None,
            })
            .collect()),
        Some(Value::String(s)) => Ok(s.lines().map(str::to_string).collect()),
        Some(other) => Err(AnswerError::wrong_type(name, other, "a list of strings")),
    }
}

/// Split the changed sessions of a group into batches whose prompts fit `budget` tokens
/// (a raw memory too large for any batch is cut, head and tail kept, to fit one alone).
pub(crate) fn batches<'a>(changed: &[ChangedSession<'a>], budget: usize) -> Vec<Vec<ChangedSession<'a>>> {
    let mut out: Vec<Vec<ChangedSession<'a>>> = Vec::new();
    let mut used = 0;
    for session in changed {
        let mut session = session.clone();
        let mut tokens = estimate(&session.raw_memory) + 16;
        if tokens > budget {
            session.raw_memory = Cow::Owned(fit_tokens(&session.raw_memory, budget.saturating_sub(16)));
            tokens = estimate(&session.raw_memory) + 16;
        }
        if out.is_empty() || used + tokens > budget {
            out.push(Vec::new());
            used = 0;
        }
        used += tokens;
        out.last_mut().expect("a batch was just pushed").push(session);
    }
    out
}

/// `text` cut to about `budget` tokens: its head and tail, with a marker between.
pub(crate) fn fit_tokens(text: &str, budget: usize) -> String {
    if estimate(text) <= budget {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let (mut head, mut tail) = (Vec::new(), Vec::new());
    let (mut head_tokens, mut tail_tokens) = (0, 0);
    let (mut i, mut j) = (0, lines.len());
    while i < j {
        let t = estimate(lines[i]) + 1;
        if head_tokens + t > budget / 2 {
            break;
        }
        head_tokens += t;
        head.push(lines[i]);
        i += 1;
    }
    while j > i {
        let t = estimate(lines[j - 1]) + 1;
        if tail_tokens + t > budget / 2 {
            break;
        }
        tail_tokens += t;
        tail.push(lines[j - 1]);
        j -= 1;
    }
    tail.reverse();
    if head.is_empty() && tail.is_empty() {
        // Not one whole line fits (a memory written on a single line): cut inside it.
        let bytes = text.len() * budget / estimate(text).max(1);
        return clip_at_word(text, bytes * 9 / 10);
    }
    format!("{}\n[… {} lines cut to fit the context …]\n{}", head.join("\n"), j - i, tail.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "\
# Notes

Written by the user.

# Task Group: /w/app
scope: 2 sessions
applies_to: cwd=/w/app

## Task 1: Fix the build (success)

### rollout_summary_files

- rollout_summaries/a.md (cwd=/w/app, updated_at=2026-11-20T08:00:00Z, session_id=s-a)

## Task 2: Add a test (success)

- rollout_summaries/b.md (cwd=/w/app, updated_at=2026-11-21T08:00:00Z, session_id=s-b)

## User preferences

- \"Use pnpm\" (preference) [Task 2]

## Failures and how to do differently

- `make` failed -> `make all` works [Task 1]
- shared lesson [Task 1][Task 2]
";

    #[test]
    fn memory_round_trips_through_its_parts() {
        let doc = MemoryDoc::parse(OLD);
        assert_eq!(doc.preamble, "# Notes\n\nWritten by the user.\n\n");
        let group = &doc.groups[0];
        assert_eq!(group.key, "/w/app");
        assert_eq!(group.tasks, [(1, Some("s-a".to_string())), (2, Some("s-b".to_string()))]);
        assert_eq!(group.lessons.sections[0], ["\"Use pnpm\" (preference) [Task 2]"]);
        assert!(group.lessons.sections[1].is_empty());
        assert_eq!(group.lessons.sections[2].len(), 2);
        assert_eq!(
            group.task_titles(),
            [(1, "Fix the build (success)".to_string()), (2, "Add a test (success)".to_string())]
        );
        assert_eq!(doc.render(), OLD);
    }

    #[test]
    fn task_numbers_follow_their_sessions() {
        let old = MemoryDoc::parse(OLD).groups.remove(0);
        // s-a is gone; a new session s-c comes first; s-b is now task 2.
        let mut new = old.clone();
        new.tasks = vec![(1, Some("s-c".to_string())), (2, Some("s-b".to_string()))];
        let map = renumbering(&old, &new);
        assert_eq!(map[&1], TaskRef::Removed(1));
        assert_eq!(map[&2], TaskRef::Task(2));
        let carried = carried_lessons(&old, &new);
        assert_eq!(
            carried.sections[2],
            ["`make` failed -> `make all` works [Removed 1]", "shared lesson [Removed 1][Task 2]"]
        );
        // Settling forgets what only the removed task supported and keeps the rest.
        let settled = settle(&carried, &BTreeSet::from([1, 2]));
        assert_eq!(settled.sections[2], ["shared lesson [Task 2]"]);
        assert_eq!(settled.sections[0], ["\"Use pnpm\" (preference) [Task 2]"]);
    }

    #[test]
    fn settling_drops_unknown_tasks_duplicates_and_secrets() {
        let lessons = Lessons {
            sections: [
                vec!["- Use yarn [Task 9]".to_string(), "keep it [Task 1] and [Task 9]".to_string()],
                vec![
                    "Run `make` [Task 1]".to_string(),
                    "run `make` [Task 1]".to_string(),
                    "   ".to_string(),
                    "a lesson citing nothing".to_string(),
                ],
                vec!["token sk-abc123def456ghi789jkl012 leaked [Task 1]".to_string()],
            ],
        };
        let settled = settle(&lessons, &BTreeSet::from([1]));
        assert_eq!(settled.sections[0], ["keep it and [Task 1]"], "citations gather at the end");
        assert_eq!(settled.sections[1], ["Run `make` [Task 1]"], "duplicates, blanks and uncited lessons go");
        assert_eq!(settled.sections[2], ["token [REDACTED:openai] leaked [Task 1]"]);
    }

    #[test]
    fn settling_counts_the_lessons_it_forgets_for_want_of_support() {
        let lessons = Lessons {
            sections: [
                vec!["\"Use pnpm\" [Task 1]".to_string(), "cites nothing".to_string(), "  ".to_string()],
                vec![
                    "another group's task [Task 3]".to_string(),
                    "a made-up task [Task 42]".to_string(),
                    "[Task 2]".to_string(),
                    "part right [Task 2][Task 42]".to_string(),
                ],
                vec!["run `make` [Task 1]".to_string(), "Run `make` [Task 1]".to_string()],
            ],
        };
        let (settled, forgotten) = settle_counting(&lessons, &BTreeSet::from([1, 2]));
        assert_eq!(forgotten, 4, "uncited, two unknown tasks, and a bare citation: {settled:?}");
        assert_eq!(answered_lines(&lessons), 8, "the blank line is no answer");
        assert_eq!(settled.sections[1], ["part right [Task 2]"]);
        assert_eq!(settled.sections[2], ["run `make` [Task 1]"], "a duplicate is not ungrounded");
        assert_eq!(settled, settle(&lessons, &BTreeSet::from([1, 2])));
    }

    #[test]
    fn a_long_lesson_keeps_its_citations_through_every_settling() {
        let long = format!("{} [Task 1]", "a very long lesson about the build ".repeat(20));
        let lessons = Lessons { sections: [Vec::new(), vec![long], Vec::new()] };
        let once = settle(&lessons, &BTreeSet::from([1]));
        assert!(once.sections[1][0].len() <= MAX_LESSON_CHARS + 4, "{}", once.sections[1][0].len());
        assert!(once.sections[1][0].ends_with("… [Task 1]"), "{:?}", once.sections[1]);
        assert_eq!(settle(&once, &BTreeSet::from([1])), once, "a second settling loses nothing");
    }

    #[test]
    fn group_answers_are_read_leniently() {
        let reply = "Here you go:\n```json\n{\"user_preferences\": [\"Use pnpm [Task 1]\"], \"reusable_knowledge\": [{\"text\": \"`make all`\"}], \"failures\": null, \"extra\": 1}\n```";
        let lessons = parse_group_answer(reply).unwrap();
        assert_eq!(lessons.sections[0], ["Use pnpm [Task 1]"]);
        assert_eq!(lessons.sections[1], ["`make all`"]);
        assert!(lessons.sections[2].is_empty());
        assert!(parse_group_answer("{\"failures\": 3}").unwrap_err().to_string().contains("not a list"));
        assert!(parse_group_answer("no json here").is_err());
    }

    #[test]
    fn batches_fit_the_budget() {
        let memory = "word ".repeat(400);
        let changed: Vec<ChangedSession> = (0..5)
            .map(|i| ChangedSession {
                session_id: ["a", "b", "c", "d", "e"][i],
                tasks: vec![i as u32 + 1],
                raw_memory: Cow::Borrowed(&memory),
            })
            .collect();
        let sizes: Vec<usize> = batches(&changed, 1000).iter().map(Vec::len).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 5);
        assert!(sizes.len() >= 3, "{sizes:?}");
        // One raw memory larger than the whole budget is cut to fit a batch of its own.
        let huge = (0..2000).map(|i| format!("- lesson line {i}\n")).collect::<String>();
        let changed = [ChangedSession { session_id: "a", tasks: vec![1], raw_memory: Cow::Borrowed(&huge) }];
        let cut = batches(&changed, 1000);
        assert_eq!(cut.len(), 1);
        let kept = &cut[0][0].raw_memory;
        assert!(estimate(kept) <= 1000, "{} tokens", estimate(kept));
        assert!(kept.starts_with("- lesson line 0\n") && kept.ends_with("- lesson line 1999"), "{kept}");
    }

    #[test]
    fn long_texts_are_cut_to_the_budget() {
        let text: String = (0..1000).map(|i| format!("line {i} of the memory file\n")).collect();
        let cut = fit_tokens(&text, 300);
        assert!(estimate(&cut) <= 330, "{}", estimate(&cut));
        assert!(cut.starts_with("line 0 ") && cut.trim_end().ends_with("line 999 of the memory file"));
        assert!(cut.contains("lines cut to fit the context"));
        // A memory on one long line is cut inside it rather than lost.
        let line = "a lesson on one line ".repeat(1000);
        let cut = fit_tokens(&line, 300);
        assert!(estimate(&cut) <= 300 && cut.starts_with("a lesson on one line") && cut.ends_with('…'), "{cut}");
    }
}
