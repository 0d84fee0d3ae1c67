//! The mechanical files of the workspace, rewritten from the selection at every
//! consolidation: `rollout_summaries/<stem>.md` and `raw_memories.md`. Same selection, same
//! bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use jiff::Timestamp;

use crate::core::extract::render::{meta, one_line};
use crate::core::stage1::Stage1;

pub(crate) const RAW_MEMORIES: &str = "raw_memories.md";
pub(crate) const MEMORY: &str = "MEMORY.md";
pub(crate) const SUMMARY: &str = "memory_summary.md";
/// The summary as consolidation rendered it before fitting it to the cap, kept in the private
/// state so `summary --project` can narrow it to one project before the cap applies.
pub(crate) const WHOLE_SUMMARY: &str = ".handbook/memory_summary_whole.md";
pub(crate) const ROLLOUT_SUMMARIES: &str = "rollout_summaries";
pub(crate) const NOTES_DIR: &str = "extensions/ad_hoc/notes";
pub(crate) const DIFF_FILE: &str = "phase2_workspace_diff.md";
/// Longest slug in a summary file name, in bytes.
const SLUG_MAX: usize = 60;

/// Seconds-precision RFC 3339, the form every rendered file uses.
pub(crate) fn timestamp(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The file name stem of a session's rollout summary: `<YYYY-MM-DDTHH-MM-SS>-<hash4>[-<slug>]`.
/// The time is the one a UUIDv7 session id carries, else the session's start, else its last
/// activity; `hash4` is four base-62 characters from the id.
pub(crate) fn summary_stem(session_id: &str, fallback_time: Timestamp, slug: &str) -> String {
    let uuid = parse_uuid(session_id);
    let seed = match uuid {
        Some(u) => (u & 0xFFFF_FFFF) as u32,
        None => session_id.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))),
    };
    stem(&stem_time(session_id, fallback_time), &hash4(seed), slug)
}

/// The time a stem starts with: the one a UUIDv7 id carries, else `fallback_time`.
fn stem_time(session_id: &str, fallback_time: Timestamp) -> String {
    let time = parse_uuid(session_id)
        .filter(|u| (u >> 76) & 0xF == 7)
        .and_then(|u| Timestamp::from_millisecond((u >> 80) as i64).ok())
        .unwrap_or(fallback_time);
    time.strftime("%Y-%m-%dT%H-%M-%S").to_string()
}

fn stem(time: &str, hash: &str, slug: &str) -> String {
    let mut stem = format!("{time}-{hash}");
    let slug = sanitize_slug(slug);
    if !slug.is_empty() {
        let _ = write!(stem, "-{slug}");
    }
    stem
}

fn parse_uuid(id: &str) -> Option<u128> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    let shaped = id.len() == 36
        && id
            .bytes()
            .enumerate()
            .all(|(i, b)| if matches!(i, 8 | 13 | 18 | 23) { b == b'-' } else { b.is_ascii_hexdigit() });
    shaped.then(|| u128::from_str_radix(&hex, 16).ok()).flatten()
}

fn hash4(seed: u32) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut n = seed % (62u32.pow(4));
    let mut out = [b'0'; 4];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Lowercase alphanumerics, everything else `_`, at most 60 bytes, no trailing `_`.
