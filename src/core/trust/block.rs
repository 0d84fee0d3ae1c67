//! The managed block `promote` keeps in a project's instruction file (`AGENTS.md`,
//! `CLAUDE.md`, `GEMINI.md`): delimited by two marker lines, it holds one entry per promoted
//! lesson, with the date and the sessions behind it. Text outside the block is never
//! changed, byte for byte, line endings included; adding a lesson already there, or removing
//! one that is not, changes nothing.
//!
//! ```text
//! <!-- BEGIN handbook lessons: kept by `handbook promote`; edit outside this block -->
//! ## Lessons from past sessions
//!
//! - We use pnpm, not npm.
//!   <!-- L-3f2a9c1b promoted 2026-12-03 from sessions 5a1e0c2d-…, 019d7a10-… -->
//! <!-- END handbook lessons -->
//! ```

use std::fmt;

use crate::core::redact::redact;

const BEGIN: &str = "<!-- BEGIN handbook lessons";
const END: &str = "<!-- END handbook lessons";
const BEGIN_LINE: &str = "<!-- BEGIN handbook lessons: kept by `handbook promote`; edit outside this block -->";
const END_LINE: &str = "<!-- END handbook lessons -->";
const HEADING: &str = "## Lessons from past sessions";

/// Why a file's block cannot be edited safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlockError {
    /// A begin marker without an end marker after it (1-based line).
    Unclosed(usize),
    /// An end marker without a begin marker before it.
    Unopened(usize),
    /// A second begin marker.
    Twice(usize),
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockError::Unclosed(line) => {
                write!(f, "line {line}: handbook's block has a begin marker and no end marker")
            }
            BlockError::Unopened(line) => {
                write!(f, "line {line}: handbook's block has an end marker and no begin marker")
            }
            BlockError::Twice(line) => write!(f, "line {line}: a second handbook block begins here"),
        }
    }
}

impl std::error::Error for BlockError {}

/// One promoted lesson, as the block shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) id: String,
    pub(crate) text: String,
    /// `YYYY-MM-DD`.
    pub(crate) date: String,
    pub(crate) sessions: Vec<String>,
}

impl Entry {
    /// The entry's lines: the lesson (redacted again, and unable to close the block or start
    /// a heading of its own), then what it came from.
    fn lines(&self) -> Vec<String> {
        let text = redact(&self.text).replace("<!--", "<! --").replace("-->", "-- >");
        let mut lines: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .enumerate()
            .map(|(i, line)| if i == 0 { format!("- {line}") } else { format!("  {line}") })
            .collect();
        let from = match self.sessions.as_slice() {
            [] => String::new(),
            sessions => {
                format!(" from {} {}", if sessions.len() == 1 { "session" } else { "sessions" }, sessions.join(", "))
            }
        };
        let from = from.replace("--", "- -");
        lines.push(format!("  <!-- {} promoted {}{from} -->", self.id, self.date));
        lines
    }
}

/// Where the block is: the indexes of its marker lines.
fn find(lines: &[&str]) -> Result<Option<(usize, usize)>, BlockError> {
    let mut begin = None;
    let mut found = None;
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim_end_matches('\r').trim();
        if line.starts_with(BEGIN) {
            if begin.is_some() || found.is_some() {
                return Err(BlockError::Twice(i + 1));
            }
            begin = Some(i);
        } else if line.starts_with(END) {
            let Some(start) = begin.take() else { return Err(BlockError::Unopened(i + 1)) };
            found = Some((start, i));
        }
    }
    match begin {
        Some(start) => Err(BlockError::Unclosed(start + 1)),
        None => Ok(found),
    }
}

/// The id an entry's comment line names.
fn entry_id(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("<!-- L-")?;
    let digits = rest.split_whitespace().next()?;
    let start = line.find("L-")?;
    Some(&line[start..start + 2 + digits.len()])
}

/// The file's text with `entry` in the block (the block added at the end when there is none;
/// `text` is `None` when there is no file yet). The same text when the entry is there.
///
/// # Errors
///
/// [`BlockError`] when the markers are broken: nothing is changed then.
pub(crate) fn add(text: Option<&str>, entry: &Entry) -> Result<String, BlockError> {
    let text = text.unwrap_or("");
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split('\n').collect();
    let new_lines = entry.lines();
    match find(&lines)? {
        Some((b, e)) if lines[b..e].iter().any(|l| entry_id(l) == Some(entry.id.as_str())) => Ok(text.to_string()),
        Some((_, e)) => {
            let mut out: Vec<String> = lines[..e].iter().map(|l| l.to_string()).collect();
            // Each line keeps the `\r` of a file written with CRLF.
            out.extend(new_lines.iter().map(|l| format!("{l}{}", newline.trim_end_matches('\n'))));
            out.extend(lines[e..].iter().map(|l| l.to_string()));
            Ok(out.join("\n"))
        }
        None => {
            let mut block = vec![BEGIN_LINE.to_string(), HEADING.to_string(), String::new()];
            block.extend(new_lines);
            block.push(END_LINE.to_string());
            let block = block.join(newline) + newline;
            let blank = format!("{newline}{newline}");
            let separator = if text.is_empty() || text.ends_with(&blank) {
                ""
            } else if text.ends_with(newline) {
                newline
            } else {
                blank.as_str()
            };
            Ok(format!("{text}{separator}{block}"))
        }
    }
}

