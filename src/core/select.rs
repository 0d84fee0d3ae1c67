//! Which stage-1 outputs consolidation takes: ranked by usage, then by last use (or session
//! time when never used), then by session time; the top `max` of those used (or updated)
//! within the retention window.

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

/// When a session last mattered: its last citation, or else its last activity.
fn last_relevant(record: &Stage1) -> Timestamp {
    record.last_usage.unwrap_or(record.updated_at)
}

/// What consolidation takes, and how many it left out and why.
#[derive(Debug, Default)]
pub(crate) struct Selection {
    /// In ascending session-id order.
    pub(crate) records: Vec<Stage1>,
    /// Neither used nor updated within the retention window.
    pub(crate) unused: usize,
    /// Ranked below the `max` kept.
    pub(crate) over_max: usize,
}

/// Select from `eligible` (already without excluded and vanished sessions), returned in
/// ascending session-id order so the files written from them do not churn when ranks move.
pub(crate) fn select(eligible: Vec<Stage1>, rules: Rules) -> Selection {
    let cutoff = rules.now - rules.max_unused;
    let (mut ranked, unused): (Vec<Stage1>, Vec<Stage1>) = eligible
        .into_iter()
        .filter(|r| !r.raw_memory.trim().is_empty() || !r.rollout_summary.trim().is_empty())
        .partition(|r| last_relevant(r) >= cutoff);
    ranked.sort_by(|a, b| {
        b.usage_count
            .cmp(&a.usage_count)
            .then_with(|| last_relevant(b).cmp(&last_relevant(a)))
            .then_with(|| b.updated_at.cmp(&a.updated_at))
            .then_with(|| b.session_id.cmp(&a.session_id))
    });
    let over_max = ranked.len().saturating_sub(rules.max);
    ranked.truncate(rules.max);
    ranked.sort_by(|a, b| a.session_id.cmp(&b.session_id));
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
        assert!(select(Vec::new(), rules).records.is_empty());
    }
}
