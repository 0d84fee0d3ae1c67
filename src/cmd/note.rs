//! `handbook note`: write a lesson in the user's own words (checked and redacted by
//! `core::notes::prepare`, written create-only by `edge::notes::write_note_locked`). With the
//! built-in engine the handbook is consolidated right after, under the same hold of the lock
//! (it takes a fraction of a second), so the note is in the summary when the command ends; a
//! model engine's consolidation costs money and waits for the next `consolidate` or `update`.

use std::io::{IsTerminal, Read};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::{NoteSettings, Settings};
use crate::core::consolidate::report::Outcome;
use crate::core::notes::{self, MAX_NOTE_CHARS};
use crate::edge::notes::write_note_locked;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Written<'a> {
    path: &'a str,
    title: &'a str,
    redacted: Vec<&'static str>,
    /// The handbook was consolidated with the note in it.
    consolidated: bool,
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
    let lock = workspace.lock(opts.lock_wait)?;
    let path = write_note_locked(&workspace, settings.now, &note)?;
    let outcome =
        (!opts.consolidate.engine.is_model()).then(|| consolidated(&workspace, settings, opts, term)).flatten();
    let pending = outcome == Some(Outcome::Pending);
    let consolidated = outcome.is_some() && !pending;
    drop(lock);
    crate::edge::doors::refresh(settings, term);
    let redacted = note.redacted.clone();
    term.json("note", &Written { path: &path, title: &note.title, redacted, consolidated })?;
    if !term.quiet {
        term.line(&format!("note: {path}"))?;
    }
    term.note(when(consolidated, pending));
    Ok(())
}

/// When the note reaches the summary, said as the note's last line.
fn when(consolidated: bool, pending: bool) -> &'static str {
    match (consolidated, pending) {
        (true, _) => "the handbook was consolidated with it: the note is in the summary now",
        (false, true) => "the handbook was consolidated with it and waits for review: `handbook review` shows it",
        (false, false) => "the note reaches the summary at the next `handbook consolidate` (or `handbook update`)",
    }
}

/// Take a note another door just wrote (the MCP tool) into the handbook as `note` does: with
/// the built-in engine, consolidated under the lock, doors refreshed. Nothing is printed (the
/// MCP server's stdout is its protocol); what to tell comes back.
pub(crate) fn take_in(settings: &Settings, opts: &NoteSettings) -> &'static str {
    let mut term = Terminal::detect(&settings.output);
    term = Terminal { quiet: true, json: false, progress: false, silent: true, color_stdout: false, ..term };
    if opts.consolidate.engine.is_model() {
        return when(false, false);
    }
    let workspace = Workspace::new(&settings.home);
    let Ok(lock) = workspace.lock(opts.lock_wait) else { return when(false, false) };
    let outcome = consolidated(&workspace, settings, opts, &term);
    drop(lock);
    crate::edge::doors::refresh(settings, &term);
    let pending = outcome == Some(Outcome::Pending);
    when(outcome.is_some() && !pending, pending)
}

/// Consolidate with the built-in engine; how it ended, or `None` when it failed (the note
/// waits for the next run).
fn consolidated(workspace: &Workspace, settings: &Settings, opts: &NoteSettings, term: &Terminal) -> Option<Outcome> {
    let quiet = Terminal { quiet: true, json: false, progress: false, ..*term };
    match super::consolidate::consolidate_and_report(workspace, settings, &opts.consolidate, &quiet) {
        Ok(report) => Some(report.outcome),
        Err(e) => {
            term.warn(&format!("{e:#}; the note is written, and the next consolidation takes it in"));
            None
        }
    }
}
