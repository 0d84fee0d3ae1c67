//! Generations and trust decisions on disk: `.handbook/generations.json` (the log, see
//! `core::trust::generations`), `.handbook/trust.json` (see `core::trust::Trust`), and the
//! one way a baseline is committed and a generation put back.
//!
//! Crash safety, in the order a commit writes: every file's contents and the tree are stored
//! as objects first (named by their hash, so a copy already there is the same), then the
//! commit record (`.handbook/commit.json`: the log, trust decisions and manifest the commit
//! lands), then the log, the trust decisions and the manifest; what no baseline and no kept
//! generation needs is pruned last, and the record goes. A run killed before the record is
//! written committed nothing; one killed after it is finished ([`finish_commit`]) by the
//! next command that reads or commits generations, under the lock, before it goes on, so no
//! command works from a log naming a generation the manifest does not hold.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::config::Settings;
use crate::core::layout::{MEMORY, RAW_MEMORIES, SUMMARY, WHOLE_SUMMARY};
use crate::core::manifest::{Manifest, Pending, Snapshot, hash};
use crate::core::trust::generations::{self, Generation, Log, Made, Restore, Tree, sessions_of};
use crate::core::trust::{TRUST_VERSION, Trust};
use crate::edge::fault;
use crate::edge::fsio::Home;
use crate::edge::terminal::Terminal;
use crate::edge::workspace::Workspace;

const LOG: &str = ".handbook/generations.json";
/// The most a log holds when no setting says (recording an existing baseline).
const DEFAULT_KEEP: usize = crate::config::table::DEFAULT_KEEP_GENERATIONS;
const TRUST: &str = ".handbook/trust.json";
/// What a commit lands, written before any of it is: see the module's crash safety.
const JOURNAL: &str = ".handbook/commit.json";

/// The three files a commit lands, all at once.
#[derive(Serialize, Deserialize)]
struct Journal {
    log: Log,
    trust: Trust,
    manifest: Manifest,
}

/// The log, or an empty one when there is none yet.
///
/// # Errors
///
/// A damaged or newer log, naming the file and what to do.
pub(crate) fn load_log(workspace: &Workspace) -> Result<Log> {
    let path = workspace.file(LOG);
    let log: Log = Home::new(&workspace.home).read_json(&path)?.unwrap_or_default();
    if log.version > generations::LOG_VERSION {
        bail!("{} was written by a newer handbook (version {}); upgrade handbook", path.display(), log.version);
    }
    Ok(log)
}

/// The log for a run that must not stop over it: a damaged one is set aside (renamed
/// `.damaged`, so nothing is lost) with a warning, and a new log starts.
pub(crate) fn load_log_or_start_anew(workspace: &Workspace, term: &Terminal) -> Result<Log> {
    match load_log(workspace) {
        Ok(log) => Ok(log),
        Err(e) => {
            let path = workspace.file(LOG);
            let aside = path.with_extension("json.damaged");
            Home::new(&workspace.home).rename(&path, &aside)?;
            term.warn(&format!("{e:#}; set aside as {}, and the list of generations starts again", aside.display()));
            Ok(Log::default())
        }
    }
}

pub(crate) fn save_log(workspace: &Workspace, log: &Log) -> Result<()> {
    Home::new(&workspace.home).write_json(&workspace.file(LOG), log)
}

/// The trust decisions, or none yet.
///
/// # Errors
///
/// A damaged or newer file, naming it and what to do.
pub(crate) fn read_trust(workspace: &Workspace) -> Result<Trust> {
    let path = workspace.file(TRUST);
    let trust: Trust = Home::new(&workspace.home).read_json(&path)?.unwrap_or_default();
    if trust.version > TRUST_VERSION {
        bail!("{} was written by a newer handbook (version {}); upgrade handbook", path.display(), trust.version);
    }
    Ok(trust)
}

/// The trust decisions for a run that must not stop over them: a damaged file is set aside
/// with a warning, which says what it held (held-back lessons, promotions, freshness checks)
/// is lost.
pub(crate) fn load_trust(workspace: &Workspace, term: &Terminal) -> Result<Trust> {
    let path = workspace.file(TRUST);
    let home = Home::new(&workspace.home);
    match read_trust(workspace) {
        Ok(trust) => Ok(trust),
        Err(e) if e.to_string().contains("newer handbook") => Err(e),
        Err(e) => {
            let aside = path.with_extension("json.damaged");
            home.rename(&path, &aside)?;
            term.warn(&format!(
                "{e:#}; set aside as {}: lessons it held back may come back, and promotions and freshness checks start again",
                aside.display()
            ));
            Ok(Trust::default())
        }
    }
}

