//! Keeping the user's hand edits to generated files across consolidations.
//!
//! The built-in consolidator rebuilds `MEMORY.md` and `memory_summary.md` from their inputs,
//! so an edit would be lost at the next run. Instead, the lines the user removed or added
//! since the last consolidation are learned from the diff against what handbook last wrote and
//! kept in `.handbook/edits.json`; every rebuild then leaves out the removed lines and puts the
//! added ones back after the line they followed.
//!
//! What is learned is limited to what an edit can mean for every later rebuild:
//! - a removed lesson or text line (by its words, not by the counts a rebuild changes);
//! - a removed `# Task Group` heading, which removes that project's whole group;
//! - an added line, anchored after the line it followed.
//!
//! Structural lines (other headings, `### keywords`, lines that occur more than once, the
//! summary's `v1`) are never learned as removals: removing one of them would strip the same
//! line from every group.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use similar::{DiffTag, TextDiff};

use crate::core::summary::VERSION_LINE;

/// The heading that opens a project's group in `MEMORY.md`.
const GROUP_HEADING: &str = "# Task Group: ";

/// A line the user added, and the line it followed when they added it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Addition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) after: Option<String>,
    pub(crate) line: String,
}

/// The user's edits to one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileEdits {
    /// Lines removed, by identity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) removed: Vec<String>,
    /// Task Groups removed whole, by their heading.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) removed_groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) added: Vec<Addition>,
}

/// The user's edits, per workspace file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Edits {
    #[serde(default)]
    pub(crate) files: BTreeMap<String, FileEdits>,
}

/// What opens the other wordings a merged lesson lists after itself in `MEMORY.md`.
pub(crate) const ALSO_SAID: &str = "also said:";

/// A line without what a rebuild may change in it (the support annotation `(preference;
/// 2 sessions)`, the task references `[Task 3]`, the other wordings merged into it), so an
/// edit still matches the line after its counts move.
pub(crate) fn identity(line: &str) -> String {
    let mut text = line.trim_end();
    loop {
        let before = text.len();
        if text.ends_with(')')
            && let Some(open) = text.rfind(&format!(" ({ALSO_SAID} "))
        {
            text = text[..open].trim_end();
        }
        if text.ends_with(']')
            && let Some(open) = text.rfind("[Task ")
        {
            text = text[..open].trim_end();
        }
        if text.ends_with(')')
            && let Some(open) = text.rfind(" (")
            && text[open..].contains("session")
        {
            text = text[..open].trim_end();
        }
        if text.len() == before {
            return text.to_string();
        }
    }
}

/// A line's [`identity`] and, for a merged lesson, that of each other wording it lists: a
/// lesson removed by hand stays removed when a later rebuild shows it under another of its
/// wordings.
fn identities(line: &str) -> Vec<String> {
    let mut ids = vec![identity(line)];
    let marker = format!(" ({ALSO_SAID} ");
    if let Some(open) = line.trim_end().strip_suffix(')').and_then(|l| l.rfind(&marker).map(|at| (l, at))) {
        let (body, at) = open;
        ids.extend(body[at + marker.len()..].split(" | ").map(|wording| format!("- {}", wording.trim())));
    }
    ids
}

/// Lines that give a file its shape rather than its content.
fn is_structural(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty() || trimmed.starts_with('#') || trimmed == VERSION_LINE
}

/// Where an added line goes in a rebuilt file.
enum Place {
    Top,
    After(usize),
    /// Its anchor is gone.
    Orphan,
}

