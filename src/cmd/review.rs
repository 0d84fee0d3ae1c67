//! `handbook review`: the pending change (review mode) lesson by lesson with the sessions
//! behind each; `--accept [REF...]` applies all of it or those lessons, `--reject [REF...]`
//! holds lessons out until their evidence changes. `core::trust::review` decides what a
//! partial decision makes of the texts; this applies it under the lock.

use std::collections::BTreeSet;

use anyhow::{Result, bail};

use crate::config::Settings;
use crate::config::trust::{Decision, ReviewSettings};
use crate::core::layout::{MEMORY, SUMMARY, WHOLE_SUMMARY};
use crate::core::manifest::{MANIFEST_VERSION, Manifest, Snapshot};
use crate::core::tokens::Cap;
use crate::core::trust::generations::{Generation, LessonChange, Log, Made, Status, Tree, inputs, lesson_changes};
use crate::core::trust::lesson::{Lesson, LessonId};
use crate::core::trust::refs::parse_lesson;
use crate::core::trust::review::{self, Texts};
use crate::core::trust::{Hold, Trust};
use crate::core::words::count;
use crate::edge::generations::{self as stored, Commit, load_log, load_trust, object, tree};
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

/// The pending change, and the handbook it would change.
struct Review {
    pending: Generation,
    proposed: Tree,
    accepted: Texts,
    proposal: Texts,
    changes: Vec<LessonChange>,
}

/// Run `review`.
pub(crate) fn run(settings: &Settings, opts: &ReviewSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    if !workspace.exists() {
        bail!("no handbook workspace in {}: nothing to review", settings.home.display());
    }
    let lock = match opts.decision {
        Decision::Show => None,
        _ => Some(workspace.lock(opts.lock_wait)?),
    };
    if lock.is_some() {
        stored::recover(&workspace)?;
    }
    let mut log = load_log(&workspace)?;
    let manifest = workspace.load_manifest()?;
    let Some(review) = gather(&workspace, &log, &manifest)? else {
        term.note("nothing waits for review: with review on, each consolidation proposes its change here");
        return Ok(());
    };
    let cap = Cap { tokens: Some(settings.summary_max_tokens), chars: None };
    match &opts.decision {
        Decision::Show => show(&review, term),
        Decision::Accept(refs) => {
            check_untouched(&workspace, &manifest, &review.proposed)?;
            let ids = chosen(&review, refs, false)?;
            let texts = match ids.is_empty() {
                true => review.proposal.clone(),
                false => review::partial(&review.accepted, &review.proposal, &ids, cap),
            };
            let whole_change = texts == review.proposal;
            let trust = load_trust(&workspace, term)?;
            let id =
                apply(&workspace, settings, &mut log, &trust, (&review.pending, Made::Accept), &texts, whole_change)?;
            crate::edge::doors::refresh(settings, term);
            let what = if whole_change { "the whole change".to_string() } else { count(ids.len(), "lesson") };
            let left = if whole_change { String::new() } else { "; the rest waits for review".to_string() };
            term.json("review", &serde_json::json!({ "accepted": ids, "generation": id, "pending": !whole_change }))?;
            term.line(&format!(
                "review: accepted {what}{}{left}",
                id.map(|g| format!(" as generation {g}")).unwrap_or_default()
            ))
            .map_err(Into::into)
        }
        Decision::Reject(refs) => reject(&workspace, settings, &mut log, &manifest, &review, refs, cap, term),
    }
}

