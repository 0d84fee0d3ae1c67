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
use crate::core::consolidate::{self, Output};
use crate::core::layout::{DIFF_FILE, MEMORY, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::manifest::{self, Change, Manifest, Pending, Snapshot};
use crate::core::model::consolidate::ModelRun;
use crate::core::notes::Note;
use crate::core::stage1::Stage1;
use crate::core::tokens::estimate;
use crate::edge::control::{Control, keep_as_found, settle};
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

/// The rules of a run; `first` is when the handbook was first consolidated, if it was, and
/// `confirmed` when each session last had a lesson confirmed against its working tree.
pub(crate) fn rules(
    settings: &Settings,
    opts: &ConsolidateSettings,
    first: Option<jiff::Timestamp>,
    confirmed: BTreeMap<String, jiff::Timestamp>,
) -> Rules {
    let waivable = !opts.engine.is_model() && !opts.max_unused_set;
    Rules {
        confirmed,
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
/// The sessions that feed the handbook, of those an undo did not take out; the trust record
/// forgets the sessions whose transcripts are gone.
fn choose(workspace: &Workspace, rules: &plan::Rules, control: &mut Control, term: &Terminal) -> Result<plan::Chosen> {
    let sources = workspace.load_sources()?;
    let chosen =
        workspace.choose_stage1(true, &sources, rules, &mut |warning| term.warn(&warning), &mut |id, at| {
            control.admits(id, at)
        })?;
    control.forget_vanished(&chosen.vanished);
    Ok(chosen)
}

pub(crate) fn consolidate(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    term: &Terminal,
) -> Result<Report> {
    workspace.create()?;
    // A commit a killed run left halfway lands first; handbook files a run wrote without
    // committing are told from hand edits by `pending.json` below, and rebuilt.
    crate::edge::generations::finish_commit(workspace)?;
    let (manifest, damaged) = workspace.load_manifest_or_rebuild()?;
    if let Some(why) = &damaged {
        term.warn(why);
    }
    let mut control = Control::load(workspace, settings.now, term)?;
    let confirmed = control.confirmed(workspace.read(MEMORY)?.as_deref());
    let rules = rules(settings, opts, workspace.first_consolidation(&manifest)?, confirmed);
    if let Some(next_allowed) = plan::cooldown_until(&manifest, &rules) {
        return Ok(Report::cooldown(next_allowed, opts.engine.describe()));
    }
    let chosen = choose(workspace, &rules, &mut control, term)?;
    sync(workspace, &chosen)?;
    fault::point(settings, "after-sync");

    let before = workspace.snapshot()?;
    let changes = manifest::changes(&manifest.files, &before.hashes());
    let report = |outcome, changes, tokens, model| report(opts, &chosen, outcome, changes, tokens, model);
    let tokens = before.text(SUMMARY).map_or(0, |s| estimate(&s));
    let unchanged = plan::unchanged(&manifest, &before, &changes, &rules);
    if let Some(outcome) = control.at_rest(workspace, (&manifest, &before), unchanged, opts.review, term)? {
        let lessons = control.log.pending.as_ref().filter(|_| outcome == Outcome::Pending).map(|p| p.changes.clone());
        let changes = if outcome == Outcome::Pending { Vec::new() } else { changes };
        return Ok(Report { lessons, ..report(outcome, changes, tokens, None) });
    }
    let baseline = Baseline::load(workspace, &manifest, &changes)?;
    let untrusted = plan::untrusted_baseline(&before, baseline.manifest, &baseline.pending, &baseline.objects);
    if let Some(untrusted) = untrusted {
        term.warn(&untrusted.to_string());
        keep_as_found(workspace, settings, &opts.engine.describe(), &mut control, &rules, &before)?;
        return Ok(report(Outcome::Unchanged, Vec::new(), tokens, None));
    }
    let old = |path: &str| manifest.files.get(path).and_then(|h| workspace.object(h).ok().flatten());
    workspace.write(DIFF_FILE, &manifest::render_diff(&changes, old, |path| before.text(path)))?;
    // The diff is for this run only, whether it commits or not.
    let rebuilt = rebuild(workspace, settings, opts, &rules, &baseline, &before, &chosen, &changes, &mut control);
    workspace.remove(DIFF_FILE)?;
    let (handbook, edits, model) = rebuilt?;
    let fallbacks = model.iter().flat_map(|m| &m.dropped).filter_map(|d| d.warning());
    handbook.left_out.iter().cloned().chain(fallbacks).for_each(|warning| term.warn(&warning));
    control.say(term);
    let (outcome, generation, lessons) = settle(
        workspace,
        settings,
        (opts.review, &opts.engine.describe()),
        &rules,
        &mut control,
        (&manifest, &before),
        &handbook,
        &edits,
    )?;
    for id in &chosen.vanished {
        // The handbook no longer holds what a deleted transcript taught; neither does the state.
        workspace.remove_stage1(id)?;
    }
    let changes = manifest::changes(&manifest.files, &handbook.after.hashes());
    Ok(Report { generation, lessons, ..report(outcome, changes, estimate(&handbook.summary), model) })
}

/// What a consolidation reports.
fn report(
    opts: &ConsolidateSettings,
    chosen: &Chosen,
    outcome: Outcome,
    changes: Vec<Change>,
    summary_tokens: usize,
    model: Option<ModelRun>,
) -> Report {
    Report {
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
        generation: None,
        lessons: None,
    }
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

/// Rebuild the handbook from the synced inputs, with the user's decisions applied; the
/// handbook to write, the hand edits learned, and what the model did when there is one.
#[allow(clippy::too_many_arguments)]
fn rebuild(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    rules: &Rules,
    baseline: &Baseline,
    before: &Snapshot,
    chosen: &Chosen,
    changes: &[Change],
    control: &mut Control,
) -> Result<(Handbook, consolidate::edits::Edits, Option<ModelRun>)> {
    let Baseline { manifest, pending, objects } = baseline;
    let mut edits = workspace.load_edits()?;
    plan::learn_hand_edits(&mut edits, before, manifest, pending, objects);
    let notes = plan::redacted_notes(workspace.notes()?);
    let mut engine = match opts.engine.is_model() {
        true => Some(Model::new(&opts.engine, settings.config_dir.as_deref(), CONSOLIDATE_TEMPLATES)?),
        false => None,
    };
    let mut model = None;
    let build = |sessions: &[Stage1], notes: &[Note]| -> Result<Output> {
        let output = consolidate::consolidate(&consolidate::Input { sessions, notes, cap: rules.cap() });
        let output = control.apply(output, rules.cap());
        // A model given no session can only invent: what there is (notes) is written as is.
        let Some(engine) = engine.as_mut().filter(|_| !sessions.is_empty()) else { return Ok(output) };
        let (output, run) = with_model(engine, rules, manifest, before, changes, objects, sessions, &output)?;
        model = Some(run);
        Ok(control.apply(output, rules.cap()))
    };
    let handbook = plan::finish_leaving_out_breakers(&chosen.selection, &notes, &edits, before, rules.cap(), build)?
        .context("the consolidation was not committed; its changes wait for the next run")?;
    Ok((handbook, edits, model))
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
