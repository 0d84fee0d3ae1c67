//! `handbook diff [A] [B]`: what changed between two generations, or what the next
//! consolidation would change: the lessons added, changed and removed (with their
//! references), the sessions, the files, and a unified diff (`similar`, git's format).

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::config::trust::DiffSettings;
use crate::config::{ConsolidateSettings, Settings};
use crate::core::consolidate::plan;
use crate::core::consolidate::{self, Input, Output};
use crate::core::layout::{MEMORY, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::manifest::{self, Snapshot};
use crate::core::notes::Note;
use crate::core::stage1::Stage1;
use crate::core::trust::generations::{Log, Status, Tree, lesson_changes, sessions_of};
use crate::core::trust::refs::GenerationRef;
use crate::edge::control::Control;
use crate::edge::generations::{load_log, object, tree};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// One side of a diff: a name, and its files with their contents.
struct Side {
    label: String,
    files: BTreeMap<String, String>,
}

impl Side {
    fn text(&self, path: &str) -> Option<String> {
        self.files.get(path).cloned()
    }

    fn hashes(&self) -> Tree {
        self.files.iter().map(|(p, t)| (p.clone(), manifest::hash(t.as_bytes()))).collect()
    }
}

#[derive(Serialize)]
struct Totals<'a> {
    from: &'a str,
    to: &'a str,
    sessions_added: Vec<String>,
    sessions_removed: Vec<String>,
    diff: String,
}

/// Run `diff`.
pub(crate) fn run(settings: &Settings, opts: &DiffSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    if !workspace.exists() {
        bail!("no handbook workspace in {}: nothing to compare", settings.home.display());
    }
    crate::edge::generations::finish_commit_when_free(&workspace)?;
    let log = load_log(&workspace)?;
    let (from, to) = match (opts.from, opts.to) {
        (None, None) if log.pending.is_some() => (GenerationRef::Current, Some(GenerationRef::Pending)),
        (None, None) => (GenerationRef::Current, None),
        (Some(a), None) => (a, Some(GenerationRef::Current)),
        (Some(a), Some(b)) => (a, Some(b)),
        (None, Some(b)) => (GenerationRef::Current, Some(b)),
    };
    let from = side(&workspace, &log, from)?;
    let to = match to {
        Some(to) => side(&workspace, &log, to)?,
        None => next(&workspace, settings, &opts.consolidate, term)?,
    };
    show(&from, &to, opts.all_files, term)
}

/// A generation's files as stored.
fn side(workspace: &Workspace, log: &Log, which: GenerationRef) -> Result<Side> {
    let (label, tree_hash) = match which {
        GenerationRef::Current => {
            let manifest = workspace.load_manifest()?;
            let label = log.current().map_or("current".to_string(), |g| format!("current (generation {})", g.id));
            let files = manifest
                .files
                .iter()
                .map(|(p, h)| object(workspace, h).map(|t| (p.clone(), t)))
                .collect::<Result<_>>()
                .context("the current baseline's stored copies are damaged; run `handbook consolidate`")?;
            return Ok(Side { label, files });
        }
        GenerationRef::Pending => match &log.pending {
            Some(p) => ("pending".to_string(), p.tree.clone()),
            None => bail!("no change waits for review: `handbook log` lists the generations"),
        },
        GenerationRef::Id(id) => match log.find(id) {
            Some(g) => (format!("generation {id}"), g.tree.clone()),
            None => bail!("no generation {id}: `handbook log` lists the ones kept"),
        },
    };
    let files = tree(workspace, &tree_hash)?
        .iter()
        .map(|(p, h)| object(workspace, h).map(|t| (p.clone(), t)))
        .collect::<Result<_>>()
        .with_context(|| format!("{label} cannot be shown"))?;
    Ok(Side { label, files })
}

