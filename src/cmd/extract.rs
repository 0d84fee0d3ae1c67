//! `handbook extract`: discover transcripts, decide which need reading, run each through the
//! core, store the stage-1 records and the per-file state, and account for every file in the
//! coverage line.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use jiff::Timestamp;
use serde::Serialize;

use crate::config::{ExtractSettings, Settings};
use crate::core::extract::{Context, EXTRACTOR_VERSION, Extraction, Extractor, Memory};
use crate::core::model::transcript::ModelTranscript;
use crate::core::model::{StageOne, StageOneInput, facts_from_answer};
use crate::core::redact::redact_meta;
use crate::core::session::{Agent, LineWarning};
use crate::core::stage1::{STAGE1_VERSION, Stage1};
use crate::core::state::{Coverage, FileStat, GAVE_UP, Plan, SourceEntry, SourceState, Sources, Windows, plan, usage};
use crate::core::words::count;
use crate::edge::discover::{discover, under_roots};
use crate::edge::git::Projects;
use crate::edge::model::CallError;
use crate::edge::model::{EXTRACT_TEMPLATES, Model};
use crate::edge::terminal::Terminal;
use crate::edge::transcript::{FileRead, hash_file, read_transcript};
use crate::edge::workspace::Workspace;

/// Warnings printed per file before the rest are only counted.
const WARNINGS_SHOWN_PER_FILE: usize = 10;

/// What happened to one file this run, for the report.
#[derive(Debug, Serialize)]
struct SessionReport {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<Agent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<String>,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    tasks: usize,
    preferences: usize,
    verified_commands: usize,
    fixes: usize,
    unresolved_errors: usize,
    files_touched: usize,
    warnings: Vec<LineWarning>,
}

impl SessionReport {
    fn new(path: &str, outcome: &'static str) -> SessionReport {
        SessionReport {
            path: path.to_string(),
            agent: None,
            session_id: None,
            outcome,
            reason: None,
            project: None,
            title: None,
            tasks: 0,
            preferences: 0,
            verified_commands: 0,
            fixes: 0,
            unresolved_errors: 0,
            files_touched: 0,
            warnings: Vec::new(),
        }
    }

    fn counts_from(&mut self, memory: &Memory) {
        let tasks = &memory.facts.tasks;
        self.tasks = tasks.len();
        self.preferences = tasks.iter().map(|t| t.preferences.len()).sum();
        self.verified_commands = tasks.iter().map(|t| t.verified.len()).sum();
        self.fixes = tasks.iter().map(|t| t.fixes.len()).sum();
        self.unresolved_errors = tasks.iter().map(|t| t.unresolved.len()).sum();
        self.files_touched = tasks.iter().map(|t| t.files.len()).sum();
        self.title = tasks.first().map(|t| t.title.clone());
    }

    /// The one-line text form.
    fn line(&self) -> String {
        let detail = match self.outcome {
            "extracted" => {
                let mut parts = vec![count(self.tasks, "task")];
                for (n, noun) in [
                    (self.preferences, "preference"),
                    (self.verified_commands, "verified command"),
                    (self.fixes, "fix"),
                    (self.unresolved_errors, "unresolved error"),
                ] {
                    if n > 0 {
                        parts.push(count(n, noun));
                    }
                }
                parts.join(", ")
            }
            "no-op" => "nothing reusable".to_string(),
            _ => self.reason.clone().unwrap_or_default(),
        };
        format!("{}: {} ({detail})", self.outcome, self.path)
    }
}

