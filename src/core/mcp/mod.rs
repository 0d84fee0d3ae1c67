//! What the MCP server decides: which handbook file a reference names (and refusing any
//! that could reach outside the handbook), which lines of it to answer with, and, in
//! [`render`], how every answer reads. The server glue and the reading are in `edge::mcp`.

pub(crate) mod render;

use std::fmt;

use crate::core::layout::{DIFF_FILE, MEMORY, NOTES_DIR, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::search::docs::{Doc, Kind};

/// The handbook files a reference can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// `MEMORY.md`.
    Memory,
    /// `memory_summary.md`.
    Summary,
    /// A file of `rollout_summaries/`.
    Rollout,
    /// A file of the notes folder.
    Note,
}

/// Lines of a file as a reference gives them: `:12` (the section holding line 12) or
/// `:12-40` (exactly those lines), 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lines {
    Around(usize),
    Range(usize, usize),
}

/// What a reference names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A handbook file, workspace-relative, and the lines asked for (none: the whole file).
    File { path: String, kind: FileKind, lines: Option<Lines> },
    /// A session id, or a rollout summary's file name without `.md`: the summary to find.
    Session(String),
}

/// Why a reference names nothing the server may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefError {
    Empty,
    /// An absolute path, or one from the home folder (`~`).
    Absolute(String),
    /// A path with `..` or a backslash, which could climb out of the handbook.
    Escapes(String),
    /// A control character, which no handbook file name holds.
    Unprintable,
    /// A path inside the handbook that is not one of its readable files.
    NotHandbook(String),
    /// Lines that are not `N` or `N-M` with `N <= M`, counted from 1.
    BadLines(String),
}

const READABLE: &str = "MEMORY.md, memory_summary.md, rollout_summaries/<file>.md, \
    extensions/ad_hoc/notes/<file>.md, or a session id; add :N for the section holding line N, \
    :N-M for those lines";

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefError::Empty => write!(f, "no reference given: name {READABLE}"),
            RefError::Absolute(r) => {
                write!(f, "refused {r:?}: references are relative to the handbook, not absolute paths; name {READABLE}")
            }
            RefError::Escapes(r) => {
                write!(f, "refused {r:?}: a reference may not leave the handbook (no `..`, no `\\`); name {READABLE}")
            }
            RefError::Unprintable => write!(f, "refused a reference holding control characters; name {READABLE}"),
            RefError::NotHandbook(r) => write!(f, "{r:?} is not a handbook file this server reads; name {READABLE}"),
            RefError::BadLines(r) => {
                write!(f, "bad lines in {r:?}: give :N or :N-M, counted from 1, with N no greater than M")
            }
        }
    }
}

impl std::error::Error for RefError {}

/// Parse a reference as search results and citations give them: `MEMORY.md:12-40`,
/// `memory_summary.md:31`, `rollout_summaries/<file>.md`, the file name alone, a note's
/// path, or a session id. Anything that is not plainly a handbook file is refused here,
/// before any file is opened; links are refused when the file is read.
///
/// # Errors
///
/// [`RefError`] says what is wrong and what can be named instead.
pub(crate) fn parse_reference(reference: &str) -> Result<Target, RefError> {
    let r = reference.trim().trim_matches('`').trim();
    if r.is_empty() {
        return Err(RefError::Empty);
    }
    if r.chars().any(char::is_control) {
        return Err(RefError::Unprintable);
    }
    let drive = r.len() > 1 && r.as_bytes()[1] == b':' && r.as_bytes()[0].is_ascii_alphabetic();
    if r.starts_with(['/', '~']) || drive {
        return Err(RefError::Absolute(r.to_string()));
    }
    if r.contains('\\') {
        return Err(RefError::Escapes(r.to_string()));
    }
    let (path, lines) = split_lines(r)?;
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    if parts.contains(&"..") {
        return Err(RefError::Escapes(r.to_string()));
    }
    let file = |kind| Ok(Target::File { path: parts.join("/"), kind, lines });
    let notes: Vec<&str> = NOTES_DIR.split('/').collect();
    match parts.as_slice() {
        [name] if *name == MEMORY => file(FileKind::Memory),
        [name] if *name == SUMMARY => file(FileKind::Summary),
        [dir, name] if *dir == ROLLOUT_SUMMARIES && is_markdown(name) => file(FileKind::Rollout),
        [name] if [RAW_MEMORIES, DIFF_FILE].contains(name) => Err(RefError::NotHandbook(r.to_string())),
        [name] if is_markdown(name) => {
            Ok(Target::File { path: format!("{ROLLOUT_SUMMARIES}/{name}"), kind: FileKind::Rollout, lines })
        }
        [a, b, c, name] if [*a, *b, *c] == notes.as_slice() && is_markdown(name) => file(FileKind::Note),
        [id] if lines.is_none() && is_plausible_id(id) => Ok(Target::Session((*id).to_string())),
        _ => Err(RefError::NotHandbook(r.to_string())),
    }
}

fn is_markdown(name: &str) -> bool {
    name.len() > 3 && name.ends_with(".md") && !name.starts_with('.')
}

