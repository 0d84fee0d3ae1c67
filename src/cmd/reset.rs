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
use crate::core::layout::{DIFF_FILE, MEMORY, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::state::{SOURCES_VERSION, Sources};
use crate::core::words::count;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// What handbook writes in a workspace, and nothing else.
const WORKSPACE_ENTRIES: &[&str] =
    &[MEMORY, SUMMARY, RAW_MEMORIES, ROLLOUT_SUMMARIES, DIFF_FILE, "extensions", "skills"];

/// Run `reset`.
pub fn run(settings: &Settings, yes: bool, lock_wait: std::time::Duration, term: &Terminal) -> Result<()> {
    // `components` drops a trailing slash, which would make the symlink check follow the link.
    let home: PathBuf = settings.home.components().collect();
    check_is_workspace(&home)?;
    if !yes {
        if !std::io::stdin().is_terminal() {
            bail!("refusing to reset {} without confirmation: pass --yes", home.display());
        }
        eprint!("Remove the handbook in {} (lessons, notes and state)? [y/N] ", home.display());
        std::io::stderr().flush().ok();
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer).context("cannot read the answer")?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            // Declining is an answer, not a failure.
            term.note("reset cancelled; nothing was removed");
            return Ok(());
        }
    }
    let workspace = Workspace::new(&home);
    let _lock = workspace.lock(lock_wait)?;
    let sources = workspace.load_sources().ok();
    let state_files = std::fs::read_dir(workspace.state_dir())
        .map(|entries| {
            entries.flatten().filter(|e| !matches!(e.file_name().to_str(), Some("lock" | "sources.json"))).count()
        })
        .unwrap_or(0);
    let was_empty = WORKSPACE_ENTRIES.iter().all(|name| !home.join(name).exists())
        && state_files == 0
        && sources.as_ref().is_none_or(|s| s.sources.is_empty());
    let excluded = sources.map(|s| s.excluded).unwrap_or_default();
    let excluded_count = excluded.len();
    for name in WORKSPACE_ENTRIES {
        remove(&home.join(name))?;
    }
    for entry in std::fs::read_dir(workspace.state_dir())
        .with_context(|| format!("cannot read {}", workspace.state_dir().display()))?
    {
        let path = entry?.path();
        // The lock stays: it is held right now, and removing it would let another run in.
        if path.file_name().is_some_and(|n| n == "lock") {
            continue;
        }
        remove(&path)?;
    }
    workspace.save_sources(&Sources { version: SOURCES_VERSION, excluded, ..Sources::default() })?;
    let others = std::fs::read_dir(&home)
        .map(|entries| entries.flatten().filter(|e| e.file_name() != ".handbook").count())
        .unwrap_or(0);
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

/// Refuse anything that is not a real workspace folder.
fn check_is_workspace(home: &Path) -> Result<()> {
    if home.parent().is_none() {
        bail!("refusing to reset {}: a filesystem root is not a workspace", home.display());
    }
    let meta = std::fs::symlink_metadata(home)
        .with_context(|| format!("cannot reset {}: it does not exist", home.display()))?;
    if meta.file_type().is_symlink() {
        bail!(
            "refusing to reset {}: it is a symbolic link; reset the folder it points to by its own path",
            home.display()
        );
    }
    let state = home.join(".handbook");
    let real_state_dir = std::fs::symlink_metadata(&state).is_ok_and(|m| m.is_dir());
    let has_state = ["sources.json", "manifest.json"].iter().any(|f| state.join(f).is_file());
    if !real_state_dir || !has_state {
        bail!(
            "refusing to reset {}: it is not a handbook workspace (no .handbook folder with handbook's state)",
            home.display()
        );
    }
    Ok(())
}

/// Remove a file or a folder, never following a symbolic link; gone already is fine.
fn remove(path: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let result = if meta.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
    result.with_context(|| format!("cannot remove {}", path.display()))
}