/// Run `extract`.
pub fn run(settings: &Settings, opts: &ExtractSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    let _lock = if opts.dry_run { None } else { Some(workspace.lock(opts.lock_wait)?) };
    let mut sources = workspace.load_sources()?;
    let found = discover(&opts.sources);
    for warning in &found.warnings {
        term.warn(warning);
    }
    for missing in &found.missing {
        term.warn(&format!("{}: source does not exist; skipped", missing.display()));
    }
    if found.roots.is_empty() && !found.missing.is_empty() {
        bail!("none of the given sources exist; check the paths");
    }
    if found.roots.is_empty() {
        let tried: Vec<String> = opts.sources.iter().map(|s| s.path.display().to_string()).collect();
        term.note(&format!(
            "no transcripts found: none of the default sources exist ({}); pass a SOURCE",
            tried.join(", ")
        ));
    }

    let mut run = Run {
        workspace: &workspace,
        opts,
        term,
        coverage: Coverage { warnings: found.warnings.len() as u64, ..Coverage::default() },
        reports: Vec::new(),
        projects: Projects::new(),
        usage_changed: BTreeSet::new(),
        model: match opts.engine.is_model() && !opts.dry_run {
            true => Some(Model::new(&opts.engine, settings.config_dir.as_deref(), EXTRACT_TEMPLATES)?),
            false => None,
        },
        stopped: None,
    };
    // Naming sessions means wanting them read, whatever their age.
    let all = opts.all || !opts.sessions.is_empty();
    let windows = Windows { now: settings.now, min_idle: opts.min_idle, max_age: opts.max_age, all };
    let mut to_read: Vec<(PathBuf, String, FileStat)> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let present: BTreeSet<String> = found.files.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let mut moved = moved_candidates(&sources, &present);
    for path in &found.files {
        let key = path.to_string_lossy().into_owned();
        if !selected(&opts.sessions, &key, sources.sources.get(&key)) {
            continue;
        }
        seen.insert(key.clone());
        run.coverage.sessions += 1;
        let stat = match stat_of(path) {
            Ok(stat) => stat,
            Err(e) => {
                run.fail(&key, None, None, &format!("{e:#}"), &mut sources);
                continue;
            }
        };
        if !sources.sources.contains_key(&key)
            && let Some(old) = moved.remove(&(stat.size, stat.mtime_ns))
            && run.adopt_moved(&old, &key, path, &mut sources)?
        {
            run.coverage.unchanged += 1;
            continue;
        }
        let entry = sources.sources.get(&key);
        if entry.is_some_and(|e| needs_revisit(e, opts, &present)) {
            to_read.push((path.clone(), key, stat));
            continue;
        }
        match plan(entry, stat, windows) {
            Plan::Unchanged => run.coverage.unchanged += 1,
            Plan::Active => run.coverage.still_active += 1,
            Plan::TooOld => run.coverage.too_old += 1,
            Plan::GaveUp => {
                let reason = entry.and_then(|e| e.last_error.clone()).unwrap_or_default();
                run.coverage.failed += 1;
                run.coverage
                    .failures
                    .push((key.clone(), format!("{GAVE_UP} {} tries: {reason}", crate::core::state::MAX_TRIES)));
            }
            Plan::Read => to_read.push((path.clone(), key, stat)),
        }
    }
    // Newest first, so a limit keeps the sessions most worth having.
    to_read.sort_by(|a, b| b.2.mtime_ns.cmp(&a.2.mtime_ns).then_with(|| a.1.cmp(&b.1)));
    if let Some(limit) = opts.limit
        && to_read.len() > limit
    {
        run.coverage.deferred = (to_read.len() - limit) as u64;
        to_read.truncate(limit);
    }
    // Read newest first too: when a model's token allowance runs out, what waits is the
    // oldest. The report is sorted by path, so the order does not show.

    let bar = term.progress(to_read.len() as u64, "extract");
    for (index, (path, key, stat)) in to_read.iter().enumerate() {
        if run.stopped.is_some() || run.out_of_tokens() {
            // What is left waits for the next run, untouched.
            run.coverage.deferred += (to_read.len() - index) as u64;
            break;
        }
        bar.set_message(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        run.process(path, key, *stat, &mut sources)?;
        bar.inc(1);
    }
    bar.finish_and_clear();

    if opts.sessions.is_empty() {
        for (key, entry) in sources.sources.iter_mut() {
            let gone = !seen.contains(key) && under_roots(Path::new(key), &found.roots) && !Path::new(key).exists();
            if gone && entry.state != SourceState::Vanished {
                entry.state = SourceState::Vanished;
                run.coverage.vanished += 1;
                run.usage_changed.extend(entry.cited.keys().cloned());
            }
        }
    }
    let Run { mut coverage, mut reports, usage_changed, stopped, .. } = run;
    if !opts.dry_run {
        sources.last_extract = Some(settings.now);
        workspace.save_sources(&sources)?;
        sync_usage(&workspace, &sources, &usage_changed)?;
    }
    report(term, &mut reports, &mut coverage, opts.dry_run)?;
    hints(term, opts, &coverage);
    match stopped {
        Some(reason) => bail!("extraction stopped: {reason}"),
        None => Ok(()),
    }
}

/// What to try when a run found nothing to do for a reason a flag changes.
fn hints(term: &Terminal, opts: &ExtractSettings, coverage: &Coverage) {
    if !opts.sessions.is_empty() && coverage.sessions == 0 {
        term.note(&format!(
            "no transcript matches --session {}: give a session id or a part of a transcript's path",
            opts.sessions.join(", ")
        ));
    }
    if coverage.still_active > 0 && coverage.extracted + coverage.no_op == 0 {
        term.note(&format!(
            "sessions written to in the last {} h count as still active; --min-idle 0 (or --all) reads them now",
            opts.min_idle.as_secs_f64() / 3600.0
        ));
    }
    if coverage.too_old > 0 && coverage.extracted + coverage.no_op == 0 {
        term.note(&format!(
            "sessions untouched for over {} days are too old; --max-age (or --all) reads them",
            opts.max_age.as_secs_f64() / 86_400.0
        ));
    }
}

/// The stored extraction when a model answered: its texts, with the built-in extractor's
/// facts (what consolidation lays out and merges), or facts read from the answer when the
/// built-in extractor found nothing. The model's no-op is final.
fn with_answer(builtin: Extraction, answer: StageOne) -> Extraction {
    let StageOne::Memory { raw_memory, rollout_summary, rollout_slug } = answer else {
        return Extraction::NoOp;
    };
    let facts = match builtin {
        Extraction::Memory(memory) => memory.facts,
        Extraction::NoOp => facts_from_answer(&raw_memory, &rollout_summary),
    };
    Extraction::Memory(Box::new(Memory { facts, rollout_summary, raw_memory, rollout_slug }))
}

fn stat_of(path: &Path) -> Result<FileStat> {
    let meta = std::fs::metadata(path).map_err(|e| anyhow::anyhow!("cannot read file metadata: {e}"))?;
    let mtime_ns = meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok()).map_or(0, |t| t.as_nanosecond());
    Ok(FileStat { size: meta.len(), mtime_ns })
}

