//! The trust decisions of one consolidation, held under the lock: the generation log, what
//! the user decided (`trust.json`), and what this run's freshness checks found. It admits the
//! sessions, checks lessons against their working trees, applies the decisions to the engine's
//! handbook (`core::trust::filter`), and says what comes back with new evidence.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use jiff::Timestamp;

use anyhow::Context;

use crate::config::Settings;
use crate::core::consolidate::plan::{self, Handbook, Rules};
use crate::core::consolidate::report::Outcome;
use crate::core::consolidate::validate::validate;
use crate::core::consolidate::{self, Output};
use crate::core::layout::{MEMORY, SUMMARY, WHOLE_SUMMARY};
use crate::core::manifest::{Manifest, Snapshot};
use crate::core::tokens::Cap;
use crate::core::trust::Trust;
use crate::core::trust::filter;
use crate::core::trust::freshness::Check;
use crate::core::trust::generations::{Changes, Log, Made, inputs};
use crate::core::trust::lesson::{LessonId, lessons};
use crate::edge::fault;
use crate::edge::freshness;
use crate::edge::generations::{self, Commit, load_log_or_start_anew, load_trust, save_trust, tree};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// One run's decisions.
pub(crate) struct Control {
    pub(crate) log: Log,
    pub(crate) trust: Trust,
    now: Timestamp,
    /// What comes back, to say once.
    notices: BTreeSet<String>,
}

impl Control {
    pub(crate) fn load(workspace: &Workspace, now: Timestamp, term: &Terminal) -> Result<Control> {
        let log = load_log_or_start_anew(workspace, term)?;
        let trust = load_trust(workspace, term)?;
        Ok(Control { log, trust, now, notices: BTreeSet::new() })
    }

    /// The decisions as they are, for a run that writes nothing: a damaged file is an error.
    pub(crate) fn read(workspace: &Workspace, now: Timestamp) -> Result<Control> {
        let log = generations::load_log(workspace)?;
        let trust = generations::read_trust(workspace)?;
        Ok(Control { log, trust, now, notices: BTreeSet::new() })
    }

    /// When each session last had a lesson of `memory` confirmed (retention counts it as use).
    pub(crate) fn confirmed(&self, memory: Option<&str>) -> BTreeMap<String, Timestamp> {
        self.trust.confirmed_sessions(&lessons(memory.unwrap_or("")))
    }

    /// Transcripts that are gone take their sessions out of every kept generation too (the
    /// generations that hold one are dropped when the run commits), as `forget` does.
    pub(crate) fn forget_vanished(&mut self, vanished: &[String]) {
        for id in vanished {
            self.log.forget(id);
            self.trust.forget(id);
        }
    }

    /// Whether a session may feed the handbook: not one an undo took out, unless it has new
    /// activity since.
    pub(crate) fn admits(&mut self, session_id: &str, updated_at: jiff::Timestamp) -> bool {
        let (admitted, notice) = self.trust.admits(session_id, updated_at);
        self.notices.extend(notice);
        admitted
    }

    /// Check the lessons of `memory` against their trees; true when the text already shows
    /// every decision (stale and promoted marks as they should be, no held-back lesson in
    /// it), so a workspace that did not change needs no rebuild.
    pub(crate) fn settled(&mut self, memory: Option<&str>) -> bool {
        let found = lessons(memory.unwrap_or(""));
        let checks = freshness::check(&found, &self.trust.checks, self.now);
        let settled = found.iter().all(|lesson| {
            let stale = checks.get(&lesson.id).and_then(Check::reason);
            let promoted = self.trust.promoted.get(&lesson.id).map(|p| p.name.clone());
            !self.trust.held_lessons.contains_key(&lesson.id)
                && lesson.marks.stale == stale
                && lesson.marks.promoted == promoted
        });
        self.keep_checks(checks);
        settled
    }

    fn keep_checks(&mut self, checks: BTreeMap<LessonId, Check>) {
        self.trust.checks.extend(checks);
    }

