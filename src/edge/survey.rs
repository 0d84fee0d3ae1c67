//! What the sources hold now, session by session: every transcript found is looked at (its
//! size and time, whether it moved) and triaged by `core::state`. The ones to read come back
//! newest first, cut to the run's limit; the rest are counted.

use std::path::PathBuf;

use anyhow::Result;

use super::discover::{key_of, stat_of};
use super::ledger::Ledger;
use crate::core::state::{self, Coverage, FileStat, Rules, SourceKey, Triage};

/// A session to read, and whether only its modification time may have changed.
pub(crate) struct ToRead {
    pub(crate) key: SourceKey,
    pub(crate) stat: FileStat,
    pub(crate) touched: bool,
    pub(crate) origin: Origin,
}

/// Where a session to read is.
pub(crate) enum Origin {
    /// A transcript file of its own.
    File(PathBuf),
}

/// A session that could not even be looked at.
pub(crate) struct Unreadable {
    pub(crate) key: SourceKey,
    pub(crate) reason: String,
}

/// What the survey found.
#[derive(Default)]
pub(crate) struct Surveyed {
    pub(crate) to_read: Vec<ToRead>,
    pub(crate) unreadable: Vec<Unreadable>,
}

/// Which sessions a run looks at: those `--session` names (all when empty), at most `limit`
/// of them read.
pub(crate) struct Scope<'a> {
    pub(crate) sessions: &'a [String],
    pub(crate) limit: Option<usize>,
}

/// Look at every file found, counting in `coverage` what needs no reading.
pub(crate) fn survey(
    files: &[PathBuf],
    ledger: &mut Ledger<'_>,
    rules: &Rules,
    scope: &Scope<'_>,
    coverage: &mut Coverage,
) -> Result<Surveyed> {
    let mut found = Surveyed::default();
    for path in files {
        let key = SourceKey::file(key_of(path));
        let session_id = ledger.get(&key).and_then(|e| e.session_id.as_deref());
        if !state::selected(scope.sessions, &key.path, session_id) {
            continue;
        }
        coverage.sessions += 1;
        let stat = match stat_of(path) {
            Ok(stat) => stat,
            Err(e) => {
                found.unreadable.push(Unreadable { key, reason: format!("{e:#}") });
                continue;
            }
        };
        if ledger.follow_move(path, stat)? {
            coverage.unchanged += 1;
            continue;
        }
        let origin = Origin::File(path.clone());
        triage(ToRead { key, stat, touched: false, origin }, ledger, rules, coverage, &mut found);
    }
    coverage.deferred = state::newest_first(&mut found.to_read, scope.limit, |f| (f.stat.mtime_ns, &f.key));
    Ok(found)
}

/// Read the session, or count it.
fn triage(mut read: ToRead, ledger: &Ledger<'_>, rules: &Rules, coverage: &mut Coverage, found: &mut Surveyed) {
    let entry = ledger.get(&read.key);
    match state::triage(entry, read.stat, rules, ledger.store().presence()) {
        Triage::Read { touched } => {
            read.touched = touched;
            found.to_read.push(read);
        }
        Triage::Count(plan) => coverage.count(&read.key.to_string(), plan, entry),
    }
}
