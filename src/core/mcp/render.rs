//! How the MCP server's answers read: plain text for an agent, every piece headed by the
//! reference to cite it by (`MEMORY.md:12-40`) and the sessions behind it, escaped like
//! everything handbook prints, and cut to a bound that says it was cut.

use std::fmt::Write;

use super::{Excerpt, heading_level};
use crate::core::escape::escape;
use crate::core::notes::Prepared;
use crate::core::search::Hit;
use crate::core::search::docs::{Doc, Kind};

/// The most characters one answer holds.
pub(crate) const MAX_ANSWER_CHARS: usize = 20_000;

/// How to cite, said once at the end of every answer that can be cited.
const HOW_TO_CITE: &str = "When your reply uses any of this, end it with a <handbook-citation> block: \
    each reference you used as `<reference>|note=[what it told you]` in <citation_entries>, and the \
    session ids it names in <session_ids>.";

/// One search result, with what the server looked up about it.
#[derive(Debug, Clone)]
pub(crate) struct Found<'a> {
    pub(crate) hit: &'a Hit,
    pub(crate) doc: &'a Doc,
    pub(crate) project: Option<String>,
    /// The sessions to cite it by: its own, or its task group's.
    pub(crate) sessions: Vec<String>,
}

/// The reference a result is cited and read by: a handbook file with the lines its
/// document spans, or a transcript's line (or its place in a session read as records).
pub(crate) fn reference(doc: &Doc, line: usize) -> String {
    if doc.kind == Kind::Transcript {
        return match &doc.place {
            Some(place) => format!("{} ({place})", doc.path),
            None => format!("{}:{line}", doc.path),
        };
    }
    let last = doc.first_line + doc.text.lines().count().max(1) - 1;
    format!("{}:{}-{last}", doc.path, doc.first_line)
}

/// The answer to a search: the results best first, each under its reference, then how many
/// more there were and how to cite.
pub(crate) fn search_answer(query: &str, found: &[Found<'_>], more: usize, warnings: &[String]) -> String {
    let mut out = String::new();
    if found.is_empty() {
        let _ = writeln!(out, "no results for {query:?} in the handbook; try other words, or list the topics it knows");
    } else {
        let _ = writeln!(out, "{} for {query:?}, best first:", plural(found.len(), "result"));
    }
    for (index, item) in found.iter().enumerate() {
        let _ = write!(out, "\n[{}] {}", index + 1, reference(item.doc, item.hit.line));
        let mut about = vec![item.doc.kind.name().to_string()];
        about.extend(item.project.as_ref().map(|p| format!("project {p}")));
        about.extend(item.doc.date.map(|d| d.strftime("%Y-%m-%d").to_string()));
        if !item.sessions.is_empty() {
            about.push(format!(
                "{} {}",
                if item.sessions.len() == 1 { "session" } else { "sessions" },
                item.sessions.join(" ")
            ));
        }
        let _ = writeln!(out, " ({})", about.join(", "));
        let _ = writeln!(out, "    line {}: {}", item.hit.line, item.hit.text);
    }
    if more > 0 {
        let _ = writeln!(out, "\n{}: raise `limit` to see them (0 shows all).", plural(more, "more result"));
    }
    for warning in warnings {
        let _ = writeln!(out, "\nwarning: {warning}");
    }
    if !found.is_empty() {
        let _ = writeln!(
            out,
            "\nRead a result whole with the read tool and its reference (a line of MEMORY.md reads its task group). {HOW_TO_CITE}"
        );
    }
    capped(&escape(&out), "lower `limit`, or use more specific words")
}

/// The answer to a read: the reference of what was read and its sessions, then the text.
pub(crate) fn read_answer(path: &str, excerpt: &Excerpt, sessions: &[String]) -> String {
    let reference = format!("{path}:{}-{}", excerpt.first, excerpt.last);
    let mut out = format!("{reference}\n");
    if !sessions.is_empty() {
        let _ = writeln!(out, "session ids: {}", sessions.join(" "));
    }
    let _ = writeln!(out, "{HOW_TO_CITE}\n\n{}", excerpt.text);
    let first = excerpt.first;
    let hint = format!("read fewer lines at a time, e.g. {path}:{first}-{}", first + 99);
    capped(&escape(&out), &hint)
}

/// The answer to a note: where it was written, its title, and what was redacted.
pub(crate) fn note_answer(path: &str, note: &Prepared, when: &str) -> String {
    let mut out = format!("note written: {path}\ntitle: {}\n", note.title);
    if !note.redacted.is_empty() {
        let kinds = note.redacted.join(", ");
        let _ = writeln!(out, "the note held secrets ({kinds}); they were replaced with [REDACTED:<kind>]");
    }
    let _ = writeln!(out, "{when}; search finds it among the notes now.");
    escape(&out).into_owned()
}

/// What the handbook holds, for the list tool.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outline<'a> {
    pub(crate) memory: Option<&'a str>,
    pub(crate) summary: Option<&'a str>,
    /// Each rollout summary: its path, its session id, its title.
    pub(crate) rollouts: Vec<(String, Option<String>, String)>,
    /// Each note: its path and title.
    pub(crate) notes: Vec<(String, String)>,
}