/// True when `--session` is not given, or names this file by session id or path text.
fn selected(sessions: &[String], key: &str, entry: Option<&SourceEntry>) -> bool {
    sessions.is_empty()
        || sessions
            .iter()
            .any(|s| key.contains(s.as_str()) || entry.and_then(|e| e.session_id.as_deref()) == Some(s.as_str()))
}

struct Run<'a> {
    workspace: &'a Workspace,
    opts: &'a ExtractSettings,
    term: &'a Terminal,
    coverage: Coverage,
    reports: Vec<SessionReport>,
    projects: Projects,
    /// Sessions whose usage may have changed this run: cited before or now by a transcript
    /// read this run, or extracted this run.
    usage_changed: BTreeSet<String>,
    /// The model, unless the engine is the built-in one.
    model: Option<Model>,
    /// Why the run stopped early: a problem every session would hit (a refused key, a
    /// server that cannot be reached).
    stopped: Option<String>,
}

impl Run<'_> {
    /// Record a file that could not be read. Its earlier extraction, if any, stays.
    /// `read_hash` is the content hash of the read that failed, when the file was read.
    fn fail(
        &mut self,
        key: &str,
        stat: Option<FileStat>,
        read_hash: Option<&str>,
        reason: &str,
        sources: &mut Sources,
    ) {
        self.coverage.failed += 1;
        self.coverage.failures.push((key.to_string(), reason.to_string()));
        let mut report = SessionReport::new(key, "failed");
        report.reason = Some(reason.to_string());
        self.reports.push(report);
        if self.opts.dry_run {
            return;
        }
        let entry = sources.sources.entry(key.to_string()).or_insert_with(|| blank_entry(SourceState::Failed));
        // A changed transcript starts the count again; a touch alone (same bytes) does not.
        let stat_changed = stat.is_some_and(|s| s.size != entry.size || s.mtime_ns != entry.mtime_ns);
        let hash = match read_hash {
            Some(hash) => Some(hash.to_string()),
            None if stat_changed => hash_file(Path::new(key)).ok(),
            None => entry.hash.clone(),
        };
        let changed = stat_changed && (hash.is_none() || hash != entry.hash);
        entry.tries = if changed { 1 } else { entry.tries + 1 };
        if hash.is_some() {
            entry.hash = hash;
        }
        if let Some(stat) = stat {
            entry.size = stat.size;
            entry.mtime_ns = stat.mtime_ns;
        }
        entry.state = SourceState::Failed;
        entry.last_error = Some(reason.to_string());
    }

    fn process(&mut self, path: &Path, key: &str, stat: FileStat, sources: &mut Sources) -> Result<()> {
        let prior = sources.sources.get(key).cloned();
        // Touched but not changed: the content hash says so without a full read.
        if let Some(prior) = &prior
            && !needs_revisit(prior, self.opts, &BTreeSet::from([key.to_string()]))
            && prior.size == stat.size
            && matches!(
                prior.state,
                SourceState::Extracted | SourceState::NoOp | SourceState::Excluded | SourceState::Skipped
            )
            && let Some(old_hash) = &prior.hash
            && hash_file(path).ok().as_ref() == Some(old_hash)
        {
            self.coverage.unchanged += 1;
            if !self.opts.dry_run
                && let Some(entry) = sources.sources.get_mut(key)
            {
                entry.mtime_ns = stat.mtime_ns;
            }
            return Ok(());
        }
        let budget = self.model.as_ref().map(Model::transcript_budget);
        let read =
            match read_transcript(path, self.opts.format, || (Extractor::new(), budget.map(ModelTranscript::new))) {
                Ok(read) => read,
                Err(e) => {
                    self.fail(key, Some(stat), None, &format!("{:#}", e.root_cause()), sources);
                    return Ok(());
                }
            };
        let (agent, finished, hash) = match read {
            FileRead::NotATranscript { reason, hash } => {
                self.coverage.skipped += 1;
                self.coverage.warnings += 1;
                self.coverage.count_reason("skipped", &reason);
                self.term.warn(&format!("{key}: {reason}; skipped"));
                let mut report = SessionReport::new(key, "skipped");
                report.reason = Some(reason.clone());
                self.reports.push(report);
                let entry = SourceEntry {
                    reason: Some(reason),
                    hash: Some(hash),
                    forced_format: self.opts.format.is_some(),
                    ..stat_entry(stat, SourceState::Skipped)
                };
                self.settle(key, entry, sources);
                return Ok(());
            }
            FileRead::Session { agent, finished, hash } => (agent, finished, hash),
        };
        self.print_warnings(key, &finished.warnings);
        self.coverage.warnings += finished.warnings.len() as u64;
        let finished = *finished;
        let mut meta = finished.meta;
        redact_meta(&mut meta);
        let session_id = meta.id.clone().unwrap_or_else(|| key.to_string());
        let mut report = SessionReport::new(key, "extracted");
        report.agent = Some(agent);
        report.session_id = Some(session_id.clone());
        report.warnings = finished.warnings.clone();
        // Handbook's own prompts quote other sessions' replies: their citations are not uses.
        let cited = if finished.own_prompt { BTreeMap::new() } else { finished.sink.0.citations(meta.id.as_deref()) };
        if let Some(prior) = &prior {
            self.usage_changed.extend(prior.cited.keys().cloned());
        }
        self.usage_changed.extend(cited.keys().cloned());
        let mut entry = SourceEntry {
            format: Some(agent),
            forced_format: self.opts.format.is_some(),
            session_id: Some(session_id.clone()),
            hash: Some(hash.clone()),
            updated_at: meta.updated,
            warnings: finished.warnings.len() as u32,
            cited,
            ..stat_entry(stat, SourceState::Extracted)
        };

        let exclusion = if finished.own_prompt {
            Some("handbook's own prompt")
        } else if meta.is_subagent && !self.opts.include_subagents {
            Some("sub-agent")
        } else if sources.excluded.contains(&session_id) {
            Some("forgotten")
        } else {
            None
        };
        let duplicate_of = duplicate_owner(sources, key, &session_id);
        if let Some(reason) = exclusion.map(str::to_string).or(duplicate_of.map(|p| format!("duplicate of {p}"))) {
            self.coverage.excluded += 1;
            let class = if reason.starts_with("duplicate") { "duplicate" } else { reason.as_str() };
            self.coverage.count_reason("excluded", class);
            report.outcome = "excluded";
            report.reason = Some(reason.clone());
            entry.state = SourceState::Excluded;
            entry.reason = Some(reason);
            if !self.opts.dry_run && !reason_is_duplicate(&entry) {
                self.forget_stage1_of(&session_id, key)?;
            }
            self.reports.push(report);
            self.settle(key, entry, sources);
            return Ok(());
        }

        let project = self.projects.key(meta.git_remote.as_deref(), meta.cwd.as_deref());
        report.project = Some(project.clone());
        let context = Context { agent: agent.name().to_string(), project: project.clone() };
        let (extractor, transcript) = finished.sink;
        let builtin = extractor.finish(&meta, &context);
        let extraction = match (self.model.as_mut(), transcript) {
            (Some(model), Some(transcript)) => {
                let transcript = transcript.finish();
                let session = StageOneInput {
                    rollout_path: key,
                    cwd: meta.cwd.as_deref().unwrap_or("unknown"),
                    agent: agent.name(),
                    project: &project,
                    transcript: &transcript,
                };
                match model.stage_one(&session) {
                    Ok(answer) => with_answer(builtin, answer),
                    Err(CallError::Call(reason) | CallError::Malformed(reason)) => {
                        self.fail(key, Some(stat), Some(&hash), &format!("model: {reason}"), sources);
                        return Ok(());
                    }
                    Err(CallError::Setup(reason)) => {
                        self.stopped = Some(reason);
                        self.coverage.deferred += 1;
                        return Ok(());
                    }
                }
            }
            _ => builtin,
        };
        match extraction {
            Extraction::NoOp => {
                self.coverage.no_op += 1;
                report.outcome = "no-op";
                entry.state = SourceState::NoOp;
                if !self.opts.dry_run {
                    self.forget_stage1_of(&session_id, key)?;
                }
            }
            Extraction::Memory(memory) => {
                self.coverage.extracted += 1;
                report.counts_from(&memory);
                self.usage_changed.insert(session_id.clone());
                if !self.opts.dry_run {
                    let earlier = self.load_stage1_or_warn(&session_id);
                    let record = Stage1 {
                        version: STAGE1_VERSION,
                        session_id: session_id.clone(),
                        agent,
                        rollout_path: key.to_string(),
                        cwd: meta.cwd.clone(),
                        project,
                        git_branch: meta.git_branch.clone(),
                        started_at: meta.started,
                        updated_at: meta.updated.unwrap_or_else(|| stat.modified()),
                        title: meta.title.clone(),
                        source_hash: hash,
                        rollout_slug: memory.rollout_slug,
                        rollout_summary: memory.rollout_summary,
                        raw_memory: memory.raw_memory,
                        facts: memory.facts,
                        usage_count: earlier.as_ref().map_or(0, |e| e.usage_count),
                        last_usage: earlier.and_then(|e| e.last_usage),
                    };
                    self.workspace.save_stage1(&record)?;
                }
            }
        }
        self.reports.push(report);
        self.settle(key, entry, sources);
        Ok(())
    }

    /// True once the model has been sent the run's allowance of input tokens.
    fn out_of_tokens(&self) -> bool {
        match (&self.model, self.opts.max_input_tokens_per_run) {
            (Some(model), Some(max)) => model.sent_tokens() >= max,
            _ => false,
        }
    }

    /// Remove the stored extraction of `session_id` when it came from this file.
    fn forget_stage1_of(&self, session_id: &str, key: &str) -> Result<()> {
        if let Some(record) = self.load_stage1_or_warn(session_id)
            && record.rollout_path == key
        {
            self.workspace.remove_stage1(session_id)?;
        }
        Ok(())
    }

    /// A stored record, or `None` with a warning when it is damaged: one bad file never
    /// stops a run, and the record is rewritten from its transcript.
    fn load_stage1_or_warn(&self, session_id: &str) -> Option<Stage1> {
        self.workspace.load_stage1(session_id).unwrap_or_else(|e| {
            self.term.warn(&format!("{e:#}; it is rewritten from its transcript"));
            None
        })
    }

    /// Take over the state of a transcript that moved here unchanged (Codex archives
    /// sessions by moving them): its record follows it. False when the content differs.
    fn adopt_moved(&mut self, old: &str, key: &str, path: &Path, sources: &mut Sources) -> Result<bool> {
        let Some(entry) = sources.sources.get(old).cloned() else { return Ok(false) };
        // A failed file is read again wherever it is; only a settled state follows a move.
        if entry.state == SourceState::Failed || entry.hash.is_none() || hash_file(path).ok() != entry.hash {
            return Ok(false);
        }
        if self.opts.dry_run {
            return Ok(true);
        }
        if let Some(id) = &entry.session_id
            && let Some(mut record) = self.load_stage1_or_warn(id)
            && record.rollout_path == old
        {
            record.rollout_path = key.to_string();
            self.workspace.save_stage1(&record)?;
        }
        sources.sources.remove(old);
        sources.sources.insert(key.to_string(), entry);
        Ok(true)
    }

    fn settle(&mut self, key: &str, entry: SourceEntry, sources: &mut Sources) {
        if !self.opts.dry_run {
            sources.sources.insert(key.to_string(), entry);
        }
    }

    fn print_warnings(&self, key: &str, warnings: &[LineWarning]) {
        for warning in warnings.iter().take(WARNINGS_SHOWN_PER_FILE) {
            self.term.warn(&format!("{key}:{}: {}", warning.line, warning.message));
        }
        let more = warnings.len().saturating_sub(WARNINGS_SHOWN_PER_FILE);
        if more > 0 {
            self.term.warn(&format!("{key}: {}", count(more, "more warning")));
        }
    }
}

