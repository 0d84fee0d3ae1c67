//! `handbook consolidate`: select, sync the mechanical inputs, diff against the manifest,
//! rebuild MEMORY.md and memory_summary.md, validate, and only then commit the new baseline.
//!
//! Crash safety: every file is written atomically, and the baseline (manifest and stored
//! contents) moves only at the very end. A run killed anywhere before that leaves the old
//! baseline, so the next run sees all the changes again and completes them. Files this run
//! wrote before dying are recorded as pending first, so the next run does not mistake them for
//! the user's edits.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail};
use jiff::Timestamp;
use serde::Serialize;
use similar::{DiffTag, TextDiff};

use crate::config::{ConsolidateSettings, Settings};
use crate::core::consolidate::{self, RENDERER};
use crate::core::layout::{self, DIFF_FILE, MEMORY, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::manifest::{self, Change, MANIFEST_VERSION, Manifest};
use crate::core::notes::Note;
use crate::core::project::path_keys_to_remotes;
use crate::core::redact::{redact, secret_kinds};
use crate::core::select::{self, Rules};
use crate::core::stage1::Stage1;
use crate::core::state::{SourceState, usage};
use crate::core::summary::{Summary, VERSION_LINE};
use crate::core::tokens::{Cap, estimate};
use crate::core::words::count;
use crate::edge::fault;
use crate::edge::fsio::remove_if_exists;
use crate::edge::model::{CONSOLIDATE_TEMPLATES, Consolidation, Model};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::{Pending, Snapshot, Workspace};

/// Heading for hand-added lines whose place is gone.
const ADDED_BY_HAND: &str = "## Added by hand";

/// What a consolidation did.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `consolidated`, `unchanged` or `cooldown`.
    pub outcome: &'static str,
    pub selected: usize,
    /// Sessions with lessons that this consolidation did not take.
    pub left_out: LeftOut,
    pub changes: Vec<Change>,
    pub summary_tokens: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_allowed: Option<Timestamp>,
    /// The engine that wrote the lessons.
    pub engine: String,
    /// With a model engine: the task groups sent to it, and the calls made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups_sent: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_calls: Option<usize>,
}

/// Sessions a consolidation left out, and the settings that did it.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct LeftOut {
    /// Neither used nor updated for `max_unused_days`.
    pub unused: usize,
    /// Ranked below the `max_raw_memories` kept.
    pub over_max: usize,
    #[serde(skip)]
    max_unused_days: i64,
    #[serde(skip)]
    max: usize,
}

impl LeftOut {
    /// `, 1 left out as unused for more than 30 days (--max-unused-days)`, or nothing.
    fn describe(&self) -> String {
        let mut why = Vec::new();
        if self.unused > 0 {
            why.push(format!(
                "{} left out as unused for more than {} days (--max-unused-days)",
                self.unused, self.max_unused_days
            ));
        }
        if self.over_max > 0 {
            why.push(format!("{} left out below the top {} (--max-raw-memories)", self.over_max, self.max));
        }
        why.iter().map(|w| format!(", {w}")).collect()
    }
}

impl Report {
    pub fn line(&self) -> String {
        match self.outcome {
            "cooldown" => format!(
                "consolidate: skipped, within the cooldown until {} (use --force)",
                self.next_allowed.map(layout::timestamp).unwrap_or_default()
            ),
            "unchanged" => format!(
                "consolidate: nothing changed since the last consolidation ({}{})",
                count(self.selected, "session"),
                self.left_out.describe()
            ),
            _ => {
                let changed = |letter: char| self.changes.iter().filter(|c| c.status.letter() == letter).count();
                let model = match (self.groups_sent, self.model_calls) {
                    (Some(groups), Some(calls)) => format!(
                        "; {}: {} rewritten in {}",
                        self.engine,
                        count(groups, "task group"),
                        count(calls, "call")
                    ),
                    _ => String::new(),
                };
                format!(
                    "consolidate: {}{}; {} added, {} modified, {} deleted; summary {} tokens{model}",
                    count(self.selected, "session"),
                    self.left_out.describe(),
                    count(changed('A'), "file"),
                    changed('M'),
                    changed('D'),
                    self.summary_tokens
                )
            }
        }
    }
}

