//! Keeping the user's hand edits to generated files across consolidations.
//!
//! The built-in consolidator rebuilds `MEMORY.md` and `memory_summary.md` from their inputs,
//! so an edit would be lost at the next run. Instead, the lines the user removed or added
//! since the last consolidation are learned from the diff against the baseline and kept in
//! `.handbook/edits.json`; every rebuild then leaves out the removed lines and puts the added
//! ones back after the line they followed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use similar::{DiffTag, TextDiff};

/// A line the user added, and the line it followed when they added it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Addition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    pub line: String,
}

/// The user's edits to one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEdits {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<Addition>,
}

/// The user's edits, per workspace file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edits {
    #[serde(default)]
    pub files: BTreeMap<String, FileEdits>,
}

/// A line without the counts a rebuild may change (`(2 sessions)`, `[Task 3]`), so an edit
/// still matches the line after its support count moves.
fn identity(line: &str) -> String {
    let mut text = line.trim_end().to_string();
    loop {
        let before = text.len();
        if text.ends_with(']')
            && let Some(open) = text.rfind("[Task ")
        {
            text.truncate(open);
            text = text.trim_end().to_string();
        }
        if text.ends_with(')')
            && let Some(open) = text.rfind(" (")
            && text[open + 2..text.len() - 1].split_whitespace().next().is_some_and(|n| n.parse::<u32>().is_ok())
            && text[open..].contains("session")
        {
            text.truncate(open);
        }
        if text.len() == before {
            return text;
        }
    }
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
    pub fn learn(&mut self, base: &str, current: &str) {
        let diff = TextDiff::from_lines(base, current);
        let old: Vec<&str> = base.lines().collect();
        let new: Vec<&str> = current.lines().collect();
        for op in diff.ops() {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            if matches!(tag, DiffTag::Delete | DiffTag::Replace) {
                for line in old[old_range.clone()].iter().filter(|l| !l.trim().is_empty()) {
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
                    if line.trim().is_empty() {
                        continue;
                    }
                    let id = identity(line);
                    if let Some(i) = self.removed.iter().position(|r| *r == id) {
                        self.removed.remove(i);
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
    pub fn apply(&self, generated: &str, orphan_heading: &str) -> String {
        if self.removed.is_empty() && self.added.is_empty() {
            return generated.to_string();
        }
        let mut lines: Vec<String> =
            generated.lines().filter(|l| !self.removed.contains(&identity(l))).map(str::to_string).collect();
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
        let mut out = lines.join("\n");
        out.push('\n');
        if !orphans.is_empty() {
            out.push_str(&format!("\n{orphan_heading}\n\n"));
            for line in orphans {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.added.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Task Group: app\n\n## User preferences\n\n- \"Use tabs\" (preference) (1 session) [Task 1]\n- \"Wrong lesson\" (preference) (1 session) [Task 2]\n";

    #[test]
    fn removed_lines_stay_removed_and_added_lines_come_back() {
        let mut edits = FileEdits::default();
        let edited = BASE.replace("- \"Wrong lesson\" (preference) (1 session) [Task 2]\n", "") + "- my own lesson\n";
        edits.learn(BASE, &edited);
        assert_eq!(edits.removed, ["- \"Wrong lesson\" (preference)"]);
        assert_eq!(edits.added[0].line, "- my own lesson");
        // The next rebuild counts more sessions and renumbers the tasks.
        let rebuilt = "# Task Group: app\n\n## User preferences\n\n- \"Use tabs\" (preference) (2 sessions) [Task 1][Task 3]\n- \"Wrong lesson\" (preference) (2 sessions) [Task 2]\n";
        let applied = edits.apply(rebuilt, "## Added by hand");
        assert!(!applied.contains("Wrong lesson"), "{applied}");
        assert!(applied.contains("(2 sessions) [Task 1][Task 3]\n- my own lesson\n"), "{applied}");
        // Learning again from the applied file changes nothing.
        let before = edits.clone();
        edits.learn(&applied, &applied);
        assert_eq!(edits, before);
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
