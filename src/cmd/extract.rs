//! `handbook extract`: gather what the transcripts look like now, let `core::state` decide
//! what each one needs, read and extract those, and apply the decisions. A dry run decides
//! everything and applies nothing.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use jiff::Timestamp;

use crate::config::{ExtractSettings, Settings};
use crate::core::extract::{Context, Extraction, Extractor};
use crate::core::model::StageOneInput;
use crate::core::model::transcript::ModelTranscript;
use crate::core::pipeline::Finished;
use crate::core::redact::redact_meta;
use crate::core::session::{Agent, LineWarning, SessionMeta};
use crate::core::stage1::{Stage1, with_answer};
use crate::core::state::{
    self, Class, Coverage, Failure, FileStat, HintFlags, Plan, Reason, RecordChange, Rules, SessionReport, SessionSeen,
    SourceState, Store, Triage, Windows,
};
use crate::core::words::count;
use crate::edge::discover::{discover_sources, key_of, presence, stat_of, under_roots};
use crate::edge::git::Projects;
use crate::edge::lock::WorkspaceLock;
use crate::edge::model::{CallError, EXTRACT_TEMPLATES, Model};
use crate::edge::terminal::Terminal;
use crate::edge::transcript::{FileRead, hash_file, read_transcript};
use crate::edge::workspace::Workspace;

/// Warnings printed per file before the rest are only counted.
const WARNINGS_SHOWN_PER_FILE: usize = 10;

/// Run `extract` on its own: take the lock (a dry run writes nothing, so needs none), then
/// extract.
pub fn run(settings: &Settings, opts: &ExtractSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    let _lock: Option<WorkspaceLock> = if opts.dry_run { None } else { Some(workspace.lock(opts.lock_wait)?) };
    extract(&workspace, settings, opts, term)
}