/// The answer to a list: MEMORY.md's task groups (projects) and their tasks, the summary's
/// sections and topics, the notes, then the rollout summaries, each with its reference.
pub(crate) fn outline_answer(outline: &Outline<'_>) -> String {
    let mut out = String::new();
    if let Some(memory) = outline.memory {
        let _ = writeln!(out, "Projects and tasks in MEMORY.md (read a task group by its reference):");
        headings(&mut out, "MEMORY.md", memory, &|level, title| level == 1 || title.starts_with("Task "));
    }
    if let Some(summary) = outline.summary {
        let _ = writeln!(out, "\nSections and topics of memory_summary.md:");
        headings(&mut out, "memory_summary.md", summary, &|level, _| level <= 3);
    }
    if !outline.notes.is_empty() {
        let _ = writeln!(out, "\nNotes, the user's own words ({}):", outline.notes.len());
        for (path, title) in &outline.notes {
            let _ = writeln!(out, "- {path}  {title}");
        }
    }
    if !outline.rollouts.is_empty() {
        let _ = writeln!(
            out,
            "\nRollout summaries, one per session ({}; read one by its file or session id):",
            outline.rollouts.len()
        );
        for (path, session, title) in &outline.rollouts {
            let session = session.as_deref().map(|s| format!("  session {s}")).unwrap_or_default();
            let _ = writeln!(out, "- {path}{session}  {title}");
        }
    }
    let _ = writeln!(out, "\n{HOW_TO_CITE}");
    capped(&escape(&out), "search for what you need instead")
}

/// Each heading `keep` accepts, indented by level, with the lines its section spans.
fn headings(out: &mut String, path: &str, text: &str, keep: &dyn Fn(usize, &str) -> bool) {
    let lines: Vec<&str> = text.lines().collect();
    let marks: Vec<(usize, usize)> =
        lines.iter().enumerate().filter_map(|(i, l)| heading_level(l).map(|level| (i, level))).collect();
    for (at, &(index, level)) in marks.iter().enumerate() {
        let title = lines[index][level..].trim();
        if !keep(level, title) {
            continue;
        }
        // The section runs to the next heading of its level or above.
        let end = marks[at + 1..].iter().find(|(_, l)| *l <= level).map_or(lines.len(), |(i, _)| *i);
        let last = (index..end).rev().find(|&i| !lines[i].trim().is_empty()).unwrap_or(index);
        let indent = "  ".repeat(level.saturating_sub(1));
        let _ = writeln!(out, "{indent}- {path}:{}-{}  {title}", index + 1, last + 1);
    }
}