/// What consolidating now would make of the workspace, written nowhere. With a model
/// engine the lessons are left as they are: the model writes them when it runs.
fn next(workspace: &Workspace, settings: &Settings, opts: &ConsolidateSettings, term: &Terminal) -> Result<Side> {
    let manifest = workspace.load_manifest()?;
    let mut control = Control::read(workspace, settings.now)?;
    let confirmed = control.confirmed(workspace.read(MEMORY)?.as_deref());
    let rules = super::consolidate::rules(settings, opts, workspace.first_consolidation(&manifest)?, confirmed);
    let sources = workspace.load_sources()?;
    // (Nothing is set aside: the comparison writes nowhere.)
    let chosen = workspace
        .choose_stage1(false, &sources, &rules, &mut |w| term.warn(&w), &mut |id, at| control.admits(id, at))?;
    let mut before = workspace.snapshot()?;
    let sync = plan::sync(&chosen.selection);
    let prefix = format!("{ROLLOUT_SUMMARIES}/");
    let present: Vec<String> =
        before.files.keys().filter_map(|p| p.strip_prefix(&prefix)).map(str::to_string).collect();
    for name in sync.stale(&present) {
        before.files.remove(&format!("{prefix}{name}"));
    }
    before.files.extend(sync.writes.into_iter().map(|(p, t)| (p, t.into_bytes())));
    if opts.engine.is_model() {
        term.note(
            "with a model engine the lessons are written when it runs: this shows the sessions that would change",
        );
        return Ok(snapshot_side("the next consolidation", &before));
    }
    let pending = workspace.load_pending()?;
    let changes = manifest::changes(&manifest.files, &before.hashes());
    let objects = plan::sound_objects(workspace.objects(&plan::objects_needed(&manifest, &pending, &changes))?);
    let mut edits = workspace.load_edits()?;
    plan::learn_hand_edits(&mut edits, &before, &manifest, &pending, &objects);
    let notes = plan::redacted_notes(workspace.notes()?);
    let cap = rules.cap();
    let build = |sessions: &[Stage1], notes: &[Note]| -> Result<Output> {
        Ok(control.apply(consolidate::consolidate(&Input { sessions, notes, cap }), cap))
    };
    let handbook = plan::finish_leaving_out_breakers(&chosen.selection, &notes, &edits, &before, cap, build)?
        .context("the next consolidation would not be committed")?;
    Ok(snapshot_side("the next consolidation", &handbook.after))
}

fn snapshot_side(label: &str, snapshot: &Snapshot) -> Side {
    let files = snapshot.files.keys().filter_map(|p| Some((p.clone(), snapshot.text(p)?))).collect();
    Side { label: label.to_string(), files }
}

/// Print the lessons, the sessions, the files and the unified diff from `from` to `to`.
fn show(from: &Side, to: &Side, all_files: bool, term: &Terminal) -> Result<()> {
    let lessons = lesson_changes(from.text(MEMORY).as_deref(), to.text(MEMORY).as_deref());
    let files = manifest::changes(&from.hashes(), &to.hashes());
    let sessions = |side: &Side| sessions_of(&side.text(RAW_MEMORIES).unwrap_or_default());
    let (old, new) = (sessions(from), sessions(to));
    let added: Vec<String> = new.keys().filter(|s| !old.contains_key(*s)).cloned().collect();
    let removed: Vec<String> = old.keys().filter(|s| !new.contains_key(*s)).cloned().collect();
    let count = |status| lessons.iter().filter(|c| c.status == status).count();
    term.line(&format!("diff: {} -> {}", from.label, to.label))?;
    term.line(&format!(
        "sessions: +{} -{}; lessons: +{} ~{} -{}",
        added.len(),
        removed.len(),
        count(Status::Added),
        count(Status::Changed),
        count(Status::Removed)
    ))?;
    for change in &lessons {
        let lesson = change.lesson();
        term.json("lesson", &serde_json::json!({
            "status": change.status, "id": lesson.id, "kind": lesson.kind, "project": lesson.project,
            "text": lesson.text, "before": change.before.as_ref().map(|l| &l.line), "after": change.after.as_ref().map(|l| &l.line),
        }))?;
        for line in change.lines() {
            term.line(&line)?;
        }
    }
    for file in &files {
        term.json("file", file)?;
        term.line(&format!("{} {}", file.status.letter(), file.path))?;
    }
    let shown: Vec<manifest::Change> =
        files.into_iter().filter(|c| all_files || [MEMORY, SUMMARY].contains(&c.path.as_str())).collect();
    let diff = manifest::unified_diff(&shown, |p| from.text(p), |p| to.text(p));
    if !diff.is_empty() {
        term.line("")?;
        term.line(diff.trim_end())?;
    }
    let totals = Totals { from: &from.label, to: &to.label, sessions_added: added, sessions_removed: removed, diff };
    term.json("totals", &totals)?;
    Ok(())
}