impl FileEdits {
    /// Learn the user's edits: what changed from `base` (what handbook last wrote) to
    /// `current` (the file now).
    pub(crate) fn learn(&mut self, base: &str, current: &str) {
        let diff = TextDiff::from_lines(base, current);
        let old: Vec<&str> = base.lines().collect();
        let new: Vec<&str> = current.lines().collect();
        let occurrences = |line: &str| old.iter().filter(|l| identity(l) == identity(line)).count();
        for op in diff.ops() {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if matches!(tag, DiffTag::Delete | DiffTag::Replace) {
                for line in &old[old_range.clone()] {
                    if let Some(group) = line.strip_prefix(GROUP_HEADING) {
                        let group = group.trim().to_string();
                        if !self.removed_groups.contains(&group) {
                            self.removed_groups.push(group);
                        }
                        continue;
                    }
                    if is_structural(line) || occurrences(line) > 1 {
                        continue;
                    }
                    let id = identity(line);
                    if let Some(i) = self.added.iter().position(|a| identity(&a.line) == id) {
                        self.added.remove(i);
                    } else if !self.removed.contains(&id) {
                        self.removed.push(id);
                    }
                }
            }
            if matches!(tag, DiffTag::Insert | DiffTag::Replace) {
                for index in new_range.clone() {
                    let line = new[index];
                    if line.trim().is_empty() || line.trim_end() == VERSION_LINE {
                        continue;
                    }
                    if let Some(group) = line.strip_prefix(GROUP_HEADING) {
                        self.removed_groups.retain(|g| g != group.trim());
                    }
                    let id = identity(line);
                    if let Some(i) = self.removed.iter().position(|r| *r == id) {
                        self.removed.remove(i);
                        continue;
                    }
                    if line.starts_with(GROUP_HEADING) {
                        continue;
                    }
                    let after = new[..index].iter().rev().find(|l| !l.trim().is_empty()).map(|l| identity(l));
                    if !self.added.iter().any(|a| identity(&a.line) == id) {
                        self.added.push(Addition { after, line: line.trim_end().to_string() });
                    }
                }
            }
        }
    }