/// Recorded transcripts that are gone from where they were, by size and modification time:
/// a new file that matches one (and hashes the same) is the same transcript, moved.
fn moved_candidates(sources: &Sources, present: &BTreeSet<String>) -> HashMap<(u64, i128), String> {
    sources
        .sources
        .iter()
        .filter(|(path, e)| e.hash.is_some() && !present.contains(*path) && !Path::new(path.as_str()).exists())
        .map(|(path, e)| ((e.size, e.mtime_ns), path.clone()))
        .collect()
}

/// True when a settled decision about a file no longer holds: the extractor changed since, a
/// sub-agent is now wanted, or the file whose duplicate it was is gone.
fn needs_revisit(entry: &SourceEntry, opts: &ExtractSettings, present: &BTreeSet<String>) -> bool {
    let settled = matches!(
        entry.state,
        SourceState::Extracted | SourceState::NoOp | SourceState::Excluded | SourceState::Skipped
    );
    let reason = entry.reason.as_deref().unwrap_or("");
    let outdated = settled && entry.extractor != EXTRACTOR_VERSION;
    let wanted_now = entry.state == SourceState::Excluded && reason == "sub-agent" && opts.include_subagents;
    let orphaned = reason
        .strip_prefix("duplicate of ")
        .is_some_and(|owner| !present.contains(owner) && !Path::new(owner).exists());
    // A format forced now that differs from the one read, or forced then and not now.
    let reformatted = match opts.format {
        Some(format) => entry.format != Some(format),
        None => entry.forced_format,
    };
    outdated || wanted_now || orphaned || reformatted
}