/// The file's text without the lesson `id` in the block, and without the block when it is
/// left empty (with the blank line that set it apart, when it ends the file). `None` when
/// the block does not hold the lesson.
///
/// # Errors
///
/// [`BlockError`] when the markers are broken.
pub(crate) fn remove(text: &str, id: &str) -> Result<Option<String>, BlockError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some((b, e)) = find(&lines)? else { return Ok(None) };
    let Some(comment) = (b..e).find(|&i| entry_id(lines[i]) == Some(id)) else { return Ok(None) };
    // The entry: from its bullet down to its comment line.
    let start = (b + 1..=comment).rev().find(|&i| lines[i].trim_start().starts_with("- ")).unwrap_or(comment);
    let mut kept: Vec<&str> = lines[..start].to_vec();
    kept.extend(&lines[comment + 1..]);
    let (b2, e2) = find(&kept)?.unwrap_or((b, b));
    let empty = kept[b2 + 1..e2].iter().all(|l| {
        let l = l.trim_end_matches('\r').trim();
        l.is_empty() || l == HEADING
    });
    if !empty {
        return Ok(Some(kept.join("\n")));
    }
    let mut out: Vec<&str> = kept[..b2].to_vec();
    let rest = &kept[e2 + 1..];
    let ends_file = rest.iter().all(|l| l.trim_end_matches('\r').is_empty());
    if ends_file && out.last().is_some_and(|l| l.trim_end_matches('\r').is_empty()) && out.len() > 1 {
        out.pop();
    }
    out.extend(rest);
    Ok(Some(out.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the block holds the lesson `id`.
    fn holds(text: &str, id: &str) -> Result<bool, BlockError> {
        let lines: Vec<&str> = text.split('\n').collect();
        Ok(find(&lines)?.is_some_and(|(b, e)| lines[b..e].iter().any(|l| entry_id(l) == Some(id))))
    }

    fn entry(id: &str, text: &str) -> Entry {
        Entry {
            id: id.into(),
            text: text.into(),
            date: "2026-12-03".into(),
            sessions: vec!["s-1".into(), "s-2".into()],
        }
    }

    const AGENTS: &str = "# Agents\n\nRun `make check` before pushing.\n";

    #[test]
    fn a_block_is_added_once_and_text_outside_it_is_kept() {
        let one = add(Some(AGENTS), &entry("L-11111111", "We use pnpm, not npm.")).unwrap();
        assert!(one.starts_with(AGENTS), "{one}");
        assert!(one.contains("\n- We use pnpm, not npm.\n  <!-- L-11111111 promoted 2026-12-03 from sessions s-1, s-2 -->\n<!-- END handbook lessons -->\n"), "{one}");
        assert_eq!(add(Some(&one), &entry("L-11111111", "We use pnpm, not npm.")).unwrap(), one, "idempotent");
        let two = add(Some(&one), &entry("L-22222222", "Staging needs the VPN.")).unwrap();
        assert!(two.starts_with(&one[..one.find(END_LINE).unwrap()]), "{two}");
        assert!(holds(&two, "L-22222222").unwrap() && holds(&two, "L-11111111").unwrap());
        // Taking both out gives the file back as it was.
        let back = remove(&remove(&two, "L-11111111").unwrap().unwrap(), "L-22222222").unwrap().unwrap();
        assert_eq!(back, AGENTS);
        assert_eq!(remove(AGENTS, "L-11111111").unwrap(), None);
    }

    #[test]
    fn an_existing_block_grows_in_place_and_text_after_it_stays() {
        let with_block = format!("# Agents\n\n{BEGIN_LINE}\n{HEADING}\n\n{END_LINE}\n\n## After\n\nkeep me\n");
        let added = add(Some(&with_block), &entry("L-33333333", "Use `just test`.")).unwrap();
        assert!(
            added.ends_with(&format!(
                "  <!-- L-33333333 promoted 2026-12-03 from sessions s-1, s-2 -->\n{END_LINE}\n\n## After\n\nkeep me\n"
            )),
            "{added}"
        );
        let removed = remove(&added, "L-33333333").unwrap().unwrap();
        assert_eq!(removed, "# Agents\n\n\n## After\n\nkeep me\n");
    }

    #[test]
    fn line_endings_and_lesson_text_cannot_break_the_block() {
        let crlf = "# Agents\r\n\r\nBe careful.\r\n";
        let added = add(Some(crlf), &entry("L-44444444", "Never write <!-- END handbook lessons --> here.")).unwrap();
        assert!(added.starts_with(crlf) && added.ends_with("<!-- END handbook lessons -->\r\n"), "{added:?}");
        assert_eq!(added.matches("<!-- END handbook lessons").count(), 1, "{added}");
        assert_eq!(remove(&added, "L-44444444").unwrap().unwrap(), crlf);
        let new = add(None, &entry("L-55555555", "A note\nwith two lines")).unwrap();
        assert!(new.starts_with(BEGIN_LINE) && new.contains("- A note\n  with two lines\n"), "{new}");
        let secret = add(None, &entry("L-66666666", "The token is ghp_16C7e42F292c6912E7710c838347Ae178B4a")).unwrap();
        assert!(secret.contains("[REDACTED:") && !secret.contains("ghp_16C7"), "{secret}");
    }

    #[test]
    fn broken_markers_are_refused() {
        assert_eq!(add(Some(&format!("x\n{BEGIN_LINE}\n")), &entry("L-1", "y")), Err(BlockError::Unclosed(2)));
        assert_eq!(add(Some(&format!("{END_LINE}\n")), &entry("L-1", "y")), Err(BlockError::Unopened(1)));
        let twice = format!("{BEGIN_LINE}\n{END_LINE}\n{BEGIN_LINE}\n{END_LINE}\n");
        assert_eq!(remove(&twice, "L-1"), Err(BlockError::Twice(3)));
    }
}
