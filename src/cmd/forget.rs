//! `handbook forget`: exclude sessions for good and drop what was extracted from them. The
//! next consolidation removes the lessons only they supported.

use anyhow::{Result, bail};
use serde::Serialize;

use crate::config::Settings;
use crate::core::state::{Reason, SourceState};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Forgotten {
    session_id: String,
    paths: Vec<String>,
}

/// Run `forget`.
pub(crate) fn run(
    settings: &Settings,
    targets: &[String],
    lock_wait: std::time::Duration,
    term: &Terminal,
) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    if !workspace.exists() {
        bail!("no handbook workspace in {}: nothing to forget", settings.home.display());
    }
    let _lock = workspace.lock(lock_wait)?;
    let mut sources = workspace.load_sources()?;
    let mut forgotten = Vec::new();
    for target in targets {
        let absolute = std::path::absolute(target).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let mut ids: Vec<String> = sources
            .sources
            .iter()
            .filter(|(key, e)| e.session_id.as_deref() == Some(target) || key.path == *target || key.path == absolute)
            .filter_map(|(_, e)| e.session_id.clone())
            .collect();
        if ids.is_empty() && workspace.load_stage1(target)?.is_some() {
            ids.push(target.clone());
        }
        if ids.is_empty() {
            bail!(
                "no session matches {target:?}: give a session id or a transcript path (`handbook search --since 30d` lists recent sessions with their ids)"
            );
        }
        ids.sort();
        ids.dedup();
        for id in ids {
            sources.excluded.insert(id.clone());
            let mut paths = Vec::new();
            for (path, entry) in
                sources.sources.iter_mut().filter(|(_, e)| e.session_id.as_deref() == Some(id.as_str()))
            {
                entry.state = SourceState::Excluded;
                entry.reason = Some(Reason::Forgotten);
                paths.push(path.to_string());
            }
            workspace.remove_stage1(&id)?;
            forgotten.push(Forgotten { session_id: id, paths });
        }
    }
    workspace.save_sources(&sources)?;
    for f in &forgotten {
        term.json("forgotten", f)?;
        if !term.quiet {
            term.line(&format!("forgot {}; its lessons go at the next consolidate", f.session_id))?;
        }
    }
    Ok(())
}
