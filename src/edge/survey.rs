//! What the sources hold now, session by session: every transcript found is looked at (its
//! size and time, whether it moved) and triaged by `core::state`. The ones to read come back
//! newest first, cut to the run's limit; the rest are counted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use anyhow::Result;

use super::discover::{Discovery, key_of};
use super::extraction::Job;
use super::ledger::Ledger;
use super::opencode::Snapshot;
use super::workspace::Scratch;
use crate::core::state::{self, Coverage, FileStat, Rules, SourceKey, Triage};

/// A session to read, and whether only its modification time may have changed.
pub(crate) struct ToRead {
    pub(crate) key: SourceKey,
    pub(crate) stat: FileStat,
    pub(crate) touched: bool,
    pub(crate) origin: Origin,
}

impl ToRead {
    /// What a reading thread needs to read it.
    pub(crate) fn job(&self, ledger: &Ledger<'_>) -> Job<'_> {
        match (&self.origin, self.touched) {
            (Origin::File(_), false) => Job::File(self.path()),
            (Origin::File(_), true) => Job::Touched(self.path(), ledger.hash_of(&self.key).map(Into::into)),
            (Origin::Member { snapshot, id }, _) => Job::Member(Box::new((snapshot.shared(), id))),
        }
    }

    /// The file the session is read from (for a database's session, the database).
    pub(crate) fn path(&self) -> &Path {
        match &self.origin {
            Origin::File(Some(own)) => own,
            _ => Path::new(&*self.key.path),
        }
    }
}

/// Where a session to read is.
pub(crate) enum Origin {
    /// A transcript file of its own: at the key's path, or at this one when the path is not
    /// text (the key then holds it with its odd bytes replaced). Most paths are kept once.
    File(Option<PathBuf>),
    /// One session of a database, read from this run's private copy of it.
    Member { snapshot: Rc<Snapshot>, id: String },
}

/// A session that could not even be looked at.
pub(crate) struct Unreadable {
    pub(crate) key: SourceKey,
    pub(crate) reason: String,
    /// Whether the failure is kept in the state (and counted toward giving up). A database
    /// that could not be opened is not: its sessions keep their own states, and it is simply
    /// looked at again next run.
    pub(crate) recorded: bool,
}

/// What the survey found.
#[derive(Default)]
pub(crate) struct Surveyed {
    pub(crate) to_read: Vec<ToRead>,
    pub(crate) unreadable: Vec<Unreadable>,
}

/// Which sessions a run looks at: those `--session` names (all when empty), at most `limit`
/// of them read; and where private copies of databases go while they are read.
pub(crate) struct Scope<'a> {
    pub(crate) sessions: &'a [String],
    pub(crate) limit: Option<usize>,
    pub(crate) scratch: &'a Scratch<'a>,
}

/// Look at every file found, counting in `coverage` what needs no reading. The files found
/// are taken from `files` (a session to read keeps its path, not a copy).
pub(crate) fn survey(
    files: &mut Discovery,
    ledger: &mut Ledger<'_>,
    rules: &Rules,
    scope: &Scope<'_>,
    coverage: &mut Coverage,
) -> Result<Surveyed> {
    let (paths, stats) = (std::mem::take(&mut files.files), std::mem::take(&mut files.stats));
    // A first run reads every file: room for them all at once, not twice over while growing.
    // A later one reads what changed, usually few: no room is kept for the rest.
    let room = if ledger.store().sources().sources.is_empty() { paths.len() } else { 0 };
    let mut found = Surveyed { to_read: Vec::with_capacity(room), ..Surveyed::default() };
    for (path, stat) in paths.into_iter().zip(stats) {
        let Some(stat) = stat else {
            survey_database(&path, ledger, rules, scope, coverage, &mut found);
            continue;
        };
        let (key, own) = keyed(path);
        let path = own.as_deref().unwrap_or(Path::new(&*key.path));
        // The state of each file is looked up once (a re-run asks it of every file found):
        // here only when sessions were named, to tell whether this is one of them.
        let session_id = || ledger.get(&key).and_then(|e| e.session_id.as_deref());
        if !scope.sessions.is_empty() && !state::selected(scope.sessions, &key.path, session_id()) {
            continue;
        }
        coverage.counts.sessions += 1;
        let stat = match stat {
            Ok(stat) => stat,
            Err(reason) => {
                found.unreadable.push(Unreadable { key, reason, recorded: true });
                continue;
            }
        };
        if ledger.follow_move(path, stat)? {
            coverage.counts.unchanged += 1;
            continue;
        }
        let origin = Origin::File(own);
        triage(ToRead { key, stat, touched: false, origin }, ledger, rules, coverage, &mut found);
    }
    coverage.counts.deferred = state::newest_first(&mut found.to_read, scope.limit, |f| (f.stat.mtime_ns, &f.key));
    Ok(found)
}

