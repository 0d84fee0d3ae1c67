//! `memory_summary.md` as a document of whole entries, so it can be cut to a size cap without
//! cutting a line in half, and narrowed to one project.
//!
//! The shape (first line `v1`):
//!
//! ```text
//! v1
//!
//! ## User Profile           paragraphs
//! ## User preferences       bullets
//! ## General Tips           bullets
//! ## What's in Memory       ### <project> → #### <YYYY-MM-DD> → bullets
//! ```
//!
//! When the document is over the cap, entries are dropped whole, lowest-ranked first: the
//! oldest topics of "What's in Memory", then the last tips, then the last preferences, then
//! the profile. Headings left empty go too.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::core::project::{display_key, display_name};
use crate::core::tokens::Cap;

/// The first line every summary starts with.
pub(crate) const VERSION_LINE: &str = "v1";

/// A bullet with its continuation lines, or a paragraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) lines: Vec<String>,
}

/// What a section narrowed to one project says when it holds nothing of that project.
const NONE_FOR_PROJECT: &str = "- none recorded for this project yet";

/// `#### <date>` and its topics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Day {
    pub(crate) heading: String,
    pub(crate) entries: Vec<Entry>,
}

/// `### <project>`: text under the heading, then its days.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Project {
    pub(crate) heading: String,
    pub(crate) entries: Vec<Entry>,
    pub(crate) days: Vec<Day>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub(crate) heading: String,
    pub(crate) entries: Vec<Entry>,
    /// Only in "What's in Memory".
    pub(crate) projects: Vec<Project>,
}

/// A parsed summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) sections: Vec<Section>,
}

/// The summary does not start with `v1`: it was written by something else, or by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotV1;

impl std::fmt::Display for NotV1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the summary does not start with the line `{VERSION_LINE}`")
    }
}

impl std::error::Error for NotV1 {}

/// Where an entry sits, for ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Section(usize, usize),
    ProjectText(usize, usize, usize),
    Topic(usize, usize, usize, usize),
}

