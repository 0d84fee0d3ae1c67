//! `handbook reset`: remove the workspace and its state, keeping the list of forgotten
//! sessions so they stay forgotten.
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
use crate::edge::terminal::Terminal;
use crate::edge::workspace::{OWN_ENTRIES, Workspace};

/// Run `reset`.
pub(crate) fn run(settings: &Settings, yes: bool, lock_wait: std::time::Duration, term: &Terminal) -> Result<()> {
    // `components` drops a trailing slash, which would make the symlink check follow the link.
    let home: PathBuf = settings.home.components().collect();
    let workspace = Workspace::new(&home);
    workspace.check_resettable()?;
    if !yes && !confirmed(&home)? {
        // Declining is an answer, not a failure.
        term.note("reset cancelled; nothing was removed");
        return Ok(());
    }
    let _lock = workspace.lock(lock_wait)?;
    // The forgotten list survives a damaged `sources.json`; a damaged list itself stops the
    // reset before anything is removed.
    let mut excluded = workspace.load_forgotten()?;
    let sources = workspace.load_sources().ok();
    let found = workspace.clear(OWN_ENTRIES)?;
    let was_empty = !found && sources.as_ref().is_none_or(|s| s.sources.is_empty());
    excluded.extend(sources.map(|s| s.excluded).unwrap_or_default());
    let excluded_count = excluded.len();
    workspace.save_sources(&Sources { version: SOURCES_VERSION, excluded, ..Sources::default() })?;
    let others = workspace.other_entries();
    term.json(
        "reset",
        &serde_json::json!({ "home": home, "forgotten_kept": excluded_count, "other_entries_kept": others }),
    )?;
    if !term.quiet {
        let kept = match others {
            0 => String::new(),
            n => format!("; {} in the folder left as they were", count(n, "other entry")),
        };
        let what = if was_empty { "nothing to remove (already reset)" } else { "removed the handbook" };
        term.line(&format!("reset: {what} in {}{kept}", home.display()))?;
    }
    Ok(())
}

/// Ask on the terminal; without one, refuse rather than guess.
fn confirmed(home: &Path) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("refusing to reset {} without confirmation: pass --yes", home.display());
    }
    eprint!("Remove the handbook in {} (lessons, notes and state)? [y/N] ", home.display());
    std::io::stderr().flush().ok();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).context("cannot read the answer")?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}
