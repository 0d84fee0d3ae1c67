//! `handbook consolidate`: apply the plans of `core::consolidate::plan` in order: choose the
//! sessions, sync the mechanical inputs, diff against the manifest, rebuild MEMORY.md and
//! memory_summary.md (with the model when there is one), validate, and only then commit the
//! new baseline.
//!
//! Crash safety: every file is written atomically, and the baseline (manifest and stored
//! contents) moves only at the very end. A run killed anywhere before that leaves the old
//! baseline, so the next run sees all the changes again and completes them. Files this run
//! wrote before dying are recorded as pending first, so the next run does not mistake them for
//! the user's edits. Without a baseline that can tell those edits from handbook's lines (a
//! missing or damaged manifest, a lost or damaged stored copy), the generated files are kept
//! as they are and become the new baseline (see `plan::untrusted_baseline`).

use std::collections::BTreeMap;

use anyhow::{Context, Result};

use crate::config::{ConsolidateSettings, Settings};
use crate::core::consolidate::plan::{self, Chosen, Handbook, Rules};
use crate::core::consolidate::report::{Outcome, Report};
use crate::core::consolidate::validate::validate;
use crate::core::consolidate::{self, Output};
use crate::core::layout::{DIFF_FILE, MEMORY, ROLLOUT_SUMMARIES, SUMMARY, WHOLE_SUMMARY};
use crate::core::manifest::{self, Change, Manifest, Pending, Snapshot};
use crate::core::model::consolidate::ModelRun;
use crate::core::notes::Note;
use crate::core::stage1::Stage1;
use crate::core::tokens::estimate;
use crate::edge::fault;
use crate::edge::model::{CONSOLIDATE_TEMPLATES, Consolidation, Model};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// Run `consolidate`.
pub(crate) fn run(settings: &Settings, opts: &ConsolidateSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    let _lock = workspace.lock(opts.lock_wait)?;
    consolidate_and_report(&workspace, settings, opts, term)?;
    crate::edge::doors::refresh(settings, term);
    Ok(())
}

/// Consolidate and print the report (returned); the caller holds the lock.
pub(crate) fn consolidate_and_report(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    term: &Terminal,
) -> Result<Report> {
    let report = consolidate(workspace, settings, opts, term)?;
    workspace.remember_first_consolidation(settings.now)?;
    term.json("consolidate", &report)?;
    if !term.quiet {
        term.line(&report.line())?;
    }
    Ok(report)
}

/// The rules of a run; `first` is when the handbook was first consolidated, if it was.
fn rules(settings: &Settings, opts: &ConsolidateSettings, first: Option<jiff::Timestamp>) -> Rules {
    let waivable = !opts.engine.is_model() && !opts.max_unused_set;
    Rules {
        now: settings.now,
        max_raw_memories: opts.max_raw_memories,
        max_unused: crate::core::select::retention(opts.max_unused, waivable, first, settings.now),
        cooldown: opts.cooldown,
        force: opts.force,
        summary_max_tokens: settings.summary_max_tokens,
        renderer: plan::renderer(opts.engine.is_model().then(|| opts.engine.describe()).as_deref()),
    }
}