/// Run `consolidate`.
pub fn run(settings: &Settings, opts: &ConsolidateSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    let _lock = workspace.lock(opts.lock_wait)?;
    consolidate_and_report(&workspace, settings, opts, term)
}

/// Consolidate and print the report; the caller holds the lock.
pub fn consolidate_and_report(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    term: &Terminal,
) -> Result<()> {
    let report = consolidate(workspace, settings, opts, term)?;
    term.json("consolidate", &report)?;
    if !term.quiet {
        term.line(&report.line())?;
    }
    Ok(())
}

/// Consolidate the workspace; the caller holds the lock.
pub fn consolidate(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ConsolidateSettings,
    term: &Terminal,
) -> Result<Report> {
    workspace.create()?;
    let now = settings.now;
    let cap = Cap { tokens: Some(settings.summary_max_tokens), chars: None };
    let manifest = workspace.load_manifest()?;
    if !opts.force
        && let Some(last) = manifest.consolidated_at
        && last + opts.cooldown > now
    {
        let next_allowed = Some(last + opts.cooldown);
        return Ok(Report {
            outcome: "cooldown",
            selected: 0,
            left_out: LeftOut::default(),
            changes: Vec::new(),
            summary_tokens: 0,
            next_allowed,
            engine: opts.engine.describe(),
            groups_sent: None,
            model_calls: None,
        });
    }
    // The lessons' author: a model's lessons are redone when the model changes.
    let renderer = match opts.engine.is_model() {
        true => format!("model-1 {}", opts.engine.describe()),
        false => RENDERER.to_string(),
    };

    // Select, with usage counted from the citations recorded across all transcripts.
    let sources = workspace.load_sources()?;
    let usage = usage(&sources);
    let state_of: BTreeMap<&str, SourceState> =
        sources.sources.iter().map(|(path, e)| (path.as_str(), e.state)).collect();
    let records = workspace.all_stage1(&mut |warning| term.warn(&warning))?;
    let vanished: Vec<String> = records
        .iter()
        .filter(|r| state_of.get(r.rollout_path.as_str()) == Some(&SourceState::Vanished))
        .map(|r| r.session_id.clone())
        .collect();
    let mut eligible: Vec<Stage1> = records
        .into_iter()
        .filter(|r| !sources.excluded.contains(&r.session_id))
        .filter(|r| {
            !matches!(state_of.get(r.rollout_path.as_str()), Some(SourceState::Vanished | SourceState::Excluded))
        })
        .map(|mut r| {
            let used = usage.get(&r.session_id).copied().unwrap_or_default();
            (r.usage_count, r.last_usage) = (used.count, used.last);
            r
        })
        .collect();
    // A session that only knew its folder joins the project other sessions there named.
    let better = path_keys_to_remotes(eligible.iter().map(|r| (r.cwd.as_deref().unwrap_or(""), r.project.as_str())));
    for record in &mut eligible {
        if let Some(key) = better.get(&record.project) {
            record.project = key.clone();
        }
    }
    let select::Selection { records: selection, unused, over_max } =
        select::select(eligible, Rules { now, max: opts.max_raw_memories, max_unused: opts.max_unused });
    let left_out =
        LeftOut { unused, over_max, max_unused_days: opts.max_unused.as_hours() / 24, max: opts.max_raw_memories };

    // Sync the mechanical inputs to exactly the selection.
    remove_if_exists(&workspace.file(DIFF_FILE))?;
    workspace.write(RAW_MEMORIES, &layout::raw_memories(&selection))?;
    let keep: BTreeSet<String> = selection.iter().map(layout::summary_file).collect();
    for record in &selection {
        workspace.write(
            &format!("{ROLLOUT_SUMMARIES}/{}", layout::summary_file(record)),
            &layout::rollout_summary(record),
        )?;
    }
    remove_stale_summaries(workspace, &keep)?;
    fault::point(settings, "after-sync");

    // Diff against the baseline.
    let before = workspace.snapshot()?;
    let changes = manifest::changes(&manifest.files, &before.hashes());
    let same_rendering = manifest.renderer == renderer && manifest.summary_max_tokens == settings.summary_max_tokens;
    if changes.is_empty() && same_rendering && validate(&before, cap).is_ok() {
        let summary_tokens = before.text(SUMMARY).map_or(0, |s| estimate(&s));
        return Ok(Report {
            outcome: "unchanged",
            selected: selection.len(),
            left_out,
            changes,
            summary_tokens,
            next_allowed: None,
            engine: opts.engine.describe(),
            groups_sent: None,
            model_calls: None,
        });
    }
    let old = |path: &str| manifest.files.get(path).and_then(|h| workspace.object(h).ok().flatten());
    let new = |path: &str| before.text(path);
    workspace.write(DIFF_FILE, &manifest::render_diff(&changes, old, new))?;

    // Keep the user's hand edits, then rebuild.
    let pending = workspace.load_pending()?;
    let mut edits = workspace.load_edits()?;
    for file in [MEMORY, SUMMARY] {
        if let Some((base, edited)) = hand_edited(workspace, &before, &manifest, &pending, file)? {
            edits.files.entry(file.to_string()).or_default().learn(&base, &redact(&edited));
        }
    }
    // Notes are the user's own files; what handbook writes from them is redacted all the same.
    let notes: Vec<Note> = workspace
        .notes()?
        .into_iter()
        .map(|n| Note { title: redact(&n.title).into_owned(), body: redact(&n.body).into_owned(), ..n })
        .collect();
    let mut output = consolidate::consolidate(&consolidate::Input { sessions: &selection, notes: &notes, cap });
    let (mut groups_sent, mut model_calls) = (None, None);
    if opts.engine.is_model() {
        let mut model = Model::new(&opts.engine, settings.config_dir.as_deref(), CONSOLIDATE_TEMPLATES)?;
        let (changed, removed) = changed_sessions(workspace, &manifest, &before, &changes)?;
        let baseline = match manifest.renderer == renderer {
            true => manifest.files.get(MEMORY).map(|hash| workspace.object(hash)).transpose()?.flatten(),
            false => None,
        };
        let raw_memories = selection.iter().map(|r| (r.session_id.clone(), r.raw_memory.clone())).collect();
        let consolidated = model
            .consolidate(&Consolidation {
                builtin_memory: &output.memory,
                builtin_summary: &output.summary,
                baseline_memory: baseline.as_deref(),
                changed: &changed,
                removed: &removed,
                raw_memories: &raw_memories,
                cap_tokens: settings.summary_max_tokens,
            })
            .map_err(|e| {
                let _ = remove_if_exists(&workspace.file(DIFF_FILE));
                anyhow::anyhow!("the model consolidation failed: {e}; the last good consolidation stays, and the next run tries again")
            })?;
        (groups_sent, model_calls) = (Some(consolidated.groups_sent), Some(consolidated.calls));
        output = consolidate::Output { memory: consolidated.memory, summary: consolidated.summary };
    }
    // Hand edits are applied, then everything is redacted once more on its way out.
    let memory = edits.files.get(MEMORY).map_or(output.memory.clone(), |e| e.apply(&output.memory, ADDED_BY_HAND));
    let memory = redact(&memory).into_owned();
    let summary = match edits.files.get(SUMMARY) {
        Some(e) if !e.is_empty() => e.apply(&output.summary, ADDED_BY_HAND),
        _ => output.summary,
    };
    // A lesson removed from MEMORY.md goes from the summary too.
    let summary = edits.files.get(MEMORY).map_or(summary.clone(), |e| e.drop_removed_lessons(&summary));
    let summary = redact(&summary).into_owned();
    let summary = match cap.fits(&summary) {
        true => summary,
        false => Summary::parse(&summary).map_or(summary.clone(), |s| s.fit(cap)),
    };

    // Check the new handbook before it is written: a broken one never reaches the agents
    // that read it. (The inputs are synced already, so the old one would cite them wrongly.)
    let mut after = before;
    after.files.insert(MEMORY.to_string(), memory.clone().into_bytes());
    after.files.insert(SUMMARY.to_string(), summary.clone().into_bytes());
    if let Err(e) = validate_handbook(&after, cap) {
        remove_if_exists(&workspace.file(DIFF_FILE))?;
        return Err(e.context("the consolidation was not committed; its changes wait for the next run"));
    }

    // Write, remembering that these contents are handbook's own until the baseline moves.
    let mut pending = Pending::new();
    pending.insert(MEMORY.to_string(), workspace.store_object(memory.as_bytes())?);
    pending.insert(SUMMARY.to_string(), workspace.store_object(summary.as_bytes())?);
    workspace.save_pending(&pending)?;
    workspace.save_edits(&edits)?;
    workspace.write(MEMORY, &memory)?;
    fault::point(settings, "between-writes");
    workspace.write(SUMMARY, &summary)?;
    fault::point(settings, "after-write");

    // A secret anywhere in the workspace (a note, a hand edit) holds back the new baseline:
    // the handbook written from it is redacted, but the next run must look again.
    if let Err(e) = validate(&after, cap) {
        remove_if_exists(&workspace.file(DIFF_FILE))?;
        return Err(e.context("the consolidation was not committed; its changes stay for the next run"));
    }
    commit(workspace, &after, settings, &renderer)?;
    remove_if_exists(&workspace.file(DIFF_FILE))?;
    workspace.clear_pending()?;
    // The handbook no longer holds what a deleted transcript taught; neither does the state.
    for id in &vanished {
        workspace.remove_stage1(id)?;
    }
    let changes = manifest::changes(&manifest.files, &after.hashes());
    Ok(Report {
        outcome: "consolidated",
        selected: selection.len(),
        left_out,
        changes,
        summary_tokens: estimate(&summary),
        next_allowed: None,
        engine: opts.engine.describe(),
        groups_sent,
        model_calls,
    })
}

