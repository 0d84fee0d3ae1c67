//! What handbook remembers about each transcript file (`.handbook/sources.json`), the rules
//! that decide whether a file needs reading on this run, and the coverage report of a run.

mod coverage;
mod decide;
mod digest;
mod file;
mod forgotten;
mod index;
pub(crate) mod journal;
mod key;
mod packing;
mod reason;
mod report;
mod store;

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::core::session::Agent;

pub(crate) use coverage::{Counts, Coverage};
pub(crate) use decide::*;
pub(crate) use digest::Digest;
pub(crate) use file::{LineReader, write_lines};
pub(crate) use forgotten::{FORGOTTEN_VERSION, Forgetting, Forgotten, forget, ids_named, rebuilt_note, unforget};
pub(crate) use index::Presence;
pub(crate) use key::SourceKey;
pub(crate) use reason::Reason;
pub(crate) use report::{Caps, HintFlags, LeftOut, SessionReport, left_out, notes, warning_lines};
pub(crate) use store::Store;

/// Bumped when the file's shape changes incompatibly.
pub(crate) const SOURCES_VERSION: u32 = 1;

/// A failed file is tried this many times while it stays unchanged; a change resets the count.
pub(crate) const MAX_TRIES: u32 = 3;

/// The state file: one entry per session ever seen (see [`SourceKey`] for how it is kept).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Sources {
    pub(crate) version: u32,
    pub(crate) sources: BTreeMap<SourceKey, SourceEntry>,
    /// Session ids the user asked to forget; kept across `reset`, and in a file of their own
    /// (see [`Forgotten`]).
    pub(crate) excluded: BTreeSet<String>,
    pub(crate) last_extract: Option<Timestamp>,
}

impl Sources {
    /// The entry of the session a stage-1 record came from: its transcript's, or its own
    /// within a file that holds many.
    pub(crate) fn of_record(&self, rollout_path: &str, session_id: &str) -> Option<&SourceEntry> {
        self.sources
            .get(&SourceKey::file(rollout_path))
            .or_else(|| self.sources.get(&SourceKey::member(rollout_path, session_id)))
    }
}

/// Where a transcript stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum SourceState {
    /// Read, and its lessons are in `stage1/`.
    Extracted,
    /// Read, and nothing in it was worth keeping.
    NoOp,
    /// Not extracted on purpose (`reason` says why: sub-agent, handbook's own, forgotten...).
    Excluded,
    /// Not a transcript (`reason` says why: empty, binary, unknown format).
    Skipped,
    /// Could not be read (`last_error` says why); retried on later runs.
    Failed,
    /// The file is gone. Its lessons drop out at the next consolidation.
    Vanished,
}

impl SourceState {
    pub(crate) fn name(self) -> &'static str {
        match self {
            SourceState::Extracted => "extracted",
            SourceState::NoOp => "no-op",
            SourceState::Excluded => "excluded",
            SourceState::Skipped => "skipped",
            SourceState::Failed => "failed",
            SourceState::Vanished => "vanished",
        }
    }
}

/// One transcript file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SourceEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) format: Option<Agent>,
    /// Read with a format forced by `--format` rather than detected; a run without it reads
    /// the file again, so a wrong guess is not kept for good.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) forced_format: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) session_id: Option<Box<str>>,
    pub(crate) size: u64,
    /// Modification time, nanoseconds since the Unix epoch (see [`FileStat::mtime_ns`]).
    #[serde(deserialize_with = "saturating_nanos")]
    pub(crate) mtime_ns: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) hash: Option<Digest>,
    /// Last activity in the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) updated_at: Option<Timestamp>,
    pub(crate) state: SourceState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<Reason>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) tries: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_error: Option<Box<str>>,
    /// Lines that could not be read at the last read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) warnings: u32,
    /// Sessions this transcript's replies cited (handbook, Codex and opencode citation blocks),
    /// with how many replies cited each. The sum over all transcripts is a session's usage.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) cited: BTreeMap<String, u32>,
    /// The session used web or MCP tools at its last read: turning `exclude_external_context`
    /// on reads it again, to exclude it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub(crate) external: bool,
    /// The extractor version that settled this file; a newer one reads it again.
    #[serde(default)]
    pub(crate) extractor: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Size and modification time of a file, as found on disk now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStat {
    pub(crate) size: u64,
    /// Nanoseconds since the Unix epoch, which 64 bits hold from 1677 to 2262; a time
    /// outside is kept as the nearest end (see [`saturated`]). The state holds one for every
    /// session ever seen, so not the 128 bits a timestamp's nanoseconds come in.
    pub(crate) mtime_ns: i64,
}

impl FileStat {
    /// The stat of a file of `size` bytes last modified at `at`.
    pub(crate) fn at(size: u64, at: Timestamp) -> FileStat {
        FileStat { size, mtime_ns: saturated(at.as_nanosecond()) }
    }

    pub(crate) fn modified(&self) -> Timestamp {
        Timestamp::from_nanosecond(i128::from(self.mtime_ns)).unwrap_or(Timestamp::UNIX_EPOCH)
    }
}

