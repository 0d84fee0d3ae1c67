//! The per-transcript state machine of `extract`, as pure functions: from what is known
//! about a transcript and what the edges observed of it now, decide what the run does with
//! it and what its new state is. The edges gather (stat, hash, read), these decide, the
//! command applies; a dry run decides and applies nothing.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

use super::index::Presence;
use super::store::Store;
use super::{Digest, FileStat, Plan, Reason, SourceEntry, SourceKey, SourceState, Sources, Windows, plan};
use crate::core::extract::EXTRACTOR_VERSION;
use crate::core::pipeline::Finished;
use crate::core::session::Agent;
use crate::core::stage1::Stage1;

/// The settings that bear on a transcript's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rules {
    pub(crate) windows: Windows,
    pub(crate) include_subagents: bool,
    /// Leave out sessions that used web or MCP tools (`exclude_external_context`).
    pub(crate) exclude_external: bool,
    /// `--format`: read every file as this format.
    pub(crate) format: Option<Agent>,
}

/// What a run does with one transcript before reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Triage {
    /// Counted, not read: unchanged, still active, too old, or given up on.
    Count(Plan),
    /// Read it. `touched` when only its modification time may have changed: a content hash
    /// equal to the recorded one spares the read.
    Read { touched: bool },
}

/// Decide what a transcript needs, from its recorded entry and its size and time now.
pub(crate) fn triage(entry: Option<&SourceEntry>, stat: FileStat, rules: &Rules, presence: &Presence) -> Triage {
    if entry.is_some_and(|e| needs_revisit(e, rules, presence)) {
        return Triage::Read { touched: false };
    }
    match plan(entry, stat, rules.windows) {
        Plan::Read => {
            Triage::Read { touched: entry.is_some_and(|e| e.size == stat.size && settled(e) && e.hash.is_some()) }
        }
        other => Triage::Count(other),
    }
}

/// Whether a transcript triage counted is read all the same: one that only looks still
/// active by its modification time is, and its newest record's own time then decides
/// (see [`super::left_alone`]). Reading it is what any run that takes it would do, so it is
/// read once either way.
pub(crate) fn judged_by_records(plan: Plan) -> bool {
    plan == Plan::Active
}

/// Read, and its outcome recorded: nothing to retry.
fn settled(entry: &SourceEntry) -> bool {
    matches!(entry.state, SourceState::Extracted | SourceState::NoOp | SourceState::Excluded | SourceState::Skipped)
}

/// True when `--session` is not given (`sessions` is empty), or names the transcript at
/// `key` by its session id or a part of its path.
pub(crate) fn selected(sessions: &[String], key: &str, session_id: Option<&str>) -> bool {
    sessions.is_empty() || sessions.iter().any(|s| key.contains(s.as_str()) || session_id == Some(s.as_str()))
}

/// Order what is to be read newest first, ties by key: a limit keeps the sessions most
/// worth having, and a run cut short leaves the oldest for later. Cut to `limit`; how many
/// were cut. `stamp` gives an item's modification time and key.
pub(crate) fn newest_first<T>(
    items: &mut Vec<T>,
    limit: Option<usize>,
    stamp: impl Fn(&T) -> (i64, &SourceKey),
) -> u64 {
    items.sort_by(|a, b| {
        let ((a_time, a_key), (b_time, b_key)) = (stamp(a), stamp(b));
        b_time.cmp(&a_time).then_with(|| a_key.cmp(b_key))
    });
    match limit {
        Some(limit) if items.len() > limit => {
            let cut = items.len() - limit;
            items.truncate(limit);
            cut as u64
        }
        _ => 0,
    }
}