/// The sessions whose rollout summary the diff adds or changes, and those it removes, by
/// the `session_id:` header of the file now or in the baseline.
fn changed_sessions(
    workspace: &Workspace,
    manifest: &Manifest,
    now: &Snapshot,
    changes: &[Change],
) -> Result<(BTreeSet<String>, BTreeSet<String>)> {
    let session_of = |text: &str| {
        text.lines()
            .take_while(|l| !l.trim().is_empty())
            .find_map(|l| l.strip_prefix("session_id:"))
            .map(|id| id.trim().to_string())
    };
    let (mut changed, mut removed) = (BTreeSet::new(), BTreeSet::new());
    for change in changes.iter().filter(|c| c.path.starts_with(&format!("{ROLLOUT_SUMMARIES}/"))) {
        if let Some(id) = now.text(&change.path).as_deref().and_then(session_of) {
            changed.insert(id);
        } else if let Some(hash) = manifest.files.get(&change.path)
            && let Some(id) = workspace.object(hash)?.as_deref().and_then(session_of)
        {
            removed.insert(id);
        }
    }
    Ok((changed, removed))
}

/// The user's hand edits to a generated file, as (what handbook last wrote, the file now),
/// or `None` when the file is exactly what handbook wrote, by the baseline or by a run that
/// died before committing. When it matches neither, the closer one is taken as the base.
fn hand_edited(
    workspace: &Workspace,
    now: &Snapshot,
    manifest: &Manifest,
    pending: &Pending,
    file: &str,
) -> Result<Option<(String, String)>> {
    let Some(current) = now.text(file) else { return Ok(None) };
    let hash = blake3::hash(current.as_bytes()).to_hex().to_string();
    let candidates: Vec<&String> = [manifest.files.get(file), pending.get(file)].into_iter().flatten().collect();
    if candidates.contains(&&hash) {
        return Ok(None);
    }
    let mut best: Option<(usize, String)> = None;
    for candidate in candidates {
        let Some(base) = workspace.object(candidate)? else { continue };
        let distance =
            TextDiff::from_lines(&base, &current).ops().iter().filter(|op| op.tag() != DiffTag::Equal).count();
        if best.as_ref().is_none_or(|(d, _)| distance < *d) {
            best = Some((distance, base));
        }
    }
    Ok(best.map(|(_, base)| (base, current)))
}