fn sanitize_slug(slug: &str) -> String {
    let mut out = String::new();
    for c in slug.chars() {
        if out.len() >= SLUG_MAX {
            break;
        }
        out.push(if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' });
    }
    out.trim_end_matches('_').to_string()
}

/// The file name (`<stem>.md`) a record's rollout summary has when no other session's
/// would be the same: see [`summary_files`] for the names of a whole selection.
pub(crate) fn summary_file(record: &Stage1) -> String {
    let fallback = record.started_at.unwrap_or(record.updated_at);
    format!("{}.md", summary_stem(&record.session_id, fallback, &record.rollout_slug))
}

/// Rollout summary file names for a whole selection, by session id, one file per session.
/// Each record keeps [`summary_file`] unless another record's name is the same (or differs
/// only in case, which some file systems ignore); then all of those take 32 hex digits of
/// the blake3 hash of their whole id instead of the four-character hash. Should names still
/// meet, the later ids in order take `-2`, `-3`…; so the names depend only on the set of
/// records, never on their order.
pub(crate) fn summary_files(selection: &[Stage1]) -> BTreeMap<String, String> {
    let mut records: Vec<&Stage1> = selection.iter().collect();
    records.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    records.dedup_by(|a, b| a.session_id == b.session_id);
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for record in &records {
        *count.entry(summary_file(record).to_lowercase()).or_default() += 1;
    }
    let mut taken = BTreeSet::new();
    let mut names = BTreeMap::new();
    for record in records {
        let short = summary_file(record);
        // Every short name was counted just above.
        let name = match count[&short.to_lowercase()] {
            1 => short,
            _ => long_summary_file(record),
        };
        let (stem, mut name, mut n) = (name.trim_end_matches(".md").to_string(), name, 1);
        while !taken.insert(name.to_lowercase()) {
            n += 1;
            name = format!("{stem}-{n}.md");
        }
        names.insert(record.session_id.clone(), name);
    }
    names
}

/// `<time>-<32 hex digits of the id's blake3 hash>[-<slug>].md`: the name of a summary whose
/// short name another session's shares.
fn long_summary_file(record: &Stage1) -> String {
    let time = stem_time(&record.session_id, record.started_at.unwrap_or(record.updated_at));
    let hash = blake3::hash(record.session_id.as_bytes()).to_hex();
    format!("{}.md", stem(&time, &hash[..32], &record.rollout_slug))
}

/// A rollout summary file: header lines, a blank line, the summary.
pub(crate) fn rollout_summary(record: &Stage1) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "session_id: {}", one_line(&record.session_id));
    let _ = writeln!(out, "updated_at: {}", timestamp(record.updated_at));
    let _ = writeln!(out, "rollout_path: {}", meta(&record.rollout_path));
    if let Some(cwd) = &record.cwd {
        let _ = writeln!(out, "cwd: {}", meta(cwd));
    }
    if let Some(branch) = &record.git_branch {
        let _ = writeln!(out, "git_branch: {}", meta(branch));
    }
    out.push('\n');
    out.push_str(record.rollout_summary.trim_end());
    out.push('\n');
    out
}

/// `raw_memories.md`: every selected raw memory, in ascending session-id order.
pub(crate) fn raw_memories(selection: &[Stage1]) -> String {
    let files = summary_files(selection);
    let mut out = String::from("# Raw Memories\n\n");
    if selection.is_empty() {
        out.push_str("No raw memories yet.\n");
        return out;
    }
    out.push_str("Merged stage-1 raw memories (stable ascending session-id order):\n\n");
    for record in selection {
        let _ = writeln!(out, "## Session `{}`", one_line(&record.session_id));
        let _ = writeln!(out, "updated_at: {}", timestamp(record.updated_at));
        let _ = writeln!(out, "cwd: {}", record.cwd.as_deref().map_or_else(|| "unknown".to_string(), meta));
        let _ = writeln!(out, "rollout_path: {}", meta(&record.rollout_path));
        // `files` names every record of the selection.
        let _ = writeln!(out, "rollout_summary_file: {}", files[&record.session_id]);
        let _ = writeln!(out, "usage_count: {}", record.usage_count);
        if let Some(used) = record.last_usage {
            let _ = writeln!(out, "last_usage: {}", timestamp(used));
        }
        let _ = writeln!(out, "\n{}\n", record.raw_memory.trim());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_follow_the_reference_layout() {
        let at: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let id = "0194f5a6-89ab-7cde-8123-456789abcdef";
        assert_eq!(
            summary_stem(id, at, "Unsafe Slug/With Spaces & Symbols + EXTRA_LONG_12345_67890_ABCDE_fghij_klmno"),
            "2025-02-11T15-35-19-jqmb-unsafe_slug_with_spaces___symbols___extra_long_12345_67890_a"
        );
        // Not a UUIDv7 (a Claude v4 id, a generic id): the fallback time is used.
        let v4 = summary_stem("5a1e0c2d-7f3b-4e21-9c8d-2b7e1f000001", at, "fix-it");
        assert!(v4.starts_with("2026-01-01T00-00-00-") && v4.ends_with("-fix_it"), "{v4}");
        let plain = summary_stem("generic-make-0001", at, "");
        assert_eq!(plain.len(), "2026-01-01T00-00-00-xxxx".len());
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn summary_stem_example() {
        use crate::core::layout::summary_stem;
        let at = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(summary_stem("0194f5a6-89ab-7cde-8123-456789abcdef", at, ""), "2025-02-11T15-35-19-jqmb");
    }
}
