//! Trust and control: what the user decided about lessons, and what those decisions do.
//!
//! - [`lesson`]: lessons as `MEMORY.md` holds them, and the reference (`L-3f2a9c1b`) that
//!   names each one across consolidations.
//! - [`generations`]: the log of baselines, what changed between two, what an undo writes.
//! - [`freshness`]: whether what a lesson names is still in today's working tree.
//! - [`filter`]: what stale, promoted and held-back lessons do to the handbook's text.
//! - [`review`]: a pending change applied in part.
//! - [`block`]: the managed block of a project's instruction file that `promote` edits.
//! - [`why`]: where a lesson came from and why it ranks where it does.
//!
//! The decisions themselves are [`Trust`], `.handbook/trust.json`: the lessons and sessions
//! held back (rejected in review, or undone) with the evidence they had then, the promoted
//! lessons, and what each freshness check found. A held-back lesson stays out of every later
//! consolidation until new evidence arrives (a session it did not have, or one with newer
//! activity), and then it comes back and the run says so.

pub(crate) mod block;
pub(crate) mod filter;
pub(crate) mod freshness;
pub(crate) mod generations;
pub(crate) mod lesson;
pub(crate) mod refs;
pub(crate) mod review;
pub(crate) mod why;

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use self::filter::Withheld;
use self::freshness::Check;
use self::lesson::{Lesson, LessonId};
use crate::core::layout::timestamp;

/// Bumped when `trust.json`'s shape changes incompatibly.
pub(crate) const TRUST_VERSION: u32 = 1;

/// Why something is held back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Hold {
    /// `review --reject`.
    Rejected,
    /// `undo` took it out.
    Undone,
}

impl Hold {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Hold::Rejected => "rejected",
            Hold::Undone => "undone",
        }
    }
}

/// A lesson held back, and the evidence it had then (session → last activity; a note:
/// its file → a hash of its words).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HeldLesson {
    pub(crate) why: Hold,
    pub(crate) at: Timestamp,
    /// The generation an undo went back to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) generation: Option<u64>,
    pub(crate) evidence: BTreeMap<String, String>,
}

/// A session an undo took out, with its last activity then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HeldSession {
    pub(crate) at: Timestamp,
    pub(crate) generation: u64,
    pub(crate) updated_at: String,
}

/// A lesson written into a project's instruction file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Promoted {
    /// The file, absolute.
    pub(crate) file: String,
    /// Its name, as `MEMORY.md` marks the lesson (`AGENTS.md`).
    pub(crate) name: String,
    pub(crate) at: Timestamp,
}

/// `.handbook/trust.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Trust {
    pub(crate) version: u32,
    #[serde(default)]
    pub(crate) held_lessons: BTreeMap<LessonId, HeldLesson>,
    #[serde(default)]
    pub(crate) held_sessions: BTreeMap<String, HeldSession>,
    #[serde(default)]
    pub(crate) promoted: BTreeMap<LessonId, Promoted>,
    #[serde(default)]
    pub(crate) checks: BTreeMap<LessonId, Check>,
}

impl Default for Trust {
    fn default() -> Trust {
        Trust {
            version: TRUST_VERSION,
            held_lessons: BTreeMap::new(),
            held_sessions: BTreeMap::new(),
            promoted: BTreeMap::new(),
            checks: BTreeMap::new(),
        }
    }
}

/// Something a consolidation brings back, with why, to say.
pub(crate) type Notice = String;

impl Trust {
    /// Whether the session `session_id`, last active at `updated_at`, may feed the handbook:
    /// not when an undo took it out, unless it has new activity since (then the hold goes,
    /// and the notice says so).
    pub(crate) fn admits(&mut self, session_id: &str, updated_at: Timestamp) -> (bool, Option<Notice>) {
        match self.held_sessions.get(session_id) {
            Some(held) if timestamp(updated_at) > held.updated_at => {
                let notice = format!(
                    "session {session_id} is back in the handbook: an undo to generation {} took it out, and it has new activity since ({})",
                    held.generation,
                    timestamp(updated_at)
                );
                self.held_sessions.remove(session_id);
                (true, Some(notice))
            }
            Some(_) => (false, None),
            None => (true, None),
        }
    }