/// Consolidate the workspace; the caller holds the lock.
pub(crate) fn consolidate(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    term: &Terminal,
) -> Result<Report> {
    workspace.create()?;
    let (manifest, damaged) = workspace.load_manifest_or_rebuild()?;
    let rules = rules(settings, opts, workspace.first_consolidation(&manifest)?);
    if let Some(why) = &damaged {
        term.warn(why);
    }
    if let Some(next_allowed) = plan::cooldown_until(&manifest, &rules) {
        return Ok(Report::cooldown(next_allowed, opts.engine.describe()));
    }
    let sources = workspace.load_sources()?;
    let chosen = workspace.choose_stage1(&sources, &rules, &mut |warning| term.warn(&warning))?;
    drop(sources);
    sync(workspace, &chosen)?;
    fault::point(settings, "after-sync");

    let before = workspace.snapshot()?;
    let changes = manifest::changes(&manifest.files, &before.hashes());
    let report = |outcome, changes, summary_tokens, model: Option<ModelRun>| Report {
        outcome,
        selected: chosen.selection.len(),
        left_out: chosen.left_out,
        changes,
        summary_tokens,
        next_allowed: None,
        engine: opts.engine.describe(),
        groups_sent: model.as_ref().map(|m| m.groups_sent),
        model_calls: model.as_ref().map(|m| m.calls),
        ungrounded: model.map(|m| m.dropped).unwrap_or_default(),
    };
    if plan::unchanged(&manifest, &before, &changes, &rules) {
        let tokens = before.text(SUMMARY).map_or(0, |s| estimate(&s));
        return Ok(report(Outcome::Unchanged, changes, tokens, None));
    }
    let baseline = Baseline::load(workspace, &manifest, &changes)?;
    if keep_without_baseline(workspace, &rules, &baseline, &before, term)? {
        let tokens = before.text(SUMMARY).map_or(0, |s| estimate(&s));
        return Ok(report(Outcome::Unchanged, Vec::new(), tokens, None));
    }
    let old = |path: &str| manifest.files.get(path).and_then(|h| workspace.object(h).ok().flatten());
    workspace.write(DIFF_FILE, &manifest::render_diff(&changes, old, |path| before.text(path)))?;
    // The diff is for this run only, whether it commits or not.
    let rebuilt = rebuild(workspace, settings, opts, &rules, &baseline, before, &chosen, &changes);
    workspace.remove(DIFF_FILE)?;
    let (handbook, model) = rebuilt?;
    let fallbacks = model.iter().flat_map(|m| &m.dropped).filter_map(|d| d.warning());
    for warning in handbook.left_out.iter().cloned().chain(fallbacks) {
        term.warn(&warning);
    }
    for id in &chosen.vanished {
        // The handbook no longer holds what a deleted transcript taught; neither does the state.
        workspace.remove_stage1(id)?;
    }
    let changes = manifest::changes(&manifest.files, &handbook.after.hashes());
    Ok(report(Outcome::Consolidated, changes, estimate(&handbook.summary), model))
}

/// The last good consolidation: its manifest, the writes of a run that died before
/// committing, and the stored contents a rebuild diffs against (only those that match their
/// hash).
struct Baseline<'a> {
    manifest: &'a Manifest,
    pending: Pending,
    objects: BTreeMap<String, String>,
}

