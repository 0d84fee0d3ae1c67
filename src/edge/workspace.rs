//! The workspace on disk (HANDBOOK_HOME): where each file lives, and loading and saving the
//! private state under `.handbook/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::fsio::{Home, ensure_private_dir};
use super::lock::{WorkspaceLock, acquire};
use super::records::Records;

/// How the folders of [`Scratch`] are named.
const SCRATCH_PREFIX: &str = ".tmp-scratch-";

/// A private folder for what a run copies to read it (a database and its log), made when
/// first asked for and removed when dropped. It lives in the state folder, so nothing is
/// written outside the home; a dry run on a home that does not exist yet writes nothing there
/// and uses the system's temporary folder instead. A run that holds the lock first removes
/// the ones a killed run left behind.
pub(crate) struct Scratch<'a> {
    workspace: &'a Workspace,
    dry_run: bool,
    dir: std::cell::OnceCell<tempfile::TempDir>,
}

impl Scratch<'_> {
    /// The folder, made on the first call.
    pub(crate) fn path(&self) -> Result<&Path> {
        if let Some(dir) = self.dir.get() {
            return Ok(dir.path());
        }
        let dir = self.make()?;
        Ok(self.dir.get_or_init(|| dir).path())
    }

    fn make(&self) -> Result<tempfile::TempDir> {
        let (workspace, state) = (self.workspace, self.workspace.state_dir());
        // The folder names its process, so a run can tell a live run's copy from one a
        // killed run left behind.
        let prefix = format!("{SCRATCH_PREFIX}{}-", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        if self.dry_run && !workspace.fs().exists(&state)? {
            return builder.tempdir().context("cannot create a temporary folder");
        }
        if !self.dry_run {
            workspace.create()?;
        }
        for stale in workspace.fs().list_dir(&state)? {
            let name = stale.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !self.dry_run && name.starts_with(SCRATCH_PREFIX) && left_behind(&stale, &name) {
                workspace.fs().remove_tree(&stale)?;
            }
        }
        builder.tempdir_in(&state).with_context(|| format!("cannot create a folder in {}", state.display()))
    }
}
/// True for a scratch folder no live run uses: its process is gone, or (where processes
/// cannot be looked up) it is older than any run. A dry run or a search, which take no lock,
/// may be using one while a run that holds the lock starts.
fn left_behind(folder: &Path, name: &str) -> bool {
    let pid =
        name.strip_prefix(SCRATCH_PREFIX).and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok());
    let proc = Path::new("/proc");
    match pid {
        Some(pid) if proc.is_dir() => !proc.join(pid.to_string()).exists(),
        _ => std::fs::metadata(folder)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > Duration::from_secs(6 * 3600))),
    }
}

use crate::core::consolidate::edits::Edits;
use crate::core::consolidate::plan;
use crate::core::layout::{DIFF_FILE, MEMORY, NOTES_DIR, RAW_MEMORIES, ROLLOUT_SUMMARIES, SUMMARY};
use crate::core::manifest::{MANIFEST_VERSION, Manifest, Pending, Snapshot, hash};
use crate::core::notes::{self, Note};
use crate::core::stage1::{STAGE1_VERSION, Stage1, file_name};
use crate::core::state::journal;
use crate::core::state::{
    Counts, FORGOTTEN_VERSION, Forgotten, LineReader, SOURCES_VERSION, SourceEntry, SourceKey, Sources, rebuilt_note,
    write_lines,
};

/// The entries at the top of the home that are handbook's own (the rest is the user's).
pub(crate) const OWN_ENTRIES: &[&str] =
    &[MEMORY, SUMMARY, RAW_MEMORIES, ROLLOUT_SUMMARIES, DIFF_FILE, NOTES_ROOT, "skills"];

/// The entry at the top of the home that holds the notes (`extensions/ad_hoc/notes/`).
pub(crate) const NOTES_ROOT: &str = "extensions";

/// `.handbook/history.json`: what the runs before left for later ones to know.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
struct History {
    /// When the handbook was first consolidated (retention waits for its lessons).
    #[serde(skip_serializing_if = "Option::is_none")]
    first_consolidated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_extract: Option<LastExtract>,
}

/// The coverage counts of the last extract that wrote the state, and when it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LastExtract {
    pub(crate) at: Timestamp,
    pub(crate) counts: Counts,
}