/// Nanoseconds as 64 bits, a time past either end kept as that end.
pub(crate) fn saturated(nanos: i128) -> i64 {
    i64::try_from(nanos).unwrap_or(if nanos < 0 { i64::MIN } else { i64::MAX })
}

/// A modification time as `sources.json` holds it: a state written when times were kept in
/// 128 bits may hold one past what 64 hold.
fn saturating_nanos<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    i128::deserialize(deserializer).map(saturated)
}

/// The idle and age windows of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Windows {
    pub(crate) now: Timestamp,
    pub(crate) min_idle: SignedDuration,
    /// `None`: no age window (the built-in engine's default: it costs nothing to read old
    /// sessions).
    pub(crate) max_age: Option<SignedDuration>,
    /// `--all`: ignore both windows.
    pub(crate) all: bool,
}

/// What to do with a file on this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Same size and time as when it was settled: nothing to do.
    Unchanged,
    /// Written to within the idle window: a session still in progress.
    Active,
    /// Last written before the age window.
    TooOld,
    /// Failed too often and unchanged since: reported, not retried.
    GaveUp,
    /// Needs reading (new, changed, or a failure to retry).
    Read,
}

/// A session's usage: how many replies cited it, and when the last of them was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Usage {
    pub(crate) count: u32,
    pub(crate) last: Option<Timestamp>,
}

/// Every cited session's usage, summed over the sessions that cite it. A session read from
/// two files (an archived copy, a duplicate) counts once; vanished and forgotten ones not at
/// all.
pub(crate) fn usage(sources: &Sources) -> BTreeMap<String, Usage> {
    // Citing session → the citations of its most recent copy.
    let mut citing: BTreeMap<&str, &SourceEntry> = BTreeMap::new();
    for (path, entry) in &sources.sources {
        let forgotten = entry.reason == Some(Reason::Forgotten)
            || entry.session_id.as_deref().is_some_and(|id| sources.excluded.contains(id));
        if entry.cited.is_empty() || entry.state == SourceState::Vanished || forgotten {
            continue;
        }
        let id = entry.session_id.as_deref().unwrap_or(&path.path);
        let newer = citing.get(id).is_none_or(|known| entry.updated_at > known.updated_at);
        if newer {
            citing.insert(id, entry);
        }
    }
    let mut totals: BTreeMap<String, Usage> = BTreeMap::new();
    for entry in citing.values() {
        for (id, n) in &entry.cited {
            let usage = totals.entry(id.clone()).or_default();
            usage.count += n;
            usage.last = usage.last.max(entry.updated_at);
        }
    }
    totals
}

/// Decide what a file needs, from what is known about it and how it looks now.
pub(crate) fn plan(entry: Option<&SourceEntry>, stat: FileStat, windows: Windows) -> Plan {
    if let Some(entry) = entry
        && entry.size == stat.size
        && entry.mtime_ns == stat.mtime_ns
    {
        match entry.state {
            SourceState::Failed if entry.tries >= MAX_TRIES => return Plan::GaveUp,
            SourceState::Failed | SourceState::Vanished => {}
            _ => return Plan::Unchanged,
        }
    }
    if windows.all {
        return Plan::Read;
    }
    windows.place(stat.modified())
}

impl Windows {
    /// Where a session last active at `last` stands: still active, too old, or to read.
    pub(crate) fn place(&self, last: Timestamp) -> Plan {
        if last > self.now - self.min_idle {
            Plan::Active
        } else if self.max_age.is_some_and(|age| last < self.now - age) {
            Plan::TooOld
        } else {
            Plan::Read
        }
    }
}

/// When a session read now was last active: the newest record's own time, where the format
/// records one, and never later than the file's modification time. A copied or restored
/// folder is freshly written on disk, not freshly used, so its records decide; a record
/// stamped in the future (a skewed clock) cannot keep a session active for good.
pub(crate) fn last_active(newest_record: Option<Timestamp>, stat: FileStat) -> Timestamp {
    let modified = stat.modified();
    newest_record.map_or(modified, |record| record.min(modified))
}