/// True when a settled decision about a transcript no longer holds: the extractor changed
/// since, a sub-agent is now wanted, outside context is now wanted or no longer, a forget was
/// taken back, the transcript whose duplicate it was is gone, the
/// format it was read as is no longer the one asked for, or its lessons' record is missing
/// (moved aside, or set aside as damaged): only the transcript can rebuild it.
pub(crate) fn needs_revisit(entry: &SourceEntry, rules: &Rules, presence: &Presence) -> bool {
    let lost =
        entry.state == SourceState::Extracted && entry.session_id.as_deref().is_some_and(|id| !presence.has_record(id));
    let outdated = settled(entry) && entry.extractor != EXTRACTOR_VERSION;
    let wanted_now =
        entry.state == SourceState::Excluded && entry.reason == Some(Reason::SubAgent) && rules.include_subagents;
    // Outside context is left out, or let in again.
    let external_now = match entry.reason {
        Some(Reason::ExternalContext) => !rules.exclude_external,
        _ => entry.external && rules.exclude_external && entry.state != SourceState::Excluded,
    };
    let orphaned = matches!(&entry.reason, Some(Reason::DuplicateOf(owner))
        if !presence.holds(owner, entry.session_id.as_deref()));
    // Excluded with no reason left: a forget taken back (`forget --undo`).
    let taken_back = entry.state == SourceState::Excluded && entry.reason.is_none();
    // A format forced now that differs from the one read, or forced then and not now.
    let reformatted = match rules.format {
        Some(format) => entry.format != Some(format),
        None => entry.forced_format,
    };
    lost || outdated || wanted_now || external_now || orphaned || reformatted || taken_back
}

/// A recorded transcript whose state may follow it to a new path: one settled with a
/// content hash. `hash_now` is the new file's.
pub(crate) fn follows_move(entry: &SourceEntry, hash_now: Option<&str>) -> bool {
    entry.state != SourceState::Failed && entry.hash.as_ref().zip(hash_now).is_some_and(|(hash, now)| hash.is(now))
}

/// What the edges learnt by reading a transcript that turned out to be a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionSeen {
    pub(crate) agent: Agent,
    pub(crate) session_id: String,
    pub(crate) hash: String,
    pub(crate) updated_at: Option<Timestamp>,
    pub(crate) warnings: u32,
    /// Sessions its replies cited, with how many replies cited each.
    pub(crate) cited: BTreeMap<String, u32>,
    /// It holds one of handbook's own model prompts.
    pub(crate) own_prompt: bool,
    pub(crate) subagent: bool,
    /// It called web or MCP tools.
    pub(crate) external: bool,
}

impl SessionSeen {
    /// What a read of the transcript at `key` showed: its metadata (redacted), its unreadable
    /// lines and what the filter noticed, as `finished` holds them, and the citations of its
    /// replies.
    pub(crate) fn new<S>(
        agent: Agent,
        key: &str,
        hash: String,
        finished: &Finished<S>,
        cited: BTreeMap<String, u32>,
    ) -> SessionSeen {
        let meta = &finished.meta;
        SessionSeen {
            agent,
            session_id: meta.id.clone().unwrap_or_else(|| key.to_string()),
            hash,
            updated_at: meta.updated,
            warnings: finished.warnings.len() as u32,
            // Handbook's own prompts quote other sessions' replies: their citations are not uses.
            cited: if finished.own_prompt { BTreeMap::new() } else { cited },
            own_prompt: finished.own_prompt,
            subagent: meta.is_subagent,
            external: finished.external,
        }
    }
}

/// Why a session read from `key` is not extracted, if it is not.
pub(crate) fn exclusion(seen: &SessionSeen, key: &SourceKey, store: &Store, rules: &Rules) -> Option<Reason> {
    let sources = store.sources();
    if seen.own_prompt {
        Some(Reason::OwnPrompt)
    } else if seen.subagent && !rules.include_subagents {
        Some(Reason::SubAgent)
    } else if sources.excluded.contains(&seen.session_id) {
        Some(Reason::Forgotten)
    } else if seen.external && rules.exclude_external {
        Some(Reason::ExternalContext)
    } else {
        store.owner(&seen.session_id, key).map(|owner| Reason::DuplicateOf(owner.path.to_string()))
    }
}

/// The entry of a session read now, in `state`.
pub(crate) fn session_entry(seen: &SessionSeen, stat: FileStat, state: SourceState, rules: &Rules) -> SourceEntry {
    SourceEntry {
        format: Some(seen.agent),
        forced_format: rules.format.is_some(),
        session_id: Some(seen.session_id.as_str().into()),
        hash: Some(Digest::from(seen.hash.as_str())),
        updated_at: seen.updated_at,
        warnings: seen.warnings,
        cited: seen.cited.clone(),
        external: seen.external,
        ..stat_entry(stat, state)
    }
}

