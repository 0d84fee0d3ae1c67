//! The stored stage-1 record of one session (`.handbook/stage1/<id>.json`): what extraction
//! produced, where it came from, and how often later sessions cited it.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::core::extract::{Extraction, Facts, Memory};
use crate::core::model::{StageOne, facts_from_answer};
use crate::core::redact::redact;
use crate::core::session::{Agent, SessionMeta};
use crate::core::state::{FileStat, SessionSeen};

/// Bumped when the record's shape changes incompatibly.
pub(crate) const STAGE1_VERSION: u32 = 1;

/// One session's stage-1 output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stage1 {
    pub(crate) version: u32,
    pub(crate) session_id: String,
    pub(crate) agent: Agent,
    /// The transcript it was extracted from.
    pub(crate) rollout_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cwd: Option<String>,
    /// Project key: git remote, repository root or cwd.
    pub(crate) project: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) git_branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) started_at: Option<Timestamp>,
    /// Last activity in the session (its last record, else the file's modification time).
    pub(crate) updated_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    /// Content hash of the transcript this was extracted from.
    pub(crate) source_hash: String,
    pub(crate) rollout_slug: String,
    pub(crate) rollout_summary: String,
    pub(crate) raw_memory: String,
    pub(crate) facts: Facts,
    /// How many later replies cited this session.
    #[serde(default)]
    pub(crate) usage_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_usage: Option<Timestamp>,
}

impl Stage1 {
    /// The record of a session read from `key` and extracted into `memory`. Its usage is
    /// counted when it is stored.
    pub(crate) fn new(
        key: &str,
        stat: FileStat,
        seen: &SessionSeen,
        meta: &SessionMeta,
        project: String,
        memory: Memory,
    ) -> Stage1 {
        Stage1 {
            version: STAGE1_VERSION,
            session_id: seen.session_id.clone(),
            agent: seen.agent,
            rollout_path: key.to_string(),
            cwd: meta.cwd.clone(),
            project,
            git_branch: meta.git_branch.clone(),
            started_at: meta.started,
            updated_at: meta.updated.unwrap_or_else(|| stat.modified()),
            title: meta.title.clone(),
            source_hash: seen.hash.clone(),
            rollout_slug: memory.rollout_slug,
            rollout_summary: memory.rollout_summary,
            raw_memory: memory.raw_memory,
            facts: memory.facts,
            usage_count: 0,
            last_usage: None,
        }
    }
}

/// The extraction to store when a model answered: its texts, with the built-in extractor's
/// facts (what consolidation lays out and merges), or facts read from the answer when the
/// built-in extractor found nothing. The model's no-op is final.
///
/// The answer is redacted here, where it is stored, whatever checked it before: a model
/// repeats what the transcript showed it, in forms of its own.
pub(crate) fn with_answer(builtin: Extraction, answer: StageOne) -> Extraction {
    let StageOne::Memory { raw_memory, rollout_summary, rollout_slug } = answer else {
        return Extraction::NoOp;
    };
    let [raw_memory, rollout_summary, rollout_slug] =
        [raw_memory, rollout_summary, rollout_slug].map(|text| redact(&text).into_owned());
    let facts = match builtin {
        Extraction::Memory(memory) => memory.facts,
        Extraction::NoOp => facts_from_answer(&raw_memory, &rollout_summary),
    };
    Extraction::Memory(Box::new(Memory { facts, rollout_summary, raw_memory, rollout_slug }))
}

/// Longest id kept as its own file name, in bytes.
const PLAIN_MAX: usize = 120;
/// Longest readable prefix of a hashed file name, in bytes.
const READABLE_MAX: usize = 60;

/// The file name that stores a session's record: the id when it is plain (see
/// [`is_plain`]), else a readable prefix of it, `-` and the blake3 hash of the whole id in
/// hex, so two ids never share a file.
///
/// Why no two ids share a name: a hashed name ends in `-` and 64 lowercase hex digits, and a
/// plain id never does, so a plain name never equals a hashed one; two plain names differ as
/// their ids do; two hashed names differ as the blake3 hashes of their ids do (their whole
/// ids, not the prefixes). Plain ids are lowercase, so a file system that ignores case merges
/// no two names either. Every name is at most 130 bytes, holds no `/`, and is never `.` or
/// `..`.
///
/// ```
/// use handbook::core::stage1::file_name;
/// assert_eq!(file_name("019b64e5-57fa-7463-b644-fba7e456f905"), "019b64e5-57fa-7463-b644-fba7e456f905.json");
/// assert!(file_name("../etc/passwd").starts_with("etc_passwd-"));
/// ```
pub fn file_name(session_id: &str) -> String {
    if is_plain(session_id) {
        return format!("{session_id}.json");
    }
    let readable = readable_part(session_id);
    let readable = if readable.is_empty() { "session" } else { readable.as_str() };
    format!("{readable}-{}.json", blake3::hash(session_id.as_bytes()).to_hex())
}