/// `text` cut to [`MAX_ANSWER_CHARS`] at a line's end, saying so and how to see the rest.
pub(crate) fn capped(text: &str, hint: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_ANSWER_CHARS {
        return text.to_string();
    }
    let cut = text.char_indices().nth(MAX_ANSWER_CHARS).map_or(text.len(), |(i, _)| i);
    let kept = &text[..cut];
    // At a line's end when one is near, so no line is shown half.
    let kept = match kept.rfind('\n') {
        Some(end) if end > cut / 2 => &kept[..end],
        _ => kept,
    };
    format!("{kept}\n[cut: {} of {total} characters shown; {hint}]", kept.chars().count())
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str, kind: Kind, first_line: usize, text: &str) -> Doc {
        Doc {
            path: path.to_string(),
            first_line,
            text: text.to_string(),
            fixed_line: kind == Kind::Transcript,
            kind,
            session_id: None,
            date: None,
            date_end: None,
            project: None,
            place: None,
        }
    }

    #[test]
    fn a_reference_spans_the_document_or_names_a_transcript_line() {
        let block = doc("MEMORY.md", Kind::Memory, 25, "## Reusable knowledge\n\n- verified `cargo build`");
        assert_eq!(reference(&block, 27), "MEMORY.md:25-27");
        let rollout = doc("rollout_summaries/a.md", Kind::Rollout, 1, "session_id: s-1");
        assert_eq!(reference(&rollout, 1), "rollout_summaries/a.md:1-1");
        let record = doc("/t/x.jsonl", Kind::Transcript, 9, "a\nb");
        assert_eq!(reference(&record, 9), "/t/x.jsonl:9");
        let mut streamed = record.clone();
        streamed.place = Some("message msg_1".into());
        assert_eq!(reference(&streamed, 9), "/t/x.jsonl (message msg_1)");
    }

    #[test]
    fn a_search_answer_heads_each_result_with_its_reference_and_sessions() {
        let mut block = doc("MEMORY.md", Kind::Memory, 25, "## Reusable knowledge\n\n- verified `cargo build`");
        block.date = Some("2026-11-25T09:00:16Z".parse().unwrap());
        let hit = Hit { doc: 0, score: 2.0, line: 27, text: "- verified `cargo build`\u{1b}[2J".into() };
        let found = [Found { hit: &hit, doc: &block, project: Some("/w/app".into()), sessions: vec!["s-1".into()] }];
        let answer = search_answer("cargo", &found, 3, &["MEMORY.md: unreadable".into()]);
        assert!(answer.starts_with("1 result for \"cargo\", best first:\n"), "{answer}");
        assert!(
            answer.contains("[1] MEMORY.md:25-27 (memory, project /w/app, 2026-11-25, session s-1)\n    line 27: - verified `cargo build`\\u{1b}[2J\n"),
            "{answer}"
        );
        assert!(answer.contains("3 more results: raise `limit`"), "{answer}");
        assert!(answer.contains("warning: MEMORY.md: unreadable"), "{answer}");
        assert!(answer.contains("<handbook-citation>"), "{answer}");
        let none = search_answer("zebracorn", &[], 0, &[]);
        assert!(none.starts_with("no results for \"zebracorn\""), "{none}");
        assert!(!none.contains("<handbook-citation>"), "{none}");
    }

    #[test]
    fn a_read_answer_names_its_lines_and_sessions_first() {
        let excerpt = Excerpt { first: 1, last: 2, text: "# Task Group: /w/app\nscope: x\u{7}".into() };
        let answer = read_answer("MEMORY.md", &excerpt, &["s-1".into(), "s-2".into()]);
        assert!(answer.starts_with("MEMORY.md:1-2\nsession ids: s-1 s-2\nWhen your reply"), "{answer}");
        assert!(answer.ends_with("\n\n# Task Group: /w/app\nscope: x\\u{7}\n"), "{answer:?}");
    }

    #[test]
    fn the_outline_lists_groups_tasks_topics_notes_and_summaries() {
        let memory = "# Task Group: /w/app\nscope: 2\n\n## Task 1: Build (success)\n\nx\n\n## Reusable knowledge\n\n- y\n\n# Task Group: /w/lib\n\n## Task 1: Test\n";
        let summary =
            "v1\n\n## User preferences\n\n- pnpm\n\n## What's in Memory\n\n### /w/app\n\n#### 2026-11-22\n\n- build\n";
        let outline = Outline {
            memory: Some(memory),
            summary: Some(summary),
            rollouts: vec![("rollout_summaries/a.md".into(), Some("s-1".into()), "Build".into())],
            notes: vec![("extensions/ad_hoc/notes/n.md".into(), "VPN".into())],
        };
        let answer = outline_answer(&outline);
        for line in [
            "- MEMORY.md:1-10  Task Group: /w/app\n  - MEMORY.md:4-6  Task 1: Build (success)\n- MEMORY.md:12-14  Task Group: /w/lib\n  - MEMORY.md:14-14  Task 1: Test\n",
            "  - memory_summary.md:3-5  User preferences\n  - memory_summary.md:7-13  What's in Memory\n    - memory_summary.md:9-13  /w/app\n",
            "- extensions/ad_hoc/notes/n.md  VPN\n",
            "- rollout_summaries/a.md  session s-1  Build\n",
        ] {
            assert!(answer.contains(line), "{line:?} not in:\n{answer}");
        }
        assert!(!answer.contains("Reusable knowledge"), "{answer}");
    }

    #[test]
    fn a_long_answer_is_cut_at_a_line_and_says_so() {
        let text = "0123456789\n".repeat(MAX_ANSWER_CHARS / 10);
        let cut = capped(&text, "read less");
        let (kept, note) = cut.rsplit_once('\n').unwrap();
        assert!(kept.chars().count() <= MAX_ANSWER_CHARS && kept.ends_with("0123456789"), "{note}");
        assert!(
            note.starts_with("[cut: ") && note.ends_with(&format!("of {} characters shown; read less]", text.len()))
        );
        assert_eq!(capped("short", "x"), "short");
        let wide = "é".repeat(MAX_ANSWER_CHARS + 5);
        assert!(capped(&wide, "x").starts_with(&"é".repeat(MAX_ANSWER_CHARS)));
    }
}
