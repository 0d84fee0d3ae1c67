//! `handbook extract`: gather what the transcripts look like now, let `core::state` decide
//! what each one needs, read and extract those, and apply the decisions. A dry run decides
//! everything and applies nothing.

use anyhow::{Result, bail};
use jiff::Timestamp;

use crate::config::{ExtractSettings, Settings};
use crate::core::extract::Extraction;
use crate::core::pipeline::Finished;
use crate::core::session::Agent;
use crate::core::stage1::Stage1;
use crate::core::state::{
    self, Caps, Coverage, FileStat, HintFlags, Reason, RecordChange, Rules, SessionReport, SessionSeen, SourceKey,
    SourceState,
};
use crate::edge::extraction::{Asked, Extracting, Job, Read, Ready};
use crate::edge::ledger::{Ledger, discover_and_load};
use crate::edge::parallel;
use crate::edge::signal::{Interrupted, Signal, Stop};
use crate::edge::survey::{Origin, Scope, ToRead, Unreadable, survey};
use crate::edge::terminal::Terminal;
use crate::edge::transcript::FileRead;
use crate::edge::workspace::Workspace;

/// Sessions read ahead of the one being settled, per thread: enough to keep every thread
/// busy while a large one is settled, few enough that what they hold (each one's lessons, a
/// model's transcript) stays small.
const READ_AHEAD: usize = 8;

/// Run `extract` on its own: take the lock (a dry run writes nothing, so needs none), then
/// extract, and say what was left out and what would take it in.
pub(crate) fn run(settings: &Settings, opts: &ExtractSettings, term: &Terminal) -> Result<()> {
    let workspace = Workspace::new(&settings.home);
    let _lock = if opts.dry_run { None } else { Some(workspace.lock(opts.lock_wait)?) };
    let notes = extract(&workspace, settings, opts, term, &Stop::install()?)?;
    notes.iter().for_each(|note| term.note(note));
    Ok(())
}

/// Extract; the caller holds the lock unless this is a dry run. A signal through `stop`
/// ends the run at the next session boundary, with what is finished committed. The notes
/// on what the run left out, for the caller to print.
pub(crate) fn extract(
    workspace: &Workspace,
    settings: &Settings,
    opts: &ExtractSettings,
    term: &Terminal,
    stop: &Stop,
) -> Result<Vec<String>> {
    let (mut found, ledger) = discover_and_load(workspace, &opts.sources, term, opts.dry_run)?;
    let mut run = Run {
        opts,
        term,
        ledger,
        rules: opts.rules(settings.now),
        coverage: Coverage { warnings: found.warnings.len() as u64, ..Coverage::default() },
        reports: Vec::new(),
        extracting: Extracting::new(opts.format, &opts.engine, settings.config_dir.as_deref(), opts.dry_run)?,
        stopped: None,
        stop,
        interrupted: None,
    };
    let scratch = workspace.scratch(opts.dry_run);
    let scope = Scope { sessions: &opts.sessions, limit: opts.limit, scratch: &scratch };
    let surveyed = survey(&mut found, &mut run.ledger, &run.rules, &scope, &mut run.coverage)?;
    for Unreadable { key, reason, recorded } in surveyed.unreadable {
        match recorded {
            true => run.fail(&key, None, None, &reason),
            false => run.failed(&key, &reason),
        }
    }
    run.read_all(surveyed.to_read)?;
    drop(scratch);
    if opts.sessions.is_empty() {
        run.coverage.counts.vanished += run.ledger.vanish_under(&found.roots);
    }
    run.finish(workspace, settings.now)
}

struct Run<'a> {
    opts: &'a ExtractSettings,
    term: &'a Terminal,
    ledger: Ledger<'a>,
    rules: Rules,
    coverage: Coverage,
    reports: Vec<SessionReport>,
    extracting: Extracting,
    /// Why the run stopped early: a problem every session would hit (a refused key, a
    /// server that cannot be reached).
    stopped: Option<String>,
    stop: &'a Stop,
    /// The signal that stopped the run at a session boundary.
    interrupted: Option<Signal>,
}