pub(crate) fn save_trust(workspace: &Workspace, trust: &Trust) -> Result<()> {
    Home::new(&workspace.home).write_json(&workspace.file(TRUST), trust)
}

/// Store a tree as an object; its hash.
pub(crate) fn store_tree(workspace: &Workspace, tree: &Tree) -> Result<String> {
    let bytes = serde_json::to_vec(tree).context("cannot encode a generation's tree")?;
    workspace.store_object(&bytes)
}

/// The tree stored under `hash`.
///
/// # Errors
///
/// When it is missing or damaged, naming it.
pub(crate) fn tree(workspace: &Workspace, hash: &str) -> Result<Tree> {
    let text = object(workspace, hash)?;
    serde_json::from_str(&text).with_context(|| format!(".handbook/objects/{hash} is not a generation's tree"))
}

/// The stored contents under `hash`, checked against it.
///
/// # Errors
///
/// When they are missing or do not match their hash.
pub(crate) fn object(workspace: &Workspace, hash_of: &str) -> Result<String> {
    match workspace.object(hash_of)? {
        Some(text) if hash(text.as_bytes()) == hash_of => Ok(text),
        Some(_) => bail!(".handbook/objects/{hash_of} is damaged (its contents do not match their hash)"),
        None => bail!(".handbook/objects/{hash_of} is missing"),
    }
}

/// A file of a generation, or `None` when the generation has no such file.
pub(crate) fn file_of(workspace: &Workspace, generation: &Generation, path: &str) -> Result<Option<String>> {
    let tree = tree(workspace, &generation.tree)?;
    tree.get(path).map(|h| object(workspace, h)).transpose()
}

/// Remove the objects that neither the manifest nor any kept generation needs. A tree that
/// cannot be read stops the pruning (nothing is removed), so a damaged log never costs a
/// generation its files.
pub(crate) fn prune(workspace: &Workspace, manifest: &Manifest, log: &Log) -> Result<()> {
    let mut keep: BTreeSet<String> = manifest.files.values().cloned().collect();
    for generation in log.generations.iter().chain(&log.pending) {
        keep.extend(generation.whole.clone());
        keep.insert(generation.tree.clone());
        match tree(workspace, &generation.tree) {
            Ok(tree) => keep.extend(tree.into_values()),
            Err(_) => return Ok(()),
        }
    }
    workspace.prune_objects(&keep.iter().collect())
}

/// The workspace is as the manifest records it: what a run killed after committing left
/// behind (the record of its writes, stored copies nothing needs) goes.
pub(crate) fn tidy(workspace: &Workspace, manifest: &Manifest, log: &Log) -> Result<()> {
    prune(workspace, manifest, log)?;
    workspace.clear_pending()
}

/// What a commit records.
pub(crate) struct Commit<'a> {
    pub(crate) made: Made,
    pub(crate) engine: String,
    /// The workspace as it is once committed.
    pub(crate) after: &'a Snapshot,
    /// The summary before its cap, when there is one.
    pub(crate) whole: Option<&'a str>,
    /// The baseline to save.
    pub(crate) manifest: Manifest,
    pub(crate) at: Timestamp,
}

/// The generation a commit records (its id is given when it is recorded).
fn generation(workspace: &Workspace, log: &Log, commit: &Commit) -> Result<Generation> {
    for bytes in commit.after.files.values() {
        workspace.store_object(bytes)?;
    }
    let whole = commit.whole.map(|w| workspace.store_object(w.as_bytes())).transpose()?;
    let tree = store_tree(workspace, &commit.after.hashes())?;
    let sessions: Vec<String> =
        commit.after.text(RAW_MEMORIES).map(|raw| sessions_of(&raw).into_keys().collect()).unwrap_or_default();
    let parent = log.current();
    // A parent whose copy is gone is compared as no handbook: every lesson counts as added.
    let parent_memory = parent.and_then(|p| file_of(workspace, p, MEMORY).ok().flatten());
    let parent_sessions = parent.map(|p| p.sessions.clone()).unwrap_or_default();
    let new_memory = commit.after.text(MEMORY);
    let changes = generations::changes(parent_memory.as_deref(), new_memory.as_deref(), &parent_sessions, &sessions);
    Ok(Generation {
        id: 0,
        at: commit.at,
        made: commit.made,
        engine: commit.engine.clone(),
        tree,
        whole,
        renderer: commit.manifest.renderer.clone(),
        summary_max_tokens: commit.manifest.summary_max_tokens,
        sessions,
        changes,
    })
}