/// What the windows say of a session once it has been read (`--all` or named sessions:
/// nothing): `Active` or `TooOld` when it is to be left alone, judged by [`last_active`].
pub(crate) fn left_alone(newest_record: Option<Timestamp>, stat: FileStat, windows: Windows) -> Option<Plan> {
    if windows.all {
        return None;
    }
    match windows.place(last_active(newest_record, stat)) {
        Plan::Read => None,
        plan => Some(plan),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_session_stays_small_in_memory() {
        // The state holds one key and one entry for every session ever seen: a hundred
        // thousand of them. A field that grows these grows every command's memory.
        assert!(std::mem::size_of::<SourceEntry>() <= 184, "{}", std::mem::size_of::<SourceEntry>());
        assert!(std::mem::size_of::<SourceKey>() <= 32, "{}", std::mem::size_of::<SourceKey>());
        let far = FileStat::at(1, "9999-01-01T00:00:00Z".parse().unwrap());
        assert_eq!(far.mtime_ns, i64::MAX, "a time past what 64 bits hold is kept as the end");
        let old: SourceEntry =
            serde_json::from_str(r#"{"size": 1, "mtime_ns": 253370764800000000000, "state": "no-op"}"#).unwrap();
        assert_eq!(old.mtime_ns, i64::MAX, "a state written with 128-bit times still reads");
    }

    pub(super) fn windows(all: bool) -> Windows {
        Windows {
            now: "2026-11-29T12:00:00Z".parse().unwrap(),
            min_idle: SignedDuration::from_hours(6),
            max_age: Some(SignedDuration::from_hours(240)),
            all,
        }
    }

    pub(super) fn stat_at(time: &str, size: u64) -> FileStat {
        let ts: Timestamp = time.parse().unwrap();
        FileStat::at(size, ts)
    }

    pub(crate) fn entry(stat: FileStat, state: SourceState, tries: u32) -> SourceEntry {
        SourceEntry {
            format: Some(Agent::Codex),
            forced_format: false,
            session_id: Some("s".into()),
            size: stat.size,
            mtime_ns: stat.mtime_ns,
            hash: None,
            updated_at: None,
            state,
            reason: None,
            tries,
            last_error: None,
            warnings: 0,
            cited: BTreeMap::new(),
            external: false,
            extractor: 0,
        }
    }

    #[test]
    fn windows_keep_active_and_old_sessions_out() {
        assert_eq!(plan(None, stat_at("2026-11-29T10:00:00Z", 1), windows(false)), Plan::Active);
        assert_eq!(plan(None, stat_at("2026-11-01T10:00:00Z", 1), windows(false)), Plan::TooOld);
        assert_eq!(plan(None, stat_at("2026-11-25T10:00:00Z", 1), windows(false)), Plan::Read);
        assert_eq!(plan(None, stat_at("2026-11-29T10:00:00Z", 1), windows(true)), Plan::Read);
    }

    #[test]
    fn a_session_is_as_active_as_its_newest_record() {
        let copied_now = stat_at("2026-11-29T11:30:00Z", 1);
        let old = Some("2026-11-20T10:00:00Z".parse().unwrap());
        assert_eq!(left_alone(old, copied_now, windows(false)), None, "a copied folder is not being written");
        let live = Some("2026-11-29T11:29:00Z".parse().unwrap());
        assert_eq!(left_alone(live, copied_now, windows(false)), Some(Plan::Active));
        assert_eq!(left_alone(None, copied_now, windows(false)), Some(Plan::Active), "no record time: the mtime");
        let ancient = Some("2026-10-01T10:00:00Z".parse().unwrap());
        assert_eq!(left_alone(ancient, copied_now, windows(false)), Some(Plan::TooOld));
        let no_window = Windows { max_age: None, ..windows(false) };
        assert_eq!(left_alone(ancient, copied_now, no_window), None, "no age window: every age is read");
        let future = Some("2027-01-01T00:00:00Z".parse().unwrap());
        let quiet = stat_at("2026-11-25T10:00:00Z", 1);
        assert_eq!(left_alone(future, quiet, windows(false)), None, "a skewed clock does not keep it active");
        assert_eq!(left_alone(live, copied_now, windows(true)), None, "--all reads everything");
    }

    #[test]
    fn settled_files_are_unchanged_until_they_change() {
        let stat = stat_at("2026-11-01T10:00:00Z", 10);
        let done = entry(stat, SourceState::Extracted, 0);
        assert_eq!(plan(Some(&done), stat, windows(false)), Plan::Unchanged);
        let grown = FileStat { size: 11, ..stat };
        assert_eq!(plan(Some(&done), grown, windows(true)), Plan::Read);
    }

    #[test]
    fn failures_are_retried_until_they_give_up() {
        let stat = stat_at("2026-11-25T10:00:00Z", 10);
        assert_eq!(plan(Some(&entry(stat, SourceState::Failed, 1)), stat, windows(false)), Plan::Read);
        assert_eq!(plan(Some(&entry(stat, SourceState::Failed, MAX_TRIES)), stat, windows(false)), Plan::GaveUp);
    }

    #[test]
    fn usage_counts_each_citing_session_once() {
        let stat = stat_at("2026-11-25T10:00:00Z", 10);
        let mut citing = entry(stat, SourceState::NoOp, 0);
        citing.session_id = Some("citer".into());
        citing.cited.insert("cited".into(), 2);
        citing.updated_at = Some("2026-11-25T10:00:00Z".parse().unwrap());
        let mut sources = Sources::default();
        sources.sources.insert("/a/rollout.jsonl".into(), citing.clone());
        sources.sources.insert("/archived/rollout.jsonl".into(), citing.clone());
        assert_eq!(usage(&sources)["cited"].count, 2);
        sources.excluded.insert("citer".into());
        assert!(usage(&sources).is_empty());
    }
}
