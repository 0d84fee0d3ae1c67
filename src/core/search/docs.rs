//! The documents a search ranks: each workspace file split where a reader would split it.
//! `MEMORY.md` by block (a task group's header, each `## Task N`, each lesson section),
//! `memory_summary.md` by entry, one document per rollout summary and per note.
//!
//! Each document carries what the file says about it: the session it came from, its date,
//! and its project, so results can show them and filters can use them.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{Timestamp, civil, tz::TimeZone};
use serde::Serialize;

/// Where a document comes from, as `--in` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Memory,
    Summary,
    Rollout,
    Note,
    Transcript,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Memory => "memory",
            Kind::Summary => "summary",
            Kind::Rollout => "rollout-summary",
            Kind::Note => "note",
            Kind::Transcript => "transcript",
        }
    }
}

/// One searchable piece of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    /// The file, workspace-relative (a transcript's path is absolute).
    pub path: String,
    /// 1-based line of the file the text starts at.
    pub first_line: usize,
    pub text: String,
    /// Every line of the text reports `first_line` (a transcript record is one file line,
    /// however many lines its text holds).
    pub fixed_line: bool,
    pub kind: Kind,
    pub session_id: Option<String>,
    /// The last activity of the session(s) the text comes from.
    pub date: Option<Timestamp>,
    /// The project key, or for summary entries that only name it, the project's short name.
    pub project: Option<String>,
}

impl Doc {
    fn new(path: &str, kind: Kind, first_line: usize, text: String) -> Doc {
        Doc {
            path: path.to_string(),
            first_line,
            text,
            fixed_line: false,
            kind,
            session_id: None,
            date: None,
            project: None,
        }
    }
}

/// `MEMORY.md`: one document per block. A task block's session and date come from its
/// `rollout_summary_files` entry; a lesson section's from the tasks it cites (`[Task 2]`);
/// a group header's from all the group's tasks.
pub fn memory_docs(path: &str, text: &str) -> Vec<Doc> {
    struct Block<'t> {
        start: usize,
        lines: Vec<&'t str>,
        group: Option<usize>,
        task: Option<u32>,
        header: bool,
    }
    let mut groups: Vec<Option<String>> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(title) = line.strip_prefix("# ") {
            groups.push(title.trim().strip_prefix("Task Group:").map(|p| p.trim().to_string()));
            blocks.push(Block {
                start: index,
                lines: vec![line],
                group: Some(groups.len() - 1),
                task: None,
                header: true,
            });
        } else if let Some(title) = line.strip_prefix("## ") {
            let task =
                title.strip_prefix("Task ").and_then(|t| t.split(':').next()).and_then(|n| n.trim().parse().ok());
            blocks.push(Block {
                start: index,
                lines: vec![line],
                group: groups.len().checked_sub(1),
                task,
                header: false,
            });
        } else {
            match blocks.last_mut() {
                Some(block) => block.lines.push(line),
                None => blocks.push(Block { start: index, lines: vec![line], group: None, task: None, header: false }),
            }
        }
    }
    // What each task block says about its sessions, per group.
    let mut tasks: BTreeMap<(Option<usize>, u32), Sessions> = BTreeMap::new();
    for block in &blocks {
        if let Some(task) = block.task {
            let (ids, date) = annotations(&block.lines);
            tasks.insert((block.group, task), (ids, date));
        }
    }
    let mut docs = Vec::new();
    for block in &blocks {
        let body = block.lines.join("\n");
        if body.trim().is_empty() {
            continue;
        }
        let (ids, date) = if block.task.is_some() {
            annotations(&block.lines)
        } else {
            let cited: Vec<&Sessions> = if block.header {
                tasks.iter().filter(|((g, _), _)| *g == block.group).map(|(_, v)| v).collect()
            } else {
                cited_tasks(&body).into_iter().filter_map(|t| tasks.get(&(block.group, t))).collect()
            };
            let ids = cited.iter().flat_map(|(ids, _)| ids.iter().cloned()).collect();
            (ids, cited.iter().filter_map(|(_, d)| *d).max())
        };
        let mut doc = Doc::new(path, Kind::Memory, block.start + 1, body);
        doc.session_id = single(ids);
        doc.date = date;
        doc.project = block.group.and_then(|g| groups[g].clone());
        docs.push(doc);
    }
    docs
}

/// The session ids a block names, and the latest of their `updated_at`.
type Sessions = (BTreeSet<String>, Option<Timestamp>);

