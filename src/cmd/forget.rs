//! `handbook forget`: exclude sessions for good and drop what was extracted from them (the
//! next consolidation removes the lessons only they supported), or, with `--undo`, take a
//! forget back so the next extract reads the session again. Each session is reported: what
//! was removed, or that it was already forgotten.

use anyhow::{Result, bail};
use serde::Serialize;

use crate::config::Settings;
use crate::core::state::{self, Forgetting};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Forgotten<'a> {
    #[serde(flatten)]
    forgetting: &'a Forgetting,
    /// Whether its extracted (stage-1) record was removed by this command.
    removed_record: bool,
    undo: bool,
}

/// Run `forget` (`undo`: `forget --undo`).
pub(crate) fn run(
    settings: &Settings,
    targets: &[String],
    undo: bool,
    lock_wait: std::time::Duration,
    term: &Terminal,
) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    if !workspace.exists() {
        bail!("no handbook workspace in {}: nothing to forget", settings.home.display());
    }
    let _lock = workspace.lock(lock_wait)?;
    let mut sources = workspace.load_sources()?;
    let mut done = Vec::new();
    for target in targets {
        let absolute = std::path::absolute(target).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let mut ids = state::ids_named(&sources, target, &absolute);
        if ids.is_empty() && !undo && workspace.load_stage1(target)?.is_some() {
            ids.push(target.clone());
        }
        if ids.is_empty() {
            bail!(
                "no session matches {target:?}: give a session id or a transcript path (`handbook search --since 30d` lists recent sessions with their ids)"
            );
        }
        for id in ids {
            if undo {
                done.push((state::unforget(&mut sources, &id), false));
                continue;
            }
            let forgetting = state::forget(&mut sources, &id);
            let removed_record = workspace.has_stage1(&id);
            workspace.remove_stage1(&id)?;
            done.push((forgetting, removed_record));
        }
    }
    workspace.save_sources(&sources)?;
    if !undo {
        let ids: Vec<String> = done.iter().map(|(f, _)| f.session_id.clone()).collect();
        let dropped = crate::edge::generations::forget(&workspace, &ids, term)?;
        if !dropped.is_empty() {
            term.note(&format!(
                "dropped {} that held what was forgotten (`handbook log` lists the rest)",
                crate::core::words::count(dropped.len(), "generation")
            ));
        }
    }
    for (forgetting, removed_record) in &done {
        term.json("forgotten", &Forgotten { forgetting, removed_record: *removed_record, undo })?;
        if !term.quiet {
            term.line(&forgetting.line(undo, *removed_record))?;
        }
    }
    Ok(())
}
