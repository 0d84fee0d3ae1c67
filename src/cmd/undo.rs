//! `handbook undo [GEN]`: put the handbook back as a generation was, under the lock, as a
//! new generation. What the undo takes out (lessons, and sessions the later generations
//! added) is held back from later consolidations until new evidence arrives; notes, stage-1
//! records and the forgotten sessions are left as they are.

use anyhow::{Result, bail};
use serde::Serialize;

use crate::config::Settings;
use crate::config::trust::UndoSettings;
use crate::core::layout::{MEMORY, RAW_MEMORIES};
use crate::core::manifest::{MANIFEST_VERSION, Manifest};
use crate::core::trust::Undone;
use crate::core::trust::generations::{self, Generation, Made, Tree, sessions_of};
use crate::core::trust::refs::GenerationRef;
use crate::core::words::count;
use crate::edge::generations::{self as stored, Commit, load_log, load_trust, object, tree};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

#[derive(Serialize)]
struct Undid {
    to: u64,
    generation: Option<u64>,
    #[serde(flatten)]
    undone: Undone,
    dropped_pending: bool,
}

/// Run `undo`.
pub(crate) fn run(settings: &Settings, opts: &UndoSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    if !workspace.exists() {
        bail!("no handbook workspace in {}: nothing to undo", settings.home.display());
    }
    let _lock = workspace.lock(opts.lock_wait)?;
    stored::recover(&workspace)?;
    let mut log = load_log(&workspace)?;
    let target = target(&log, opts.to)?.clone();
    let manifest = workspace.load_manifest()?;
    let edited = stored::unconsolidated(&workspace, &manifest)?;
    if !edited.is_empty() {
        bail!(
            "{} changed since the last consolidation and an undo would overwrite it: run `handbook consolidate` first (it keeps your edits), then undo",
            edited.join(" and ")
        );
    }
    let wanted = tree(&workspace, &target.tree)?;
    let plan = generations::restore(&manifest.files, &wanted);
    if plan.writes.is_empty() && plan.removes.is_empty() {
        stored::prune(&workspace, &manifest, &log)?;
        term.note(&format!("the handbook is already as generation {} left it; nothing to undo", target.id));
        return Ok(());
    }
    let mut trust = load_trust(&workspace, term)?;
    let text = |files: &Tree, path: &str| files.get(path).and_then(|h| object(&workspace, h).ok());
    let sessions = |files: &Tree| sessions_of(&text(files, RAW_MEMORIES).unwrap_or_default());
    let (now_sessions, then_sessions) = (sessions(&manifest.files), sessions(&wanted));
    let undone = trust.undo(
        (text(&manifest.files, MEMORY).as_deref(), &now_sessions),
        (text(&wanted, MEMORY).as_deref(), &then_sessions),
        target.id,
        settings.now,
    );
    let whole = target.whole.as_deref().map(|h| object(&workspace, h)).transpose()?;
    stored::restore(&workspace, settings, &plan, whole.as_deref())?;
    let dropped_pending = log.pending.take().is_some();
    let generation = commit(&workspace, settings, &mut log, &trust, &target, &manifest, whole.as_deref())?;
    crate::edge::doors::refresh(settings, term);
    report(term, &Undid { to: target.id, generation, undone, dropped_pending })
}

/// The generation to go back to.
fn target(log: &generations::Log, which: Option<GenerationRef>) -> Result<&Generation> {
    let kept = || format!("`handbook log` lists the {} kept", count(log.generations.len(), "generation"));
    match which {
        None => log
            .previous()
            .ok_or_else(|| anyhow::anyhow!("no generation before the current one to go back to; {}", kept())),
        Some(GenerationRef::Id(id)) => log.find(id).ok_or_else(|| anyhow::anyhow!("no generation {id}; {}", kept())),
        Some(GenerationRef::Current) => {
            log.current().ok_or_else(|| anyhow::anyhow!("no generation yet: nothing to undo"))
        }
        Some(GenerationRef::Pending) => {
            bail!("undo goes back to a generation; a pending change is dropped with `handbook review --reject`")
        }
    }
}

/// Commit the restored workspace as a new generation, with the baseline `target` had.
fn commit(
    workspace: &Workspace,
    settings: &Settings,
    log: &mut generations::Log,
    trust: &crate::core::trust::Trust,
    target: &Generation,
    old: &Manifest,
    whole: Option<&str>,
) -> Result<Option<u64>> {
    let after = workspace.snapshot()?;
    let manifest = Manifest {
        version: MANIFEST_VERSION,
        renderer: target.renderer.clone(),
        summary_max_tokens: target.summary_max_tokens,
        consolidated_at: old.consolidated_at,
        files: after.hashes(),
    };
    let commit = Commit {
        made: Made::Undo { to: target.id },
        engine: target.engine.clone(),
        after: &after,
        whole,
        manifest,
        at: settings.now,
    };
    stored::commit(workspace, settings, log, trust, commit)
}

fn report(term: &Terminal, undid: &Undid) -> Result<()> {
    term.json("undo", undid)?;
    let recorded = undid.generation.map(|g| format!(" as generation {g}")).unwrap_or_default();
    term.line(&format!(
        "undo: the handbook is back as generation {} left it{recorded}; {} and {} held back until new evidence arrives",
        undid.to,
        count(undid.undone.lessons_held.len(), "lesson"),
        count(undid.undone.sessions_held.len(), "session")
    ))?;
    if undid.dropped_pending {
        term.note("the change that waited for review was dropped: the next consolidation proposes what is left of it");
    }
    Ok(())
}