/// The sessions a block's annotations name.
fn annotations(lines: &[&str]) -> Sessions {
    let mut ids = BTreeSet::new();
    let mut latest: Option<Timestamp> = None;
    for line in lines {
        if let Some(id) = annotation(line, "session_id") {
            ids.insert(id.to_string());
        }
        if let Some(date) = annotation(line, "updated_at").and_then(|d| d.parse::<Timestamp>().ok()) {
            latest = latest.max(Some(date));
        }
    }
    (ids, latest)
}

/// The value of `key=value` in a line like `path (cwd=/w, updated_at=…, session_id=…)`.
fn annotation<'t>(line: &'t str, key: &str) -> Option<&'t str> {
    let mut rest = line;
    while let Some(at) = rest.find(key) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + key.len()..];
        if before.is_none_or(|c| matches!(c, ' ' | '(' | ',')) && after.starts_with('=') {
            let value = after[1..].split([',', ')', ' ']).next().unwrap_or("");
            return (!value.is_empty()).then_some(value);
        }
        rest = after;
    }
    None
}

/// The task numbers a lesson section cites: `[Task 1]`, `[Task 1][Task 3]`.
fn cited_tasks(text: &str) -> BTreeSet<u32> {
    text.split("[Task ").skip(1).filter_map(|rest| rest.split(']').next()?.trim().parse().ok()).collect()
}

fn single(ids: BTreeSet<String>) -> Option<String> {
    if ids.len() == 1 { ids.into_iter().next() } else { None }
}

/// `memory_summary.md`: one document per entry (a bullet with its continuation lines) and
/// per paragraph of prose. Entries under `### <project>` / `#### <date>` take both; others
/// take the project they name (`(preference; webshop)`, `- webshop: …`).
pub fn summary_docs(path: &str, text: &str) -> Vec<Doc> {
    let mut docs: Vec<Doc> = Vec::new();
    let mut section = String::new();
    let mut project: Option<String> = None;
    let mut day: Option<Timestamp> = None;
    let mut open = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let level = 1 + heading.chars().take_while(|c| *c == '#').count();
            let title = heading.trim_start_matches('#').trim();
            match level {
                1 | 2 => {
                    section = title.to_string();
                    project = None;
                    day = None;
                }
                3 => {
                    project = Some(title.to_string());
                    day = None;
                }
                _ => day = parse_day(title),
            }
            open = false;
            continue;
        }
        if trimmed.is_empty() || (index == 0 && trimmed == "v1") {
            open = false;
            continue;
        }
        let bullet = trimmed.starts_with("- ") || trimmed.starts_with("* ");
        match docs.last_mut() {
            Some(doc) if open && !bullet => {
                doc.text.push('\n');
                doc.text.push_str(line);
                continue;
            }
            _ => {}
        }
        let mut doc = Doc::new(path, Kind::Summary, index + 1, line.to_string());
        doc.date = day;
        doc.project = project.clone().or_else(|| named_project(&section, trimmed));
        docs.push(doc);
        open = true;
    }
    docs
}

/// The project a global summary entry names, by the shape its section gives it.
fn named_project(section: &str, entry: &str) -> Option<String> {
    let entry = entry.trim_start_matches(['-', '*', ' ']);
    if section.eq_ignore_ascii_case("User preferences") {
        let inner = entry.strip_suffix(')')?;
        let (_, last) = inner.rsplit_once('(')?;
        let (_, name) = last.rsplit_once(';')?;
        let name = name.trim();
        return (!name.is_empty()).then(|| name.to_string());
    }
    if section.eq_ignore_ascii_case("General Tips") {
        let (name, _) = entry.split_once(": ")?;
        let plain = !name.is_empty() && name.len() <= 60 && !name.contains([' ', '`', '"']);
        return plain.then(|| name.to_string());
    }
    None
}

/// A rollout summary: one document; session and date from its header.
pub fn rollout_doc(path: &str, text: &str) -> Doc {
    let mut doc = Doc::new(path, Kind::Rollout, 1, text.to_string());
    for line in text.lines().take_while(|l| !l.trim().is_empty()) {
        let Some((key, value)) = line.split_once(':') else { continue };
        let value = value.trim();
        match key.trim() {
            "session_id" if !value.is_empty() => doc.session_id = Some(value.to_string()),
            "updated_at" => doc.date = value.parse().ok(),
            _ => {}
        }
    }
    doc
}

/// A note: one document, dated by its file name (`<YYYY-MM-DDTHH-MM-SS>-<slug>.md`).
pub fn note_doc(path: &str, text: &str) -> Doc {
    let mut doc = Doc::new(path, Kind::Note, 1, text.to_string());
    let name = path.rsplit('/').next().unwrap_or(path);
    doc.date = name
        .get(..19)
        .and_then(|stamp| civil::DateTime::strptime("%Y-%m-%dT%H-%M-%S", stamp).ok())
        .and_then(|at| at.to_zoned_datetime(TimeZone::UTC).ok())
        .map(|z| z.timestamp());
    doc
}