    /// Forget the checks of lessons that are neither in `committed`'s handbook nor in the
    /// `proposed` one.
    pub(crate) fn retain_checks(&mut self, committed: &Snapshot, proposed: Option<&Snapshot>) {
        let present: BTreeSet<LessonId> = [Some(committed), proposed]
            .into_iter()
            .flatten()
            .flat_map(|s| lessons(&s.text(MEMORY).unwrap_or_default()))
            .map(|l| l.id)
            .collect();
        self.trust.keep_checks(&present);
    }

    /// Whether the run has nothing to do: the pending generation already holds what it would
    /// propose (review mode), or the workspace is `unchanged` and its text shows every
    /// decision. Then what the checks found is kept, and how the run ends is returned.
    pub(crate) fn at_rest(
        &mut self,
        workspace: &Workspace,
        (manifest, before): (&Manifest, &Snapshot),
        unchanged: bool,
        review: bool,
        term: &Terminal,
    ) -> Result<Option<Outcome>> {
        let settled = self.settled(before.text(MEMORY).as_deref());
        let outcome = match () {
            () if review && self.pending_holds(workspace, before, manifest) => Outcome::Pending,
            () if unchanged && settled => Outcome::Unchanged,
            () => return Ok(None),
        };
        self.keep_and_say(workspace, manifest, before, term)?;
        self.record_first(workspace, manifest, before)?;
        Ok(Some(outcome))
    }

    /// A handbook consolidated before generations were kept has none: its baseline becomes
    /// the first, so the next change can be undone.
    fn record_first(&mut self, workspace: &Workspace, manifest: &Manifest, before: &Snapshot) -> Result<()> {
        if !self.log.generations.is_empty() || manifest.consolidated_at.is_none() || manifest.files != before.hashes() {
            return Ok(());
        }
        let whole = workspace.read(WHOLE_SUMMARY)?;
        let commit = Commit {
            made: Made::Baseline,
            engine: manifest.renderer.clone(),
            after: before,
            whole: whole.as_deref(),
            manifest: manifest.clone(),
            at: self.now,
        };
        generations::record(workspace, &mut self.log, commit)
    }

    /// Nothing to rebuild: keep what the checks found (when each lesson was last confirmed)
    /// and say what came back.
    fn keep_and_say(
        &mut self,
        workspace: &Workspace,
        manifest: &Manifest,
        before: &Snapshot,
        term: &Terminal,
    ) -> Result<()> {
        let pending = self.log.pending.as_ref().and_then(|p| tree(workspace, &p.tree).ok());
        let proposed = pending.and_then(|t| t.get(MEMORY).and_then(|h| workspace.object(h).ok().flatten()));
        let proposed =
            proposed.map(|memory| Snapshot { files: BTreeMap::from([(MEMORY.to_string(), memory.into_bytes())]) });
        self.retain_checks(before, proposed.as_ref());
        save_trust(workspace, &self.trust)?;
        self.say(term);
        generations::tidy(workspace, manifest, &self.log)
    }

    /// The engine's handbook with the decisions applied: held-back lessons out (unless new
    /// evidence brings one back), stale ones marked and out of the summary, promoted ones
    /// marked and out of the summary.
    pub(crate) fn apply(&mut self, output: Output, cap: Cap) -> Output {
        let found = lessons(&output.memory);
        let checks = freshness::check(&found, &self.trust.checks, self.now);
        let (withheld, notices) = self.trust.decide(&found, &checks);
        self.notices.extend(notices);
        self.keep_checks(checks);
        let (memory, summary, whole) =
            filter::apply(&output.memory, &output.summary, Some(&output.whole_summary), &withheld, cap);
        Output { memory, summary, whole_summary: whole.unwrap_or(output.whole_summary) }
    }

    /// Say what came back, once.
    pub(crate) fn say(&mut self, term: &Terminal) {
        for notice in std::mem::take(&mut self.notices) {
            term.warn(&notice);
        }
    }