fn remove_stale_summaries(workspace: &Workspace, keep: &BTreeSet<String>) -> Result<()> {
    let dir = workspace.file(ROLLOUT_SUMMARIES);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(()) };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && !keep.contains(&name) {
            remove_if_exists(&entry.path())?;
        }
    }
    Ok(())
}

/// The workspace is sound: the handbook (see [`validate_handbook`]) and no secret in any
/// file.
pub fn validate(snapshot: &Snapshot, cap: Cap) -> Result<()> {
    validate_handbook(snapshot, cap)?;
    no_secrets(snapshot.files.iter())
}

/// The generated files are sound: `MEMORY.md` present and citing only rollout summaries
/// that exist, the summary starting with `v1` within its cap, neither holding a secret.
fn validate_handbook(snapshot: &Snapshot, cap: Cap) -> Result<()> {
    let memory = snapshot.text(MEMORY).context("MEMORY.md is missing")?;
    let summary = snapshot.text(SUMMARY).context("memory_summary.md is missing")?;
    if summary.lines().next() != Some(VERSION_LINE) {
        bail!("memory_summary.md does not start with the line `{VERSION_LINE}`");
    }
    if !cap.fits(&summary) {
        bail!("memory_summary.md is {} tokens, over the cap of {}", estimate(&summary), cap.tokens.unwrap_or(0));
    }
    let prefix = format!("{ROLLOUT_SUMMARIES}/");
    for reference in memory.lines().filter_map(|l| l.strip_prefix("- ")).filter(|l| l.starts_with(&prefix)) {
        let file = reference.split_whitespace().next().unwrap_or(reference);
        if !snapshot.files.contains_key(file) {
            bail!("MEMORY.md cites {file}, which does not exist");
        }
    }
    no_secrets(snapshot.files.iter().filter(|(path, _)| [MEMORY, SUMMARY].contains(&path.as_str())))
}