    /// What to do with `lessons` (a new handbook's): held-back ones stay out unless they
    /// have new evidence (then they come back, the hold goes, and the notice says so); stale
    /// ones as `checks` found; promoted ones as recorded.
    pub(crate) fn decide(&mut self, lessons: &[Lesson], checks: &BTreeMap<LessonId, Check>) -> (Withheld, Vec<Notice>) {
        let mut withheld = Withheld::default();
        let mut notices = Vec::new();
        for lesson in lessons {
            let Some(held) = self.held_lessons.get(&lesson.id) else { continue };
            match new_evidence(&held.evidence, &lesson.evidence()) {
                Some(source) => {
                    notices.push(format!(
                        "lesson {} is back in the handbook: it was {} on {}, and {source} supports it now",
                        lesson.id,
                        held.why.name(),
                        timestamp(held.at)
                    ));
                    self.held_lessons.remove(&lesson.id);
                }
                None => {
                    withheld.held.insert(lesson.id.clone());
                }
            }
        }
        for (id, check) in checks {
            if let Some(reason) = check.reason() {
                withheld.stale.insert(id.clone(), reason);
            }
        }
        for (id, promoted) in &self.promoted {
            withheld.promoted.insert(id.clone(), promoted.name.clone());
        }
        (withheld, notices)
    }

    /// Hold `lessons` back for `why` at `now` (an undo names the generation it went to).
    pub(crate) fn hold(&mut self, lessons: &[&Lesson], why: Hold, now: Timestamp, generation: Option<u64>) {
        for lesson in lessons {
            let held = HeldLesson { why, at: now, generation, evidence: lesson.evidence() };
            self.held_lessons.insert(lesson.id.clone(), held);
        }
    }

    /// Forget what is known of `session`: its hold, and its place in held lessons' evidence.
    pub(crate) fn forget(&mut self, session: &str) {
        self.held_sessions.remove(session);
        for held in self.held_lessons.values_mut() {
            held.evidence.remove(session);
        }
    }

    /// Keep only the checks of lessons still in the handbook (`present`).
    pub(crate) fn keep_checks(&mut self, present: &BTreeSet<LessonId>) {
        self.checks.retain(|id, _| present.contains(id));
    }

    /// When each session last had a lesson confirmed against its tree: confirmation counts
    /// like use for retention.
    pub(crate) fn confirmed_sessions(&self, lessons: &[Lesson]) -> BTreeMap<String, Timestamp> {
        let mut out: BTreeMap<String, Timestamp> = BTreeMap::new();
        for lesson in lessons {
            let Some(at) = self.checks.get(&lesson.id).and_then(|c| c.confirmed_at) else { continue };
            for session in &lesson.sessions {
                let entry = out.entry(session.session_id.clone()).or_insert(at);
                *entry = (*entry).max(at);
            }
        }
        out
    }
}

/// What an undo holds back and lets go.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Undone {
    pub(crate) lessons_held: Vec<LessonId>,
    pub(crate) sessions_held: Vec<String>,
    pub(crate) released: usize,
}

impl Trust {
    /// Going back from the handbook `current` to generation `to`'s (`MEMORY.md` text and
    /// sessions with their last activity): what `current` has that `to` has not is held back
    /// until new evidence arrives; what `to` has is let go of any hold, the user having
    /// chosen it.
    pub(crate) fn undo(
        &mut self,
        current: (Option<&str>, &BTreeMap<String, String>),
        target: (Option<&str>, &BTreeMap<String, String>),
        to: u64,
        now: Timestamp,
    ) -> Undone {
        let now_lessons = lesson::lessons(current.0.unwrap_or(""));
        let then: BTreeSet<LessonId> = lesson::lessons(target.0.unwrap_or("")).into_iter().map(|l| l.id).collect();
        let before = self.held_lessons.len() + self.held_sessions.len();
        self.held_lessons.retain(|id, _| !then.contains(id));
        self.held_sessions.retain(|id, _| !target.1.contains_key(id));
        let released = before - self.held_lessons.len() - self.held_sessions.len();
        let out: Vec<&Lesson> = now_lessons.iter().filter(|l| !then.contains(&l.id)).collect();
        self.hold(&out, Hold::Undone, now, Some(to));
        let mut undone =
            Undone { lessons_held: out.iter().map(|l| l.id.clone()).collect(), released, ..Undone::default() };
        for (session, updated_at) in current.1.iter().filter(|(s, _)| !target.1.contains_key(*s)) {
            let held = HeldSession { at: now, generation: to, updated_at: updated_at.clone() };
            self.held_sessions.insert(session.clone(), held);
            undone.sessions_held.push(session.clone());
        }
        undone
    }
}

