//! The state of the known transcripts during an `extract` run: loaded from `sources.json`,
//! changed only by applying what `core::state` decided, and saved at the end with the usage
//! of every session whose citations changed brought in line. A dry run applies nothing, and
//! this is the one place that says so.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use jiff::Timestamp;

use super::discover::{Discovery, discover_sources, key_of, key_ref, presence, under_roots};
use super::records::Records;
use super::terminal::Terminal;
use super::transcript::hash_file;
use super::workspace::{JournalState, Workspace};
use crate::config::SourceRoot;
use crate::core::state::{self, FileStat, RecordChange, SourceEntry, SourceKey, SourceState, Sources, Store};

/// The extracted sessions whose stage-1 record is not on disk (by the folder's listing), so
/// a record moved aside (or set aside as damaged) is rebuilt from its transcript.
fn records_missing(records: &Records, sources: &Sources) -> HashSet<String> {
    let extracted = sources.sources.values().filter(|e| e.state == SourceState::Extracted);
    extracted.filter_map(|e| e.session_id.as_deref()).filter(|id| !records.has(id)).map(str::to_string).collect()
}

/// The run's state store, and where its changes go.
pub(crate) struct Ledger<'a> {
    workspace: &'a Workspace,
    term: &'a Terminal,
    store: Store,
    records: Records<'a>,
    journal: JournalState,
    dry_run: bool,
    /// Sessions whose usage may have changed this run: cited before or now by a transcript
    /// read this run. (The records stored this run are checked too; [`Records`] knows them.)
    usage_changed: BTreeSet<String>,
}

/// The state as read from disk, before the run has looked at the transcripts.
struct Loaded<'a> {
    sources: Sources,
    journal: JournalState,
    records: Records<'a>,
    /// See [`records_missing`]: found here, on the core that read the state.
    missing: HashSet<String>,
}

impl<'a> Loaded<'a> {
    fn read(workspace: &'a Workspace) -> Result<Loaded<'a>> {
        let (sources, journal) = workspace.load_sources_journaled()?;
        let records = Records::listed(workspace)?;
        let missing = records_missing(&records, &sources);
        Ok(Loaded { sources, journal, records, missing })
    }
}

/// Walk the sources (and look at each transcript's size and time) while the state is read
/// on another core: on a re-run over a hundred thousand unchanged transcripts the two take
/// about as long, and nothing else is done. A source that cannot be walked is reported
/// before a state that cannot be read.
pub(crate) fn discover_and_load<'a>(
    workspace: &'a Workspace,
    sources: &[SourceRoot],
    term: &'a Terminal,
    dry_run: bool,
) -> Result<(Discovery, Ledger<'a>)> {
    // The state is read on this thread: glibc grows another thread's heap a page at a time,
    // one `mprotect` each, and the state is the larger of the two.
    let (found, loaded) = std::thread::scope(|scope| {
        let walking = scope.spawn(|| discover_sources(sources, term).map(Discovery::with_stats));
        let loaded = Loaded::read(workspace);
        (walking.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), loaded)
    });
    let found = found?;
    // Borrowed, not copied, for every path that is text (see [`key_of`]).
    let present: HashSet<Cow<str>> = found.files.iter().map(|f| key_ref(f)).collect();
    let ledger = Ledger::open(workspace, term, loaded?, &present, dry_run);
    Ok((found, ledger))
}

impl<'a> Ledger<'a> {
    /// The state read, with which known transcripts are gone (`present` are the ones
    /// discovered this run).
    fn open(
        workspace: &'a Workspace,
        term: &'a Terminal,
        loaded: Loaded<'a>,
        present: &HashSet<Cow<str>>,
        dry_run: bool,
    ) -> Ledger<'a> {
        let Loaded { sources, journal, records, missing } = loaded;
        for warning in &journal.warnings {
            term.warn(warning);
        }
        // Said even by a quiet run: the state was rebuilt because something went wrong.
        for note in &journal.notes {
            term.warn(note);
        }
        let presence = presence(&sources, present).records_missing(missing).members_gone(&sources);
        let store = Store::new(sources, presence, journal.lines());
        Ledger { workspace, term, store, records, journal, dry_run, usage_changed: BTreeSet::new() }
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    pub(crate) fn get(&self, key: &SourceKey) -> Option<&SourceEntry> {
        self.store.get(key)
    }

    /// The content hash recorded for `key`, as text.
    pub(crate) fn hash_of(&self, key: &SourceKey) -> Option<String> {
        self.store.get(key)?.hash.as_ref().map(ToString::to_string)
    }

