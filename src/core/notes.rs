//! Notes: the user's own words, written by `handbook note` as
//! `extensions/ad_hoc/notes/<YYYY-MM-DDTHH-MM-SS>-<slug>.md` and read first by consolidation.

use jiff::Timestamp;

use std::fmt;

use crate::core::escape::strip_controls;
use crate::core::layout::NOTES_DIR;
use crate::core::redact::{redact, secret_kinds};

/// Longest note accepted, in characters: a note is a lesson, not a document.
pub(crate) const MAX_NOTE_CHARS: usize = 4000;
/// Longest title, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 80;

/// A note as consolidation reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    /// Workspace-relative path.
    pub(crate) file: String,
    pub(crate) title: String,
    pub(crate) body: String,
}

/// Read a note file: the title is its `# ` heading (else the file name), the body the rest.
pub(crate) fn parse(file: &str, text: &str) -> Note {
    // A note reaches the handbook and the terminal: no control character goes with it.
    let text = &strip_controls(text);
    let mut lines = text.lines();
    let first = lines.clone().find(|l| !l.trim().is_empty()).unwrap_or("");
    let (title, body) = match first.strip_prefix("# ") {
        Some(title) => {
            let rest: Vec<&str> = lines.by_ref().skip_while(|l| l.trim().is_empty()).skip(1).collect();
            (title.trim().to_string(), rest.join("\n").trim().to_string())
        }
        None => {
            let stem = file.rsplit('/').next().unwrap_or(file).trim_end_matches(".md");
            (stem.to_string(), text.trim().to_string())
        }
    };
    Note { file: file.to_string(), title, body }
}

/// Why a note cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoteError {
    Empty,
    /// The note's length in characters, over [`MAX_NOTE_CHARS`].
    TooLong(usize),
    /// The title holds a line break or is over [`MAX_TITLE_CHARS`].
    BadTitle,
}

impl fmt::Display for NoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoteError::Empty => f.write_str("the note is empty"),
            NoteError::TooLong(length) => write!(
                f,
                "the note is {length} characters, over the limit of {MAX_NOTE_CHARS}: shorten it, or split it into several notes"
            ),
            NoteError::BadTitle => write!(f, "the title must be one line of at most {MAX_TITLE_CHARS} characters"),
        }
    }
}

impl std::error::Error for NoteError {}

/// A note ready to be written: redacted, titled and rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prepared {
    pub(crate) title: String,
    /// The note file's text.
    pub(crate) content: String,
    /// The kinds of secret the note held, each replaced with `[REDACTED:<kind>]`.
    pub(crate) redacted: Vec<&'static str>,
}

/// Check a note and make it safe to keep: trimmed, within the limits, its secrets (and its
/// title's) redacted, titled by `title` or else its first line. Every way of writing a note
/// goes through here, so a note reads the same however it was given.
///
/// # Errors
///
/// [`NoteError`] for an empty or too long note, or a title that is not one short line.
pub(crate) fn prepare(text: &str, title: Option<&str>) -> Result<Prepared, NoteError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(NoteError::Empty);
    }
    let length = text.chars().count();
    if length > MAX_NOTE_CHARS {
        return Err(NoteError::TooLong(length));
    }
    if let Some(title) = title
        && (title.contains('\n') || title.chars().count() > MAX_TITLE_CHARS)
    {
        return Err(NoteError::BadTitle);
    }
    let redacted = secret_kinds(text);
    let body = redact(text).into_owned();
    let title = title.map_or_else(|| title_from(&body), |t| t.trim().to_string());
    let title = redact(&title).into_owned();
    let content = render(&title, &body);
    Ok(Prepared { title, content, redacted })
}

/// The text of a note file.
pub(crate) fn render(title: &str, body: &str) -> String {
    format!("# {}\n\n{}\n", title.trim(), body.trim())
}