/// The state of the handbook's trust decisions, for `status` and `doctor`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Overview {
    pub(crate) generations: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) current: Option<u64>,
    /// What the pending generation would change, when one waits for review.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pending: Option<generations::Changes>,
    pub(crate) stale: Vec<Stale>,
    pub(crate) held_lessons: usize,
    pub(crate) held_sessions: usize,
    pub(crate) promoted: Vec<String>,
}

/// A stale lesson of the handbook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Stale {
    pub(crate) id: LessonId,
    pub(crate) text: String,
    pub(crate) reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) since: Option<Timestamp>,
}

impl Overview {
    /// What `trust` and `log` say of the handbook whose `MEMORY.md` is `memory`.
    pub(crate) fn of(trust: &Trust, log: &generations::Log, memory: &str) -> Overview {
        let stale = lesson::lessons(memory)
            .into_iter()
            .filter_map(|l| {
                let check = trust.checks.get(&l.id)?;
                let reason = check.reason()?;
                let text = crate::core::extract::clip_at_word(&crate::core::extract::render::one_line(&l.text), 80);
                Some(Stale { id: l.id, text, reason, since: check.stale_since })
            })
            .collect();
        Overview {
            generations: log.generations.len(),
            current: log.current().map(|g| g.id),
            pending: log.pending.as_ref().map(|p| p.changes.clone()),
            stale,
            held_lessons: trust.held_lessons.len(),
            held_sessions: trust.held_sessions.len(),
            promoted: trust.promoted.values().map(|p| p.file.clone()).collect::<BTreeSet<_>>().into_iter().collect(),
        }
    }

    /// `status`'s lines.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out = vec![match self.current {
            Some(id) => format!("generations: {} kept, the current one is {id} (`handbook log`)", self.generations),
            None => "generations: none yet".to_string(),
        }];
        if let Some(pending) = &self.pending {
            out.push(format!("pending review: {} (`handbook review`)", pending.counts()));
        }
        out.push(match self.stale.len() {
            0 => "stale lessons: none".to_string(),
            n => format!("stale lessons: {n}, left out of the summary until their names are back"),
        });
        out.extend(self.stale.iter().map(|s| format!("  {}: {}: {}", s.id, s.text, s.reason)));
        if self.held_lessons + self.held_sessions > 0 {
            out.push(format!(
                "held back: {} and {} (rejected or undone), until new evidence arrives",
                crate::core::words::count(self.held_lessons, "lesson"),
                crate::core::words::count(self.held_sessions, "session")
            ));
        }
        if !self.promoted.is_empty() {
            out.push(format!("promoted to: {}", self.promoted.join(", ")));
        }
        out
    }
}