/// Commit the workspace as `commit.after` is (its files already written): record a
/// generation (none when the newest has the same tree), save the trust decisions and the new
/// baseline, and prune. The id of the generation recorded.
pub(crate) fn commit(
    workspace: &Workspace,
    settings: &Settings,
    log: &mut Log,
    trust: &Trust,
    commit: Commit,
) -> Result<Option<u64>> {
    let generation = generation(workspace, log, &commit)?;
    fault::point(settings, "commit-objects");
    let id = log.record(generation, keep_generations(settings));
    let journal = Journal { log: log.clone(), trust: trust.clone(), manifest: commit.manifest };
    Home::new(&workspace.home).write_json(&workspace.file(JOURNAL), &journal)?;
    save_log(workspace, log)?;
    fault::point(settings, "commit-log");
    save_trust(workspace, trust)?;
    workspace.save_manifest(&journal.manifest)?;
    fault::point(settings, "commit-manifest");
    land(workspace, &journal)?;
    Ok(id)
}

/// Finish what the commit record says (each write is the same again), then prune, forget
/// the writes it covered and drop the record.
fn land(workspace: &Workspace, journal: &Journal) -> Result<()> {
    save_log(workspace, &journal.log)?;
    save_trust(workspace, &journal.trust)?;
    workspace.save_manifest(&journal.manifest)?;
    prune(workspace, &journal.manifest, &journal.log)?;
    workspace.clear_pending()?;
    Home::new(&workspace.home).remove_file(&workspace.file(JOURNAL))
}

/// Finish a commit a killed run left halfway (its record is there): the log, trust
/// decisions and manifest end as that run would have left them. The caller holds the lock.
///
/// # Errors
///
/// A damaged record, naming it and what to do.
pub(crate) fn finish_commit(workspace: &Workspace) -> Result<()> {
    let path = workspace.file(JOURNAL);
    let journal: Option<Journal> = Home::new(&workspace.home).read_json(&path).with_context(|| {
        format!("the commit {} records cannot be finished; remove it to keep the last finished one", path.display())
    })?;
    journal.map_or(Ok(()), |journal| land(workspace, &journal))
}

/// For a command that only reads: finish a commit a killed run left halfway when the lock
/// is free, so what it shows is what the next command works from. A run holding the lock
/// finishes its own commit; the files are read as they are meanwhile.
pub(crate) fn finish_commit_when_free(workspace: &Workspace) -> Result<()> {
    if !Home::new(&workspace.home).exists(&workspace.file(JOURNAL))? {
        return Ok(());
    }
    match workspace.lock(std::time::Duration::ZERO) {
        Ok(_lock) => finish_commit(workspace),
        Err(_) => Ok(()),
    }
}

/// The workspace as its last commit left it, before a command reads or commits
/// generations: a commit halfway done is finished ([`finish_commit`]), and what a run that
/// never committed wrote of the handbook is put back as the manifest records it (see
/// [`roll_back_uncommitted`]). The caller holds the lock.
pub(crate) fn recover(workspace: &Workspace) -> Result<()> {
    finish_commit(workspace)?;
    roll_back_uncommitted(workspace)
}

/// Put back the handbook files a run killed before committing wrote (those `pending.json`
/// names, still as it wrote them), from the baseline's stored copies, and forget them: a
/// consolidation would have rebuilt them anyway. When one was edited since, or a copy is
/// lost, nothing is touched and the record stays, so the next consolidation still tells
/// handbook's lines from the edit.
fn roll_back_uncommitted(workspace: &Workspace) -> Result<()> {
    let pending = workspace.load_pending()?;
    if pending.is_empty() {
        return Ok(());
    }
    let manifest = workspace.load_manifest()?;
    let mut back: BTreeMap<&String, Option<String>> = BTreeMap::new();
    for (path, written) in &pending {
        let now = workspace.read_bytes(path)?.map(|b| hash(&b));
        if now.as_ref() == manifest.files.get(path) {
            continue;
        }
        if now.as_ref() != Some(written) {
            return Ok(());
        }
        match manifest.files.get(path).map(|h| object(workspace, h)) {
            Some(Ok(text)) => back.insert(path, Some(text)),
            Some(Err(_)) => return Ok(()),
            None => back.insert(path, None),
        };
    }
    for (path, text) in &back {
        match text {
            Some(text) => workspace.write(path, text)?,
            None => workspace.remove(path)?,
        }
    }
    if !back.is_empty() {
        put_back_whole(workspace, &manifest)?;
    }
    workspace.clear_pending()
}

/// The summary before its cap as the committed generation holds it, when the log's newest
/// generation is the manifest's.
fn put_back_whole(workspace: &Workspace, manifest: &Manifest) -> Result<()> {
    let log = load_log(workspace)?;
    let Some(current) = log.current() else { return Ok(()) };
    if tree(workspace, &current.tree).ok().as_ref() != Some(&manifest.files) {
        return Ok(());
    }
    match current.whole.as_deref().map(|h| object(workspace, h)).transpose()? {
        Some(whole) => workspace.write(WHOLE_SUMMARY, &whole),
        None => workspace.remove(WHOLE_SUMMARY),
    }
}

