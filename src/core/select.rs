//! Which stage-1 outputs consolidation takes: ranked by usage, then by last use (or session
//! time when never used), then by session time; the top `max` of those used (or updated)
//! within the retention window.

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use crate::core::stage1::Stage1;

/// The selection rules of a run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    pub(crate) now: Timestamp,
    /// At most this many sessions feed consolidation.
    pub(crate) max: usize,
    /// Sessions neither used nor updated for this long drop out.
    pub(crate) max_unused: SignedDuration,
}

/// No retention cut: a window longer than any history (and short enough to subtract from
/// any time a run has).
pub(crate) const NO_CUT: SignedDuration = SignedDuration::from_hours(1_000_000);

/// The unused-days window a consolidation applies. A model engine (a cost guard) or a
/// window that was set keeps it as it is. The built-in engine's default waives it while the
/// handbook is new: on its first consolidation and for `max_unused` after it, every session
/// stays, so a first run learns from all of the history, and what it learnt has the whole
/// window to be used before it ages out like any other lesson.
pub(crate) fn retention(
    max_unused: SignedDuration,
    waivable: bool,
    first_consolidated: Option<Timestamp>,
    now: Timestamp,
) -> SignedDuration {
    let new = first_consolidated.is_none_or(|first| first > now - max_unused);
    if waivable && new { NO_CUT } else { max_unused }
}

/// What a consolidation says of the sessions it left out: how many, why, and the setting
/// that takes them in (`max_unused_days` the window, `max` the cap).
pub(crate) fn left_out_notes(unused: usize, over_max: usize, max_unused_days: i64, max: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if unused > 0 {
        notes.push(format!(
            "{} left out of the handbook as unused for more than {max_unused_days} days; --max-unused-days 3650 keeps them",
            crate::core::words::count(unused, "session")
        ));
    }
    if over_max > 0 {
        notes.push(format!(
            "{} left out of the handbook below the top {max}; --max-raw-memories {} keeps them",
            crate::core::words::count(over_max, "session"),
            max + over_max
        ));
    }
    notes
}

/// What ranking needs of a session: a whole record, or a brief of one (see
/// `consolidate::plan::Brief`), so that a hundred thousand sessions can be ranked without
/// holding their lessons.
pub(crate) trait Ranked {
    fn session_id(&self) -> &str;
    /// Last activity in the session.
    fn updated_at(&self) -> Timestamp;
    /// How many later replies cited it, and when the last did.
    fn usage(&self) -> (u32, Option<Timestamp>);
    /// True when it holds neither lessons nor a summary: nothing to feed the handbook.
    fn is_empty(&self) -> bool;
}

impl Ranked for Stage1 {
    fn session_id(&self) -> &str {
        &self.session_id
    }

    fn updated_at(&self) -> Timestamp {
        self.updated_at
    }

    fn usage(&self) -> (u32, Option<Timestamp>) {
        (self.usage_count, self.last_usage)
    }

    fn is_empty(&self) -> bool {
        self.raw_memory.trim().is_empty() && self.rollout_summary.trim().is_empty()
    }
}

/// When a session last mattered: its last citation, or else its last activity.
fn last_relevant(record: &impl Ranked) -> Timestamp {
    record.usage().1.unwrap_or(record.updated_at())
}

/// What consolidation takes, and how many it left out and why.
#[derive(Debug, Default)]
pub(crate) struct Selection<R = Stage1> {
    /// In ascending session-id order.
    pub(crate) records: Vec<R>,
    /// Neither used nor updated within the retention window.
    pub(crate) unused: usize,
    /// Ranked below the `max` kept.
    pub(crate) over_max: usize,
}

/// Select from `eligible` (already without excluded and vanished sessions), returned in
/// ascending session-id order so the files written from them do not churn when ranks move.
/// `confirmed` says when a session last had a lesson confirmed against its working tree,
/// which keeps it like a use does (the ranking is left as use and activity make it).
pub(crate) fn select<R: Ranked>(
    eligible: Vec<R>,
    rules: Rules,
    confirmed: &BTreeMap<String, Timestamp>,
) -> Selection<R> {
    let cutoff = rules.now - rules.max_unused;
    let kept_by = |r: &R| confirmed.get(r.session_id()).map_or(last_relevant(r), |at| last_relevant(r).max(*at));
    let (mut ranked, unused): (Vec<R>, Vec<R>) =
        eligible.into_iter().filter(|r| !r.is_empty()).partition(|r| kept_by(r) >= cutoff);
    ranked.sort_by(|a, b| {
        b.usage()
            .0
            .cmp(&a.usage().0)
            .then_with(|| last_relevant(b).cmp(&last_relevant(a)))
            .then_with(|| b.updated_at().cmp(&a.updated_at()))
            .then_with(|| b.session_id().cmp(a.session_id()))
    });
    let over_max = ranked.len().saturating_sub(rules.max);
    ranked.truncate(rules.max);
    ranked.sort_by(|a, b| a.session_id().cmp(b.session_id()));
    Selection { records: ranked, unused: unused.len(), over_max }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn select_example() {
        use crate::core::select::{Rules, select};
        let rules = Rules {
            now: "2026-11-29T00:00:00Z".parse().unwrap(),
            max: 256,
            max_unused: jiff::SignedDuration::from_hours(720),
        };
        assert!(
            select(Vec::<crate::core::stage1::Stage1>::new(), rules, &std::collections::BTreeMap::new())
                .records
                .is_empty()
        );
    }

    #[test]
    fn a_confirmed_session_is_kept_like_a_used_one() {
        use crate::core::consolidate::tests::{record, task};
        use crate::core::select::{Rules, select};
        let now: jiff::Timestamp = "2026-11-29T00:00:00Z".parse().unwrap();
        let rules = Rules { now, max: 256, max_unused: jiff::SignedDuration::from_hours(24) };
        let old = vec![record("old", "/w/p", 20, vec![task("t")])];
        assert_eq!(select(old.clone(), rules, &std::collections::BTreeMap::new()).unused, 1);
        let confirmed = std::collections::BTreeMap::from([("old".to_string(), now)]);
        assert_eq!(select(old, rules, &confirmed).records.len(), 1, "confirmed today: kept");
    }

    #[test]
    fn left_out_notes_example() {
        use crate::core::select::left_out_notes;
        assert!(left_out_notes(0, 0, 30, 256).is_empty());
        assert_eq!(
            left_out_notes(2, 3, 30, 256),
            [
                "2 sessions left out of the handbook as unused for more than 30 days; --max-unused-days 3650 keeps them",
                "3 sessions left out of the handbook below the top 256; --max-raw-memories 259 keeps them",
            ]
        );
    }

    #[test]
    fn retention_example() {
        use crate::core::select::{NO_CUT, retention};
        let month = jiff::SignedDuration::from_hours(720);
        let now: jiff::Timestamp = "2026-11-29T00:00:00Z".parse().unwrap();
        assert_eq!(retention(month, true, None, now), NO_CUT, "a first consolidation takes all");
        let last_week = Some("2026-11-22T00:00:00Z".parse().unwrap());
        assert_eq!(retention(month, true, last_week, now), NO_CUT, "the new handbook's lessons get the window");
        let spring = Some("2026-04-01T00:00:00Z".parse().unwrap());
        assert_eq!(retention(month, true, spring, now), month, "then they age out as usual");
        assert_eq!(retention(month, false, None, now), month, "a model engine or a set window keeps it");
    }
}