/// The first piece of evidence `now` has that `then` did not (a new session, or a session
/// with newer activity), named for a notice.
fn new_evidence(then: &BTreeMap<String, String>, now: &BTreeMap<String, String>) -> Option<String> {
    now.iter().find(|(source, at)| then.get(*source).is_none_or(|was| *at > was)).map(|(source, at)| {
        match then.contains_key(source) {
            true => format!("session {source}, with newer activity ({at}),"),
            false => format!("new evidence from {source}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::consolidate::tests::{record, task};
    use crate::core::trust::lesson::lessons;

    const MEMORY: &str = "# Task Group: p
scope: x
applies_to: x

## Task 1: t (success)

### rollout_summary_files

- rollout_summaries/a.md (cwd=/w, rollout_path=/t/a.jsonl, updated_at=2026-11-22T10:00:00Z, session_id=a)

## Task 2: t (success)

### rollout_summary_files

- rollout_summaries/b.md (cwd=/w, rollout_path=/t/b.jsonl, updated_at=2026-11-23T10:00:00Z, session_id=b)

## User preferences

- We use pnpm. (preference; 1 session) [Task 1]
";

    #[test]
    fn a_held_lesson_stays_out_until_new_evidence_arrives_and_then_says_so() {
        let now: Timestamp = "2026-11-29T12:00:00Z".parse().unwrap();
        let found = lessons(MEMORY);
        let mut trust = Trust::default();
        trust.hold(&[&found[0]], Hold::Rejected, now, None);
        let (withheld, notices) = trust.decide(&found, &BTreeMap::new());
        assert!(withheld.held.contains(&found[0].id) && notices.is_empty());
        // Fewer sessions is no new evidence; the same again neither.
        let (withheld, _) = trust.decide(&lessons(MEMORY), &BTreeMap::new());
        assert_eq!(withheld.held.len(), 1);
        let more = lessons(&MEMORY.replace("[Task 1]\n", "[Task 1][Task 2]\n"));
        assert_eq!(more[0].id, found[0].id);
        let (withheld, notices) = trust.decide(&more, &BTreeMap::new());
        assert!(withheld.held.is_empty());
        assert_eq!(notices.len(), 1);
        assert!(
            notices[0].contains("rejected on 2026-11-29T12:00:00Z") && notices[0].contains("from b"),
            "{}",
            notices[0]
        );
        assert!(trust.held_lessons.is_empty());
    }

    #[test]
    fn an_undo_holds_back_what_the_target_lacks_and_lets_go_what_it_has() {
        let now: Timestamp = "2026-11-29T12:00:00Z".parse().unwrap();
        let target = MEMORY.replace("- We use pnpm. (preference; 1 session) [Task 1]\n", "");
        let sessions = |ids: &[&str]| -> BTreeMap<String, String> {
            ids.iter().map(|s| (s.to_string(), "2026-11-22T10:00:00Z".to_string())).collect()
        };
        let mut trust = Trust::default();
        let undone = trust.undo((Some(MEMORY), &sessions(&["a", "b"])), (Some(&target), &sessions(&["a"])), 1, now);
        assert_eq!(undone.lessons_held.len(), 1);
        assert_eq!(undone.sessions_held, ["b"]);
        assert_eq!(trust.held_sessions["b"].generation, 1);
        // Undoing the undo lets both go.
        let redone = trust.undo((Some(&target), &sessions(&["a"])), (Some(MEMORY), &sessions(&["a", "b"])), 2, now);
        assert_eq!(redone.released, 2);
        assert!(trust.held_lessons.is_empty() && trust.held_sessions.is_empty());
    }

    #[test]
    fn an_undone_session_comes_back_only_with_new_activity() {
        let mut trust = Trust::default();
        let held = |at: &str| HeldSession {
            at: "2026-11-29T12:00:00Z".parse().unwrap(),
            generation: 1,
            updated_at: at.into(),
        };
        trust.held_sessions.insert("s".into(), held("2026-11-20T10:00:00Z"));
        let at = |r: crate::core::stage1::Stage1| (r.session_id.clone(), r.updated_at);
        let (s, o) = (at(record("s", "p", 20, vec![task("t")])), at(record("o", "p", 20, vec![task("t")])));
        assert_eq!(trust.admits(&s.0, s.1), (false, None));
        assert_eq!(trust.admits(&o.0, o.1), (true, None));
        let later = at(record("s", "p", 21, vec![task("t")]));
        let (admitted, notice) = trust.admits(&later.0, later.1);
        assert!(admitted && notice.as_deref().is_some_and(|n| n.contains("undo to generation 1")), "{notice:?}");
        assert!(trust.held_sessions.is_empty());
    }
}