/// A session id or a summary's stem: the characters ids are made of (as citations read them).
fn is_plausible_id(id: &str) -> bool {
    (4..=200).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// `path:N` or `path:N-M` split into the path and its lines; a path whose last `:` is not
/// followed by a number keeps it.
fn split_lines(r: &str) -> Result<(&str, Option<Lines>), RefError> {
    let Some((path, tail)) = r.rsplit_once(':') else { return Ok((r, None)) };
    if !tail.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok((r, None));
    }
    let bad = || RefError::BadLines(r.to_string());
    let number = |text: &str| text.trim().parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(bad);
    let lines = match tail.split_once('-') {
        None => Lines::Around(number(tail)?),
        Some((first, last)) => {
            let (first, last) = (number(first)?, number(last)?);
            if first > last {
                return Err(bad());
            }
            Lines::Range(first, last)
        }
    };
    Ok((path, Some(lines)))
}

/// The lines of a file an answer holds: 1-based, inclusive, and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Excerpt {
    pub(crate) first: usize,
    pub(crate) last: usize,
    pub(crate) text: String,
}

/// Why the lines asked for are not in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExcerptError {
    EmptyFile,
    /// The first line asked for, and how many lines the file has.
    PastEnd {
        asked: usize,
        lines: usize,
    },
}

impl fmt::Display for ExcerptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExcerptError::EmptyFile => f.write_str("the file is empty"),
            ExcerptError::PastEnd { asked, lines } => {
                write!(f, "line {asked} is past the end: the file has {lines} lines")
            }
        }
    }
}

impl std::error::Error for ExcerptError {}

/// The lines of `text` that `lines` asks for. The whole file without lines; a range as
/// given (cut at the file's end); a single line of `MEMORY.md` the task group holding it
/// (its `# ` block), of `memory_summary.md` the `## ` section holding it, of any other
/// file the whole file, which is one document.
///
/// # Errors
///
/// [`ExcerptError`] for an empty file or a first line past its end.
pub(crate) fn excerpt(text: &str, kind: FileKind, lines: Option<Lines>) -> Result<Excerpt, ExcerptError> {
    let all: Vec<&str> = text.lines().collect();
    if all.is_empty() {
        return Err(ExcerptError::EmptyFile);
    }
    let past_end = |asked| ExcerptError::PastEnd { asked, lines: all.len() };
    let (first, last) = match lines {
        None => (1, all.len()),
        Some(Lines::Range(first, _)) | Some(Lines::Around(first)) if first > all.len() => return Err(past_end(first)),
        Some(Lines::Range(first, last)) => (first, last.min(all.len())),
        Some(Lines::Around(line)) => match kind {
            FileKind::Memory => section(&all, line, 1),
            FileKind::Summary => section(&all, line, 2),
            FileKind::Rollout | FileKind::Note => (1, all.len()),
        },
    };
    Ok(Excerpt { first, last, text: all[first - 1..last].join("\n") })
}

/// The section holding `line` (1-based): from the heading of at most `level` `#`s at or
/// before it (or the file's start) to the line before the next such heading, without the
/// blank lines at its end. `line` is within the file.
fn section(all: &[&str], line: usize, level: usize) -> (usize, usize) {
    let starts = |l: &str| heading_level(l).is_some_and(|n| n <= level);
    let start = (0..line).rev().find(|&i| starts(all[i])).unwrap_or(0);
    let end = (start + 1..all.len()).find(|&i| starts(all[i])).unwrap_or(all.len());
    let end = (start + 1..end).rev().find(|&i| !all[i].trim().is_empty()).map_or(start + 1, |i| i + 1);
    (start + 1, end)
}

/// How many `#`s a markdown heading has; `None` for a line that is not one.
pub(crate) fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (hashes > 0 && line[hashes..].starts_with(' ')).then_some(hashes)
}

/// The session ids a piece of a handbook file names, in order, each once: the annotations of
/// a task's summary files (`session_id=…`) and a rollout summary's header (`session_id: …`).
pub(crate) fn sessions_named(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut add = |id: &str| {
        if !id.is_empty() && !ids.iter().any(|known| known == id) {
            ids.push(id.to_string());
        }
    };
    for line in text.lines().filter(|l| l.contains("session_id")) {
        if let Some(id) = line.trim().strip_prefix("session_id:") {
            add(id.trim());
            continue;
        }
        for piece in line.split(['(', ',', ')']).map(str::trim) {
            if let Some(id) = piece.strip_prefix("session_id=") {
                add(id.trim());
            }
        }
    }
    ids
}

/// The sessions to cite a search result by: its own, or for a block of `MEMORY.md` that
/// several sessions back, those its task group names (`memory` is the text the search read).
pub(crate) fn sessions_of(doc: &Doc, memory: Option<&str>) -> Vec<String> {
    if let Some(id) = &doc.session_id {
        return vec![id.clone()];
    }
    match (doc.kind, memory) {
        (Kind::Memory, Some(memory)) => excerpt(memory, FileKind::Memory, Some(Lines::Around(doc.first_line)))
            .map(|group| sessions_named(&group.text))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The words of a query as `handbook search` takes them: split at spaces, with a phrase in
/// double quotes kept whole.
pub(crate) fn query_words(query: &str) -> Vec<String> {
    let mut words = Vec::new();
    for (index, piece) in query.split('"').enumerate() {
        if index % 2 == 1 {
            words.push(piece.trim().to_string());
        } else {
            words.extend(piece.split_whitespace().map(str::to_string));
        }
    }
    words.retain(|w| !w.is_empty());
    words
}

#[cfg(test)]
mod tests;
