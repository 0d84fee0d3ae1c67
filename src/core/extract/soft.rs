//! Soft failures: a text reader that exits 0 on a file it cannot show (binary or empty
//! output), then another reader that reads the same path. The file is not what its name
//! says (a `.log` that is compressed), and the reader that worked is the lesson.

use std::collections::BTreeMap;

use super::{Failure, Fix};

/// Readers that show a file as text.
const TEXT_READERS: &[&str] = &["cat", "head", "tail", "less", "more", "bat", "nl"];
/// Commands that only say what a file is, and so read none of it.
const METADATA: &[&str] =
    &["file", "stat", "ls", "wc", "du", "readlink", "realpath", "md5sum", "sha256sum", "cp", "mv"];
/// Files remembered at most.
const MAX_UNREAD: usize = 32;
/// Bytes of output looked at to tell text from binary.
const SAMPLE: usize = 2048;

/// Files a text reader could not show, by path: the command and its line.
#[derive(Default)]
pub(crate) struct Unread {
    files: BTreeMap<String, (String, u64, &'static str)>,
}

impl Unread {
    /// Notes a text reader's run on a file it could not show; true when it was one.
    pub(crate) fn note(&mut self, command: &str, output: &str, line: u64) -> bool {
        // The reader is the last step of a chain (`cp … && head -c 200 x.log`), before any pipe.
        let last = command.rsplit("&&").next().unwrap_or(command);
        let last = last.rsplit(';').next().unwrap_or(last);
        // What a pipe prints is its last stage's; only a pager after the reader keeps it the
        // reader's own output.
        let mut stages = last.split('|').map(str::trim);
        let reading = stages.next().unwrap_or(last);
        let paged = stages.all(|stage| stage.split_whitespace().next().is_some_and(|p| TEXT_READERS.contains(&p)));
        if !paged {
            return false;
        }
        let words: Vec<&str> = reading.split_whitespace().collect();
        let [program, .., path] = words.as_slice() else { return false };
        let program = program.rsplit('/').next().unwrap_or(program);
        if !TEXT_READERS.contains(&program) || path.starts_with('-') || reading.contains(['>', '<']) {
            return false;
        }
        let what = match shown(output) {
            Shown::Text => return false,
            Shown::Binary => "printed binary data",
            Shown::Nothing => "printed nothing",
        };
        if self.files.len() < MAX_UNREAD {
            self.files.insert(path.trim_matches(['"', '\'']).to_string(), (reading.to_string(), line, what));
        }
        true
    }

    /// The lesson, when `command` read as text a file a text reader could not show.
    pub(crate) fn read_by(&mut self, command: &str, output: &str, line: u64) -> Option<Fix> {
        let program = command.split_whitespace().next().unwrap_or("").rsplit('/').next().unwrap_or("");
        let reader = !TEXT_READERS.contains(&program) && !METADATA.contains(&program);
        if self.files.is_empty() || !reader || shown(output) != Shown::Text {
            return None;
        }
        let path = self
            .files
            .keys()
            .find(|path| command.split_whitespace().any(|w| w.trim_matches(['"', '\'']) == path.as_str()))?
            .clone();
        let (failed, failed_line, what) = self.files.remove(&path)?;
        let failure = Failure { command: failed, error: what.to_string(), exit_code: Some(0), line: failed_line };
        Some(Fix::new(failure, command.to_string(), line))
    }
}

#[derive(PartialEq, Eq)]
enum Shown {
    Text,
    Binary,
    Nothing,
}

/// What an output shows: text, bytes that are not text (NULs, replacement characters,
/// control characters), or nothing at all.
fn shown(output: &str) -> Shown {
    let sample: String = output.chars().take(SAMPLE).collect();
    let trimmed = sample.trim();
    if trimmed.is_empty() {
        return Shown::Nothing;
    }
    // Bytes that are not text come out as replacement characters, control characters and
    // stray Latin-1 letters.
    let odd = trimmed
        .chars()
        .filter(|c| {
            *c == '\u{fffd}'
                || ('\u{80}'..='\u{ff}').contains(c)
                || (c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
        })
        .count();
    let all = trimmed.chars().count();
    if odd * 10 >= all || trimmed.contains("binary file") || trimmed.contains("is a binary file") {
        Shown::Binary
    } else {
        Shown::Text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_cat_cannot_show_and_another_reader_can_is_a_lesson() {
        let mut unread = Unread::default();
        assert!(unread.note("cat logs/app.log", "(\u{fffd}/\u{fffd}\u{fffd}\u{0}\u{fffd}X\u{fffd}", 4));
        assert!(unread.read_by("ls logs", "app.log", 5).is_none());
        let fix = unread.read_by("zstdcat logs/app.log", "2026-11-20 12:00 started\n", 6).unwrap();
        assert_eq!(
            (fix.failure.command.as_str(), fix.failure.error.as_str()),
            ("cat logs/app.log", "printed binary data")
        );
        assert_eq!(fix.command, "zstdcat logs/app.log");
    }

    #[test]
    fn text_and_other_commands_are_no_soft_failure() {
        let mut unread = Unread::default();
        assert!(!unread.note("cat README.md", "# Title\nSome text\n", 1));
        assert!(!unread.note("grep -r foo .", "", 2));
        assert!(!unread.note("cat a.txt | wc -l", "", 3));
        assert!(unread.note("cat empty.txt", "\n", 4));
        // A reader at the end of a chain is found; `file` reads nothing.
        assert!(unread.note(
            "cp a:/x.log /tmp/x.log && head -c 200 /tmp/x.log",
            "copied\n(\u{b5}/\u{fd}X\u{ad}!\u{fffd}\u{f3}\u{fffd}V\u{fffd}",
            5
        ));
        assert!(unread.read_by("file /tmp/x.log", "/tmp/x.log: Zstandard compressed data", 6).is_none());
        let fix = unread.read_by("zstdcat /tmp/x.log | head -n 4", "started\n", 7).unwrap();
        assert_eq!(fix.failure.command, "head -c 200 /tmp/x.log");
    }
}
