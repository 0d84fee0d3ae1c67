//! `handbook note`: write a lesson in the user's own words (checked and redacted by
//! `core::notes::prepare`, written create-only by `edge::notes::write_note`).

use std::io::{IsTerminal, Read};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::{NoteSettings, Settings};
use crate::core::notes::{self, MAX_NOTE_CHARS};
use crate::edge::notes::write_note;
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
    let note = notes::prepare(&text, opts.title.as_deref())?;
    if !note.redacted.is_empty() {
        term.warn(&format!(
            "the note held secrets ({}); they were replaced with [REDACTED:<kind>]",
            note.redacted.join(", ")
        ));
    }
    let workspace = Workspace::new(&settings.home);
    let path = write_note(&workspace, settings.now, &note, opts.lock_wait)?;
    crate::edge::doors::refresh(settings, term);
    term.json("note", &Written { path: &path, title: &note.title, redacted: note.redacted.clone() })?;
    if !term.quiet {
        term.line(&format!("note: {path}"))?;
    }
    Ok(())
}