/// Check that `home` can hold a workspace before a command reads or writes there: it is
/// missing (it is made when first written), a folder that is empty, a workspace, or a folder
/// holding only what handbook itself writes (a note written before the first run). Anything
/// else stops the command with an error naming the path and what to do.
pub(crate) fn check_home(home: &Path) -> Result<()> {
    let shown = home.display();
    let point = "point --home (or HANDBOOK_HOME) at a handbook workspace, or at a new or empty folder";
    let meta = match std::fs::metadata(home) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => bail!("cannot use {shown} as handbook's home: {e}; {point}"),
    };
    if !meta.is_dir() {
        bail!("{shown} is a file, not a folder, so it cannot be handbook's home; {point}");
    }
    let entries = std::fs::read_dir(home)
        .with_context(|| format!("cannot read handbook's home {shown}; make it readable (chmod u+rwx), or {point}"))?;
    if home.join(".handbook").is_dir() {
        return Ok(());
    }
    let mut foreign: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| !OWN_ENTRIES.contains(&name.as_str()))
        .collect();
    foreign.sort();
    if let Some(first) = foreign.first() {
        bail!(
            "{shown} is not a handbook workspace and is not empty (it holds {}, such as {first:?}); {point}",
            crate::core::words::count(foreign.len(), "other entry")
        );
    }
    Ok(())
}

impl JournalState {
    /// The changes the journal holds.
    pub(crate) fn lines(&self) -> usize {
        self.lines
    }
}

/// Where the journal of `sources.json` stands after loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JournalState {
    /// The snapshot the journal applies to.
    base: String,
    /// Changes it holds.
    lines: usize,
    /// Damaged lines skipped, to report.
    pub(crate) warnings: Vec<String>,
    /// What a rebuild of the state recovered, to report.
    pub(crate) notes: Vec<String>,
}

/// Paths of one workspace.
#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    pub(crate) home: PathBuf,
}

impl Workspace {
    pub(crate) fn new(home: &Path) -> Workspace {
        Workspace { home: home.to_path_buf() }
    }

