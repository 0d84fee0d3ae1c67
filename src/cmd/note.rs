//! `handbook note`: write a lesson in the user's own words. Create-only: a note is never
//! overwritten; a second note in the same second gets a suffix.

use std::io::{IsTerminal, Read};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::{NoteSettings, Settings};
use crate::core::notes::{self, MAX_NOTE_CHARS, MAX_TITLE_CHARS, note_path};
use crate::core::redact::{redact, secret_kinds};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Written<'a> {
    path: &'a str,
    title: &'a str,
    redacted: Vec<&'static str>,
}

/// Run `note`.
pub(crate) fn run(settings: &Settings, opts: &NoteSettings, term: &Terminal) -> Result<()> {
    let text = match &opts.text {
        Some(text) => text.clone(),
        None if std::io::stdin().is_terminal() => {
            bail!("no note given: pass it as an argument (handbook note \"...\") or pipe it on stdin")
        }
        None => {
            // Read a little past the limit, never the whole of a huge input.
            let mut text = String::new();
            let most = (MAX_NOTE_CHARS * 4 + 1) as u64;
            std::io::stdin()
                .take(most)
                .read_to_string(&mut text)
                .context("cannot read the note from stdin (is it text?)")?;
            text
        }
    };
    let text = text.trim();
    if text.is_empty() {
        bail!("the note is empty");
    }
    let length = text.chars().count();
    if length > MAX_NOTE_CHARS {
        bail!(
            "the note is {length} characters, over the limit of {MAX_NOTE_CHARS}: shorten it, or split it into several notes"
        );
    }
    if let Some(title) = &opts.title
        && (title.contains('\n') || title.chars().count() > MAX_TITLE_CHARS)
    {
        bail!("the title must be one line of at most {MAX_TITLE_CHARS} characters");
    }
    let found = secret_kinds(text);
    let body = redact(text).into_owned();
    let title = opts.title.as_deref().map_or_else(|| notes::title_from(&body), |t| t.trim().to_string());
    let title = redact(&title).into_owned();
    if !found.is_empty() {
        term.warn(&format!("the note held secrets ({}); they were replaced with [REDACTED:<kind>]", found.join(", ")));
    }

    let workspace = Workspace::new(&settings.home);
    let _lock = workspace.lock(opts.lock_wait)?;
    let content = notes::render(&title, &body);
    let path = create_note(&workspace, settings, &title, &content)?;
    crate::edge::doors::refresh(settings, term);
    term.json("note", &Written { path: &path, title: &title, redacted: found })?;
    if !term.quiet {
        term.line(&format!("note: {path}"))?;
    }
    Ok(())
}

/// Write the note under a name nobody has, without ever replacing a file, even one another
/// run creates at the same moment.
fn create_note(workspace: &Workspace, settings: &Settings, title: &str, content: &str) -> Result<String> {
    for attempt in 1..=1000 {
        let relative = note_path(settings.now, title, attempt);
        if workspace.create_new(&relative, content)? {
            return Ok(relative);
        }
    }
    bail!("too many notes with this title in the same second; try again")
}