/// The entry of a session read now and excluded for `reason`.
pub(crate) fn excluded_entry(seen: &SessionSeen, stat: FileStat, reason: Reason, rules: &Rules) -> SourceEntry {
    SourceEntry { reason: Some(reason), ..session_entry(seen, stat, SourceState::Excluded, rules) }
}

/// The entry of a file that is not a transcript.
pub(crate) fn skipped_entry(reason: &str, hash: &str, stat: FileStat, rules: &Rules) -> SourceEntry {
    SourceEntry {
        reason: Some(Reason::NotATranscript(reason.to_string())),
        hash: Some(Digest::from(hash)),
        forced_format: rules.format.is_some(),
        ..stat_entry(stat, SourceState::Skipped)
    }
}

/// What settling a session asks of its stored stage-1 record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RecordChange {
    Keep,
    /// Store this record, keeping the usage counted for the session so far.
    Store(Box<Stage1>),
    /// Remove the session's record when it came from the transcript at `key`: a session
    /// that is now a no-op or excluded teaches nothing from there.
    DropIfFrom {
        session_id: String,
        key: String,
    },
    /// The transcript moved from `from` to `to`: a record from there follows it.
    Move {
        session_id: String,
        from: String,
        to: String,
    },
}

/// The record change for a session excluded for `reason`: a duplicate's session is the
/// owner's to keep.
pub(crate) fn excluded_change(reason: &Reason, session_id: &str, key: &str) -> RecordChange {
    match reason {
        Reason::DuplicateOf(_) => RecordChange::Keep,
        _ => RecordChange::DropIfFrom { session_id: session_id.to_string(), key: key.to_string() },
    }
}

/// Whether recording a failure needs the file's content hash, to tell a changed transcript
/// (the count of tries starts again) from one only touched (it does not). `read_hash` is the
/// hash of the read that failed, when there was one.
pub(crate) fn failure_needs_hash(prior: Option<&SourceEntry>, stat: Option<FileStat>, read_hash: Option<&str>) -> bool {
    read_hash.is_none() && stat_changed(prior, stat)
}

fn stat_changed(prior: Option<&SourceEntry>, stat: Option<FileStat>) -> bool {
    let (size, mtime_ns) = prior.map_or((0, 0), |p| (p.size, p.mtime_ns));
    stat.is_some_and(|s| s.size != size || s.mtime_ns != mtime_ns)
}

/// The entry of a transcript that could not be read. What was known of it stays (an earlier
/// extraction is kept); the tries count up while it stays unchanged. `hash` is its content
/// hash now, when known.
pub(crate) fn failed_entry(
    prior: Option<&SourceEntry>,
    stat: Option<FileStat>,
    hash: Option<&str>,
    reason: &str,
) -> SourceEntry {
    let mut entry = prior.cloned().unwrap_or_else(|| blank_entry(SourceState::Failed));
    let hash = hash.map(Digest::from).or_else(|| if stat_changed(prior, stat) { None } else { entry.hash.clone() });
    let changed = stat_changed(prior, stat) && (hash.is_none() || hash != entry.hash);
    entry.tries = if changed { 1 } else { entry.tries + 1 };
    if hash.is_some() {
        entry.hash = hash;
    }
    if let Some(stat) = stat {
        (entry.size, entry.mtime_ns) = (stat.size, stat.mtime_ns);
    }
    entry.state = SourceState::Failed;
    entry.last_error = Some(reason.into());
    entry
}

/// The sessions to mark vanished: their transcript gone from disk (by `gone`, given its
/// path), and not marked yet.
pub(crate) fn vanished(sources: &Sources, gone: impl Fn(&str) -> bool) -> Vec<SourceKey> {
    sources
        .sources
        .iter()
        .filter(|(key, entry)| entry.state != SourceState::Vanished && gone(&key.path))
        .map(|(key, _)| key.clone())
        .collect()
}

