//! `handbook reset`: remove the workspace and its state, keeping the list of forgotten
//! sessions so they stay forgotten.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::core::state::{SOURCES_VERSION, Sources};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// Run `reset`.
pub fn run(settings: &Settings, yes: bool, term: &Terminal) -> Result<()> {
    let home = &settings.home;
    let meta = std::fs::symlink_metadata(home)
        .with_context(|| format!("cannot reset {}: it does not exist", home.display()))?;
    if meta.file_type().is_symlink() {
        bail!(
            "refusing to reset {}: it is a symbolic link; reset the folder it points to by its own path",
            home.display()
        );
    }
    let workspace = Workspace::new(home);
    if !workspace.exists() {
        bail!("refusing to reset {}: it is not a handbook workspace (no .handbook folder)", home.display());
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            bail!("refusing to reset {} without confirmation: pass --yes", home.display());
        }
        eprint!("Remove the handbook in {} and everything learned so far? [y/N] ", home.display());
        std::io::stderr().flush().ok();
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer).context("cannot read the answer")?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            bail!("reset cancelled");
        }
    }
    let _lock = workspace.lock(std::time::Duration::from_secs(5))?;
    let excluded = workspace.load_sources().map(|s| s.excluded).unwrap_or_default();
    for entry in std::fs::read_dir(home).with_context(|| format!("cannot read {}", home.display()))? {
        let path = entry.with_context(|| format!("cannot read {}", home.display()))?.path();
        if path.file_name().is_some_and(|n| n == ".handbook") {
            continue;
        }
        remove(&path)?;
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
    if !term.quiet {
        term.line(&format!("reset: removed the handbook in {}", home.display()))?;
    }
    Ok(())
}

fn remove(path: &std::path::Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let result = if meta.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
    result.with_context(|| format!("cannot remove {}", path.display()))
}