/// Bring the usage stored with each affected session's record in line with the citations
/// recorded across all transcripts.
fn sync_usage(workspace: &Workspace, sources: &Sources, affected: &BTreeSet<String>) -> Result<()> {
    if affected.is_empty() {
        return Ok(());
    }
    let totals = usage(sources);
    for id in affected {
        let Some(mut record) = workspace.load_stage1(id)? else { continue };
        let total = totals.get(id).copied().unwrap_or_default();
        if (record.usage_count, record.last_usage) != (total.count, total.last) {
            record.usage_count = total.count;
            record.last_usage = total.last;
            workspace.save_stage1(&record)?;
        }
    }
    Ok(())
}

fn reason_is_duplicate(entry: &SourceEntry) -> bool {
    entry.reason.as_deref().is_some_and(|r| r.starts_with("duplicate"))
}

/// Another file already extracted as this session, still on disk: the first one keeps it.
fn duplicate_owner(sources: &Sources, key: &str, session_id: &str) -> Option<String> {
    sources
        .sources
        .iter()
        .find(|(other, e)| {
            other.as_str() != key
                && e.state == SourceState::Extracted
                && e.session_id.as_deref() == Some(session_id)
                && Path::new(other.as_str()).exists()
        })
        .map(|(other, _)| other.clone())
}