/// The readable start of a name made from `session_id`: its letters, digits, `-` and `_`,
/// the rest as `_`, without `_` at the ends.
fn readable_part(session_id: &str) -> String {
    session_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect::<String>()
        .trim_matches('_')
        .chars()
        .take(READABLE_MAX)
        .collect()
}

/// An id that can be its own file name: short, lowercase ASCII letters, digits, `-`, `_`
/// and `.`, not starting with `.`, not a device name on Windows, and not ending the way a
/// hashed name does (`-` and 64 hex digits).
fn is_plain(id: &str) -> bool {
    let charset = id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b));
    let stem = id.split('.').next().unwrap_or(id);
    let device = matches!(stem, "con" | "prn" | "aux" | "nul")
        || (stem.len() == 4
            && (stem.starts_with("com") || stem.starts_with("lpt"))
            && stem.ends_with(|c: char| c.is_ascii_digit()));
    !id.is_empty() && id.len() <= PLAIN_MAX && !id.starts_with('.') && charset && !device && !looks_hashed(id)
}

fn looks_hashed(id: &str) -> bool {
    let hex = 64;
    id.len() > hex
        && id.as_bytes()[id.len() - hex - 1] == b'-'
        && id.bytes().rev().take(hex).all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The name a record had before names were made injective: kept only to find records stored
/// then. It is not injective (an id could equal another's mapped form), so a record found
/// under it counts only if it holds the id looked for.
pub(crate) fn legacy_file_name(session_id: &str) -> String {
    let safe = !session_id.is_empty()
        && session_id.len() <= PLAIN_MAX
        && !session_id.starts_with('.')
        && session_id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if safe {
        return format!("{session_id}.json");
    }
    let readable = readable_part(session_id);
    let hash = blake3::hash(session_id.as_bytes()).to_hex();
    format!("{readable}-{}.json", &hash[..12])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crafted_id_never_lands_on_another_sessions_record() {
        let long = "x".repeat(200);
        for unsafe_id in ["../etc/passwd", "a b", "Upper", "", ".hidden", long.as_str()] {
            let mapped = file_name(unsafe_id);
            let crafted = mapped.trim_end_matches(".json");
            assert_ne!(file_name(crafted), mapped, "the id {crafted:?} takes the record of {unsafe_id:?}");
        }
    }

    #[test]
    fn plain_ids_keep_their_names_and_old_names_are_still_known() {
        assert_eq!(file_name("generic-make-0001"), "generic-make-0001.json");
        assert_eq!(legacy_file_name("generic-make-0001"), "generic-make-0001.json");
        assert_eq!(legacy_file_name("../etc/passwd"), "etc_passwd-f5d0da9f8b89.json");
        // Ids that case-insensitive file systems would merge get names that differ.
        assert_ne!(file_name("Abc").to_lowercase(), file_name("abc").to_lowercase());
        assert!(file_name("nul").ends_with(&format!("{}.json", blake3::hash(b"nul").to_hex())));
    }

    #[test]
    fn a_model_answer_is_stored_redacted() {
        let answer = StageOne::Memory {
            raw_memory: "- deploys use xapp-1-A0123BCDEFG-1234567890123-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d".to_string(),
            rollout_summary: "# Deploy\nThe token ghp_16C7e42F292c6912E77\n10c838347Ae178B4a worked.".to_string(),
            rollout_slug: "deploy".to_string(),
        };
        let Extraction::Memory(memory) = with_answer(Extraction::NoOp, answer) else { panic!("a no-op") };
        let stored = format!("{} {} {}", memory.raw_memory, memory.rollout_summary, memory.rollout_slug);
        for piece in ["0a1b2c3d4e5f6a7b8c9d", "ghp_16C7e42F292c6912E77", "10c838347Ae178B4a"] {
            assert!(!stored.contains(piece), "{piece} stored: {stored}");
        }
        assert!(stored.contains("[REDACTED:slack]") && stored.contains("[REDACTED:github]"), "{stored}");
    }
}