    /// The door every read, write and removal below the home goes through: it refuses a
    /// path that passes through a link.
    fn fs(&self) -> Home<'_> {
        Home::new(&self.home)
    }

    /// `.handbook/`: private state, never shown to agents.
    pub(crate) fn state_dir(&self) -> PathBuf {
        self.home.join(".handbook")
    }

    pub(crate) fn sources_path(&self) -> PathBuf {
        self.state_dir().join("sources.json")
    }

    pub(crate) fn stage1_dir(&self) -> PathBuf {
        self.state_dir().join("stage1")
    }

    #[cfg(test)]
    pub(crate) fn stage1_path(&self, session_id: &str) -> PathBuf {
        self.stage1_dir().join(file_name(session_id))
    }

    /// Create the home and its state folder, private to the user.
    pub(crate) fn create(&self) -> Result<()> {
        // The home itself may be a link: the user chose where it lives.
        ensure_private_dir(&self.home)?;
        self.fs().ensure_dir(&self.state_dir())
    }

    /// A private folder for what a run copies to read it (see [`Scratch`]).
    pub(crate) fn scratch(&self, dry_run: bool) -> Scratch<'_> {
        Scratch { workspace: self, dry_run, dir: std::cell::OnceCell::new() }
    }

    /// Take the workspace lock, waiting up to `wait` for another run.
    pub(crate) fn lock(&self, wait: Duration) -> Result<WorkspaceLock> {
        self.create()?;
        acquire(self.fs(), &self.state_dir().join("lock"), wait)
    }

    fn sources_log_path(&self) -> PathBuf {
        self.state_dir().join("sources.log")
    }

    /// The state of every known transcript: `sources.json` with its journal replayed.
    pub(crate) fn load_sources(&self) -> Result<Sources> {
        Ok(self.load_sources_journaled()?.0)
    }

    /// The state, and where its journal stands (for [`Workspace::save_source_changes`]). The
    /// forgotten sessions are those of `forgotten.json` and of `sources.json` together, so a
    /// rebuilt (or an earlier version's) state file forgets none of them.
    pub(crate) fn load_sources_journaled(&self) -> Result<(Sources, JournalState)> {
        let path = self.sources_path();
        let mut base = journal::Base::default();
        // A line at a time, as it is written; a file of another shape is read again whole,
        // as a stream. Never held whole: a state of a hundred thousand sessions is tens of
        // megabytes of text.
        let mut lines = LineReader::default();
        let by_lines = self.fs().read_lines(&path, &mut |line| {
            base.update(line);
            lines.line(line)
        })?;
        let read = match by_lines.map(|whole| whole.then(|| lines.finish()).flatten()) {
            None => None,
            Some(Some(sources)) => Some(sources),
            Some(None) => {
                base = journal::Base::default();
                self.fs().read_json_streamed::<Sources>(&path, &mut |bytes| base.update(bytes))?
            }
        };
        let found = read.is_some();
        let mut sources = read.unwrap_or_else(|| Sources { version: SOURCES_VERSION, ..Sources::default() });
        let base = base.finish();
        if sources.version > SOURCES_VERSION {
            bail!("{} was written by a newer handbook (version {}); upgrade handbook", path.display(), sources.version);
        }
        let forgotten = self.load_forgotten()?;
        let notes = rebuilt_note(found, forgotten.len()).into_iter().collect();
        sources.excluded.extend(forgotten);
        let log = self.fs().read_if_exists(&self.sources_log_path())?.unwrap_or_default();
        let replayed = journal::replay(&mut sources, &base, &String::from_utf8_lossy(&log));
        let damaged = replayed.damaged.iter().map(|line| format!("{}:{line}", self.sources_log_path().display()));
        let damaged = damaged.map(|at| format!("{at}: damaged journal line; skipped (its transcript is read again)"));
        Ok((sources, JournalState { base, lines: replayed.applied, warnings: damaged.collect(), notes }))
    }

    fn forgotten_path(&self) -> PathBuf {
        self.state_dir().join("forgotten.json")
    }

    /// The sessions `forgotten.json` lists; none when it does not exist. A damaged file is an
    /// error: moving it aside would bring its sessions back.
    pub(crate) fn load_forgotten(&self) -> Result<BTreeSet<String>> {
        let path = self.forgotten_path();
        let Some(bytes) = self.fs().read_if_exists(&path)? else { return Ok(BTreeSet::new()) };
        let forgotten: Forgotten = serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{} is damaged; repair it (it lists the forgotten session ids), or move it aside and forget them again",
                path.display()
            )
        })?;
        if forgotten.version > FORGOTTEN_VERSION {
            bail!(
                "{} was written by a newer handbook (version {}); upgrade handbook",
                path.display(),
                forgotten.version
            );
        }
        Ok(forgotten.sessions)
    }

    /// Keep the forgotten sessions in their own file, atomically, and only when the list
    /// changed (it is written before every state file it goes with).
    fn save_forgotten(&self, sessions: &BTreeSet<String>) -> Result<()> {
        if sessions.is_empty() && !self.forgotten_path().exists() {
            return Ok(());
        }
        let mut bytes = serde_json::to_vec_pretty(&Forgotten::new(sessions))
            .with_context(|| format!("cannot encode {}", self.forgotten_path().display()))?;
        bytes.push(b'\n');
        self.fs().write_if_changed(&self.forgotten_path(), &bytes).map(drop)
    }

    /// Rewrite `sources.json` whole, and drop the journal it now holds.
    pub(crate) fn save_sources(&self, sources: &Sources) -> Result<()> {
        self.save_forgotten(&sources.excluded)?;
        self.fs().write_atomic_with(&self.sources_path(), &mut |out| write_lines(sources, out))?;
        self.fs().remove_file(&self.sources_log_path())
    }

    /// Save what a run changed: appended to the journal, or, once the journal is as long as
    /// the state, folded into a rewritten `sources.json`. `changes` are the changed keys with
    /// their entries now (`None`: no longer known); the run finished at `at`.
    pub(crate) fn save_source_changes<'a>(
        &self,
        sources: &Sources,
        journal_state: &JournalState,
        changes: Option<impl Iterator<Item = (&'a SourceKey, Option<&'a SourceEntry>)>>,
        at: jiff::Timestamp,
    ) -> Result<()> {
        let Some(changes) = changes else { return self.save_sources(sources) };
        let changes: Vec<_> = changes.collect();
        // A list an earlier version kept in `sources.json` alone moves to its own file now.
        self.save_forgotten(&sources.excluded)?;
        // The changes and the line saying the run finished.
        let count = changes.len() + 1;
        if !self.fs().exists(&self.sources_path())?
            || journal::compact_now(journal_state.lines + count, sources.sources.len())
        {
            return self.save_sources(sources);
        }
        let (text, _) = journal::lines(&journal_state.base, changes.into_iter(), at);
        self.fs().append(&self.sources_log_path(), text.as_bytes())
    }

    /// The stored stage-1 record of a session, if any (see [`Records::load`]).
    pub(crate) fn load_stage1(&self, session_id: &str) -> Result<Option<Stage1>> {
        Records::direct(self).load(session_id)
    }

    /// True when a session's stage-1 record is a file on disk (its contents unread).
    pub(crate) fn has_stage1(&self, session_id: &str) -> bool {
        Records::direct(self).has(session_id)
    }

    /// Store a session's record, synced (see [`Records::save`]).
    #[cfg(test)]
    pub(crate) fn save_stage1(&self, record: &Stage1) -> Result<()> {
        Records::direct(self).save(record)
    }

    /// Remove a session's record (see [`Records::remove`]).
    pub(crate) fn remove_stage1(&self, session_id: &str) -> Result<()> {
        Records::direct(self).remove(session_id)
    }

    /// Every stored stage-1 record, sorted by session id. A damaged record is reported
    /// through `warn` and skipped: one bad file never stops a run.
    #[cfg(test)]
    pub(crate) fn all_stage1(&self, warn: &mut dyn FnMut(String)) -> Result<Vec<Stage1>> {
        let filed = self.stage1_briefs(false, warn, &|record| record)?;
        Ok(filed.into_iter().map(|filed| filed.brief).collect())
    }

    /// Choose the sessions that feed the handbook from the stored records (see
    /// [`plan::choose`]), holding a brief of each and the chosen ones whole: a record that
    /// cannot be read is also set aside (renamed `<name>.damaged`) with `set_aside`, so the
    /// next `extract` finds it missing and reads its session again. `admit` may leave a
    /// session out (one an undo took out).
    pub(crate) fn choose_stage1(
        &self,
        set_aside: bool,
        sources: &Sources,
        rules: &plan::Rules,
        warn: &mut dyn FnMut(String),
        admit: &mut dyn FnMut(&str, jiff::Timestamp) -> bool,
    ) -> Result<plan::Chosen> {
        let mut filed = self.stage1_briefs(set_aside, warn, &|record| plan::Brief::of(&record, sources))?;
        filed.iter_mut().for_each(|filed| filed.brief.admitted_by(&filed.session_id, admit));
        let choice = plan::choose_briefly(&mut filed, sources, rules);
        let mut records = Vec::with_capacity(choice.ids.len());
        for filed in filed.iter().filter(|filed| choice.ids.binary_search(&filed.session_id).is_ok()) {
            records.push(self.stage1_at(&filed.path)?);
        }
        Ok(choice.with(records, sources))
    }

    /// The stage-1 record in the file at `path`, one [`Workspace::stage1_briefs`] listed.
    fn stage1_at(&self, path: &Path) -> Result<Stage1> {
        let record = self.fs().read_json::<Stage1>(path)?;
        record.with_context(|| format!("{} was removed while it was read; run the command again", path.display()))
    }

    /// Every stored stage-1 record reduced by `brief` to what the caller keeps of it, with
    /// the file it is in, sorted by session id as [`Workspace::all_stage1`] sorts them. The
    /// records are read on every core and each is dropped once reduced, so a hundred thousand
    /// of them never sit in memory together; [`Workspace::stage1_at`] reads one again whole.
    pub(crate) fn stage1_briefs<B: Send>(
        &self,
        set_aside: bool,
        warn: &mut dyn FnMut(String),
        brief: &(dyn Fn(Stage1) -> B + Sync),
    ) -> Result<Vec<Filed<B>>> {
        let paths: Vec<PathBuf> = self.fs().list_dir(&self.stage1_dir())?;
        let paths: Vec<PathBuf> = paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
        let read = super::parallel::map(&paths, |path| match self.fs().read_json::<Stage1>(path) {
            Ok(Some(record)) if record.version <= STAGE1_VERSION => {
                let canonical = path.file_name().is_some_and(|n| *n == *file_name(&record.session_id));
                // The path is the listing's, moved in below.
                let session_id = record.session_id.clone();
                Reduced::Record(Filed { session_id, path: PathBuf::new(), brief: brief(record) }, canonical)
            }
            Ok(Some(record)) => Reduced::Warning(format!(
                "{}: written by a newer handbook (version {}); skipped",
                path.display(),
                record.version
            )),
            Ok(None) => Reduced::Gone,
            Err(e) if set_aside => Reduced::Warning(set_aside_damaged(self.fs(), path, &e)),
            Err(e) => Reduced::Warning(format!("{e:#}; skipped")),
        });
        // Warnings come in the folder's (sorted) order, whatever the threads. The records are
        // gathered where they were read, not copied to a list of their own.
        let mut records: Vec<(Filed<B>, bool)> = read
            .into_iter()
            .zip(paths)
            .filter_map(|(read, path)| match read {
                Reduced::Record(filed, canonical) => Some((Filed { path, ..filed }, canonical)),
                Reduced::Warning(warning) => {
                    warn(warning);
                    None
                }
                Reduced::Gone => None,
            })
            .collect();
        // A run that died between storing a record under its name and removing the old copy
        // leaves two: the one under its name is the newer.
        records.sort_by(|(a, a_canonical), (b, b_canonical)| {
            a.session_id.cmp(&b.session_id).then_with(|| b_canonical.cmp(a_canonical))
        });
        records.dedup_by(|later, earlier| later.0.session_id == earlier.0.session_id);
        Ok(records.into_iter().map(|(filed, _)| filed).collect())
    }

    /// The absolute path of a workspace-relative path.
    pub(crate) fn file(&self, relative: &str) -> PathBuf {
        self.home.join(relative)
    }

    /// Remove a workspace file (one already gone is fine), never through a link.
    pub(crate) fn remove(&self, relative: &str) -> Result<()> {
        self.fs().remove_file(&self.file(relative))
    }

    /// Read a workspace file, or `None` when it does not exist.
    pub(crate) fn read(&self, relative: &str) -> Result<Option<String>> {
        Ok(self.read_bytes(relative)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Write a workspace file atomically, only when its bytes change.
    pub(crate) fn write(&self, relative: &str, text: &str) -> Result<()> {
        self.fs().write_if_changed(&self.file(relative), text.as_bytes()).map(drop)
    }

    /// Create a workspace file that must not exist yet, never replacing one: false when
    /// the name is taken.
    pub(crate) fn create_new(&self, relative: &str, text: &str) -> Result<bool> {
        self.fs().create_new(&self.file(relative), text.as_bytes())
    }

    /// Every regular file of the workspace (not `.handbook/`, not the diff file, not
    /// temporary files), workspace-relative with `/` separators, read once.
    pub(crate) fn snapshot(&self) -> Result<Snapshot> {
        let mut files = BTreeMap::new();
        if !self.home.exists() {
            return Ok(Snapshot { files });
        }
        let walk = walkdir::WalkDir::new(&self.home).sort_by_file_name().into_iter().filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let private = e.depth() == 1 && name == ".handbook";
            let temporary = name.starts_with(".tmp-");
            !private && !temporary
        });
        for entry in walk {
            let entry = entry.with_context(|| format!("cannot read the workspace {}", self.home.display()))?;
            let kind = entry.file_type();
            if kind.is_dir() {
                continue;
            }
            if !kind.is_file() {
                // A link among handbook's own files would be written or read through later,
                // or silently left out now; one the user keeps beside them is theirs.
                let own = entry.depth() > 1 || OWN_ENTRIES.iter().any(|own| entry.file_name() == *own);
                if own {
                    self.fs().check(entry.path())?;
                }
                continue;
            }
            let relative = entry.path().strip_prefix(&self.home).unwrap_or(entry.path());
            let relative = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            if relative == DIFF_FILE {
                continue;
            }
            // A file removed since the walk listed it is simply not part of the snapshot.
            if let Some(bytes) = self.fs().read_if_exists(entry.path())? {
                files.insert(relative, bytes);
            }
        }
        Ok(Snapshot { files })
    }

    pub(crate) fn load_manifest(&self) -> Result<Manifest> {
        let path = self.state_dir().join("manifest.json");
        let manifest: Manifest =
            self.fs().read_json(&path)?.unwrap_or(Manifest { version: MANIFEST_VERSION, ..Manifest::default() });
        if manifest.version > MANIFEST_VERSION {
            bail!(
                "{} was written by a newer handbook (version {}); upgrade handbook",
                path.display(),
                manifest.version
            );
        }
        Ok(manifest)
    }

    /// The baseline, or an empty one with why when `manifest.json` is damaged: a
    /// consolidation rebuilds it rather than stop. A newer handbook's is still an error.
    pub(crate) fn load_manifest_or_rebuild(&self) -> Result<(Manifest, Option<String>)> {
        let path = self.state_dir().join("manifest.json");
        let parsed = self.fs().read_if_exists(&path)?.map(|bytes| serde_json::from_slice::<Manifest>(&bytes));
        match parsed {
            Some(Err(e)) => {
                let why = format!("{} is damaged ({e}); the baseline is rebuilt", path.display());
                Ok((Manifest { version: MANIFEST_VERSION, ..Manifest::default() }, Some(why)))
            }
            Some(Ok(_)) | None => Ok((self.load_manifest()?, None)),
        }
    }

    fn history_path(&self) -> PathBuf {
        self.state_dir().join("history.json")
    }

    /// `history.json`, or an empty one. It only tells `status` and retention what happened
    /// before, so a damaged one is started again rather than stop a run.
    fn history(&self) -> Result<History> {
        Ok(self.fs().read_json::<History>(&self.history_path()).ok().flatten().unwrap_or_default())
    }

    /// When the handbook was first consolidated: `None` before its first consolidation. A
    /// workspace an earlier version consolidated (a baseline with no history) counts as
    /// consolidated long ago.
    pub(crate) fn first_consolidation(&self, manifest: &Manifest) -> Result<Option<Timestamp>> {
        let first = self.history()?.first_consolidated_at;
        Ok(first.or(manifest.consolidated_at.map(|_| Timestamp::UNIX_EPOCH)))
    }

    /// Whether the handbook was consolidated before (an unreadable baseline counts as not).
    pub(crate) fn consolidated_before(&self) -> bool {
        self.load_manifest().is_ok_and(|m| m.consolidated_at.is_some())
    }

    /// Note `now` as the first consolidation, once there is a baseline and unless one was
    /// noted before.
    pub(crate) fn remember_first_consolidation(&self, now: Timestamp) -> Result<()> {
        let mut history = self.history()?;
        if history.first_consolidated_at.is_some() || !self.consolidated_before() {
            return Ok(());
        }
        history.first_consolidated_at = Some(now);
        self.fs().write_json(&self.history_path(), &history)
    }

    /// Keep the counts of the extract that finished at `at`, for `status`.
    pub(crate) fn remember_extract(&self, at: Timestamp, counts: Counts) -> Result<()> {
        let history = History { last_extract: Some(LastExtract { at, counts }), ..self.history()? };
        self.fs().write_json(&self.history_path(), &history)
    }

    /// The counts of the last extract, and when it finished.
    pub(crate) fn last_extract(&self) -> Result<Option<LastExtract>> {
        Ok(self.history()?.last_extract)
    }

    pub(crate) fn save_manifest(&self, manifest: &Manifest) -> Result<()> {
        self.fs().write_json(&self.state_dir().join("manifest.json"), manifest)
    }

    fn object_path(&self, hash: &str) -> PathBuf {
        self.state_dir().join("objects").join(hash)
    }

    /// Keep a copy of `bytes` under their content hash (the baseline's contents, for diffs).
    pub(crate) fn store_object(&self, bytes: &[u8]) -> Result<String> {
        let hash = hash(bytes);
        let path = self.object_path(&hash);
        // Named by its content, so a copy already there holds the same bytes; checking first
        // spares a synced write of every baseline file at every consolidation.
        // A plain atomic write, not a no-clobber one: some network and FUSE homes cannot
        // refuse to replace, and replacing a copy with the same bytes is harmless.
        if !self.fs().exists(&path)? {
            self.fs().write_atomic(&path, bytes)?;
        }
        Ok(hash)
    }

    /// A workspace file's bytes, or `None` when it does not exist.
    pub(crate) fn read_bytes(&self, relative: &str) -> Result<Option<Vec<u8>>> {
        self.fs().read_if_exists(&self.file(relative))
    }

    /// The baseline contents stored under `hash`.
    pub(crate) fn object(&self, hash: &str) -> Result<Option<String>> {
        Ok(self.fs().read_if_exists(&self.object_path(hash))?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// The names of the entries of a workspace folder, sorted; none when it does not exist.
    pub(crate) fn list(&self, relative: &str) -> Result<Vec<String>> {
        let entries = self.fs().list_dir(&self.file(relative))?;
        Ok(entries.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect())
    }

    /// The stored baseline contents of each of `hashes` that is stored, by hash.
    pub(crate) fn objects(&self, hashes: &BTreeSet<String>) -> Result<BTreeMap<String, String>> {
        let mut found = BTreeMap::new();
        for hash in hashes {
            if let Some(text) = self.object(hash)? {
                found.insert(hash.clone(), text);
            }
        }
        Ok(found)
    }

    /// Remove stored contents no longer referenced by `keep`.
    pub(crate) fn prune_objects(&self, keep: &BTreeSet<&String>) -> Result<()> {
        // Pruning only tidies: a folder that cannot be listed keeps its copies for next time.
        for path in self.fs().list_dir(&self.state_dir().join("objects")).unwrap_or_default() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !keep.iter().any(|k| **k == name) {
                self.fs().remove_file(&path)?;
            }
        }
        Ok(())
    }

    pub(crate) fn load_edits(&self) -> Result<Edits> {
        Ok(self.fs().read_json(&self.state_dir().join("edits.json"))?.unwrap_or_default())
    }

    pub(crate) fn save_edits(&self, edits: &Edits) -> Result<()> {
        self.fs().write_json(&self.state_dir().join("edits.json"), edits)
    }

    pub(crate) fn load_pending(&self) -> Result<Pending> {
        Ok(self.fs().read_json(&self.state_dir().join("pending.json"))?.unwrap_or_default())
    }

    pub(crate) fn save_pending(&self, pending: &Pending) -> Result<()> {
        self.fs().write_json(&self.state_dir().join("pending.json"), pending)
    }

    pub(crate) fn clear_pending(&self) -> Result<()> {
        self.fs().remove_file(&self.state_dir().join("pending.json"))
    }

    /// The notes, in file-name order.
    pub(crate) fn notes(&self) -> Result<Vec<Note>> {
        let mut notes = Vec::new();
        for path in self.fs().list_dir(&self.home.join(NOTES_DIR))? {
            // A folder is not a note; a link is refused when it is read, naming it.
            let folder = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            if path.extension().is_none_or(|e| e != "md") || folder {
                continue;
            }
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let Some(text) = self.fs().read_if_exists(&path)? else { continue };
            notes.push(notes::parse(&format!("{NOTES_DIR}/{name}"), &String::from_utf8_lossy(&text)));
        }
        notes.sort_by(|a, b| a.file.cmp(&b.file));
        Ok(notes)
    }

    /// True when `home` holds a handbook workspace.
    pub(crate) fn exists(&self) -> bool {
        self.state_dir().is_dir()
    }

    /// Refuse to reset anything that is not unmistakably a workspace: a real (not symlinked)
    /// home holding a real `.handbook/` with handbook's state in it.
    pub(crate) fn check_resettable(&self) -> Result<()> {
        let home = &self.home;
        if home.parent().is_none() {
            bail!("refusing to reset {}: a filesystem root is not a workspace", home.display());
        }
        let meta = std::fs::symlink_metadata(home)
            .with_context(|| format!("cannot reset {}: it does not exist", home.display()))?;
        if meta.file_type().is_symlink() {
            bail!(
                "refusing to reset {}: it is a symbolic link; reset the folder it points to by its own path",
                home.display()
            );
        }
        let state = self.state_dir();
        let real_state_dir = std::fs::symlink_metadata(&state).is_ok_and(|m| m.is_dir());
        let has_state = ["sources.json", "manifest.json"].iter().any(|f| state.join(f).is_file());
        if !real_state_dir || !has_state {
            bail!(
                "refusing to reset {}: it is not a handbook workspace (no .handbook folder with handbook's state)",
                home.display()
            );
        }
        Ok(())
    }

    /// Remove `entries` of the home (files or whole folders) and everything under
    /// `.handbook/` but the lock, never following a symbolic link. True when any of it was
    /// there, `sources.json` aside.
    pub(crate) fn clear(&self, entries: &[&str]) -> Result<bool> {
        let mut found = entries.iter().any(|name| self.file(name).exists());
        for name in entries {
            self.fs().remove_tree(&self.file(name))?;
        }
        for path in self.fs().list_dir(&self.state_dir())? {
            let name = path.file_name().and_then(|n| n.to_str());
            // The lock stays: it is held right now, and removing it would let another run in.
            // The forgotten sessions stay forgotten. The files agents are told to read stay
            // registered (and in place), to be emptied and filled again like any summary.
            if matches!(name, Some("lock" | "forgotten.json" | "doors.json" | "doors")) {
                continue;
            }
            found |= name != Some("sources.json");
            self.fs().remove_tree(&path)?;
        }
        Ok(found)
    }

    /// How many entries the home holds besides `.handbook/` and handbook's own (the notes a
    /// reset kept).
    pub(crate) fn other_entries(&self) -> usize {
        let own = |p: &PathBuf| p.ends_with(".handbook") || OWN_ENTRIES.iter().any(|own| p.ends_with(own));
        self.fs().list_dir(&self.home).map_or(0, |paths| paths.iter().filter(|p| !own(p)).count())
    }
}

