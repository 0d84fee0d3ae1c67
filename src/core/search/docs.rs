//! The documents a search ranks: each workspace file split where a reader would split it.
//! `MEMORY.md` by block (a task group's header, each `## Task N`, each lesson section),
//! `memory_summary.md` by entry, one document per rollout summary and per note.
//!
//! Each document carries what the file says about it: the session it came from, its date,
//! and its project, so results can show them and filters can use them.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use jiff::{Timestamp, civil, tz::TimeZone};
use serde::Serialize;

/// Where a document comes from, as `--in` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    Memory,
    Summary,
    Rollout,
    Note,
    Transcript,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
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
pub(crate) struct Doc {
    /// The file, workspace-relative (a transcript's path is absolute).
    pub(crate) path: String,
    /// 1-based line of the file the text starts at.
    pub(crate) first_line: usize,
    pub(crate) text: String,
    /// Every line of the text reports `first_line` (a transcript record is one file line,
    /// however many lines its text holds).
    pub(crate) fixed_line: bool,
    pub(crate) kind: Kind,
    pub(crate) session_id: Option<String>,
    /// The last activity of the session(s) the text comes from (for a day's entry, the
    /// day's start).
    pub(crate) date: Option<Timestamp>,
    /// For a day's entry, the day's end: the document covers `date..=date_end`.
    pub(crate) date_end: Option<Timestamp>,
    /// The project key, or for summary entries that only name it, the project's short name.
    pub(crate) project: Option<String>,
    /// Where in its session the text stands, for a session read as a stream of records rather
    /// than the lines of one file (a database's, opencode's older tree): there `first_line`
    /// counts records, which no file shows.
    pub(crate) place: Option<String>,
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
            date_end: None,
            project: None,
            place: None,
        }
    }
}

/// The documents of one file that a test of their text accepts, and how many the file
/// holds in all (the collection statistics count every document, matching or not).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Split {
    pub(crate) docs: Vec<Doc>,
    pub(crate) count: usize,
}

/// `MEMORY.md`: one document per block. A task block's session and date come from its
/// `rollout_summary_files` entry; a lesson section's from the tasks it cites (`[Task 2]`);
/// a group header's from all the group's tasks.
pub(crate) fn memory_docs(path: &str, text: &str, keep: &dyn Fn(&str) -> bool) -> Split {
    struct Block {
        first_line: usize,
        bytes: Range<usize>,
        group: Option<usize>,
        task: Option<u32>,
        header: bool,
    }
    let mut groups: Vec<Option<String>> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut offset = 0;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += raw.len();
        let (group, task, header) = if let Some(title) = line.strip_prefix("# ") {
            groups.push(title.trim().strip_prefix("Task Group:").map(|p| p.trim().to_string()));
            (Some(groups.len() - 1), None, true)
        } else if let Some(title) = line.strip_prefix("## ") {
            let task =
                title.strip_prefix("Task ").and_then(|t| t.split(':').next()).and_then(|n| n.trim().parse().ok());
            (groups.len().checked_sub(1), task, false)
        } else {
            match blocks.last_mut() {
                Some(block) => block.bytes.end = offset,
                None => {
                    blocks.push(Block { first_line: 1, bytes: start..offset, group: None, task: None, header: false })
                }
            }
            continue;
        };
        blocks.push(Block { first_line: index + 1, bytes: start..offset, group, task, header });
    }
    // What each task block says about its sessions, per group.
    let mut tasks: BTreeMap<(Option<usize>, u32), Sessions> = BTreeMap::new();
    for block in &blocks {
        if let Some(task) = block.task {
            tasks.insert((block.group, task), annotations(&text[block.bytes.clone()]));
        }
    }
    let mut split = Split::default();
    for block in &blocks {
        let body = text[block.bytes.clone()].trim_end();
        if body.trim().is_empty() {
            continue;
        }
        split.count += 1;
        if !keep(body) {
            continue;
        }
        let (ids, date) = match block.task {
            Some(task) => tasks.get(&(block.group, task)).cloned().unwrap_or_default(),
            None => {
                let cited: Vec<&Sessions> = if block.header {
                    tasks.range((block.group, 0)..=(block.group, u32::MAX)).map(|(_, v)| v).collect()
                } else {
                    cited_tasks(body).into_iter().filter_map(|t| tasks.get(&(block.group, t))).collect()
                };
                let ids = cited.iter().flat_map(|(ids, _)| ids.iter().cloned()).collect();
                (ids, cited.iter().filter_map(|(_, d)| *d).max())
            }
        };
        let mut doc = Doc::new(path, Kind::Memory, block.first_line, body.to_string());
        doc.session_id = single(ids);
        doc.date = date;
        doc.project = block.group.and_then(|g| groups[g].clone());
        split.docs.push(doc);
    }
    split
}