/// The key of the transcript found at `path`, and the path itself when the key cannot say it
/// (see [`Origin::File`]).
fn keyed(path: PathBuf) -> (SourceKey, Option<PathBuf>) {
    match path.into_os_string().into_string() {
        Ok(text) => (SourceKey::file(text), None),
        Err(raw) => {
            let path = PathBuf::from(raw);
            (SourceKey::file(key_of(&path)), Some(path))
        }
    }
}

/// Look at every session of a database: through a private copy, so the agent's own files
/// are never written, and one session changed means one session read. Sessions it no longer
/// holds are vanished. A database that cannot be copied or opened (the agent is writing to
/// it, it is damaged) is one failure, and what was learned from it stays.
fn survey_database(
    path: &Path,
    ledger: &mut Ledger<'_>,
    rules: &Rules,
    scope: &Scope<'_>,
    coverage: &mut Coverage,
    found: &mut Surveyed,
) {
    let db: Arc<str> = key_of(path).into();
    let opened = scope.scratch.path().and_then(|dir| Snapshot::take(path, dir)).and_then(|s| Ok((s.sessions()?, s)));
    let (members, snapshot) = match opened {
        Ok((members, snapshot)) => (members, Rc::new(snapshot)),
        // A database none of whose sessions could be the ones asked for is not counted.
        Err(_) if !state::selected(scope.sessions, &db, None) => return,
        Err(e) => {
            coverage.counts.sessions += 1;
            // The report names the database; the error does too, for when it stands alone.
            let error = format!("{e:#}");
            let error = error.strip_prefix(&format!("{db}: ")).unwrap_or(&error);
            // Some reasons already say so; the report says it once.
            let reason = match error.strip_suffix("; skipped") {
                _ if error.contains("skipped for this run") => error.to_string(),
                Some(cause) => format!("{cause}; skipped for this run"),
                None => format!("{error}; skipped for this run"),
            };
            found.unreadable.push(Unreadable { key: SourceKey::file(db), reason, recorded: false });
            return;
        }
    };
    if scope.sessions.is_empty() {
        let listed: BTreeSet<&str> = members.iter().map(|m| m.id.as_str()).collect();
        coverage.counts.vanished += ledger.vanish_members(&db, &listed);
    }
    for member in members {
        let key = SourceKey::member(Arc::clone(&db), member.id.clone());
        if !state::selected(scope.sessions, &db, Some(&member.id)) {
            continue;
        }
        coverage.counts.sessions += 1;
        let origin = Origin::Member { snapshot: Rc::clone(&snapshot), id: member.id };
        triage(ToRead { key, stat: member.stat, touched: false, origin }, ledger, rules, coverage, found);
    }
}

/// Read the session, or count it.
fn triage(mut read: ToRead, ledger: &Ledger<'_>, rules: &Rules, coverage: &mut Coverage, found: &mut Surveyed) {
    let entry = ledger.get(&read.key);
    match state::triage(entry, read.stat, rules, ledger.store().presence()) {
        Triage::Read { touched } => {
            // A database session's size and time are its rows': no file to hash on its own.
            read.touched = touched && matches!(read.origin, Origin::File(_));
            found.to_read.push(read);
        }
        // Written to lately is not in use lately (a copied folder): its records decide.
        Triage::Count(plan) if state::judged_by_records(plan) => found.to_read.push(read),
        Triage::Count(plan) => coverage.count(&read.key, plan, entry),
    }
}