/// The pending generation and the accepted handbook, when a change waits.
fn gather(workspace: &Workspace, log: &Log, manifest: &Manifest) -> Result<Option<Review>> {
    let Some(pending) = log.pending.clone() else { return Ok(None) };
    let proposed = tree(workspace, &pending.tree)?;
    let read = |files: &Tree, path: &str| files.get(path).map(|h| object(workspace, h)).transpose();
    let accepted = Texts {
        memory: read(&manifest.files, MEMORY)?.unwrap_or_default(),
        summary: read(&manifest.files, SUMMARY)?.unwrap_or_default(),
        whole: workspace.read(WHOLE_SUMMARY)?,
    };
    let proposal = Texts {
        memory: read(&proposed, MEMORY)?.unwrap_or_default(),
        summary: read(&proposed, SUMMARY)?.unwrap_or_default(),
        whole: pending.whole.as_deref().map(|h| object(workspace, h)).transpose()?,
    };
    let changes = lesson_changes(Some(&accepted.memory), Some(&proposal.memory));
    Ok(Some(Review { pending, proposed, accepted, proposal, changes }))
}

fn show(review: &Review, term: &Terminal) -> Result<()> {
    let pending = &review.pending;
    term.line(&format!(
        "pending since {} ({}): {} added, {} changed, {} removed",
        crate::core::layout::timestamp(pending.at),
        pending.engine,
        count(review.changes.iter().filter(|c| c.status == Status::Added).count(), "lesson"),
        review.changes.iter().filter(|c| c.status == Status::Changed).count(),
        review.changes.iter().filter(|c| c.status == Status::Removed).count()
    ))?;
    for change in &review.changes {
        let lesson = change.lesson();
        term.json(
            "lesson",
            &serde_json::json!({
                "status": change.status, "id": lesson.id, "kind": lesson.kind, "project": lesson.project,
                "text": lesson.text, "sessions": lesson.sessions, "note": lesson.note_file,
            }),
        )?;
        term.line("")?;
        for line in change.lines() {
            term.line(&line)?;
        }
        for session in &lesson.sessions {
            term.line(&format!(
                "    from session {} ({}, {})",
                session.session_id, session.updated_at, session.rollout_path
            ))?;
        }
        if let Some(note) = &lesson.note_file {
            term.line(&format!("    from your note {note}"))?;
        }
    }
    if review.changes.is_empty() {
        term.line("no lesson changes: the other lines (tasks, keywords, topics) did")?;
    }
    term.note("`handbook review --accept` applies it all, `--accept REF...` only those lessons; `--reject REF...` holds lessons out until their evidence changes");
    Ok(())
}

/// The lessons `refs` name among the change (`holding`: for a rejection, which a removal
/// cannot be); none named means all.
fn chosen(review: &Review, refs: &[String], holding: bool) -> Result<BTreeSet<LessonId>> {
    let candidates: Vec<Lesson> = review.changes.iter().map(|c| c.lesson().clone()).collect();
    let mut ids = BTreeSet::new();
    for r in refs {
        let lesson =
            parse_lesson(r)?.find(&candidates).map_err(|e| anyhow::anyhow!("{e} (among the pending changes)"))?;
        let removal = review.changes.iter().any(|c| c.status == Status::Removed && c.lesson().id == lesson.id);
        if holding && removal {
            bail!(
                "{} is a removal: its sessions left the handbook (forgotten, aged out or gone), so it cannot be held in; to keep the lesson, write it as a note (`handbook note`)",
                lesson.id
            );
        }
        ids.insert(lesson.id.clone());
    }
    Ok(ids)
}

/// The workspace's inputs must be those the pending change was made from, and the accepted
/// handbook unedited since: otherwise accepting would drop an edit or mix two states.
fn check_untouched(workspace: &Workspace, manifest: &Manifest, proposed: &Tree) -> Result<()> {
    let edited = stored::unconsolidated(workspace, manifest)?;
    if !edited.is_empty() {
        bail!(
            "{} changed since the change was proposed: run `handbook consolidate` (it keeps your edits and proposes again), then review",
            edited.join(" and ")
        );
    }
    let now = workspace.snapshot()?.hashes();
    if inputs(&now) != inputs(proposed) {
        bail!(
            "the workspace's sessions or notes changed since the change was proposed: run `handbook consolidate` to propose it anew, then review"
        );
    }
    Ok(())
}