/// A title from the note itself: its first line, cut at a word.
pub(crate) fn title_from(body: &str) -> String {
    let first = body.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("note");
    let first = first.trim_start_matches(['#', '-', '*', ' ']);
    if first.chars().count() <= MAX_TITLE_CHARS {
        return first.to_string();
    }
    let cut: String = first.chars().take(MAX_TITLE_CHARS).collect();
    let at_word = cut.rfind(' ').filter(|&i| i > MAX_TITLE_CHARS / 2).map_or(cut.as_str(), |i| &cut[..i]);
    format!("{}…", at_word.trim_end())
}

/// The workspace-relative path of a new note; `attempt` > 1 adds a suffix after a collision.
pub(crate) fn note_path(now: Timestamp, title: &str, attempt: u32) -> String {
    let mut slug = String::new();
    for word in title.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        if slug.len() + word.len() + 1 > 60 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word.to_ascii_lowercase());
    }
    if slug.is_empty() {
        slug.push_str("note");
    }
    let suffix = if attempt > 1 { format!("-{attempt}") } else { String::new() };
    format!("{NOTES_DIR}/{}-{slug}{suffix}.md", now.strftime("%Y-%m-%dT%H-%M-%S"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_round_trip() {
        let text = render("Staging", "Staging needs the VPN.\nPort 8443.");
        assert_eq!(
            parse("extensions/ad_hoc/notes/x.md", &text),
            Note {
                file: "extensions/ad_hoc/notes/x.md".into(),
                title: "Staging".into(),
                body: "Staging needs the VPN.\nPort 8443.".into(),
            }
        );
        let plain = parse("extensions/ad_hoc/notes/2026-01-01T00-00-00-vpn.md", "just text\n");
        assert_eq!((plain.title.as_str(), plain.body.as_str()), ("2026-01-01T00-00-00-vpn", "just text"));
    }

    #[test]
    fn a_note_brings_no_control_character_with_it() {
        let note =
            parse("extensions/ad_hoc/notes/x.md", "# Stag\u{1b}]0;pwned\u{7}ing\n\nUse\u{202e} the VPN.\u{1b}[2J");
        let text = format!("{}{}", note.title, note.body);
        assert!(!text.chars().any(crate::core::escape::is_unsafe), "{text:?}");
        assert!(note.body.starts_with("Use") && note.body.contains("the VPN."), "{text:?}");
    }

    #[test]
    fn a_prepared_note_is_trimmed_checked_and_redacted() {
        let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
        let note = prepare(&format!("  The CI token is {token}.\n"), None).unwrap();
        assert_eq!(note.redacted, ["github"]);
        assert_eq!(note.content, "# The CI token is [REDACTED:github].\n\nThe CI token is [REDACTED:github].\n");
        let titled = prepare("use pnpm", Some(&format!(" key {token} "))).unwrap();
        assert_eq!(titled.title, "key [REDACTED:github]");
        assert_eq!(prepare(" \n ", None), Err(NoteError::Empty));
        assert_eq!(prepare(&"x".repeat(MAX_NOTE_CHARS + 1), None), Err(NoteError::TooLong(MAX_NOTE_CHARS + 1)));
        assert_eq!(prepare("x", Some("two\nlines")), Err(NoteError::BadTitle));
    }

    #[test]
    fn titles_come_from_the_first_line() {
        assert_eq!(title_from("\n- use pnpm\nmore"), "use pnpm");
        assert!(title_from(&"word ".repeat(50)).ends_with('…'));
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn note_path_example() {
        use crate::core::notes::note_path;
        let now = "2026-11-29T09:30:00Z".parse().unwrap();
        assert_eq!(
            note_path(now, "Staging needs the VPN!", 1),
            "extensions/ad_hoc/notes/2026-11-29T09-30-00-staging-needs-the-vpn.md"
        );
        assert_eq!(
            note_path(now, "Staging needs the VPN!", 2),
            "extensions/ad_hoc/notes/2026-11-29T09-30-00-staging-needs-the-vpn-2.md"
        );
    }
}