/// Of the recorded sessions `known` of one database, those it no longer holds (`listed` are
/// the ones it does) that are not marked vanished yet.
pub(crate) fn vanished_members(sources: &Sources, known: Vec<SourceKey>, listed: &BTreeSet<&str>) -> Vec<SourceKey> {
    let gone = |key: &SourceKey| key.member.as_deref().is_some_and(|id| !listed.contains(id));
    let live = |key: &SourceKey| sources.sources.get(key).is_some_and(|e| e.state != SourceState::Vanished);
    known.into_iter().filter(|key| gone(key) && live(key)).collect()
}

fn stat_entry(stat: FileStat, state: SourceState) -> SourceEntry {
    SourceEntry { size: stat.size, mtime_ns: stat.mtime_ns, extractor: EXTRACTOR_VERSION, ..blank_entry(state) }
}

fn blank_entry(state: SourceState) -> SourceEntry {
    SourceEntry {
        format: None,
        forced_format: false,
        session_id: None,
        size: 0,
        mtime_ns: 0,
        hash: None,
        updated_at: None,
        state,
        reason: None,
        tries: 0,
        last_error: None,
        warnings: 0,
        cited: BTreeMap::new(),
        external: false,
        extractor: 0,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::core::state::tests::{entry, stat_at, windows};

    fn rules() -> Rules {
        Rules { windows: windows(false), include_subagents: false, exclude_external: false, format: None }
    }

    /// A `sources.json` as an earlier version wrote it, reasons as plain strings.
    fn old_sources() -> Sources {
        serde_json::from_str(&format!(
            r#"{{"version": 1, "sources": {{
                "/s/a.jsonl": {{"format": "codex", "session_id": "s1", "size": 10, "mtime_ns": 1,
                    "hash": "ha", "state": "extracted", "extractor": {v}}},
                "/s/b.jsonl": {{"format": "codex", "session_id": "s1", "size": 10, "mtime_ns": 1,
                    "hash": "ha", "state": "excluded", "reason": "duplicate of /s/a.jsonl", "extractor": {v}}},
                "/s/c.jsonl": {{"format": "claude", "session_id": "s2", "size": 5, "mtime_ns": 1,
                    "hash": "hc", "state": "excluded", "reason": "sub-agent", "extractor": {v}}},
                "/s/d.jsonl": {{"size": 0, "mtime_ns": 1, "hash": "hd", "state": "skipped",
                    "reason": "empty file", "extractor": {v}}}
            }}}}"#,
            v = EXTRACTOR_VERSION
        ))
        .unwrap()
    }

    fn seen(id: &str) -> SessionSeen {
        SessionSeen {
            agent: Agent::Codex,
            session_id: id.into(),
            hash: "h".into(),
            updated_at: None,
            warnings: 0,
            cited: BTreeMap::new(),
            own_prompt: false,
            subagent: false,
            external: false,
        }
    }

    #[test]
    fn old_reasons_drive_the_same_decisions() {
        let sources = old_sources();
        let b = &sources.sources[&SourceKey::file("/s/b.jsonl")];
        let c = &sources.sources[&SourceKey::file("/s/c.jsonl")];
        assert_eq!(b.reason, Some(Reason::DuplicateOf("/s/a.jsonl".into())));
        assert_eq!(
            sources.sources[&SourceKey::file("/s/d.jsonl")].reason,
            Some(Reason::NotATranscript("empty file".into()))
        );
        let everywhere = Presence::default();
        assert!(!needs_revisit(b, &rules(), &everywhere));
        let owner_gone = Presence::new(HashSet::from(["/s/a.jsonl".to_string()]));
        assert!(needs_revisit(b, &rules(), &owner_gone), "a duplicate whose owner is gone is read again");
        assert!(!needs_revisit(c, &rules(), &everywhere));
        let subagents = Rules { include_subagents: true, ..rules() };
        assert!(needs_revisit(c, &subagents, &everywhere), "a sub-agent is read once sub-agents are wanted");
    }

    #[test]
    fn outside_context_is_excluded_only_when_asked_and_revisited_when_the_rule_turns() {
        let store = Store::new(old_sources(), Presence::default(), 0);
        let presence = Presence::default();
        let key: SourceKey = "/s/a.jsonl".into();
        let web = SessionSeen { external: true, ..seen("s9") };
        assert_eq!(exclusion(&web, &key, &store, &rules()), None);
        let strict = Rules { exclude_external: true, ..rules() };
        assert_eq!(exclusion(&web, &key, &store, &strict), Some(Reason::ExternalContext));
        let own = SessionSeen { own_prompt: true, ..web.clone() };
        assert_eq!(exclusion(&own, &key, &store, &strict), Some(Reason::OwnPrompt));
        let stat = FileStat { size: 1, mtime_ns: 1 };
        let read = session_entry(&web, stat, SourceState::Extracted, &rules());
        assert!(read.external && !needs_revisit(&read, &rules(), &presence));
        assert!(needs_revisit(&read, &strict, &presence), "turned on, an extracted web session is read again");
        let left_out = excluded_entry(&web, stat, Reason::ExternalContext, &strict);
        assert!(!needs_revisit(&left_out, &strict, &presence));
        assert!(needs_revisit(&left_out, &rules(), &presence), "turned off, it is read again");
    }

    #[test]
    fn triage_counts_what_needs_no_reading() {
        let sources = old_sources();
        let a = &sources.sources[&SourceKey::file("/s/a.jsonl")];
        let same = FileStat { size: a.size, mtime_ns: a.mtime_ns };
        let presence = Presence::default();
        assert_eq!(triage(Some(a), same, &rules(), &presence), Triage::Count(Plan::Unchanged));
        let touched = stat_at("2026-11-25T10:00:00Z", a.size);
        assert_eq!(triage(Some(a), touched, &rules(), &presence), Triage::Read { touched: true });
        let grown = stat_at("2026-11-25T10:00:00Z", a.size + 1);
        assert_eq!(triage(Some(a), grown, &rules(), &presence), Triage::Read { touched: false });
        let active = stat_at("2026-11-29T11:00:00Z", 1);
        assert_eq!(triage(None, active, &rules(), &presence), Triage::Count(Plan::Active));
        let reformatted = Rules { format: Some(Agent::Claude), ..rules() };
        assert_eq!(triage(Some(a), same, &reformatted, &presence), Triage::Read { touched: false });
    }

    #[test]
    fn a_session_whose_record_is_missing_is_read_again() {
        let sources = old_sources();
        let a = &sources.sources[&SourceKey::file("/s/a.jsonl")];
        let same = FileStat { size: a.size, mtime_ns: a.mtime_ns };
        let lost = Presence::default().records_missing(HashSet::from(["s1".to_string()]));
        assert_eq!(triage(Some(a), same, &rules(), &lost), Triage::Read { touched: false });
        let b = &sources.sources[&SourceKey::file("/s/b.jsonl")];
        assert!(!needs_revisit(b, &rules(), &lost), "a duplicate holds no record of its own");
        let other = Presence::default().records_missing(HashSet::from(["s2".to_string()]));
        assert_eq!(triage(Some(a), same, &rules(), &other), Triage::Count(Plan::Unchanged));
    }

    #[test]
    fn exclusions_come_in_order_and_duplicates_name_their_owner() {
        let mut sources = old_sources();
        let store = Store::new(sources.clone(), Presence::default(), 0);
        let rules = rules();
        let dup = exclusion(&seen("s1"), &"/s/new.jsonl".into(), &store, &rules);
        assert_eq!(dup, Some(Reason::DuplicateOf("/s/a.jsonl".into())));
        assert_eq!(exclusion(&seen("s1"), &"/s/a.jsonl".into(), &store, &rules), None);
        sources.excluded.insert("s1".into());
        let store = Store::new(sources, Presence::default(), 0);
        assert_eq!(exclusion(&seen("s1"), &"/s/a.jsonl".into(), &store, &rules), Some(Reason::Forgotten));
        let sub = SessionSeen { subagent: true, ..seen("s1") };
        assert_eq!(exclusion(&sub, &"/s/a.jsonl".into(), &store, &rules), Some(Reason::SubAgent));
        let own = SessionSeen { own_prompt: true, ..sub };
        assert_eq!(exclusion(&own, &"/s/a.jsonl".into(), &store, &rules), Some(Reason::OwnPrompt));
    }

    #[test]
    fn tries_count_up_until_the_transcript_changes() {
        let stat = stat_at("2026-11-25T10:00:00Z", 10);
        let first = failed_entry(None, Some(stat), Some("h1"), "torn");
        assert_eq!((first.tries, first.state, first.last_error.as_deref()), (1, SourceState::Failed, Some("torn")));
        assert!(!failure_needs_hash(Some(&first), Some(stat), None));
        let again = failed_entry(Some(&first), Some(stat), None, "torn");
        assert_eq!(again.tries, 2);
        let touched = FileStat { mtime_ns: stat.mtime_ns + 1, ..stat };
        assert!(failure_needs_hash(Some(&again), Some(touched), None));
        assert_eq!(failed_entry(Some(&again), Some(touched), Some("h1"), "torn").tries, 3, "a touch is no change");
        assert_eq!(failed_entry(Some(&again), Some(touched), Some("h2"), "torn").tries, 1, "new bytes start again");
        let extracted = SourceEntry { session_id: Some("s".into()), ..entry(stat, SourceState::Extracted, 0) };
        assert_eq!(failed_entry(Some(&extracted), Some(stat), None, "x").session_id.as_deref(), Some("s"));
    }

    #[test]
    fn the_newest_are_read_first_and_a_limit_cuts_the_oldest() {
        let mut items = vec![(1, SourceKey::file("/b")), (3, SourceKey::file("/c")), (1, SourceKey::file("/a"))];
        assert_eq!(newest_first(&mut items, Some(2), |(t, k)| (*t, k)), 1);
        assert_eq!(items, [(3, SourceKey::file("/c")), (1, SourceKey::file("/a"))]);
        assert_eq!(newest_first(&mut items, None, |(t, k)| (*t, k)), 0);
    }

    #[test]
    fn sessions_are_selected_by_id_or_path_text() {
        assert!(selected(&[], "/a/b.jsonl", None));
        let wanted = ["019b".to_string()];
        assert!(selected(&wanted, "/a/rollout-019b.jsonl", None));
        assert!(selected(&wanted, "/a/x.jsonl", Some("019b")));
        assert!(!selected(&wanted, "/a/x.jsonl", Some("019c")));
    }

    #[test]
    fn only_settled_transcripts_follow_a_move() {
        let stat = stat_at("2026-11-25T10:00:00Z", 10);
        let settled = SourceEntry { hash: Some("h".into()), ..entry(stat, SourceState::NoOp, 0) };
        assert!(follows_move(&settled, Some("h")));
        assert!(!follows_move(&settled, Some("other")));
        let failed = SourceEntry { state: SourceState::Failed, ..settled };
        assert!(!follows_move(&failed, Some("h")));
    }

    #[test]
    fn every_session_of_a_gone_file_vanishes() {
        let mut sources = Sources::default();
        let stat = stat_at("2026-11-25T10:00:00Z", 10);
        for id in ["ses_1", "ses_2"] {
            sources.sources.insert(SourceKey::member("/o.db", id), entry(stat, SourceState::Extracted, 0));
        }
        sources.sources.insert("/kept.jsonl".into(), entry(stat, SourceState::Extracted, 0));
        let gone = vanished(&sources, |path| path == "/o.db");
        assert_eq!(gone, [SourceKey::member("/o.db", "ses_1"), SourceKey::member("/o.db", "ses_2")]);
    }

    #[test]
    fn gone_transcripts_vanish_once() {
        let mut sources = old_sources();
        sources.sources.get_mut(&SourceKey::file("/s/c.jsonl")).unwrap().state = SourceState::Vanished;
        let gone = |key: &str| key != "/s/a.jsonl";
        assert_eq!(vanished(&sources, gone), [SourceKey::file("/s/b.jsonl"), SourceKey::file("/s/d.jsonl")]);
    }
}