/// Rename the unreadable record at `path` to `<name>.damaged`; the warning saying so (or
/// why it could not be).
/// A stored stage-1 record reduced to what a command keeps of it (see
/// [`Workspace::stage1_briefs`]), with the file it is in.
#[derive(Debug)]
pub(crate) struct Filed<B> {
    pub(crate) session_id: String,
    pub(crate) path: PathBuf,
    pub(crate) brief: B,
}

impl plan::Briefed for Filed<plan::Brief> {
    fn session_id(&self) -> &str {
        &self.session_id
    }

    fn brief(&self) -> &plan::Brief {
        &self.brief
    }

    fn brief_mut(&mut self) -> &mut plan::Brief {
        &mut self.brief
    }
}

/// What reading one stored record gave.
enum Reduced<B> {
    /// The record reduced, and whether its file has its canonical name.
    Record(Filed<B>, bool),
    Warning(String),
    /// Removed since the folder was listed.
    Gone,
}

fn set_aside_damaged(home: Home<'_>, path: &Path, error: &anyhow::Error) -> String {
    let aside = path.with_extension("json.damaged");
    match home.rename(path, &aside) {
        Ok(()) => {
            format!(
                "{error:#}; skipped, and set aside as {}: its session is read again at the next extract",
                aside.display()
            )
        }
        Err(e) => format!("{error:#}; skipped (cannot set it aside: {e:#}; move it aside and run extract again)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::stage1::legacy_file_name;

    #[cfg(target_os = "linux")]
    #[test]
    fn only_a_scratch_folder_whose_run_is_gone_is_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let live = format!("{SCRATCH_PREFIX}{}-abc", std::process::id());
        // Process ids stop well below this on Linux (pid_max is at most 2^22).
        let dead = format!("{SCRATCH_PREFIX}4294967-abc");
        for name in [&live, &dead] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
        }
        assert!(!left_behind(&dir.path().join(&live), &live), "a running search's copy stays");
        assert!(left_behind(&dir.path().join(&dead), &dead), "a killed run's copy goes");
        let unnamed = format!("{SCRATCH_PREFIX}x1y2");
        std::fs::create_dir(dir.path().join(&unnamed)).unwrap();
        assert!(!left_behind(&dir.path().join(&unnamed), &unnamed), "a fresh one of no known run stays a while");
    }
    use crate::edge::fsio::{read_json, write_json};

    #[cfg(unix)]
    #[test]
    fn clearing_removes_only_what_it_names_and_keeps_the_lock() {
        let home = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("precious.txt"), "keep me").unwrap();
        let workspace = Workspace::new(home.path());
        let _lock = workspace.lock(Duration::ZERO).unwrap();
        workspace.write("MEMORY.md", "# Notes\n").unwrap();
        workspace.write(".handbook/stage1/a.json", "{}").unwrap();
        workspace.write("mine.txt", "mine").unwrap();
        std::os::unix::fs::symlink(outside.path(), home.path().join("skills")).unwrap();

        assert!(workspace.clear(&["MEMORY.md", "skills", "rollout_summaries"]).unwrap());
        assert!(!home.path().join("MEMORY.md").exists() && !workspace.stage1_dir().exists());
        assert!(std::fs::symlink_metadata(home.path().join("skills")).is_err(), "the link itself goes");
        assert!(outside.path().join("precious.txt").exists(), "what it points to stays");
        assert!(workspace.state_dir().join("lock").exists());
        assert_eq!(workspace.other_entries(), 1);
        assert!(!workspace.clear(&["MEMORY.md"]).unwrap(), "nothing was left to remove");
    }

    #[test]
    fn only_a_real_workspace_may_be_reset() {
        let home = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(home.path());
        let err = workspace.check_resettable().unwrap_err();
        assert!(format!("{err:#}").contains("not a handbook workspace"), "{err:#}");
        workspace.save_sources(&Sources::default()).unwrap();
        workspace.check_resettable().unwrap();
        let err = Workspace::new(Path::new("/")).check_resettable().unwrap_err();
        assert!(format!("{err:#}").contains("a filesystem root is not a workspace"), "{err:#}");
    }

    #[test]
    fn a_record_name_holding_another_session_is_an_error_not_an_overwrite() {
        use crate::core::consolidate::tests::{record, task};
        let home = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(home.path());
        let mine = record("mine", "/w/p", 20, vec![task("t")]);
        let other = record("other", "/w/p", 20, vec![task("t")]);
        // The other session's record under this one's name: a copy by hand, or a file system
        // that merges names.
        write_json(&workspace.stage1_path("mine"), &other).unwrap();
        let err = format!("{:#}", workspace.save_stage1(&mine).unwrap_err());
        assert!(err.contains("\"other\"") && err.contains("\"mine\"") && err.contains("mine.json"), "{err}");
        let err = format!("{:#}", workspace.load_stage1("mine").unwrap_err());
        assert!(err.contains("\"other\"") && err.contains("\"mine\""), "{err}");
        workspace.remove_stage1("mine").unwrap();
        let kept: Stage1 = read_json(&workspace.stage1_path("mine")).unwrap().unwrap();
        assert_eq!(kept.session_id, "other", "the other session's record was overwritten or removed");
    }

    #[test]
    fn records_stored_under_their_old_names_are_found_and_moved() {
        use crate::core::consolidate::tests::{record, task};
        let home = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(home.path());
        let id = "../Odd id";
        let old = workspace.stage1_dir().join(legacy_file_name(id));
        write_json(&old, &record(id, "/w/p", 20, vec![task("t")])).unwrap();
        assert_eq!(workspace.load_stage1(id).unwrap().unwrap().session_id, id);
        assert_eq!(workspace.all_stage1(&mut |w| panic!("{w}")).unwrap().len(), 1);
        let found = workspace.load_stage1(id).unwrap().unwrap();
        workspace.save_stage1(&found).unwrap();
        assert!(!old.exists() && workspace.stage1_path(id).exists());
        assert_eq!(workspace.all_stage1(&mut |w| panic!("{w}")).unwrap().len(), 1);
        workspace.remove_stage1(id).unwrap();
        assert!(workspace.all_stage1(&mut |w| panic!("{w}")).unwrap().is_empty());
    }
}