    /// Whether the pending generation already holds what this run would propose: its inputs
    /// are the workspace's, the accepted handbook was not edited, and its text shows every
    /// decision. Only then a consolidation in review mode has nothing to do.
    fn pending_holds(&mut self, workspace: &Workspace, before: &Snapshot, manifest: &Manifest) -> bool {
        let Some(pending) = &self.log.pending else { return false };
        let Ok(proposed) = tree(workspace, &pending.tree) else { return false };
        let now = before.hashes();
        let handbook_as_accepted = [MEMORY, SUMMARY].iter().all(|f| now.get(*f) == manifest.files.get(*f));
        if inputs(&proposed) != inputs(&now) || !handbook_as_accepted {
            return false;
        }
        let memory = proposed.get(MEMORY).and_then(|h| workspace.object(h).ok().flatten());
        self.settled(memory.as_deref())
    }
}

/// Write the new handbook, remembering that these contents are handbook's own until the
/// baseline moves, then commit the baseline as a generation; its id, when it recorded one.
fn write_and_commit(
    workspace: &Workspace,
    settings: &Settings,
    engine: &str,
    rules: &Rules,
    control: &mut Control,
    handbook: &Handbook,
    edits: &consolidate::edits::Edits,
) -> Result<Option<u64>> {
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
    // A consolidation that commits leaves no older proposal waiting.
    control.log.pending = None;
    control.retain_checks(&handbook.after, None);
    let commit = consolidation(settings, engine, rules, handbook);
    generations::commit(workspace, settings, &mut control.log, &control.trust, commit)
}

/// What a consolidation commits, or proposes: the new handbook as the next baseline.
fn consolidation<'a>(settings: &Settings, engine: &str, rules: &Rules, handbook: &'a Handbook) -> Commit<'a> {
    Commit {
        made: Made::Consolidate,
        engine: engine.to_string(),
        after: &handbook.after,
        whole: handbook.whole_summary.as_deref(),
        manifest: plan::baseline(&handbook.after, rules),
        at: settings.now,
    }
}

/// Keep the new handbook as the pending generation (review mode): the workspace's handbook
/// stays as accepted, and the summary keeps serving it; no generation is recorded until the
/// change is accepted.
#[allow(clippy::too_many_arguments)]
fn propose(
    workspace: &Workspace,
    settings: &Settings,
    engine: &str,
    rules: &Rules,
    control: &mut Control,
    manifest: &Manifest,
    before: &Snapshot,
    handbook: &Handbook,
    edits: &consolidate::edits::Edits,
) -> Result<()> {
    workspace.save_edits(edits)?;
    control.retain_checks(before, Some(&handbook.after));
    let commit = consolidation(settings, engine, rules, handbook);
    generations::propose(workspace, &mut control.log, &control.trust, commit, manifest).map(drop)
}

/// Keep the new handbook pending (review mode, when it changes what agents are told), or
/// write and commit it: how the run ended, the generation recorded, and what it changed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn settle(
    workspace: &Workspace,
    settings: &Settings,
    (review, engine): (bool, &str),
    rules: &Rules,
    control: &mut Control,
    (manifest, before): (&Manifest, &Snapshot),
    handbook: &Handbook,
    edits: &consolidate::edits::Edits,
) -> Result<(Outcome, Option<u64>, Option<Changes>)> {
    if review && [MEMORY, SUMMARY].iter().any(|f| before.files.get(*f) != handbook.after.files.get(*f)) {
        propose(workspace, settings, engine, rules, control, manifest, before, handbook, edits)?;
        return Ok((Outcome::Pending, None, control.log.pending.as_ref().map(|p| p.changes.clone())));
    }
    let generation = write_and_commit(workspace, settings, engine, rules, control, handbook, edits)?;
    Ok((Outcome::Consolidated, generation, generation.and_then(|id| control.log.find(id)).map(|g| g.changes.clone())))
}

/// The baseline cannot tell hand edits from handbook's lines (see
/// [`plan::untrusted_baseline`]): commit the workspace as it was found as the new baseline.
pub(crate) fn keep_as_found(
    workspace: &Workspace,
    settings: &Settings,
    engine: &str,
    control: &mut Control,
    rules: &Rules,
    before: &Snapshot,
) -> Result<()> {
    let manifest = plan::baseline(before, rules);
    let commit = Commit {
        made: Made::Baseline,
        engine: engine.to_string(),
        after: before,
        whole: None,
        manifest,
        at: settings.now,
    };
    control.retain_checks(before, None);
    generations::commit(workspace, settings, &mut control.log, &control.trust, commit).map(drop)
}