    /// Note that these sessions' usage may have changed.
    pub(crate) fn usage_may_change(&mut self, sessions: impl IntoIterator<Item = String>) {
        self.usage_changed.extend(sessions);
    }

    /// Apply a settled transcript's decision: its state, and its stage-1 record.
    pub(crate) fn apply(&mut self, key: &SourceKey, entry: SourceEntry, change: RecordChange) -> Result<()> {
        if self.dry_run {
            return Ok(());
        }
        let term = self.term;
        self.records.apply(change, &mut |w| term.warn(&w))?;
        self.store.settle(key, entry);
        Ok(())
    }

    /// A transcript touched but unchanged: its new modification time is recorded.
    pub(crate) fn touch(&mut self, key: &SourceKey, stat: FileStat) {
        if !self.dry_run {
            self.store.touch(key, stat);
        }
    }

    /// Record a transcript that could not be read. Its earlier extraction, if any, stays.
    /// `read_hash` is the content hash of the read that failed, when the file was read.
    pub(crate) fn fail(&mut self, key: &SourceKey, stat: Option<FileStat>, read_hash: Option<&str>, reason: &str) {
        if self.dry_run {
            return;
        }
        let prior = self.store.get(key);
        // A database session has no file of its own to hash: its size and time are its rows'.
        let hash_now = match state::failure_needs_hash(prior, stat, read_hash) && key.member.is_none() {
            true => hash_file(Path::new(&*key.path)).ok(),
            false => read_hash.map(str::to_string),
        };
        let entry = state::failed_entry(prior, stat, hash_now.as_deref(), reason);
        self.store.settle(key, entry);
    }

    /// Take over the state of a transcript that moved to `path` unchanged (Codex archives
    /// sessions by moving them): the sessions it holds, and their records, follow it. False
    /// when it is no such file.
    pub(crate) fn follow_move(&mut self, path: &Path, stat: FileStat) -> Result<bool> {
        // Most files are not a gone one moved: their size and time say so at once.
        if !self.store.may_have_moved(stat) {
            return Ok(false);
        }
        let to = key_of(path);
        if !self.store.sessions_of(&to).is_empty() {
            return Ok(false);
        }
        let Some(from) = self.store.take_moved(stat) else { return Ok(false) };
        let sessions = self.store.sessions_of(&from);
        let settled = sessions.first().and_then(|key| self.store.get(key));
        let Some(old) = settled.filter(|e| e.state != SourceState::Failed && e.hash.is_some()) else {
            return Ok(false);
        };
        if !state::follows_move(old, hash_file(path).ok().as_deref()) {
            return Ok(false);
        }
        if self.dry_run {
            return Ok(true);
        }
        let term = self.term;
        for session_id in
            sessions.iter().filter_map(|key| Some(self.store.get(key)?.session_id.as_deref()?.to_string()))
        {
            let change = RecordChange::Move { session_id, from: from.clone(), to: to.clone() };
            self.records.apply(change, &mut |w| term.warn(&w))?;
        }
        self.store.move_file(&from, &to);
        Ok(true)
    }

    /// Mark the recorded transcripts under `roots` that are gone from disk; how many.
    pub(crate) fn vanish_under(&mut self, roots: &[PathBuf]) -> u64 {
        let presence = self.store.presence();
        let gone =
            state::vanished(self.store.sources(), |key| !presence.exists(key) && under_roots(Path::new(key), roots));
        let count = gone.len() as u64;
        for key in gone {
            let cited = self.store.vanish(&key);
            self.usage_changed.extend(cited);
        }
        count
    }

    /// Mark the recorded sessions of the database at `db` that it no longer holds (`listed`
    /// are the ones it does); how many.
    pub(crate) fn vanish_members(&mut self, db: &str, listed: &BTreeSet<&str>) -> u64 {
        let known = self.store.sessions_of(db);
        let gone = state::vanished_members(self.store.sources(), known, listed);
        let count = gone.len() as u64;
        for key in gone {
            let cited = self.store.vanish(&key);
            self.usage_changed.extend(cited);
        }
        count
    }

    /// Bring usage in line and save what changed (not in a dry run), in proportion to the
    /// change: the records written are made durable first, then the state that names them.
    pub(crate) fn save(mut self, now: Timestamp) -> Result<()> {
        if self.dry_run {
            return Ok(());
        }
        self.records.sync_usage(self.store.sources(), &self.usage_changed)?;
        self.records.sync()?;
        self.store.extracted_at(now);
        self.workspace.save_source_changes(self.store.sources(), &self.journal, self.store.changes(), now)
    }
}