/// Record `commit` in the log alone: its baseline is already the manifest.
pub(crate) fn record(workspace: &Workspace, log: &mut Log, commit: Commit) -> Result<()> {
    let generation = generation(workspace, log, &commit)?;
    log.record(generation, DEFAULT_KEEP);
    save_log(workspace, log)
}

/// Keep `commit` as the pending generation instead (review mode): its files are stored, the
/// workspace's handbook is not touched. False when the same change was pending already.
pub(crate) fn propose(
    workspace: &Workspace,
    log: &mut Log,
    trust: &Trust,
    commit: Commit,
    current: &Manifest,
) -> Result<bool> {
    let generation = generation(workspace, log, &commit)?;
    let same = log.pending.as_ref().is_some_and(|p| p.tree == generation.tree && p.whole == generation.whole);
    if !same {
        log.pending = Some(generation);
    }
    save_log(workspace, log)?;
    save_trust(workspace, trust)?;
    prune(workspace, current, log)?;
    Ok(!same)
}

/// How many generations to keep.
pub(crate) fn keep_generations(settings: &Settings) -> usize {
    settings.keep_generations
}

/// Put back the files `plan` names from their stored copies (the summary before its cap
/// too, or none), every copy checked before anything is written. What is written is noted
/// as handbook's own first, so a run killed halfway does not take it for a hand edit.
pub(crate) fn restore(workspace: &Workspace, settings: &Settings, plan: &Restore, whole: Option<&str>) -> Result<()> {
    let mut texts: BTreeMap<&String, String> = BTreeMap::new();
    for (path, hash_of) in &plan.writes {
        let text = object(workspace, hash_of).with_context(|| format!("{path} cannot be put back"))?;
        texts.insert(path, text);
    }
    let own: Pending = plan
        .writes
        .iter()
        .filter(|(p, _)| [MEMORY, SUMMARY].contains(&p.as_str()))
        .map(|(p, h)| (p.clone(), h.clone()))
        .collect();
    workspace.save_pending(&own)?;
    for (index, (path, text)) in texts.iter().enumerate() {
        if index == 1 {
            fault::point(settings, "restore-between-writes");
        }
        workspace.write(path, text)?;
    }
    for path in &plan.removes {
        workspace.remove(path)?;
    }
    match whole {
        Some(whole) => workspace.write(WHOLE_SUMMARY, whole),
        None => workspace.remove(WHOLE_SUMMARY),
    }
}

/// Forget `sessions` in the generations and the trust decisions: every kept generation (and
/// the pending one) that holds one is dropped, and the stored copies only they needed are
/// removed, so nothing of a forgotten session stays but what the current handbook holds
/// until the next consolidation. The generations dropped.
pub(crate) fn forget(workspace: &Workspace, sessions: &[String], term: &Terminal) -> Result<Vec<u64>> {
    // A commit left halfway would otherwise land later with the forgotten sessions in it.
    finish_commit(workspace)?;
    let mut log = load_log_or_start_anew(workspace, term)?;
    let mut trust = load_trust(workspace, term)?;
    let mut dropped = Vec::new();
    for session in sessions {
        dropped.extend(log.forget(session));
        trust.forget(session);
    }
    save_log(workspace, &log)?;
    save_trust(workspace, &trust)?;
    // A baseline that cannot be read says nothing of what it needs: nothing is pruned then.
    if let Ok(manifest) = workspace.load_manifest() {
        prune(workspace, &manifest, &log)?;
    }
    dropped.sort_unstable();
    dropped.dedup();
    Ok(dropped)
}

/// What `status` and `doctor` report of generations and lessons.
pub(crate) fn overview(workspace: &Workspace) -> Result<crate::core::trust::Overview> {
    let log = load_log(workspace)?;
    let trust = read_trust(workspace)?;
    let memory = workspace.read(MEMORY)?.unwrap_or_default();
    Ok(crate::core::trust::Overview::of(&trust, &log, &memory))
}

/// The handbook files differ from the baseline (edited by hand since, or written by a run
/// that did not commit): an undo or an accept would overwrite them. Which ones.
pub(crate) fn unconsolidated(workspace: &Workspace, manifest: &Manifest) -> Result<Vec<&'static str>> {
    let pending = workspace.load_pending()?;
    let mut out = Vec::new();
    for file in [MEMORY, SUMMARY] {
        let now = workspace.read_bytes(file)?.map(|b| hash(&b));
        let committed = manifest.files.get(file);
        if now.as_ref() != committed && (now.is_none() || now.as_ref() != pending.get(file)) {
            out.push(file);
        }
    }
    Ok(out)
}