/// Write `texts` as the accepted handbook and commit them; the pending change stays when
/// only part of it was applied.
fn apply(
    workspace: &Workspace,
    settings: &Settings,
    log: &mut Log,
    trust: &Trust,
    (pending, made): (&Generation, Made),
    texts: &Texts,
    whole_change: bool,
) -> Result<Option<u64>> {
    let mut after: Snapshot = workspace.snapshot()?;
    after.files.insert(MEMORY.to_string(), texts.memory.clone().into_bytes());
    after.files.insert(SUMMARY.to_string(), texts.summary.clone().into_bytes());
    let current = workspace.load_manifest()?;
    let plan = crate::core::trust::generations::restore(&current.files, &after.hashes());
    for text in [&texts.memory, &texts.summary].into_iter().chain(&texts.whole) {
        workspace.store_object(text.as_bytes())?;
    }
    stored::restore(workspace, settings, &plan, texts.whole.as_deref())?;
    if whole_change {
        log.pending = None;
    }
    let manifest = Manifest {
        version: MANIFEST_VERSION,
        renderer: pending.renderer.clone(),
        summary_max_tokens: pending.summary_max_tokens,
        consolidated_at: Some(pending.at),
        files: workspace.snapshot()?.hashes(),
    };
    let after = workspace.snapshot()?;
    let commit = Commit {
        made,
        engine: pending.engine.clone(),
        after: &after,
        whole: texts.whole.as_deref(),
        manifest,
        at: settings.now,
    };
    stored::commit(workspace, settings, log, trust, commit)
}

/// Hold the lessons `refs` names (or every one the change adds or changes) out, and keep
/// what is left of the change pending; commit it when what is left moves no lesson.
#[allow(clippy::too_many_arguments)]
fn reject(
    workspace: &Workspace,
    settings: &Settings,
    log: &mut Log,
    manifest: &Manifest,
    review: &Review,
    refs: &[String],
    cap: Cap,
    term: &Terminal,
) -> Result<()> {
    let ids = match refs.is_empty() {
        true => review.changes.iter().filter(|c| c.status != Status::Removed).map(|c| c.lesson().id.clone()).collect(),
        false => chosen(review, refs, true)?,
    };
    let out: Vec<&Lesson> =
        review.changes.iter().filter_map(|c| c.after.as_ref()).filter(|l| ids.contains(&l.id)).collect();
    let mut trust = load_trust(workspace, term)?;
    trust.hold(&out, Hold::Rejected, settings.now, None);
    let left = review::hold_back(&review.proposal, &out, cap);
    let moves = lesson_changes(Some(&review.accepted.memory), Some(&left.memory));
    let generation = match moves.is_empty() && left.summary == review.accepted.summary {
        // Nothing left to decide: the sessions the change brought are committed as they are.
        true => {
            check_untouched(workspace, manifest, &review.proposed)?;
            apply(workspace, settings, log, &trust, (&review.pending, Made::Reject), &left, true)?
        }
        false => {
            let mut proposed = workspace.snapshot()?;
            proposed.files.insert(MEMORY.to_string(), left.memory.clone().into_bytes());
            proposed.files.insert(SUMMARY.to_string(), left.summary.clone().into_bytes());
            let manifest_then = Manifest { files: proposed.hashes(), ..manifest.clone() };
            let made = review.pending.made;
            let commit = Commit {
                made,
                engine: review.pending.engine.clone(),
                after: &proposed,
                whole: left.whole.as_deref(),
                manifest: manifest_then,
                at: review.pending.at,
            };
            stored::propose(workspace, log, &trust, commit, manifest)?;
            None
        }
    };
    crate::edge::doors::refresh(settings, term);
    term.json(
        "review",
        &serde_json::json!({ "rejected": ids, "generation": generation, "pending": log.pending.is_some() }),
    )?;
    let rest = if log.pending.is_some() { "; the rest waits for review" } else { "" };
    term.line(&format!("review: held back {} until their evidence changes{rest}", count(ids.len(), "lesson")))?;
    Ok(())
}
