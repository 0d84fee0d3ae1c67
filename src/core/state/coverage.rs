//! The coverage report of an `extract` run: how every file was accounted for, as one line
//! and as JSON.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Serialize, Serializer};

use super::MAX_TRIES;
use super::reason::Reason;
use super::{Plan, SourceEntry, SourceKey, SourceState};
use crate::core::words::count;

/// How a run's files were accounted for: the coverage report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Coverage {
    /// How many sessions went which way.
    #[serde(flatten)]
    pub(crate) counts: Counts,
    pub(crate) warnings: u64,
    /// Why sessions were excluded or skipped, with counts (`excluded: sub-agent`).
    #[serde(serialize_with = "reason_keys")]
    pub(crate) reasons: BTreeMap<(Class, String), u64>,
    /// Each failed file with its reason, sorted by path.
    pub(crate) failures: Vec<Failure>,
}

/// The counts of a run's coverage, as `history.json` keeps the last extract's for `status`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub(crate) struct Counts {
    pub(crate) sessions: u64,
    pub(crate) extracted: u64,
    pub(crate) no_op: u64,
    pub(crate) unchanged: u64,
    pub(crate) still_active: u64,
    pub(crate) too_old: u64,
    pub(crate) excluded: u64,
    pub(crate) skipped: u64,
    pub(crate) failed: u64,
    pub(crate) vanished: u64,
    /// Left for a later run by `--limit` or the per-run session cap.
    pub(crate) deferred: u64,
}

impl Counts {
    /// Every count, in the coverage line's order and words.
    pub(crate) fn named(&self) -> [(&'static str, u64); 11] {
        [
            ("sessions", self.sessions),
            ("extracted", self.extracted),
            ("no-op", self.no_op),
            ("unchanged", self.unchanged),
            ("still active", self.still_active),
            ("too old", self.too_old),
            ("excluded", self.excluded),
            ("skipped", self.skipped),
            ("failed", self.failed),
            ("vanished", self.vanished),
            ("deferred", self.deferred),
        ]
    }
}

/// Whether a reason excluded a session or skipped a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    Excluded,
    Skipped,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Excluded => "excluded",
            Class::Skipped => "skipped",
        }
    }
}

/// A file that failed, on this run or (given up on) before.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Failure {
    pub(crate) path: String,
    pub(crate) reason: String,
    /// Failed [`MAX_TRIES`] times unchanged: reported, not tried again.
    pub(crate) gave_up: bool,
}

impl Failure {
    /// The reason as reported: a file given up on says so.
    pub(crate) fn describe(&self) -> String {
        match self.gave_up {
            true => format!("gave up after {MAX_TRIES} tries: {}", self.reason),
            false => self.reason.clone(),
        }
    }
}

/// Written as `[path, reason]`, as it always was.
impl Serialize for Failure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (&self.path, self.describe()).serialize(serializer)
    }
}

fn reason_keys<S: Serializer>(reasons: &BTreeMap<(Class, String), u64>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(reasons.iter().map(|((class, reason), n)| (format!("{}: {reason}", class.name()), n)))
}

impl Coverage {
    /// The counts alone.
    pub(crate) fn counts(&self) -> Counts {
        self.counts
    }

    /// The one-line summary printed at the end of a run.
    pub(crate) fn line(&self) -> String {
        let mut out = format!(
            "{}: {} extracted, {} no-op, {} unchanged, {} still active, {} too old, {} excluded",
            count(self.counts.sessions as usize, "session"),
            self.counts.extracted,
            self.counts.no_op,
            self.counts.unchanged,
            self.counts.still_active,
            self.counts.too_old,
            self.counts.excluded,
        );
        self.write_reasons(&mut out, Class::Excluded);
        if self.counts.skipped > 0 {
            let _ = write!(out, ", {} skipped", self.counts.skipped);
            self.write_reasons(&mut out, Class::Skipped);
        }
        let _ = write!(out, ", {} failed", self.counts.failed);
        if !self.failures.is_empty() {
            let shown: Vec<String> =
                self.failures.iter().take(3).map(|f| format!("{}: {}", f.path, f.describe())).collect();
            let more = match self.failures.len().saturating_sub(3) {
                0 => String::new(),
                more => format!("; {more} more"),
            };
            let _ = write!(out, " ({}{more})", shown.join("; "));
        }
        if self.counts.vanished > 0 {
            let _ = write!(out, ", {} vanished", self.counts.vanished);
        }
        if self.counts.deferred > 0 {
            let _ = write!(out, ", {} deferred to a later run", self.counts.deferred);
        }
        if self.warnings > 0 {
            let _ = write!(out, "; {}", count(self.warnings as usize, "warning"));
        }
        out
    }

