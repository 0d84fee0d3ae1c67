//! The references users type: a lesson's (`L-3f2a9c1b`, any unique start of at least four hex
//! digits, with or without `L-`, or `MEMORY.md:42`, the line search results and citations
//! give) and a generation's (its number, `current` or `pending`).

use std::fmt;

use super::lesson::{Lesson, LessonId};

/// A lesson as the user named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LessonRef {
    /// Lower-case hex digits: the start of a reference.
    Id(String),
    /// A line of `MEMORY.md`.
    Line(usize),
}

/// Why a reference names no one lesson or generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefError {
    Malformed(String),
    NotFound(String),
    Ambiguous(String, Vec<LessonId>),
    NoGeneration(String),
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefError::Malformed(r) => write!(
                f,
                "{r:?} is not a lesson reference: give one as `handbook review` or `handbook why` shows it (L-3f2a9c1b, \
                 or its first four digits or more), or a line of MEMORY.md (MEMORY.md:42)"
            ),
            RefError::NotFound(r) => write!(
                f,
                "no lesson {r} here: `handbook review` lists the pending ones, `handbook search` finds the others"
            ),
            RefError::Ambiguous(r, ids) => {
                let ids: Vec<&str> = ids.iter().map(LessonId::as_str).collect();
                write!(f, "{r} names {} lessons ({}); give more of its digits", ids.len(), ids.join(", "))
            }
            RefError::NoGeneration(r) => {
                write!(f, "no generation {r:?}: give a number `handbook log` lists, `current` or `pending`")
            }
        }
    }
}

impl std::error::Error for RefError {}

/// Parse a lesson reference.
///
/// # Errors
///
/// [`RefError::Malformed`] for anything but hex digits (at least four, `L-` optional) or
/// `MEMORY.md:N`.
pub(crate) fn parse_lesson(text: &str) -> Result<LessonRef, RefError> {
    let r = text.trim().trim_matches('`');
    if let Some(line) = r.strip_prefix("MEMORY.md:") {
        let number = line.split(['-', ':']).next().unwrap_or("");
        return number
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .map(LessonRef::Line)
            .ok_or_else(|| RefError::Malformed(r.into()));
    }
    let digits = r.strip_prefix("L-").or_else(|| r.strip_prefix("l-")).unwrap_or(r).to_ascii_lowercase();
    if (4..=8).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Ok(LessonRef::Id(digits));
    }
    Err(RefError::Malformed(r.into()))
}

impl LessonRef {
    /// The one lesson of `candidates` this names (a line names the lesson written there, or
    /// the note whose block holds it).
    ///
    /// # Errors
    ///
    /// [`RefError::NotFound`] or [`RefError::Ambiguous`].
    pub(crate) fn find<'a>(&self, candidates: &'a [Lesson]) -> Result<&'a Lesson, RefError> {
        match self {
            LessonRef::Line(line) => candidates
                .iter()
                .filter(|l| l.line_number <= *line)
                .max_by_key(|l| l.line_number)
                .filter(|l| l.line_number == *line || (l.note_file.is_some() && *line - l.line_number < 200))
                .ok_or_else(|| RefError::NotFound(format!("at MEMORY.md:{line}"))),
            LessonRef::Id(digits) => {
                let mut found: Vec<&Lesson> =
                    candidates.iter().filter(|l| l.id.as_str()[2..].starts_with(digits.as_str())).collect();
                found.sort_by(|a, b| a.id.cmp(&b.id));
                found.dedup_by(|a, b| a.id == b.id);
                match found.as_slice() {
                    [one] => Ok(one),
                    [] => Err(RefError::NotFound(format!("L-{digits}"))),
                    many => {
                        Err(RefError::Ambiguous(format!("L-{digits}"), many.iter().map(|l| l.id.clone()).collect()))
                    }
                }
            }
        }
    }
}

/// A generation as the user named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GenerationRef {
    Id(u64),
    Current,
    Pending,
}

/// Parse a generation reference: a number (`#5` too), `current` or `pending`.
///
/// # Errors
///
/// [`RefError::NoGeneration`] for anything else.
pub(crate) fn parse_generation(text: &str) -> Result<GenerationRef, RefError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "current" | "head" => Ok(GenerationRef::Current),
        "pending" => Ok(GenerationRef::Pending),
        other => other
            .trim_start_matches('#')
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .map(GenerationRef::Id)
            .ok_or_else(|| RefError::NoGeneration(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::trust::lesson::lessons;

    #[test]
    fn lessons_are_named_by_reference_prefix_or_line() {
        let memory = "# Task Group: p\n\n## User preferences\n\n- one (preference; 1 session) [Task 1]\n- two (preference; 1 session) [Task 1]\n";
        let found = lessons(memory);
        let full = found[1].id.as_str();
        assert_eq!(parse_lesson(full).unwrap().find(&found).unwrap().text, "two");
        assert_eq!(parse_lesson(&full[2..7].to_uppercase()).unwrap().find(&found).unwrap().text, "two");
        assert_eq!(parse_lesson("MEMORY.md:5").unwrap().find(&found).unwrap().text, "one");
        assert!(matches!(parse_lesson("MEMORY.md:3").unwrap().find(&found), Err(RefError::NotFound(_))));
        assert!(matches!(parse_lesson("L-12"), Err(RefError::Malformed(_))));
        assert!(matches!(parse_lesson("pnpm"), Err(RefError::Malformed(_))));
        assert!(matches!(parse_lesson("L-0000").unwrap().find(&found), Err(RefError::NotFound(_))));
    }

    #[test]
    fn generations_are_named_by_number_or_word() {
        assert_eq!(parse_generation("5"), Ok(GenerationRef::Id(5)));
        assert_eq!(parse_generation("#5"), Ok(GenerationRef::Id(5)));
        assert_eq!(parse_generation("Pending"), Ok(GenerationRef::Pending));
        assert_eq!(parse_generation("current"), Ok(GenerationRef::Current));
        assert!(parse_generation("0").is_err() && parse_generation("five").is_err());
    }
}