impl Run<'_> {
    /// Read the files triage chose, newest first: when a model's token allowance runs out,
    /// what waits is the oldest. (The report is sorted by path, so the order does not show.)
    /// Files are read and extracted on every thread; what was read is settled here, one
    /// session after the other in this order, so the results do not depend on the threads.
    fn read_all(&mut self, to_read: Vec<ToRead>) -> Result<()> {
        let bar = self.term.progress(to_read.len() as u64, "extract");
        let jobs: Vec<Job> = to_read.iter().map(|file| file.job(&self.ledger)).collect();
        let reader = self.extracting.reader();
        let threads = parallel::threads(self.opts.threads);
        let mut failed = None;
        parallel::ordered(
            &jobs,
            threads,
            READ_AHEAD * threads,
            |job| reader.read(job),
            |index, read| {
                let file = &to_read[index];
                self.interrupted = self.stop.requested();
                let out_of_tokens = self.extracting.out_of_tokens(self.opts.max_input_tokens_per_run);
                if self.stopped.is_some() || self.interrupted.is_some() || out_of_tokens {
                    // What is left waits for the next run, untouched.
                    self.coverage.counts.deferred += (to_read.len() - index) as u64;
                    return false;
                }
                bar.set_message(file.key.path.rsplit('/').next().unwrap_or_default());
                failed = self.process(file, read).err();
                bar.inc(1);
                failed.is_none()
            },
        );
        bar.finish_and_clear();
        failed.map_or(Ok(()), Err)
    }

    /// Settle one session from what reading it gave.
    fn process(&mut self, file: &ToRead, read: Read) -> Result<()> {
        let ToRead { key, stat, origin, .. } = file;
        let read = match read {
            // Touched but not changed: the content hash said so without a full read.
            Read::Unchanged => {
                self.coverage.counts.unchanged += 1;
                self.ledger.touch(key, *stat);
                return Ok(());
            }
            Read::Read(read) => read,
        };
        match read {
            Err(e) => {
                // A database session's error says it was its private copy that failed.
                let reason = match origin {
                    Origin::File(_) => e.root_cause().to_string(),
                    Origin::Member { .. } => format!("{e:#}").replacen(&format!("{}: ", key.path), "", 1),
                };
                self.fail(key, Some(*stat), None, &reason);
                Ok(())
            }
            Ok(FileRead::NotATranscript { reason, hash }) => self.skip(key, *stat, &reason, &hash),
            Ok(FileRead::Session { agent, finished, hash }) => {
                // The pipeline redacted the metadata when it finished.
                let finished = *finished;
                if let Some(plan) = state::left_alone(finished.meta.updated, *stat, self.rules.windows) {
                    self.coverage.count(key, plan, None);
                    return Ok(());
                }
                let seen = self.seen(agent, &finished, hash, key);
                self.session(key, *stat, seen, finished)
            }
        }
    }

    /// Keep a session's line for the report; a quiet run without `--json` shows (so keeps) none.
    fn report(&mut self, report: SessionReport) {
        if self.term.json || !self.term.quiet {
            self.reports.push(report);
        }
    }

    /// Record a file that could not be read. Its earlier extraction, if any, stays.
    /// `read_hash` is the content hash of the read that failed, when the file was read.
    fn fail(&mut self, key: &SourceKey, stat: Option<FileStat>, read_hash: Option<&str>, reason: &str) {
        self.failed(key, reason);
        self.ledger.fail(key, stat, read_hash, reason);
    }

    /// Count and report a failure.
    fn failed(&mut self, key: &SourceKey, reason: &str) {
        self.coverage.fail(&key.to_string(), reason);
        self.report(SessionReport::because(&key.to_string(), SourceState::Failed, reason));
    }

    fn skip(&mut self, key: &SourceKey, stat: FileStat, reason: &str, hash: &str) -> Result<()> {
        self.coverage.settled(SourceState::Skipped, Some(&Reason::NotATranscript(reason.to_string())));
        self.term.warn(&format!("{key}: {reason}; skipped"));
        self.report(SessionReport::because(&key.to_string(), SourceState::Skipped, reason));
        let entry = state::skipped_entry(reason, hash, stat, &self.rules);
        self.ledger.apply(key, entry, RecordChange::Keep)
    }

    /// What reading told of a session, with its warnings shown and counted.
    fn seen(&mut self, agent: Agent, finished: &Finished<Ready>, hash: String, key: &SourceKey) -> SessionSeen {
        for warning in state::warning_lines(&key.to_string(), &finished.warnings) {
            self.term.warn(&warning);
        }
        self.coverage.warnings += finished.warnings.len() as u64;
        SessionSeen::new(agent, &key.path, hash, finished, finished.sink.cited.clone())
    }

    /// Settle a session read from `key`: excluded, or extracted (by the built-in extractor,
    /// and the model when there is one) into lessons or a no-op.
    fn session(&mut self, key: &SourceKey, stat: FileStat, seen: SessionSeen, finished: Finished<Ready>) -> Result<()> {
        let cited_before = self.ledger.get(key).map(|prior| prior.cited.keys().cloned().collect::<Vec<_>>());
        self.ledger.usage_may_change(cited_before.into_iter().flatten().chain(seen.cited.keys().cloned()));
        let mut report = SessionReport::new(&key.to_string(), SourceState::Extracted);
        (report.agent, report.session_id) = (Some(seen.agent), Some(seen.session_id.clone()));
        let Finished { meta, sink, warnings, .. } = finished;
        report.warnings = warnings;
        let excluded = state::exclusion(&seen, key, self.ledger.store(), &self.rules);
        if let Some(reason) = excluded {
            return self.exclude(key, stat, &seen, reason, report);
        }
        let project = sink.project.clone();
        report.project = Some(project.clone());
        let extraction = match self.extracting.extract(&key.path, seen.agent, &meta, sink) {
            Asked::Extracted(extraction) => extraction,
            // A command engine's child dies of the same Ctrl-C: that is no failure of the session.
            Asked::Failed(_) if self.stop.requested().is_some() => {
                self.coverage.counts.deferred += 1;
                return Ok(());
            }
            Asked::Failed(reason) => {
                self.fail(key, Some(stat), Some(&seen.hash), &reason);
                return Ok(());
            }
            Asked::Stop(reason) => {
                self.stopped = Some(reason);
                self.coverage.counts.deferred += 1;
                return Ok(());
            }
        };
        let (state, change) = match extraction {
            Extraction::NoOp => {
                let drop = RecordChange::DropIfFrom { session_id: seen.session_id.clone(), key: key.path.to_string() };
                (SourceState::NoOp, drop)
            }
            Extraction::Memory(memory) => {
                report.counts_from(&memory);
                let record = Stage1::new(&key.path, stat, &seen, &meta, project, *memory);
                (SourceState::Extracted, RecordChange::Store(Box::new(record)))
            }
        };
        self.coverage.settled(state, None);
        report.outcome = state;
        self.report(report);
        let entry = state::session_entry(&seen, stat, state, &self.rules);
        self.ledger.apply(key, entry, change)
    }

    fn exclude(
        &mut self,
        key: &SourceKey,
        stat: FileStat,
        seen: &SessionSeen,
        reason: Reason,
        mut report: SessionReport,
    ) -> Result<()> {
        self.coverage.settled(SourceState::Excluded, Some(&reason));
        report.outcome = SourceState::Excluded;
        report.reason = Some(reason.to_string());
        self.report(report);
        let change = state::excluded_change(&reason, &seen.session_id, &key.path);
        self.ledger.apply(key, state::excluded_entry(seen, stat, reason, &self.rules), change)
    }

    /// Save the state (unless this is a dry run), bring usage in line, and report.
    fn finish(self, workspace: &Workspace, now: Timestamp) -> Result<Vec<String>> {
        let Run { opts, term, ledger, mut coverage, mut reports, stopped, interrupted, .. } = self;
        ledger.save(now)?;
        if !opts.dry_run {
            workspace.remember_extract(now, coverage.counts())?;
        }
        let flags = HintFlags { sessions: &opts.sessions, min_idle: opts.min_idle, max_age: opts.max_age };
        let caps = Caps { limit: opts.limit, input_tokens: opts.max_input_tokens_per_run };
        let left_out = state::left_out(flags, caps, &coverage);
        crate::edge::coverage::report(term, &mut reports, &mut coverage, opts.dry_run, &left_out)?;
        match (interrupted, stopped) {
            (Some(signal), _) => Err(Interrupted(signal).into()),
            (None, Some(reason)) => bail!("extraction stopped: {reason}"),
            (None, None) => Ok(state::notes(flags, caps, &coverage)),
        }
    }
}