    /// Exclusion reasons are nouns ("2 sub-agent"); skip reasons are sentences, counted after.
    fn write_reasons(&self, out: &mut String, class: Class) {
        let matching: Vec<String> = self
            .reasons
            .iter()
            .filter(|((c, _), _)| *c == class)
            .map(|((_, reason), n)| match (class, n) {
                (Class::Skipped, 1) => reason.clone(),
                (Class::Skipped, n) => format!("{reason} ×{n}"),
                (Class::Excluded, n) => format!("{n} {reason}"),
            })
            .collect();
        if !matching.is_empty() {
            let _ = write!(out, " ({})", matching.join(", "));
        }
    }

    /// Count a reason under its class.
    pub(crate) fn count_reason(&mut self, class: Class, reason: &Reason) {
        *self.reasons.entry((class, reason.label().to_string())).or_default() += 1;
    }

    /// Count a transcript triage left unread; `entry` is its recorded state (a failure
    /// given up on is reported with its last error).
    pub(crate) fn count(&mut self, key: &SourceKey, plan: Plan, entry: Option<&SourceEntry>) {
        match plan {
            // Unchanged, and still forgotten: that is what the user needs to hear.
            Plan::Unchanged if entry.is_some_and(|e| e.reason == Some(Reason::Forgotten)) => {
                self.counts.excluded += 1;
                self.count_reason(Class::Excluded, &Reason::Forgotten);
            }
            Plan::Unchanged => self.counts.unchanged += 1,
            Plan::Active => self.counts.still_active += 1,
            Plan::TooOld => self.counts.too_old += 1,
            Plan::GaveUp => {
                let reason = entry.and_then(|e| e.last_error.as_deref()).unwrap_or_default().to_string();
                self.counts.failed += 1;
                // Named only here: most files counted are unchanged, and naming one costs a copy.
                self.failures.push(Failure { path: key.to_string(), reason, gave_up: true });
            }
            Plan::Read => {}
        }
    }

    /// Count a transcript settled this run as `state`, for `reason` when it was excluded or
    /// skipped. A skipped file is a warning too.
    pub(crate) fn settled(&mut self, state: SourceState, reason: Option<&Reason>) {
        let class = match state {
            SourceState::Extracted => return self.counts.extracted += 1,
            SourceState::NoOp => return self.counts.no_op += 1,
            SourceState::Excluded => {
                self.counts.excluded += 1;
                Class::Excluded
            }
            SourceState::Skipped => {
                (self.counts.skipped, self.warnings) = (self.counts.skipped + 1, self.warnings + 1);
                Class::Skipped
            }
            SourceState::Failed | SourceState::Vanished => return,
        };
        if let Some(reason) = reason {
            self.count_reason(class, reason);
        }
    }

    /// What a quiet run still says: the first file that failed this run, and how many
    /// more did. (One given up on was reported on each of its tries; `status` keeps
    /// listing it.)
    pub(crate) fn quiet_warning(&self) -> Option<String> {
        let failed_now: Vec<&Failure> = self.failed_now().collect();
        let first = failed_now.first()?;
        let more = match failed_now.len() {
            1 => String::new(),
            n => format!(" (and {} more; see `handbook status`)", n - 1),
        };
        Some(format!("{}: extraction failed: {}{more}", first.path, first.reason))
    }

    /// The line a run ends with.
    pub(crate) fn closing_line(&self, dry_run: bool) -> String {
        let prefix = if dry_run { "extract (dry run, nothing written)" } else { "extract" };
        format!("{prefix}: {}", self.line())
    }

    /// Count a session that failed this run.
    pub(crate) fn fail(&mut self, path: &str, reason: &str) {
        self.counts.failed += 1;
        self.failures.push(Failure { path: path.to_string(), reason: reason.to_string(), gave_up: false });
    }

