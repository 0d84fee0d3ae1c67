//! The journal of `sources.json`. A run that changed a few of many known transcripts appends
//! those changes to `sources.log` instead of rewriting the whole file, so what it writes is
//! in proportion to what changed; the file is rewritten (and the journal dropped) once the
//! journal grows as long as the file has entries. Each journal line names the snapshot it
//! applies to, so a journal left behind by a rewrite that died halfway is never replayed onto
//! a newer snapshot.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::{SourceEntry, SourceKey, Sources};

/// The journal may hold this many changes at least before the file is rewritten.
const MIN_JOURNAL: usize = 256;

/// One journal line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Line {
    /// The snapshot it applies to (see [`Base`]).
    base: String,
    change: Change,
}

/// A change to the state. (Externally tagged: a buffered, internally tagged enum could not
/// carry an entry's 128-bit modification time.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Change {
    /// The session at `key` (and `member`, in a file of many) is now in `entry`'s state.
    Set {
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        member: Option<Box<str>>,
        entry: Box<SourceEntry>,
    },
    /// The session at `key` is no longer known there (its transcript moved).
    Remove {
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        member: Option<Box<str>>,
    },
    /// An extract run finished at `at`.
    Extracted { at: Timestamp },
}

/// What identifies a snapshot of `sources.json`: a hash of its bytes (see [`Base`], which
/// takes them in as they are read).
#[cfg(test)]
pub(crate) fn base_of(snapshot: &[u8]) -> String {
    crate::core::manifest::hash(snapshot)[..16].to_string()
}

/// What identifies a snapshot of `sources.json`, a hash of its bytes, taken in as they are
/// read so that the snapshot is never held whole.
#[derive(Default)]
pub(crate) struct Base(blake3::Hasher);

impl Base {
    /// Take in the next bytes of the snapshot.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The base of the bytes taken in.
    pub(crate) fn finish(&self) -> String {
        self.0.finalize().to_hex()[..16].to_string()
    }
}

/// What replaying a journal did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Replayed {
    /// Changes applied: the journal's length for the compaction rule.
    pub(crate) applied: usize,
    /// Lines that could not be read, by line number; each such change is lost, and the
    /// transcript it was about is read again on the next run.
    pub(crate) damaged: Vec<u64>,
}

/// Apply the journal `text` to the snapshot it belongs to, whose base is `base`. Lines of
/// another snapshot are stale and skipped; a torn last line (a run that died writing it) is
/// ignored.
pub(crate) fn replay(sources: &mut Sources, base: &str, text: &str) -> Replayed {
    let mut replayed = Replayed::default();
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    for (index, raw) in complete.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let Ok(line) = serde_json::from_str::<Line>(raw) else {
            replayed.damaged.push(index as u64 + 1);
            continue;
        };
        if line.base != base {
            continue;
        }
        replayed.applied += 1;
        match line.change {
            Change::Set { key, member, entry } => {
                sources.sources.insert(SourceKey { path: key.into(), member }, *entry);
            }
            Change::Remove { key, member } => {
                sources.sources.remove(&SourceKey { path: key.into(), member });
            }
            Change::Extracted { at } => sources.last_extract = Some(at),
        }
    }
    replayed
}

/// The journal lines for `changes` (a key with its entry now, or `None` when it is no
/// longer known) and a run that finished at `at`, on top of snapshot `base`.
pub(crate) fn lines<'a>(
    base: &str,
    changes: impl Iterator<Item = (&'a SourceKey, Option<&'a SourceEntry>)>,
    at: Timestamp,
) -> (String, usize) {
    let mut text = String::new();
    let mut count = 0;
    let changes = changes.map(|(key, entry)| {
        let (key, member) = (key.path.to_string(), key.member.clone());
        match entry {
            Some(entry) => Change::Set { key, member, entry: Box::new(entry.clone()) },
            None => Change::Remove { key, member },
        }
    });
    for change in changes.chain([Change::Extracted { at }]) {
        let line = Line { base: base.to_string(), change };
        // A journal line is a plain struct of strings, numbers and maps: it always encodes.
        text.push_str(&serde_json::to_string(&line).unwrap_or_default());
        text.push('\n');
        count += 1;
    }
    (text, count)
}

/// True when a journal of `journal` changes over a snapshot of `entries` entries should be
/// folded into a rewritten file.
pub(crate) fn compact_now(journal: usize, entries: usize) -> bool {
    journal > entries.max(MIN_JOURNAL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::tests::{entry, stat_at};
    use crate::core::state::{FileStat, SourceState};

    fn at() -> Timestamp {
        "2026-11-29T12:00:00Z".parse().unwrap()
    }

    fn known(size: u64) -> SourceEntry {
        entry(FileStat { size, mtime_ns: 1 }, SourceState::Extracted, 0)
    }

    #[test]
    fn a_journal_replays_onto_its_own_snapshot() {
        let mut sources = Sources::default();
        sources.sources.insert("/a".into(), known(1));
        sources.sources.insert("/gone".into(), known(1));
        let grown = known(2);
        let keys: [SourceKey; 4] = ["/a".into(), "/gone".into(), "/new".into(), SourceKey::member("/o.db", "ses_1")];
        let changes = [(&keys[0], Some(&grown)), (&keys[1], None), (&keys[2], Some(&grown)), (&keys[3], Some(&grown))];
        let (text, count) = lines("b1", changes.into_iter(), at());
        assert_eq!(count, 5);
        let replayed = replay(&mut sources, "b1", &text);
        assert_eq!(replayed, Replayed { applied: 5, damaged: vec![] });
        assert_eq!(sources.sources[&keys[0]].size, 2);
        assert!(!sources.sources.contains_key(&keys[1]));
        assert!(sources.sources.contains_key(&keys[2]) && sources.sources.contains_key(&keys[3]));
        assert_eq!(sources.last_extract, Some(at()));
    }

    #[test]
    fn a_stale_journal_or_a_torn_line_changes_nothing() {
        let mut sources = Sources::default();
        sources.sources.insert("/a".into(), known(1));
        let grown = known(2);
        let a = SourceKey::file("/a");
        let (text, _) = lines("old", [(&a, Some(&grown))].into_iter(), at());
        assert_eq!(replay(&mut sources, "new", &text).applied, 0, "written on top of another snapshot");
        assert_eq!(sources.sources[&a].size, 1);
        let torn = &text[..text.len() / 2];
        assert_eq!(replay(&mut sources, "old", torn), Replayed::default());
        let damaged = format!("{{not json\n{text}");
        assert_eq!(replay(&mut sources, "old", &damaged), Replayed { applied: 2, damaged: vec![1] });
        assert_eq!(sources.sources[&a].size, 2);
    }

    #[test]
    fn the_file_is_rewritten_once_the_journal_is_as_long() {
        assert!(!compact_now(10, 5), "small states keep a short journal");
        assert!(compact_now(300, 5));
        assert!(!compact_now(900, 1000));
        assert!(compact_now(1001, 1000));
        let stat = stat_at("2026-11-25T10:00:00Z", 1);
        assert_ne!(base_of(b"{}"), base_of(format!("{}", stat.size).as_bytes()));
        let mut base = Base::default();
        base.update(b"{\"version\":");
        base.update(b"3}");
        assert_eq!(base.finish(), base_of(b"{\"version\":3}"), "a snapshot taken in piece by piece");
    }
}
