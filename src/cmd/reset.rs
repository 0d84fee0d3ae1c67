//! `handbook reset`: remove the workspace and its state, keeping the list of forgotten
//! sessions so they stay forgotten, and the notes (the user's own words) unless `--notes`
//! asks for them to go too. It says what it kept.
//!
//! Only what handbook itself writes is removed, and only from a folder that is unmistakably a
//! workspace: a real (not symlinked) home holding a real `.handbook/` with handbook's state in
//! it. Anything else in the folder is left alone.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::core::state::{SOURCES_VERSION, Sources};
use crate::core::words::count;
use crate::edge::doors;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::{NOTES_ROOT, OWN_ENTRIES, Workspace};

/// Run `reset`.
pub(crate) fn run(
    settings: &Settings,
    yes: bool,
    remove_notes: bool,
    lock_wait: std::time::Duration,
    term: &Terminal,
) -> Result<()> {
    // `components` drops a trailing slash, which would make the symlink check follow the link.
    let home: PathBuf = settings.home.components().collect();
    let workspace = Workspace::new(&home);
    workspace.check_resettable()?;
    if !yes && !confirmed(&home, remove_notes)? {
        // Declining is an answer, not a failure.
        term.note("reset cancelled; nothing was removed");
        return Ok(());
    }
    let _lock = workspace.lock(lock_wait)?;
    // The forgotten list survives a damaged `sources.json`; a damaged list itself stops the
    // reset before anything is removed.
    let mut excluded = workspace.load_forgotten()?;
    let sources = workspace.load_sources().ok();
    let notes_kept = if remove_notes { 0 } else { workspace.notes().map_or(0, |notes| notes.len()) };
    let files_kept = doors::load(&home).map_or(0, |d| d.len()) + doors::outputs(&home).map_or(0, |o| o.len());
    let entries: Vec<&str> = OWN_ENTRIES.iter().copied().filter(|e| remove_notes || *e != NOTES_ROOT).collect();
    let found = workspace.clear(&entries)?;
    let was_empty = !found && sources.as_ref().is_none_or(|s| s.sources.is_empty());
    excluded.extend(sources.map(|s| s.excluded).unwrap_or_default());
    let excluded_count = excluded.len();
    workspace.save_sources(&Sources { version: SOURCES_VERSION, excluded, ..Sources::default() })?;
    // With no summary left, the file doors and `summary --output` files are emptied: an agent
    // reads nothing stale, and the next consolidation fills them again.
    doors::refresh(settings, term);
    let others = workspace.other_entries();
    let report = serde_json::json!({
        "home": home, "forgotten_kept": excluded_count, "notes_kept": notes_kept, "other_entries_kept": others,
        "agent_files_kept": files_kept
    });
    term.json("reset", &report)?;
    if !term.quiet {
        let kept = match others {
            0 => String::new(),
            n => format!("; {} in the folder left as they were", count(n, "other entry")),
        };
        let what = if was_empty { "nothing to remove (already reset)" } else { "removed the handbook" };
        term.line(&format!("reset: {what} in {}{kept}", home.display()))?;
        term.line(&kept_line(notes_kept, excluded_count, files_kept))?;
    }
    Ok(())
}

/// What a reset kept, and how to remove or take it back.
fn kept_line(notes: usize, forgotten: usize, agent_files: usize) -> String {
    let mut kept = Vec::new();
    if notes > 0 {
        kept.push(format!("{} (`handbook reset --notes` removes them)", count(notes, "note")));
    }
    if forgotten > 0 {
        kept.push(format!(
            "the list of {} (`handbook forget --undo <id>` takes one back)",
            count(forgotten, "forgotten session")
        ));
    }
    if agent_files > 0 {
        kept.push(format!(
            "{} agents read, now empty (the next consolidation fills them)",
            count(agent_files, "kept-fresh file")
        ));
    }
    match kept.is_empty() {
        true => "reset: kept no notes and no forgotten sessions".to_string(),
        false => format!("reset: kept {}", kept.join(" and ")),
    }
}

/// Ask on the terminal; without one, refuse rather than guess.
fn confirmed(home: &Path, remove_notes: bool) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("refusing to reset {} without confirmation: pass --yes", home.display());
    }
    let what = if remove_notes { "lessons, notes and state" } else { "lessons and state; notes are kept" };
    eprint!("Remove the handbook in {} ({what})? [y/N] ", home.display());
    std::io::stderr().flush().ok();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).context("cannot read the answer")?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