/// The session ids a block names, and the latest of their `updated_at`.
type Sessions = (BTreeSet<String>, Option<Timestamp>);

/// The sessions a block's annotations name: `path (cwd=/w, updated_at=…, session_id=…)`.
fn annotations(block: &str) -> Sessions {
    let mut ids = BTreeSet::new();
    let mut latest: Option<Timestamp> = None;
    for line in block.lines().filter(|l| memchr::memchr(b'=', l.as_bytes()).is_some()) {
        for piece in line.split(['(', ',', ')']).map(str::trim) {
            if let Some(id) = piece.strip_prefix("session_id=").filter(|id| !id.is_empty()) {
                ids.insert(id.to_string());
            } else if let Some(date) = piece.strip_prefix("updated_at=").and_then(|d| d.parse::<Timestamp>().ok()) {
                latest = latest.max(Some(date));
            }
        }
    }
    (ids, latest)
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
pub(crate) fn summary_docs(path: &str, text: &str, keep: &dyn Fn(&str) -> bool) -> Split {
    let mut docs: Vec<Doc> = Vec::new();
    let mut section = String::new();
    let mut project: Option<String> = None;
    let mut day: Option<(Timestamp, Timestamp)> = None;
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
        (doc.date, doc.date_end) = (day.map(|d| d.0), day.map(|d| d.1));
        doc.project = project.clone().or_else(|| named_project(&section, trimmed));
        docs.push(doc);
        open = true;
    }
    Split { count: docs.len(), docs: docs.into_iter().filter(|d| keep(&d.text)).collect() }
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
pub(crate) fn rollout_doc(path: &str, text: &str) -> Doc {
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
pub(crate) fn note_doc(path: &str, text: &str) -> Doc {
    let mut doc = Doc::new(path, Kind::Note, 1, text.to_string());
    let name = path.rsplit('/').next().unwrap_or(path);
    doc.date = name
        .get(..19)
        .and_then(|stamp| civil::DateTime::strptime("%Y-%m-%dT%H-%M-%S", stamp).ok())
        .and_then(|at| at.to_zoned_datetime(TimeZone::UTC).ok())
        .map(|z| z.timestamp());
    doc
}

/// A `#### 2026-11-20` heading: the start and the end of that UTC day.
fn parse_day(title: &str) -> Option<(Timestamp, Timestamp)> {
    let day: civil::Date = title.get(..10)?.parse().ok()?;
    let at = |time| day.to_datetime(time).to_zoned_datetime(TimeZone::UTC).ok().map(|z| z.timestamp());
    Some((at(civil::Time::midnight())?, at(civil::Time::MAX)?))
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
        let split = memory_docs("MEMORY.md", MEMORY, &|_| true);
        assert_eq!(split.count, 5);
        let docs = split.docs;
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
        let (ids, date) = annotations("- a.md (xsession_id=a, session_id=b, updated_at=2026-11-20T08:00:00Z)\nno keys");
        assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["b"]);
        assert_eq!(date.unwrap().to_string(), "2026-11-20T08:00:00Z");
    }

    #[test]
    fn only_kept_blocks_become_documents() {
        let split = memory_docs("MEMORY.md", MEMORY, &|body| body.contains("bulid"));
        assert_eq!(split.count, 5);
        assert_eq!(split.docs.len(), 1);
        assert_eq!(split.docs[0].first_line, 19);
        assert_eq!(split.docs[0].session_id, None);
        let text = "stray line\n# Task Group: /w\n";
        let docs = memory_docs("MEMORY.md", text, &|_| true).docs;
        assert_eq!((docs[0].first_line, docs[0].project.as_deref()), (1, None));
        assert_eq!((docs[1].first_line, docs[1].project.as_deref()), (2, Some("/w")));
    }

    #[test]
    fn summary_splits_by_entry() {
        let text = "v1\n\n## User Profile\n\nLessons from 3 sessions.\n\n## User preferences\n\n\
            - \"We use pnpm.\" (preference; webshop)\n\n## General Tips\n\n- webshop: verified `pnpm test`\n\n\
            ## What's in Memory\n\n### /w/webshop\n\n#### 2026-11-22\n\n- Add a test (success): cart\n  more words\n";
        let docs = summary_docs("memory_summary.md", text, &|_| true).docs;
        let shape: Vec<(usize, Option<&str>, Option<String>)> =
            docs.iter().map(|d| (d.first_line, d.project.as_deref(), d.date.map(|d| d.to_string()))).collect();
        assert_eq!(
            shape,
            [
                (5, None, None),
                (9, Some("webshop"), None),
                (13, Some("webshop"), None),
                (21, Some("/w/webshop"), Some("2026-11-22T00:00:00Z".to_string())),
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