impl Summary {
    /// Parse a summary. Blank lines only separate things; headings and entries are kept as
    /// written.
    pub(crate) fn parse(text: &str) -> Result<Summary, NotV1> {
        let mut lines = text.lines();
        if lines.next().map(str::trim_end) != Some(VERSION_LINE) {
            return Err(NotV1);
        }
        let mut summary = Summary { sections: Vec::new() };
        // Where the next entry goes.
        let mut open_entry = false;
        for line in lines {
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                open_entry = false;
                continue;
            }
            if let Some(level) = heading_level(trimmed) {
                open_entry = false;
                match level {
                    2 => summary.sections.push(Section {
                        heading: trimmed.to_string(),
                        entries: Vec::new(),
                        projects: Vec::new(),
                    }),
                    3 => summary.section_mut().projects.push(Project {
                        heading: trimmed.to_string(),
                        entries: Vec::new(),
                        days: Vec::new(),
                    }),
                    _ => summary.project_mut().days.push(Day { heading: trimmed.to_string(), entries: Vec::new() }),
                }
                continue;
            }
            let is_bullet = trimmed.trim_start().starts_with("- ") && !trimmed.starts_with("  ");
            let entries = summary.entries_mut();
            match entries.last_mut() {
                Some(entry) if open_entry && !is_bullet => entry.lines.push(trimmed.to_string()),
                _ => entries.push(Entry { lines: vec![trimmed.to_string()] }),
            }
            open_entry = true;
        }
        Ok(summary)
    }

    fn section_mut(&mut self) -> &mut Section {
        if self.sections.is_empty() {
            self.sections.push(Section { heading: String::new(), entries: Vec::new(), projects: Vec::new() });
        }
        let last = self.sections.len() - 1;
        &mut self.sections[last]
    }

    fn project_mut(&mut self) -> &mut Project {
        let section = self.section_mut();
        if section.projects.is_empty() {
            section.projects.push(Project { heading: String::new(), entries: Vec::new(), days: Vec::new() });
        }
        let last = section.projects.len() - 1;
        &mut section.projects[last]
    }

    /// Where a line that is not a heading belongs: the innermost open container.
    fn entries_mut(&mut self) -> &mut Vec<Entry> {
        let section = self.section_mut();
        match section.projects.last_mut() {
            None => &mut section.entries,
            Some(project) => match project.days.last_mut() {
                None => &mut project.entries,
                Some(day) => &mut day.entries,
            },
        }
    }

    /// The document as text: `v1`, then each heading and entry, blank lines between blocks.
    pub(crate) fn render(&self) -> String {
        let mut out = String::from(VERSION_LINE);
        out.push('\n');
        for section in &self.sections {
            if section.entries.is_empty() && section.projects.is_empty() {
                continue;
            }
            push_block(&mut out, &section.heading, &section.entries.iter().collect::<Vec<_>>());
            for project in &section.projects {
                push_block(&mut out, &project.heading, &project.entries.iter().collect::<Vec<_>>());
                for day in &project.days {
                    push_block(&mut out, &day.heading, &day.entries.iter().collect::<Vec<_>>());
                }
            }
        }
        out
    }

    /// Keep the global sections and, under "What's in Memory", only the project whose heading
    /// is `### <key>`. Entries of the global sections that name another project (a tip
    /// `- parser: …`, a preference `… (preference; parser)`) go too.
    pub(crate) fn only_project(&self, key: &str) -> Summary {
        let heading_key = |p: &Project| p.heading.trim_start_matches('#').trim().to_string();
        // Headings show keys as `display_key` renders them.
        let key = display_key(key);
        let kept_name = display_name(&key);
        let others: Vec<String> = self
            .sections
            .iter()
            .flat_map(|s| &s.projects)
            .map(|p| display_name(&heading_key(p)))
            .filter(|name| *name != kept_name)
            .collect();
        let names_other = |entry: &Entry| {
            let first = entry.lines.first().map_or("", String::as_str);
            others.iter().any(|name| {
                first.starts_with(&format!("- {name}: "))
                    || first.ends_with(&format!("; {name})"))
                    || first.ends_with(&format!(" ({name})"))
            })
        };
        let mut narrowed = self.clone();
        for section in &mut narrowed.sections {
            section.projects.retain(|p| heading_key(p) == key);
            let had = !section.entries.is_empty();
            section.entries.retain(|e| !names_other(e));
            // A section all of whose entries were another project's still says so.
            if had && section.entries.is_empty() && section.projects.is_empty() {
                section.entries.push(Entry { lines: vec![NONE_FOR_PROJECT.to_string()] });
            }
        }
        narrowed
    }

    /// Whether "What's in Memory" has a project `### <key>`.
    pub(crate) fn has_project(&self, key: &str) -> bool {
        let key = display_key(key);
        self.sections.iter().flat_map(|s| &s.projects).any(|p| p.heading.trim_start_matches('#').trim() == key)
    }

    /// Drop the lowest-ranked entries whole until the rendering fits `cap`; then put back,
    /// highest-ranked first, every dropped entry there is still room for, so one entry too
    /// big for the cap goes alone instead of taking everything ranked below it along.
    pub(crate) fn fit(&self, cap: Cap) -> String {
        let full = self.render();
        if cap.fits(&full) {
            return full;
        }
        let order = self.drop_order();
        // Dropping more never makes the text longer, so the smallest count that fits can be
        // found by bisection.
        let (mut low, mut high) = (0, order.len());
        while low < high {
            let mid = (low + high) / 2;
            if cap.fits(&self.render_without(&order[..mid].iter().copied().collect())) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        let mut dropped: BTreeSet<Slot> = order[..low].iter().copied().collect();
        for slot in order[..low].iter().rev() {
            if !cap.fits(&self.entry(*slot).lines.join("\n")) {
                continue;
            }
            dropped.remove(slot);
            if !cap.fits(&self.render_without(&dropped)) {
                dropped.insert(*slot);
            }
        }
        self.render_without(&dropped)
    }

    fn entry(&self, slot: Slot) -> &Entry {
        match slot {
            Slot::Section(s, e) => &self.sections[s].entries[e],
            Slot::ProjectText(s, p, e) => &self.sections[s].projects[p].entries[e],
            Slot::Topic(s, p, d, e) => &self.sections[s].projects[p].days[d].entries[e],
        }
    }

    /// Every entry, lowest-ranked first.
    fn drop_order(&self) -> Vec<Slot> {
        let mut topics = Vec::new();
        let mut by_section: Vec<(u8, Vec<Slot>)> = Vec::new();
        for (s, section) in self.sections.iter().enumerate() {
            let rank = section_rank(&section.heading);
            let mut slots: Vec<Slot> = (0..section.entries.len()).rev().map(|e| Slot::Section(s, e)).collect();
            for (p, project) in section.projects.iter().enumerate() {
                for (d, day) in project.days.iter().enumerate() {
                    for e in (0..day.entries.len()).rev() {
                        topics.push((day.heading.clone(), s, p, d, e));
                    }
                }
                slots.extend((0..project.entries.len()).rev().map(|e| Slot::ProjectText(s, p, e)));
            }
            by_section.push((rank, slots));
        }
        // Oldest topics first: day headings are dates, which sort as text.
        topics.sort_by(|a, b| {
            a.0.cmp(&b.0).then_with(|| b.4.cmp(&a.4)).then_with(|| (a.1, a.2, a.3).cmp(&(b.1, b.2, b.3)))
        });
        let mut order: Vec<Slot> = topics.into_iter().map(|(_, s, p, d, e)| Slot::Topic(s, p, d, e)).collect();
        by_section.sort_by_key(|(rank, _)| *rank);
        for (_, slots) in by_section {
            order.extend(slots);
        }
        order
    }

    /// The document without the entries in `dropped` and the headings they leave empty.
    fn render_without(&self, dropped: &BTreeSet<Slot>) -> String {
        let mut out = String::from(VERSION_LINE);
        out.push('\n');
        for (s, section) in self.sections.iter().enumerate() {
            let entries = kept(&section.entries, dropped, |e| Slot::Section(s, e));
            let mut projects = Vec::new();
            for (p, project) in section.projects.iter().enumerate() {
                let text = kept(&project.entries, dropped, |e| Slot::ProjectText(s, p, e));
                let days: Vec<(&str, Vec<&Entry>)> = (project.days.iter().enumerate())
                    .map(|(d, day)| (day.heading.as_str(), kept(&day.entries, dropped, |e| Slot::Topic(s, p, d, e))))
                    .filter(|(_, entries)| !entries.is_empty())
                    .collect();
                if !text.is_empty() || !days.is_empty() {
                    projects.push((project.heading.as_str(), text, days));
                }
            }
            if entries.is_empty() && projects.is_empty() {
                continue;
            }
            push_block(&mut out, &section.heading, &entries);
            for (heading, text, days) in projects {
                push_block(&mut out, heading, &text);
                for (heading, entries) in days {
                    push_block(&mut out, heading, &entries);
                }
            }
        }
        out
    }
}