impl<'a> Baseline<'a> {
    fn load(workspace: &Workspace, manifest: &'a Manifest, changes: &[Change]) -> Result<Baseline<'a>> {
        let pending = workspace.load_pending()?;
        let objects = workspace.objects(&plan::objects_needed(manifest, &pending, changes))?;
        Ok(Baseline { manifest, pending, objects: plan::sound_objects(objects) })
    }
}

/// Without a baseline that can tell hand edits from handbook's lines, keep the workspace
/// files as they are (see [`plan::untrusted_baseline`] for what that means), say so, and
/// commit them as the new baseline. True when it did.
fn keep_without_baseline(
    workspace: &Workspace,
    rules: &Rules,
    baseline: &Baseline,
    before: &Snapshot,
    term: &Terminal,
) -> Result<bool> {
    let Some(untrusted) = plan::untrusted_baseline(before, baseline.manifest, &baseline.pending, &baseline.objects)
    else {
        return Ok(false);
    };
    term.warn(&untrusted.to_string());
    for bytes in before.files.values() {
        workspace.store_object(bytes)?;
    }
    let kept = plan::baseline(before, rules);
    workspace.save_manifest(&kept)?;
    workspace.prune_objects(&kept.files.values().collect())?;
    workspace.clear_pending()?;
    Ok(true)
}

/// Sync the mechanical inputs to exactly the selection.
fn sync(workspace: &Workspace, chosen: &Chosen) -> Result<()> {
    workspace.remove(DIFF_FILE)?;
    let sync = plan::sync(&chosen.selection);
    for (path, text) in &sync.writes {
        workspace.write(path, text)?;
    }
    let present = workspace.list(ROLLOUT_SUMMARIES)?;
    for name in sync.stale(&present) {
        workspace.remove(&format!("{ROLLOUT_SUMMARIES}/{name}"))?;
    }
    Ok(())
}

/// Rebuild the handbook from the synced inputs, write it, and commit the new baseline; the
/// handbook written, and what the model did when there is one.
#[allow(clippy::too_many_arguments)]
fn rebuild(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    rules: &Rules,
    baseline: &Baseline,
    before: Snapshot,
    chosen: &Chosen,
    changes: &[Change],
) -> Result<(Handbook, Option<ModelRun>)> {
    let Baseline { manifest, pending, objects } = baseline;
    let mut edits = workspace.load_edits()?;
    plan::learn_hand_edits(&mut edits, &before, manifest, pending, objects);
    let notes = plan::redacted_notes(workspace.notes()?);
    let mut engine = match opts.engine.is_model() {
        true => Some(Model::new(&opts.engine, settings.config_dir.as_deref(), CONSOLIDATE_TEMPLATES)?),
        false => None,
    };
    let mut model = None;
    let build = |sessions: &[Stage1], notes: &[Note]| -> Result<Output> {
        let output = consolidate::consolidate(&consolidate::Input { sessions, notes, cap: rules.cap() });
        // A model given no session can only invent: what there is (notes) is written as is.
        let Some(engine) = engine.as_mut().filter(|_| !sessions.is_empty()) else { return Ok(output) };
        let (output, run) = with_model(engine, rules, manifest, &before, changes, objects, sessions, &output)?;
        model = Some(run);
        Ok(output)
    };
    let handbook = plan::finish_leaving_out_breakers(&chosen.selection, &notes, &edits, &before, rules.cap(), build)?
        .context("the consolidation was not committed; its changes wait for the next run")?;
    write_and_commit(workspace, settings, rules, &handbook, &edits)?;
    Ok((handbook, model))
}

/// The model's rewrite of the built-in `output` for `sessions`, and what the model did.
#[allow(clippy::too_many_arguments)]
fn with_model(
    engine: &mut Model,
    rules: &Rules,
    manifest: &Manifest,
    before: &Snapshot,
    changes: &[Change],
    objects: &BTreeMap<String, String>,
    sessions: &[Stage1],
    output: &Output,
) -> Result<(Output, ModelRun)> {
    let baseline = (manifest.renderer == rules.renderer).then(|| manifest.files.get(MEMORY)).flatten();
    let baseline = baseline.and_then(|hash| objects.get(hash)).map(String::as_str);
    let (changed, removed) = plan::changed_sessions(manifest, before, changes, objects);
    let raw_memories: BTreeMap<String, String> =
        sessions.iter().map(|r| (r.session_id.clone(), r.raw_memory.clone())).collect();
    let consolidated = engine
        .consolidate(&Consolidation {
            builtin_memory: &output.memory,
            builtin_summary: &output.summary,
            baseline_memory: baseline,
            changed: &changed,
            removed: &removed,
            raw_memories: &raw_memories,
            cap_tokens: rules.summary_max_tokens,
        })
        .context("the model consolidation failed; the last good consolidation stays, and the next run tries again")?;
    // The model's summary is all there is of it: `summary --project` narrows that.
    let whole_summary = consolidated.summary.clone();
    Ok((Output { memory: consolidated.memory, summary: consolidated.summary, whole_summary }, consolidated.run))
}

/// Write the new handbook, remembering that these contents are handbook's own until the
/// baseline moves, then commit the baseline.
fn write_and_commit(
    workspace: &Workspace,
    settings: &Settings,
    rules: &Rules,
    handbook: &Handbook,
    edits: &consolidate::edits::Edits,
) -> Result<()> {
    workspace.store_object(handbook.memory.as_bytes())?;
    workspace.store_object(handbook.summary.as_bytes())?;
    workspace.save_pending(&plan::pending(handbook))?;
    workspace.save_edits(edits)?;
    workspace.write(MEMORY, &handbook.memory)?;
    fault::point(settings, "between-writes");
    workspace.write(SUMMARY, &handbook.summary)?;
    fault::point(settings, "after-write");
    match &handbook.whole_summary {
        Some(whole) => workspace.write(WHOLE_SUMMARY, whole)?,
        None => workspace.remove(WHOLE_SUMMARY)?,
    }
    // A secret anywhere in the workspace (a note, a hand edit) holds back the new baseline:
    // the handbook written from it is redacted, but the next run must look again.
    validate(&handbook.after, rules.cap())
        .context("the consolidation was not committed; its changes stay for the next run")?;
    for bytes in handbook.after.files.values() {
        workspace.store_object(bytes)?;
    }
    let baseline = plan::baseline(&handbook.after, rules);
    workspace.save_manifest(&baseline)?;
    workspace.prune_objects(&baseline.files.values().collect())?;
    workspace.clear_pending()
}