/// Extract; the caller holds the lock unless this is a dry run.
pub fn extract(workspace: &Workspace, settings: &Settings, opts: &ExtractSettings, term: &Terminal) -> Result<()> {
    let sources = workspace.load_sources()?;
    let found = discover_sources(&opts.sources, term)?;
    let present: HashSet<String> = found.files.iter().map(|p| key_of(p)).collect();
    let presence = presence(&sources, &present);
    let mut run = Run {
        workspace,
        opts,
        term,
        store: Store::new(sources, presence),
        rules: Rules {
            // Naming sessions means wanting them read, whatever their age.
            windows: Windows {
                now: settings.now,
                min_idle: opts.min_idle,
                max_age: opts.max_age,
                all: opts.all || !opts.sessions.is_empty(),
            },
            include_subagents: opts.include_subagents,
            format: opts.format,
        },
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
    let to_read = run.triage_all(&found.files)?;
    run.read_all(to_read)?;
    if opts.sessions.is_empty() {
        run.mark_vanished(&found.roots);
    }
    run.finish(settings.now)
}

/// True when `--session` is not given, or names this file by session id or path text.
fn selected(sessions: &[String], key: &str, session_id: Option<&str>) -> bool {
    sessions.is_empty() || sessions.iter().any(|s| key.contains(s.as_str()) || session_id == Some(s.as_str()))
}

/// A transcript to read, and whether only its modification time may have changed.
struct ToRead {
    path: PathBuf,
    key: String,
    stat: FileStat,
    touched: bool,
}

struct Run<'a> {
    workspace: &'a Workspace,
    opts: &'a ExtractSettings,
    term: &'a Terminal,
    store: Store,
    rules: Rules,
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
    /// Decide for every discovered file whether it is read; the ones to read come back
    /// newest first (so a limit keeps the sessions most worth having), cut to the limit.
    fn triage_all(&mut self, files: &[PathBuf]) -> Result<Vec<ToRead>> {
        let mut to_read = Vec::new();
        for path in files {
            let key = key_of(path);
            let session_id = self.store.get(&key).and_then(|e| e.session_id.as_deref());
            if !selected(&self.opts.sessions, &key, session_id) {
                continue;
            }
            self.coverage.sessions += 1;
            let stat = match stat_of(path) {
                Ok(stat) => stat,
                Err(e) => {
                    self.fail(&key, None, None, &format!("{e:#}"))?;
                    continue;
                }
            };
            if self.adopted_move(path, &key, stat)? {
                self.coverage.unchanged += 1;
                continue;
            }
            let entry = self.store.get(&key);
            match state::triage(entry, stat, &self.rules, self.store.presence()) {
                Triage::Read { touched } => to_read.push(ToRead { path: path.clone(), key, stat, touched }),
                Triage::Count(plan) => self.count(&key, plan),
            }
        }
        to_read.sort_by(|a, b| b.stat.mtime_ns.cmp(&a.stat.mtime_ns).then_with(|| a.key.cmp(&b.key)));
        if let Some(limit) = self.opts.limit
            && to_read.len() > limit
        {
            self.coverage.deferred = (to_read.len() - limit) as u64;
            to_read.truncate(limit);
        }
        Ok(to_read)
    }

    fn count(&mut self, key: &str, plan: Plan) {
        match plan {
            Plan::Unchanged => self.coverage.unchanged += 1,
            Plan::Active => self.coverage.still_active += 1,
            Plan::TooOld => self.coverage.too_old += 1,
            Plan::GaveUp => {
                let reason = state::gave_up_reason(self.store.get(key));
                self.coverage.failed += 1;
                self.coverage.failures.push(Failure { path: key.to_string(), reason, gave_up: true });
            }
            Plan::Read => {}
        }
    }

    /// Take over the state of a transcript that moved here unchanged (Codex archives
    /// sessions by moving them): its record follows it. False when it is no such file.
    fn adopted_move(&mut self, path: &Path, key: &str, stat: FileStat) -> Result<bool> {
        if self.store.get(key).is_some() {
            return Ok(false);
        }
        let Some(from) = self.store.take_moved(stat) else { return Ok(false) };
        let Some(old) = self.store.get(&from).filter(|e| e.state != SourceState::Failed && e.hash.is_some()) else {
            return Ok(false);
        };
        if !state::follows_move(old, hash_file(path).ok().as_deref()) {
            return Ok(false);
        }
        if self.opts.dry_run {
            return Ok(true);
        }
        if let Some(session_id) = old.session_id.clone() {
            let change = RecordChange::Move { session_id, from: from.clone(), to: key.to_string() };
            self.workspace.apply_stage1(change, &mut |w| self.term.warn(&w))?;
        }
        self.store.move_entry(&from, key);
        Ok(true)
    }

    /// Read the files triage chose, newest first: when a model's token allowance runs out,
    /// what waits is the oldest. (The report is sorted by path, so the order does not show.)
    fn read_all(&mut self, to_read: Vec<ToRead>) -> Result<()> {
        let bar = self.term.progress(to_read.len() as u64, "extract");
        for (index, file) in to_read.iter().enumerate() {
            if self.stopped.is_some() || self.out_of_tokens() {
                // What is left waits for the next run, untouched.
                self.coverage.deferred += (to_read.len() - index) as u64;
                break;
            }
            bar.set_message(file.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            self.process(file)?;
            bar.inc(1);
        }
        bar.finish_and_clear();
        Ok(())
    }

    fn process(&mut self, file: &ToRead) -> Result<()> {
        let ToRead { path, key, stat, touched } = file;
        // Touched but not changed: the content hash says so without a full read.
        if *touched && hash_file(path).ok() == self.store.get(key).and_then(|e| e.hash.clone()) {
            self.coverage.unchanged += 1;
            if !self.opts.dry_run {
                self.store.touch(key, *stat);
            }
            return Ok(());
        }
        let budget = self.model.as_ref().map(Model::transcript_budget);
        let read = read_transcript(path, self.opts.format, || (Extractor::new(), budget.map(ModelTranscript::new)));
        match read {
            Err(e) => self.fail(key, Some(*stat), None, &format!("{:#}", e.root_cause())),
            Ok(FileRead::NotATranscript { reason, hash }) => self.skip(key, *stat, &reason, &hash),
            Ok(FileRead::Session { agent, finished, hash }) => {
                let mut finished = *finished;
                redact_meta(&mut finished.meta);
                let seen = self.seen(agent, &finished, hash, key);
                self.session(key, *stat, seen, finished)
            }
        }
    }

    /// Record a file that could not be read. Its earlier extraction, if any, stays.
    /// `read_hash` is the content hash of the read that failed, when the file was read.
    fn fail(&mut self, key: &str, stat: Option<FileStat>, read_hash: Option<&str>, reason: &str) -> Result<()> {
        self.coverage.failed += 1;
        self.coverage.failures.push(Failure { path: key.to_string(), reason: reason.to_string(), gave_up: false });
        self.reports.push(SessionReport::because(key, SourceState::Failed, reason));
        if self.opts.dry_run {
            return Ok(());
        }
        let prior = self.store.get(key);
        let hash_now = match state::failure_needs_hash(prior, stat, read_hash) {
            true => hash_file(Path::new(key)).ok(),
            false => read_hash.map(str::to_string),
        };
        let entry = state::failed_entry(prior, stat, hash_now.as_deref(), reason);
        self.store.settle(key, entry);
        Ok(())
    }

    fn skip(&mut self, key: &str, stat: FileStat, reason: &str, hash: &str) -> Result<()> {
        self.coverage.skipped += 1;
        self.coverage.warnings += 1;
        self.coverage.count_reason(Class::Skipped, &Reason::NotATranscript(reason.to_string()));
        self.term.warn(&format!("{key}: {reason}; skipped"));
        self.reports.push(SessionReport::because(key, SourceState::Skipped, reason));
        let entry = state::skipped_entry(reason, hash, stat, &self.rules);
        self.apply(key, entry, RecordChange::Keep)
    }

    /// What reading told of a session, with its warnings shown and counted.
    fn seen(&mut self, agent: Agent, finished: &Finished<Sink>, hash: String, key: &str) -> SessionSeen {
        self.print_warnings(key, &finished.warnings);
        self.coverage.warnings += finished.warnings.len() as u64;
        let cited = finished.sink.0.citations(finished.meta.id.as_deref());
        SessionSeen::new(agent, key, hash, &finished.meta, finished.warnings.len(), finished.own_prompt, cited)
    }

    /// Settle a session read from `key`: excluded, or extracted (by the built-in extractor,
    /// and the model when there is one) into lessons or a no-op.
    fn session(&mut self, key: &str, stat: FileStat, seen: SessionSeen, finished: Finished<Sink>) -> Result<()> {
        if let Some(prior) = self.store.get(key) {
            self.usage_changed.extend(prior.cited.keys().cloned());
        }
        self.usage_changed.extend(seen.cited.keys().cloned());
        let mut report = SessionReport::new(key, SourceState::Extracted);
        (report.agent, report.session_id) = (Some(seen.agent), Some(seen.session_id.clone()));
        let Finished { meta, sink, warnings, .. } = finished;
        report.warnings = warnings;
        let store = &self.store;
        let excluded = state::exclusion(&seen, key, store.sources(), store.index(), store.presence(), &self.rules);
        if let Some(reason) = excluded {
            return self.exclude(key, stat, &seen, reason, report);
        }
        let project = self.projects.key(meta.git_remote.as_deref(), meta.cwd.as_deref());
        report.project = Some(project.clone());
        let Some(extraction) = self.extraction(key, stat, &seen, &project, &meta, sink)? else {
            return Ok(());
        };
        let (state, change) = match extraction {
            Extraction::NoOp => {
                self.coverage.no_op += 1;
                let drop = RecordChange::DropIfFrom { session_id: seen.session_id.clone(), key: key.to_string() };
                (SourceState::NoOp, drop)
            }
            Extraction::Memory(memory) => {
                self.coverage.extracted += 1;
                report.counts_from(&memory);
                self.usage_changed.insert(seen.session_id.clone());
                let record = Stage1::new(key, stat, &seen, &meta, project, *memory);
                (SourceState::Extracted, RecordChange::Store(Box::new(record)))
            }
        };
        report.outcome = state;
        self.reports.push(report);
        let entry = state::session_entry(&seen, stat, state, &self.rules);
        self.apply(key, entry, change)
    }

    fn exclude(
        &mut self,
        key: &str,
        stat: FileStat,
        seen: &SessionSeen,
        reason: Reason,
        mut report: SessionReport,
    ) -> Result<()> {
        self.coverage.excluded += 1;
        self.coverage.count_reason(Class::Excluded, &reason);
        report.outcome = SourceState::Excluded;
        report.reason = Some(reason.to_string());
        self.reports.push(report);
        let change = state::excluded_change(&reason, &seen.session_id, key);
        let entry = state::SourceEntry {
            reason: Some(reason),
            ..state::session_entry(seen, stat, SourceState::Excluded, &self.rules)
        };
        self.apply(key, entry, change)
    }

    /// The session's extraction: the built-in one, or the model's answer on top of it.
    /// `None` when the model failed (the failure is recorded) or the run must stop.
    fn extraction(
        &mut self,
        key: &str,
        stat: FileStat,
        seen: &SessionSeen,
        project: &str,
        meta: &SessionMeta,
        sink: Sink,
    ) -> Result<Option<Extraction>> {
        let context = Context { agent: seen.agent.name().to_string(), project: project.to_string() };
        let (extractor, transcript) = sink;
        let builtin = extractor.finish(meta, &context);
        let (Some(model), Some(transcript)) = (self.model.as_mut(), transcript) else { return Ok(Some(builtin)) };
        let transcript = transcript.finish();
        let input = StageOneInput {
            rollout_path: key,
            cwd: meta.cwd.as_deref().unwrap_or("unknown"),
            agent: seen.agent.name(),
            project,
            transcript: &transcript,
        };
        match model.stage_one(&input) {
            Ok(answer) => Ok(Some(with_answer(builtin, answer))),
            Err(CallError::Call(reason) | CallError::Malformed(reason)) => {
                self.fail(key, Some(stat), Some(&seen.hash), &format!("model: {reason}"))?;
                Ok(None)
            }
            Err(CallError::Setup(reason)) => {
                self.stopped = Some(reason);
                self.coverage.deferred += 1;
                Ok(None)
            }
        }
    }

    /// Apply a settled session's decision: its state, and its stage-1 record. A dry run
    /// applies nothing.
    fn apply(&mut self, key: &str, entry: state::SourceEntry, change: RecordChange) -> Result<()> {
        if self.opts.dry_run {
            return Ok(());
        }
        self.workspace.apply_stage1(change, &mut |w| self.term.warn(&w))?;
        self.store.settle(key, entry);
        Ok(())
    }

    /// True once the model has been sent the run's allowance of input tokens.
    fn out_of_tokens(&self) -> bool {
        match (&self.model, self.opts.max_input_tokens_per_run) {
            (Some(model), Some(max)) => model.sent_tokens() >= max,
            _ => false,
        }
    }

    /// Mark the recorded transcripts under this run's roots that are gone from disk.
    fn mark_vanished(&mut self, roots: &[PathBuf]) {
        let presence = self.store.presence();
        let gone =
            state::vanished(self.store.sources(), |key| !presence.exists(key) && under_roots(Path::new(key), roots));
        self.coverage.vanished += gone.len() as u64;
        for key in gone {
            let cited = self.store.vanish(&key);
            self.usage_changed.extend(cited);
        }
    }

    /// Save the state (unless this is a dry run), bring usage in line, and report.
    fn finish(self, now: Timestamp) -> Result<()> {
        let Run { workspace, opts, term, store, mut coverage, mut reports, usage_changed, stopped, .. } = self;
        if !opts.dry_run {
            let mut sources = store.into_sources();
            sources.last_extract = Some(now);
            workspace.save_sources(&sources)?;
            workspace.sync_usage(&sources, &usage_changed)?;
        }
        report(term, &mut reports, &mut coverage, opts.dry_run)?;
        let flags = HintFlags {
            sessions: &opts.sessions,
            min_idle_hours: opts.min_idle.as_secs_f64() / 3600.0,
            max_age_days: opts.max_age.as_secs_f64() / 86_400.0,
        };
        for hint in state::hints(flags, &coverage) {
            term.note(&hint);
        }
        match stopped {
            Some(reason) => bail!("extraction stopped: {reason}"),
            None => Ok(()),
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

/// What the read of one session feeds: the built-in extractor, and the transcript a model
/// is shown when there is one.
type Sink = (Extractor, Option<ModelTranscript>);

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
    let failed_now: Vec<&Failure> = coverage.failed_now().collect();
    if term.quiet
        && let Some(first) = failed_now.first()
    {
        let more = match failed_now.len() {
            1 => String::new(),
            n => format!(" (and {} more; see `handbook status`)", n - 1),
        };
        term.warn(&format!("{}: extraction failed: {}{more}", first.path, first.reason));
    }
    if !term.quiet {
        let prefix = if dry_run { "extract (dry run, nothing written)" } else { "extract" };
        term.line(&format!("{prefix}: {}", coverage.line()))?;
    }
    Ok(())
}
