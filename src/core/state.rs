//! What handbook remembers about each transcript file (`.handbook/sources.json`), the rules
//! that decide whether a file needs reading on this run, and the coverage report of a run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::core::session::Agent;

/// Bumped when the file's shape changes incompatibly.
pub const SOURCES_VERSION: u32 = 1;

/// A failed file is tried this many times while it stays unchanged; a change resets the count.
pub const MAX_TRIES: u32 = 3;
/// How the reason of a file given up on begins.
pub const GAVE_UP: &str = "gave up after";

/// The state file: one entry per transcript path ever seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sources {
    pub version: u32,
    pub sources: BTreeMap<String, SourceEntry>,
    /// Session ids the user asked to forget; kept across `reset`.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub excluded: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_extract: Option<Timestamp>,
}

/// Where a transcript stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceState {
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
    pub fn name(self) -> &'static str {
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
pub struct SourceEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Agent>,
    /// Read with a format forced by `--format` rather than detected; a run without it reads
    /// the file again, so a wrong guess is not kept for good.
    #[serde(default, skip_serializing_if = "is_false")]
    pub forced_format: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Last activity in the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    pub state: SourceState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tries: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Lines that could not be read at the last read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warnings: u32,
    /// Sessions this transcript's replies cited (handbook, Codex and opencode citation blocks),
    /// with how many replies cited each. The sum over all transcripts is a session's usage.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cited: BTreeMap<String, u32>,
    /// The extractor version that settled this file; a newer one reads it again.
    #[serde(default)]
    pub extractor: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Size and modification time of a file, as found on disk now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    pub size: u64,
    pub mtime_ns: i128,
}

impl FileStat {
    pub fn modified(&self) -> Timestamp {
        let clamped = self.mtime_ns.clamp(Timestamp::MIN.as_nanosecond(), Timestamp::MAX.as_nanosecond());
        Timestamp::from_nanosecond(clamped).unwrap_or(Timestamp::UNIX_EPOCH)
    }
}

/// The idle and age windows of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Windows {
    pub now: Timestamp,
    pub min_idle: SignedDuration,
    pub max_age: SignedDuration,
    /// `--all`: ignore both windows.
    pub all: bool,
}

/// What to do with a file on this run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
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
pub struct Usage {
    pub count: u32,
    pub last: Option<Timestamp>,
}

