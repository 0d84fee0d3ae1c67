//! What a consolidation did, as its one-line report and its JSON object.

use jiff::Timestamp;
use serde::Serialize;

use crate::core::layout;
use crate::core::manifest::{Change, Status};
use crate::core::model::ground::Dropped;
use crate::core::trust::generations::Changes;
use crate::core::words::count;

/// How a consolidation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    /// The handbook was rebuilt and its baseline committed.
    Consolidated,
    /// Nothing changed since the last consolidation.
    Unchanged,
    /// Within the cooldown after the last consolidation: skipped.
    Cooldown,
    /// Review mode: the result waits for `handbook review` as the pending generation.
    Pending,
}

/// What a consolidation did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Report {
    pub(crate) outcome: Outcome,
    pub(crate) selected: usize,
    /// Sessions with lessons that this consolidation did not take.
    pub(crate) left_out: LeftOut,
    pub(crate) changes: Vec<Change>,
    pub(crate) summary_tokens: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_allowed: Option<Timestamp>,
    /// The engine that wrote the lessons.
    pub(crate) engine: String,
    /// With a model engine: the task groups sent to it, and the calls made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) groups_sent: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) model_calls: Option<usize>,
    /// With a model engine: the parts of its answer that had lines dropped as ungrounded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) ungrounded: Vec<Dropped>,
    /// The generation it recorded, when it recorded one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) generation: Option<u64>,
    /// What the generation recorded (or the pending one) changed, session and lesson counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lessons: Option<Changes>,
}

/// Sessions a consolidation left out, and the settings that did it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct LeftOut {
    /// Neither used nor updated for `max_unused_days`.
    pub(crate) unused: usize,
    /// Ranked below the `max_raw_memories` kept.
    pub(crate) over_max: usize,
    #[serde(skip)]
    pub(crate) max_unused_days: i64,
    #[serde(skip)]
    pub(crate) max: usize,
}

impl LeftOut {
    /// `, 1 left out as unused for more than 30 days (--max-unused-days)`, or nothing.
    fn describe(&self) -> String {
        let mut why = Vec::new();
        if self.unused > 0 {
            why.push(format!(
                "{} left out as unused for more than {} days (--max-unused-days)",
                self.unused, self.max_unused_days
            ));
        }
        if self.over_max > 0 {
            why.push(format!("{} left out below the top {} (--max-raw-memories)", self.over_max, self.max));
        }
        why.iter().map(|w| format!(", {w}")).collect()
    }
}

impl Report {
    /// `, 2 ungrounded lines dropped`, or nothing.
    fn dropped_lines(&self) -> String {
        match self.ungrounded.iter().map(|d| d.dropped).sum() {
            0 => String::new(),
            n => format!(", {} dropped", count(n, "ungrounded line")),
        }
    }

    /// A consolidation skipped within the cooldown, allowed again at `next_allowed`.
    pub(crate) fn cooldown(next_allowed: Timestamp, engine: String) -> Report {
        Report {
            outcome: Outcome::Cooldown,
            selected: 0,
            left_out: LeftOut::default(),
            changes: Vec::new(),
            summary_tokens: 0,
            next_allowed: Some(next_allowed),
            engine,
            groups_sent: None,
            model_calls: None,
            ungrounded: Vec::new(),
            generation: None,
            lessons: None,
        }
    }

    /// `; generation 4 (sessions +1 -0, lessons +2 ~0 -0)`, or nothing.
    fn recorded(&self) -> String {
        match (self.generation, &self.lessons) {
            (Some(id), Some(changes)) => format!("; generation {id} ({})", changes.counts()),
            (Some(id), None) => format!("; generation {id}"),
            _ => String::new(),
        }
    }

    /// The one-line text form.
    pub(crate) fn line(&self) -> String {
        match self.outcome {
            Outcome::Cooldown => format!(
                "consolidate: skipped, within the cooldown until {} (use --force)",
                self.next_allowed.map(layout::timestamp).unwrap_or_default()
            ),
            Outcome::Unchanged => format!(
                "consolidate: nothing changed since the last consolidation ({}{})",
                count(self.selected, "session"),
                self.left_out.describe()
            ),
            Outcome::Pending => format!(
                "consolidate: {}{}; a change waits for review ({}): `handbook review` shows it",
                count(self.selected, "session"),
                self.left_out.describe(),
                self.lessons.as_ref().map(Changes::counts).unwrap_or_default()
            ),
            Outcome::Consolidated => {
                let changed = |status: Status| self.changes.iter().filter(|c| c.status == status).count();
                let model = match (self.groups_sent, self.model_calls) {
                    (Some(groups), Some(calls)) => format!(
                        "; {}: {} rewritten in {}{}",
                        self.engine,
                        count(groups, "task group"),
                        count(calls, "call"),
                        self.dropped_lines()
                    ),
                    _ => String::new(),
                };
                format!(
                    "consolidate: {}{}; {} added, {} modified, {} deleted; summary {} tokens{model}{}",
                    count(self.selected, "session"),
                    self.left_out.describe(),
                    count(changed(Status::Added), "file"),
                    changed(Status::Modified),
                    changed(Status::Deleted),
                    self.summary_tokens,
                    self.recorded()
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(outcome: Outcome) -> Report {
        Report { outcome, selected: 3, ..Report::cooldown("2026-11-29T12:00:00Z".parse().unwrap(), "builtin".into()) }
    }

    #[test]
    fn each_outcome_reads_as_one_line() {
        assert!(report(Outcome::Cooldown).line().starts_with("consolidate: skipped, within the cooldown until "));
        let mut unchanged = report(Outcome::Unchanged);
        unchanged.left_out = LeftOut { unused: 1, over_max: 0, max_unused_days: 30, max: 256 };
        assert_eq!(
            unchanged.line(),
            "consolidate: nothing changed since the last consolidation (3 sessions, 1 left out as unused for more than 30 days (--max-unused-days))"
        );
        let mut done = report(Outcome::Consolidated);
        done.changes = vec![
            Change { path: "MEMORY.md".into(), status: Status::Added },
            Change { path: "x.md".into(), status: Status::Deleted },
        ];
        (done.groups_sent, done.model_calls, done.summary_tokens) = (Some(1), Some(2), 40);
        assert_eq!(
            done.line(),
            "consolidate: 3 sessions; 1 file added, 0 modified, 1 deleted; summary 40 tokens; builtin: 1 task group rewritten in 2 calls"
        );
        assert_eq!(serde_json::to_value(&done).unwrap()["outcome"], "consolidated");
        assert!(serde_json::to_value(&done).unwrap().get("ungrounded").is_none());
        done.ungrounded = vec![Dropped { part: "summary".into(), dropped: 2, of: 5, builtin_kept: false }];
        assert!(done.line().ends_with("builtin: 1 task group rewritten in 2 calls, 2 ungrounded lines dropped"));
        assert_eq!(serde_json::to_value(&done).unwrap()["ungrounded"][0]["of"], 5);
        done.generation = Some(4);
        assert!(done.line().ends_with("dropped; generation 4"), "{}", done.line());
        let mut pending = report(Outcome::Pending);
        pending.lessons = Some(Changes { lessons_added: vec![], ..Changes::default() });
        assert_eq!(
            pending.line(),
            "consolidate: 3 sessions; a change waits for review (sessions +0 -0, lessons +0 ~0 -0): `handbook review` shows it"
        );
    }
}