    /// Apply the edits to a freshly generated file. Added lines whose anchor is gone are
    /// gathered at the end under `orphan_heading`.
    pub(crate) fn apply(&self, generated: &str, orphan_heading: &str) -> String {
        if self.is_empty() {
            return generated.to_string();
        }
        let mut lines: Vec<String> = Vec::new();
        let mut in_removed_group = false;
        for line in generated.lines() {
            if let Some(group) = line.strip_prefix(GROUP_HEADING) {
                in_removed_group = self.removed_groups.iter().any(|g| g == group.trim());
            } else if line.starts_with("# ") {
                in_removed_group = false;
            }
            if in_removed_group || identities(line).iter().any(|id| self.removed.contains(id)) {
                continue;
            }
            lines.push(line.to_string());
        }
        let mut orphans = Vec::new();
        for addition in &self.added {
            let id = identity(&addition.line);
            if lines.iter().any(|l| identity(l) == id) {
                continue;
            }
            let place = match &addition.after {
                None => Place::Top,
                Some(after) => lines.iter().position(|l| identity(l) == *after).map_or(Place::Orphan, Place::After),
            };
            match place {
                Place::Top => lines.insert(0, addition.line.clone()),
                Place::After(anchor) => {
                    // After the anchor, and after lines added behind the same anchor before.
                    let mut at = anchor + 1;
                    while at < lines.len()
                        && self.added.iter().any(|a| a.line == lines[at] && a.after == addition.after)
                    {
                        at += 1;
                    }
                    lines.insert(at, addition.line.clone());
                }
                Place::Orphan => orphans.push(addition.line.clone()),
            }
        }
        let mut out = collapse_blank_runs(&lines);
        if !orphans.is_empty() {
            out.push_str(&format!("\n{orphan_heading}\n\n"));
            for line in orphans {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.removed_groups.is_empty() && self.added.is_empty()
    }

    /// `summary` without the lessons these edits (to `MEMORY.md`) removed: a lesson deleted
    /// from the handbook must not live on in the summary agents load. A summary entry
    /// `- [project: ]LESSON[ (…)]` goes when LESSON is one the user removed.
    pub(crate) fn drop_removed_lessons(&self, summary: &str) -> String {
        let removed: Vec<&str> = self
            .removed
            .iter()
            .filter_map(|r| r.strip_prefix("- "))
            .map(str::trim)
            .filter(|r| r.chars().count() >= 12)
            .collect();
        if removed.is_empty() {
            return summary.to_string();
        }
        let is_removed = |text: &str| {
            removed.iter().any(|lesson| {
                text.strip_prefix(lesson).is_some_and(|rest| rest.is_empty() || rest.trim_start().starts_with('('))
            })
        };
        let kept: Vec<String> = summary
            .lines()
            .filter(|line| {
                let Some(entry) = line.strip_prefix("- ") else { return true };
                let after_project = entry.split_once(": ").map(|(_, rest)| rest);
                !(is_removed(entry) || after_project.is_some_and(is_removed))
            })
            .map(str::to_string)
            .collect();
        collapse_blank_runs(&kept)
    }
}

/// The lines joined, without the runs of blank lines that removed blocks leave behind.
fn collapse_blank_runs(lines: &[String]) -> String {
    let mut out = String::new();
    let mut blank = true;
    for line in lines {
        let is_blank = line.trim().is_empty();
        if is_blank && blank {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        blank = is_blank;
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_removed_from_the_handbook_leaves_the_summary_too() {
        let mut edits = FileEdits::default();
        edits.learn(
            "- `make bulid` failed -> use `make build` (1 session) [Task 1]\n- \"We use pnpm\" (preference; 2 sessions) [Task 2]\n- keep me (1 session) [Task 3]\n",
            "- keep me (1 session) [Task 3]\n",
        );
        let summary = "v1\n\n## User preferences\n\n- \"We use pnpm\" (preference; webshop)\n\n## General Tips\n\n- firmware: `make bulid` failed -> use `make build`\n- firmware: keep me\n";
        assert_eq!(
            edits.drop_removed_lessons(summary),
            "v1\n\n## User preferences\n\n## General Tips\n\n- firmware: keep me\n"
        );
    }

    const BASE: &str = "# Task Group: app

## Task 1: Fix it. (success)

### keywords

- cargo

## User preferences

- \"Use tabs\" (preference; 1 session) [Task 1]
- \"Wrong lesson\" (preference; 1 session) [Task 2]

# Task Group: web

## Task 1: Web. (success)

### keywords

- pnpm
";

    #[test]
    fn removed_lines_stay_removed_and_added_lines_come_back() {
        let mut edits = FileEdits::default();
        let edited = BASE.replace("- \"Wrong lesson\" (preference; 1 session) [Task 2]\n", "").replace(
            "- \"Use tabs\" (preference; 1 session) [Task 1]\n",
            "- \"Use tabs\" (preference; 1 session) [Task 1]\n- my own lesson\n",
        );
        edits.learn(BASE, &edited);
        assert_eq!(edits.removed, ["- \"Wrong lesson\""]);
        assert_eq!(edits.added[0].line, "- my own lesson");
        // The next rebuild counts more sessions and renumbers the tasks.
        let rebuilt = BASE
            .replace("(preference; 1 session) [Task 1]", "(preference; 2 sessions) [Task 1][Task 3]")
            .replace("(preference; 1 session) [Task 2]", "(preference; 2 sessions) [Task 2]");
        let applied = edits.apply(&rebuilt, "## Added by hand");
        assert!(!applied.contains("Wrong lesson"), "{applied}");
        assert!(applied.contains("(preference; 2 sessions) [Task 1][Task 3]\n- my own lesson\n"), "{applied}");
        let before = edits.clone();
        edits.learn(&applied, &applied);
        assert_eq!(edits, before);
    }

    #[test]
    fn removing_a_group_removes_that_group_only_and_structure_is_never_learned() {
        let mut edits = FileEdits::default();
        let without_app = &BASE[BASE.find("# Task Group: web").unwrap()..];
        edits.learn(BASE, without_app);
        assert_eq!(edits.removed_groups, ["app"]);
        assert!(!edits.removed.iter().any(|r| r.starts_with('#')), "{:?}", edits.removed);
        let applied = edits.apply(BASE, "## Added by hand");
        assert!(applied.starts_with("# Task Group: web"), "{applied}");
        assert!(applied.contains("### keywords\n\n- pnpm"), "structure of the other group was lost: {applied}");
        // Putting the heading back brings the group back.
        edits.learn(without_app, BASE);
        assert!(edits.removed_groups.is_empty());
    }

    #[test]
    fn a_line_is_known_by_its_lesson_whatever_its_counts_and_merged_wordings() {
        let once = "- Use pnpm. (preference; 1 session) [Task 1]";
        let later = "- Use pnpm. (preference; 2 sessions) [Task 1][Task 4] (also said: We use pnpm, not npm.)";
        assert_eq!(identity(once), identity(later));
        assert_eq!(identity(later), "- Use pnpm.");
        assert_eq!(identities(later), ["- Use pnpm.", "- We use pnpm, not npm."]);
    }

    #[test]
    fn the_version_line_is_never_learned() {
        let mut edits = FileEdits::default();
        edits.learn("v1\n\n## User Profile\n\nx\n", "## User Profile\n\nx\n");
        assert!(edits.is_empty(), "{edits:?}");
    }

    #[test]
    fn restoring_a_line_and_orphans() {
        let mut edits = FileEdits::default();
        edits.learn("a\nb\n", "a\n");
        assert_eq!(edits.removed, ["b"]);
        edits.learn("a\n", "a\nb\n");
        assert!(edits.removed.is_empty());
        let mut edits = FileEdits::default();
        edits.learn("anchor\nx\n", "anchor\nmine\nx\n");
        assert_eq!(edits.apply("other\n", "## Added by hand"), "other\n\n## Added by hand\n\nmine\n");
    }
}