    /// Failures of this run, not those given up on before.
    pub(crate) fn failed_now(&self) -> impl Iterator<Item = &Failure> {
        self.failures.iter().filter(|f| !f.gave_up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(text: &str) -> Reason {
        Reason::NotATranscript(text.into())
    }

    #[test]
    fn reasons_read_as_counts_of_nouns_or_counted_sentences() {
        let mut c = Coverage {
            counts: Counts { sessions: 5, excluded: 2, skipped: 3, ..Counts::default() },
            ..Coverage::default()
        };
        c.count_reason(Class::Excluded, &Reason::SubAgent);
        c.count_reason(Class::Excluded, &Reason::SubAgent);
        c.count_reason(Class::Skipped, &sentence("pi transcripts are not supported yet"));
        c.count_reason(Class::Skipped, &sentence("pi transcripts are not supported yet"));
        c.count_reason(Class::Skipped, &sentence("empty file"));
        assert!(
            c.line()
                .contains("2 excluded (2 sub-agent), 3 skipped (empty file, pi transcripts are not supported yet ×2)"),
            "{}",
            c.line()
        );
    }

    #[test]
    fn the_coverage_line_names_reasons_and_failures() {
        let mut c = Coverage {
            counts: Counts { sessions: 4, extracted: 1, excluded: 2, failed: 1, ..Counts::default() },
            warnings: 3,
            ..Coverage::default()
        };
        c.count_reason(Class::Excluded, &Reason::SubAgent);
        c.count_reason(Class::Excluded, &Reason::SubAgent);
        c.failures.push(Failure { path: "a.jsonl".into(), reason: "permission denied".into(), gave_up: false });
        assert_eq!(
            c.line(),
            "4 sessions: 1 extracted, 0 no-op, 0 unchanged, 0 still active, 0 too old, 2 excluded (2 sub-agent), 1 failed (a.jsonl: permission denied); 3 warnings"
        );
    }

    #[test]
    fn json_keeps_the_reason_keys_and_failure_pairs() {
        let mut c = Coverage::default();
        c.count_reason(Class::Excluded, &Reason::DuplicateOf("/a".into()));
        c.failures.push(Failure { path: "b.jsonl".into(), reason: "torn".into(), gave_up: true });
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["reasons"], serde_json::json!({ "excluded: duplicate": 1 }));
        assert_eq!(json["failures"], serde_json::json!([["b.jsonl", "gave up after 3 tries: torn"]]));
        assert_eq!(c.failed_now().count(), 0);
        assert_eq!(c.quiet_warning(), None, "a file given up on was reported on its tries");
    }

    #[test]
    fn an_unchanged_forgotten_transcript_is_counted_as_forgotten() {
        let stat = crate::core::state::FileStat { size: 1, mtime_ns: 1 };
        let mut forgotten = crate::core::state::tests::entry(stat, SourceState::Excluded, 0);
        forgotten.reason = Some(Reason::Forgotten);
        let mut c = Coverage::default();
        c.count(&"/a.jsonl".into(), Plan::Unchanged, Some(&forgotten));
        assert_eq!((c.counts.unchanged, c.counts.excluded), (0, 1));
        assert!(c.line().contains("1 excluded (1 forgotten)"), "{}", c.line());
    }

    #[test]
    fn settled_transcripts_are_counted_by_state_and_reason() {
        let mut c = Coverage::default();
        c.settled(SourceState::Extracted, None);
        c.settled(SourceState::Excluded, Some(&Reason::DuplicateOf("/a".into())));
        c.settled(SourceState::Skipped, Some(&Reason::NotATranscript("empty file".into())));
        assert_eq!((c.counts.extracted, c.counts.excluded, c.counts.skipped, c.warnings), (1, 1, 1, 1));
        assert!(c.line().contains("1 excluded (1 duplicate), 1 skipped (empty file)"), "{}", c.line());
        for path in ["a", "b"] {
            c.failures.push(Failure { path: path.into(), reason: "torn".into(), gave_up: false });
        }
        assert_eq!(c.quiet_warning().unwrap(), "a: extraction failed: torn (and 1 more; see `handbook status`)");
        assert!(c.closing_line(true).starts_with("extract (dry run, nothing written): "));
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn line_example() {
        use crate::core::state::{Counts, Coverage};
        let c = Coverage {
            counts: Counts { sessions: 3, extracted: 2, no_op: 1, ..Counts::default() },
            ..Coverage::default()
        };
        assert_eq!(
            c.line(),
            "3 sessions: 2 extracted, 1 no-op, 0 unchanged, 0 still active, 0 too old, 0 excluded, 0 failed"
        );
    }
}