/// A `#### 2026-11-20` heading: the end of that UTC day, so `--since` that day includes it.
fn parse_day(title: &str) -> Option<Timestamp> {
    let day: civil::Date = title.get(..10)?.parse().ok()?;
    day.to_datetime(civil::Time::MAX).to_zoned_datetime(TimeZone::UTC).ok().map(|z| z.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMORY: &str = "\
# Task Group: /w/firmware
scope: 2 sessions in /w/firmware
applies_to: cwd=/w/firmware

## Task 1: Build the firmware image. (success)

### rollout_summary_files

- rollout_summaries/a.md (cwd=/w/firmware, updated_at=2026-11-27T10:01:10Z, session_id=s-1)

## Task 2: Flash the board. (success)

- rollout_summaries/b.md (cwd=/w/firmware, updated_at=2026-11-28T10:00:00Z, session_id=s-2)

## Reusable knowledge

- verified build command: `make build` (1 session) [Task 2]

## Failures and how to do differently

- `make bulid` failed (2 sessions) [Task 1][Task 2]
";

    #[test]
    fn memory_splits_by_block_with_sessions_and_dates() {
        let docs = memory_docs("MEMORY.md", MEMORY);
        let heads: Vec<(usize, &str)> = docs.iter().map(|d| (d.first_line, d.text.lines().next().unwrap())).collect();
        assert_eq!(
            heads,
            [
                (1, "# Task Group: /w/firmware"),
                (5, "## Task 1: Build the firmware image. (success)"),
                (11, "## Task 2: Flash the board. (success)"),
                (15, "## Reusable knowledge"),
                (19, "## Failures and how to do differently"),
            ]
        );
        assert!(docs.iter().all(|d| d.project.as_deref() == Some("/w/firmware")));
        let id = |i: usize| docs[i].session_id.as_deref();
        let date = |i: usize| docs[i].date.map(|d| d.to_string());
        assert_eq!((id(1), date(1).as_deref()), (Some("s-1"), Some("2026-11-27T10:01:10Z")));
        assert_eq!((id(3), date(3).as_deref()), (Some("s-2"), Some("2026-11-28T10:00:00Z")));
        // Two sessions: no single id, the later date.
        assert_eq!((id(4), date(4).as_deref()), (None, Some("2026-11-28T10:00:00Z")));
        assert_eq!((id(0), date(0).as_deref()), (None, Some("2026-11-28T10:00:00Z")));
    }

    #[test]
    fn annotations_need_their_own_key() {
        assert_eq!(annotation("(xsession_id=a, session_id=b)", "session_id"), Some("b"));
        assert_eq!(annotation("no keys here", "session_id"), None);
    }

    #[test]
    fn summary_splits_by_entry() {
        let text = "v1\n\n## User Profile\n\nLessons from 3 sessions.\n\n## User preferences\n\n\
            - \"We use pnpm.\" (preference; webshop)\n\n## General Tips\n\n- webshop: verified `pnpm test`\n\n\
            ## What's in Memory\n\n### /w/webshop\n\n#### 2026-11-22\n\n- Add a test (success): cart\n  more words\n";
        let docs = summary_docs("memory_summary.md", text);
        let shape: Vec<(usize, Option<&str>, Option<String>)> =
            docs.iter().map(|d| (d.first_line, d.project.as_deref(), d.date.map(|d| d.to_string()))).collect();
        assert_eq!(
            shape,
            [
                (5, None, None),
                (9, Some("webshop"), None),
                (13, Some("webshop"), None),
                (21, Some("/w/webshop"), Some("2026-11-22T23:59:59.999999999Z".to_string())),
            ]
        );
        assert_eq!(docs[3].text, "- Add a test (success): cart\n  more words");
    }

    #[test]
    fn rollouts_and_notes_carry_their_dates() {
        let doc = rollout_doc("rollout_summaries/x.md", "session_id: s-9\nupdated_at: 2026-11-20T08:00:00Z\n\n# T\n");
        assert_eq!(doc.session_id.as_deref(), Some("s-9"));
        assert_eq!(doc.date.unwrap().to_string(), "2026-11-20T08:00:00Z");
        let note = note_doc("extensions/ad_hoc/notes/2026-11-21T09-30-00-use_pnpm.md", "# Use pnpm\n");
        assert_eq!(note.date.unwrap().to_string(), "2026-11-21T09:30:00Z");
        assert_eq!(note_doc("extensions/ad_hoc/notes/mine.md", "x").date, None);
    }
}