/// An error naming every file that holds a secret, and its kinds.
fn no_secrets<'a>(files: impl Iterator<Item = (&'a String, &'a Vec<u8>)>) -> Result<()> {
    let leaks: Vec<String> = files
        .filter_map(|(path, bytes)| {
            let kinds = secret_kinds(&String::from_utf8_lossy(bytes));
            (!kinds.is_empty()).then(|| format!("{path} ({})", kinds.join(", ")))
        })
        .collect();
    if !leaks.is_empty() {
        bail!("secrets found in {}; remove them (or `handbook forget` their session) and run again", leaks.join("; "));
    }
    Ok(())
}

/// Record the files as the new baseline and drop stored contents nobody needs.
fn commit(workspace: &Workspace, snapshot: &Snapshot, settings: &Settings, renderer: &str) -> Result<()> {
    for bytes in snapshot.files.values() {
        workspace.store_object(bytes)?;
    }
    let files = snapshot.hashes();
    let manifest = Manifest {
        version: MANIFEST_VERSION,
        renderer: renderer.to_string(),
        summary_max_tokens: settings.summary_max_tokens,
        consolidated_at: Some(settings.now),
        files: files.clone(),
    };
    workspace.save_manifest(&manifest)?;
    workspace.prune_objects(&files.values().collect())?;
    Ok(())
}