fn stat_entry(stat: FileStat, state: SourceState) -> SourceEntry {
    SourceEntry { size: stat.size, mtime_ns: stat.mtime_ns, extractor: EXTRACTOR_VERSION, ..blank_entry(state) }
}

fn blank_entry(state: SourceState) -> SourceEntry {
    SourceEntry {
        format: None,
        forced_format: false,
        session_id: None,
        size: 0,
        mtime_ns: 0,
        hash: None,
        updated_at: None,
        state,
        reason: None,
        tries: 0,
        last_error: None,
        warnings: 0,
        cited: BTreeMap::new(),
        extractor: 0,
    }
}

fn report(term: &Terminal, reports: &mut [SessionReport], coverage: &mut Coverage, dry_run: bool) -> Result<()> {
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    coverage.failures.sort();
    for r in reports.iter() {
        term.json("session", r)?;
        if !term.quiet {
            term.line(&r.line())?;
        }
    }
    term.json("totals", &serde_json::json!({ "coverage": coverage, "dry_run": dry_run }))?;
    // Quiet means silent unless something is wrong, and a session that failed this run is.
    // (One given up on was reported on each of its tries; `status` keeps listing it.)
    let failed_now: Vec<&(String, String)> =
        coverage.failures.iter().filter(|(_, r)| !r.starts_with(GAVE_UP)).collect();
    if term.quiet
        && let Some((path, reason)) = failed_now.first()
    {
        let more = match failed_now.len() {
            1 => String::new(),
            n => format!(" (and {} more; see `handbook status`)", n - 1),
        };
        term.warn(&format!("{path}: extraction failed: {reason}{more}"));
    }
    if !term.quiet {
        let prefix = if dry_run { "extract (dry run, nothing written)" } else { "extract" };
        term.line(&format!("{prefix}: {}", coverage.line()))?;
    }
    Ok(())
}