/// The entries not `dropped`; `slot` says where the entry at an index sits.
fn kept<'a>(entries: &'a [Entry], dropped: &BTreeSet<Slot>, slot: impl Fn(usize) -> Slot) -> Vec<&'a Entry> {
    entries.iter().enumerate().filter(|(e, _)| !dropped.contains(&slot(*e))).map(|(_, entry)| entry).collect()
}

/// Lower ranks are dropped first (after the topics).
fn section_rank(heading: &str) -> u8 {
    match heading.trim_start_matches('#').trim().to_ascii_lowercase().as_str() {
        "general tips" => 1,
        "user preferences" => 2,
        "user profile" => 3,
        _ => 0,
    }
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (hashes >= 2 && line.as_bytes().get(hashes) == Some(&b' ')).then_some(hashes.min(4))
}

fn push_block(out: &mut String, heading: &str, entries: &[&Entry]) {
    if !heading.is_empty() {
        let _ = write!(out, "\n{heading}\n");
    }
    if !entries.is_empty() {
        out.push('\n');
    }
    for entry in entries {
        for line in &entry.lines {
            out.push_str(line);
            out.push('\n');
        }
        // Paragraphs need a blank line between them; bullets do not.
        if !entry.lines[0].starts_with("- ") {
            out.push('\n');
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "v1

## User Profile

Works mostly in Rust.

## User preferences

- \"We use pnpm, not npm.\" (webshop)
- \"Always run clippy.\" (parser)

## General Tips

- parser: verified `cargo test`

## What's in Memory

### github.com/acme/parser

#### 2026-11-20

- Fix the tests: cargo, e0425

#### 2026-11-01

- Old topic: lexer
  desc: a continuation line

### /home/dev/webshop

#### 2026-11-22

- Cart total test: pnpm, vitest
";

    #[test]
    fn a_summary_round_trips() {
        let summary = Summary::parse(DOC).unwrap();
        assert_eq!(summary.render(), DOC);
        assert_eq!(summary.sections[3].projects[0].days[1].entries[0].lines.len(), 2);
        assert_eq!(Summary::parse("## no version\n"), Err(NotV1));
    }

    #[test]
    fn the_cap_drops_oldest_topics_first_and_never_cuts_a_line() {
        let summary = Summary::parse(DOC).unwrap();
        let full = crate::core::tokens::estimate(DOC);
        let fitted = summary.fit(Cap { tokens: Some(full - 5), chars: None });
        assert!(!fitted.contains("Old topic"), "{fitted}");
        assert!(!fitted.contains("#### 2026-11-01"), "empty day heading kept");
        assert!(fitted.contains("Cart total test"));
        for line in fitted.lines() {
            assert!(DOC.lines().any(|l| l == line), "line {line:?} was altered");
        }
        let tiny = summary.fit(Cap { tokens: Some(1), chars: None });
        assert_eq!(tiny, "v1\n");
        let half = summary.fit(Cap { tokens: None, chars: Some(200) });
        assert!(half.chars().count() <= 200 && half.contains("## User Profile"), "{half}");
    }

    #[test]
    fn one_oversized_entry_costs_no_other_its_place() {
        let huge = format!("- \"{}\" (webshop)", "always ".repeat(3000));
        let doc = DOC.replace("- \"We use pnpm, not npm.\" (webshop)", &huge);
        let fitted =
            Summary::parse(&doc).unwrap().fit(Cap { tokens: Some(crate::core::tokens::estimate(DOC)), chars: None });
        assert!(!fitted.contains("always always"), "{fitted}");
        for kept in
            ["Works mostly in Rust.", "Always run clippy.", "parser: verified", "Fix the tests", "Cart total test"]
        {
            assert!(fitted.contains(kept), "{kept:?} went with the oversized entry: {fitted}");
        }
    }

    #[test]
    fn one_project_keeps_the_global_sections() {
        let only = Summary::parse(DOC).unwrap().only_project("/home/dev/webshop").render();
        assert!(only.contains("## User preferences") && only.contains("Cart total test"));
        assert!(only.contains("Works mostly in Rust.") && only.contains("\"We use pnpm, not npm.\" (webshop)"));
        assert!(!only.contains("github.com/acme/parser"), "{only}");
        assert!(!only.contains("Always run clippy") && !only.contains("parser: verified"), "{only}");
    }
}