/// Every cited session's usage, summed over the sessions that cite it. A session read from
/// two files (an archived copy, a duplicate) counts once; vanished and forgotten ones not at
/// all.
pub fn usage(sources: &Sources) -> BTreeMap<String, Usage> {
    // Citing session → the citations of its most recent copy.
    let mut citing: BTreeMap<&str, &SourceEntry> = BTreeMap::new();
    for (path, entry) in &sources.sources {
        let forgotten = entry.reason.as_deref() == Some("forgotten")
            || entry.session_id.as_ref().is_some_and(|id| sources.excluded.contains(id));
        if entry.cited.is_empty() || entry.state == SourceState::Vanished || forgotten {
            continue;
        }
        let id = entry.session_id.as_deref().unwrap_or(path.as_str());
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
pub fn plan(entry: Option<&SourceEntry>, stat: FileStat, windows: Windows) -> Plan {
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
    let modified = stat.modified();
    if modified > windows.now - windows.min_idle {
        Plan::Active
    } else if modified < windows.now - windows.max_age {
        Plan::TooOld
    } else {
        Plan::Read
    }
}

/// How a run's files were accounted for: the coverage report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub sessions: u64,
    pub extracted: u64,
    pub no_op: u64,
    pub unchanged: u64,
    pub still_active: u64,
    pub too_old: u64,
    pub excluded: u64,
    pub skipped: u64,
    pub failed: u64,
    pub vanished: u64,
    /// Left for a later run by `--limit` or the per-run session cap.
    pub deferred: u64,
    pub warnings: u64,
    /// Why sessions were excluded or skipped, with counts.
    pub reasons: BTreeMap<String, u64>,
    /// Each failed file with its reason, sorted by path.
    pub failures: Vec<(String, String)>,
}

impl Coverage {
    /// The one-line summary printed at the end of a run.
    ///
    /// ```
    /// use handbook::core::state::Coverage;
    /// let c = Coverage { sessions: 3, extracted: 2, no_op: 1, ..Coverage::default() };
    /// assert_eq!(c.line(), "3 sessions: 2 extracted, 1 no-op, 0 unchanged, 0 still active, 0 too old, 0 excluded, 0 failed");
    /// ```
    pub fn line(&self) -> String {
        let mut out = format!(
            "{}: {} extracted, {} no-op, {} unchanged, {} still active, {} too old, {} excluded",
            crate::core::words::count(self.sessions as usize, "session"),
            self.extracted,
            self.no_op,
            self.unchanged,
            self.still_active,
            self.too_old,
            self.excluded,
        );
        // Exclusion reasons are nouns ("2 sub-agent"); skip reasons are sentences, counted after.
        let reasons = |out: &mut String, prefix: &str| {
            let matching: Vec<String> = self
                .reasons
                .iter()
                .filter_map(|(r, n)| {
                    r.strip_prefix(prefix).map(|r| match (prefix, n) {
                        ("skipped: ", 1) => r.to_string(),
                        ("skipped: ", n) => format!("{r} ×{n}"),
                        (_, n) => format!("{n} {r}"),
                    })
                })
                .collect();
            if !matching.is_empty() {
                let _ = write!(out, " ({})", matching.join(", "));
            }
        };
        reasons(&mut out, "excluded: ");
        if self.skipped > 0 {
            let _ = write!(out, ", {} skipped", self.skipped);
            reasons(&mut out, "skipped: ");
        }
        let _ = write!(out, ", {} failed", self.failed);
        if !self.failures.is_empty() {
            let shown: Vec<String> = self.failures.iter().take(3).map(|(p, r)| format!("{p}: {r}")).collect();
            let more = self.failures.len().saturating_sub(3);
            let _ = write!(
                out,
                " ({}{})",
                shown.join("; "),
                if more > 0 { format!("; {more} more") } else { String::new() }
            );
        }
        if self.vanished > 0 {
            let _ = write!(out, ", {} vanished", self.vanished);
        }
        if self.deferred > 0 {
            let _ = write!(out, ", {} deferred to a later run", self.deferred);
        }
        if self.warnings > 0 {
            let _ = write!(out, "; {} warning{}", self.warnings, if self.warnings == 1 { "" } else { "s" });
        }
        out
    }

    /// Count a reason under `excluded: ` or `skipped: `.
    pub fn count_reason(&mut self, class: &str, reason: &str) {
        *self.reasons.entry(format!("{class}: {reason}")).or_default() += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(all: bool) -> Windows {
        Windows {
            now: "2026-11-29T12:00:00Z".parse().unwrap(),
            min_idle: SignedDuration::from_hours(6),
            max_age: SignedDuration::from_hours(240),
            all,
        }
    }

    fn stat_at(time: &str, size: u64) -> FileStat {
        let ts: Timestamp = time.parse().unwrap();
        FileStat { size, mtime_ns: ts.as_nanosecond() }
    }

    fn entry(stat: FileStat, state: SourceState, tries: u32) -> SourceEntry {
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
    fn settled_files_are_unchanged_until_they_change() {
        let stat = stat_at("2026-11-01T10:00:00Z", 10);
        let done = entry(stat, SourceState::Extracted, 0);
        assert_eq!(plan(Some(&done), stat, windows(false)), Plan::Unchanged);
        let grown = FileStat { size: 11, ..stat };
        assert_eq!(plan(Some(&done), grown, windows(true)), Plan::Read);
    }

    #[test]
    fn reasons_read_as_counts_of_nouns_or_counted_sentences() {
        let mut c = Coverage { sessions: 5, excluded: 2, skipped: 3, ..Coverage::default() };
        c.count_reason("excluded", "sub-agent");
        c.count_reason("excluded", "sub-agent");
        c.count_reason("skipped", "pi transcripts are not supported yet");
        c.count_reason("skipped", "pi transcripts are not supported yet");
        c.count_reason("skipped", "empty file");
        assert!(
            c.line()
                .contains("2 excluded (2 sub-agent), 3 skipped (empty file, pi transcripts are not supported yet ×2)"),
            "{}",
            c.line()
        );
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

    #[test]
    fn the_coverage_line_names_reasons_and_failures() {
        let mut c = Coverage { sessions: 4, extracted: 1, excluded: 2, failed: 1, warnings: 3, ..Coverage::default() };
        c.count_reason("excluded", "sub-agent");
        c.count_reason("excluded", "sub-agent");
        c.failures.push(("a.jsonl".into(), "permission denied".into()));
        assert_eq!(
            c.line(),
            "4 sessions: 1 extracted, 0 no-op, 0 unchanged, 0 still active, 0 too old, 2 excluded (2 sub-agent), 1 failed (a.jsonl: permission denied); 3 warnings"
        );
    }
}
