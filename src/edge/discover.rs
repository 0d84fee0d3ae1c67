//! Finding transcript files under the source folders, in a stable order, and what is on disk
//! of the ones already known. Unreadable folders and symlink loops become warnings; the walk
//! goes on.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use jiff::Timestamp;
use walkdir::WalkDir;

use super::terminal::Terminal;
use crate::config::SourceRoot;
use crate::core::state::{FileStat, Presence, Reason, Sources};

/// What a walk of the sources found.
#[derive(Debug, Default)]
pub(crate) struct Discovery {
    /// Transcript files, absolute, sorted, without duplicates.
    pub(crate) files: Vec<PathBuf>,
    /// The size and time of each of `files` (see [`Discovery::with_stats`]), or why they
    /// could not be read; `None` for a database, whose sessions are looked at one by one.
    pub(crate) stats: Vec<Option<Result<FileStat, String>>>,
    /// Source roots that exist; a recorded file under one of them that was not found is gone.
    pub(crate) roots: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
    /// Explicit sources that do not exist.
    pub(crate) missing: Vec<PathBuf>,
}

/// True for file names that can hold a transcript found in a source folder: JSON lines
/// (plain or zstd-compressed, as Codex archives them), Gemini CLI's older whole-file chat
/// recordings (`session-*.json`), opencode's database (`opencode.db`, `opencode-<channel>.db`)
/// and the session files of its older `storage/` tree. Other `.json` files (settings,
/// sidecars, exports) are read only when named as a source themselves.
pub(crate) fn is_transcript_name(path: &Path) -> bool {
    let name = name_of(path);
    let in_folder =
        |folder: &str| path.parent().and_then(Path::parent).and_then(Path::file_name) == Some(folder.as_ref());
    name.ends_with(".jsonl")
        || name.ends_with(".jsonl.zst")
        || (name.starts_with("session-") && name.ends_with(".json"))
        || (name == "opencode.db" || (name.starts_with("opencode-") && name.ends_with(".db")))
        || (name.starts_with("ses_") && name.ends_with(".json") && in_folder("session"))
}

/// The last component of a path as text (empty when it is not UTF-8), found by looking for
/// the last separator rather than by parsing every component: discovery asks it of every
/// file, and a walk's paths have no trailing separator or `.` to parse.
pub(crate) fn name_of(path: &Path) -> &str {
    let bytes = path.as_os_str().as_encoded_bytes();
    let separator = |b: &u8| *b == b'/' || (cfg!(windows) && *b == b'\\');
    let start = bytes.iter().rposition(separator).map_or(0, |i| i + 1);
    std::str::from_utf8(&bytes[start..]).unwrap_or("")
}

/// Drop a compressed transcript whose plain twin (`x.jsonl` beside `x.jsonl.zst`) was found
/// too: they are the same session, and the plain one is the one an agent still writes to.
/// `files` are sorted (see [`path_order`]).
fn plain_wins(files: &mut Vec<PathBuf>) {
    if !files.iter().any(|f| is_compressed(f)) {
        return;
    }
    let twins: HashSet<PathBuf> = files
        .iter()
        .filter(|f| is_compressed(f))
        .map(|f| f.with_extension(""))
        .filter(|plain| files.binary_search_by(|f| path_order(f, plain)).is_ok())
        .collect();
    files.retain(|f| !is_compressed(f) || !twins.contains(&f.with_extension("")));
}

/// True for a zstd-compressed transcript.
pub(crate) fn is_compressed(path: &Path) -> bool {
    name_of(path).ends_with(".zst")
}

impl Discovery {
    /// The same, with each transcript's size and time looked at now.
    pub(crate) fn with_stats(mut self) -> Discovery {
        let mut folder = Folder::default();
        let mut stat = |file: &PathBuf| {
            if super::opencode::is_database(file) {
                return None;
            }
            let stat = if super::opencode::is_legacy_session(file) { stat_of(file) } else { folder.stat(file) };
            Some(stat.map_err(|e| format!("{e:#}")))
        };
        self.stats = self.files.iter().map(&mut stat).collect();
        self
    }
}

/// The folder of the last file looked at, held open: the files found are sorted, so those of
/// one folder come together, and each is looked at by its name in the open folder rather
/// than by its whole path, which the system would otherwise walk again, folder by folder,
/// for every file (on a re-run over a hundred thousand unchanged files, most of the time).
#[derive(Default)]
struct Folder {
    path: PathBuf,
    #[cfg(target_os = "linux")]
    open: Option<rustix::fd::OwnedFd>,
}

impl Folder {
    /// [`plain_stat`] of `file`, through its open folder where it can be.
    #[cfg(target_os = "linux")]
    fn stat(&mut self, file: &Path) -> Result<FileStat> {
        use rustix::fs::{AtFlags, Mode, OFlags};
        let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else { return plain_stat(file) };
        if self.path != dir {
            self.path = dir.to_path_buf();
            // Opened only to look at what it holds, which needs no right to read it.
            self.open = rustix::fs::open(dir, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok();
        }
        // A link is followed, as `plain_stat` follows it; any failure is told by it too.
        let Some(Ok(stat)) = self.open.as_ref().map(|open| rustix::fs::statat(open, name, AtFlags::empty())) else {
            return plain_stat(file);
        };
        let modified = Timestamp::new(stat.st_mtime, i32::try_from(stat.st_mtime_nsec).unwrap_or(0));
        Ok(FileStat::at(u64::try_from(stat.st_size).unwrap_or(0), modified.unwrap_or(Timestamp::UNIX_EPOCH)))
    }

    #[cfg(not(target_os = "linux"))]
    fn stat(&mut self, file: &Path) -> Result<FileStat> {
        plain_stat(file)
    }
}

/// Walk every root. A root that is a file is taken whatever its name.
pub(crate) fn discover(roots: &[SourceRoot]) -> Discovery {
    let mut found = Discovery::default();
    for root in roots {
        // Canonical roots give every file one stable key, however the source was spelled.
        let path = std::fs::canonicalize(&root.path)
            .or_else(|_| std::path::absolute(&root.path))
            .unwrap_or_else(|_| root.path.clone());
        let meta = match std::fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if root.explicit {
                    found.missing.push(path);
                }
                continue;
            }
            Err(e) => {
                found.warnings.push(format!("{}: cannot read source: {e}", path.display()));
                continue;
            }
        };
        found.roots.push(path.clone());
        if !meta.is_file() && !meta.is_dir() {
            // A FIFO or a device: opening it could wait forever, reading it never end.
            found.warnings.push(format!("{}: not a file or a folder; skipped", path.display()));
            continue;
        }
        if meta.is_file() {
            found.files.push(path);
            continue;
        }
        // Unsorted: the files are sorted once, below, which is cheaper than a sort per folder.
        for entry in WalkDir::new(&path).follow_links(true) {
            match entry {
                Ok(entry) if entry.file_type().is_file() && is_transcript_name(entry.path()) => {
                    found.files.push(entry.into_path());
                }
                Ok(_) => {}
                Err(e) => found.warnings.push(walk_warning(&e)),
            }
        }
    }
    found.files.sort_unstable_by(|a, b| path_order(a, b));
    found.files.dedup();
    plain_wins(&mut found.files);
    // The walk's order is the folders'; what it reports comes in an order of its own.
    found.warnings.sort();
    found
}

/// The order of [`Path`]'s own comparison (component by component) for the paths a walk
/// yields (no `.`, `..`, repeated or trailing separators), at the cost of comparing bytes: a
/// separator sorts before every other byte, as the end of a component does.
#[cfg(unix)]
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    use std::os::unix::ffi::OsStrExt;
    let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    // Paths under one root share a long start: skip it eight bytes at a time.
    let mut at = 0;
    while let (Some(x), Some(y)) = (a.get(at..at + 8), b.get(at..at + 8)) {
        if x != y {
            break;
        }
        at += 8;
    }
    let key = |byte: &u8| if *byte == b'/' { 0 } else { *byte };
    a[at..].iter().map(key).cmp(b[at..].iter().map(key))
}

#[cfg(not(unix))]
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.cmp(b)
}

fn walk_warning(error: &walkdir::Error) -> String {
    let at = error.path().map_or_else(|| "?".to_string(), |p| p.display().to_string());
    match error.loop_ancestor() {
        Some(ancestor) => format!("{at}: symlink loop back to {}; not followed", ancestor.display()),
        None => match error.io_error() {
            Some(io) => format!("{at}: cannot read: {io}; skipped (what was learned from it stays)"),
            None => format!("{at}: {error}; skipped"),
        },
    }
}

/// True when `file` lies under one of the scanned `roots`.
pub(crate) fn under_roots(file: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| file.starts_with(root))
}

/// Discover the transcripts of a run's sources, warning about what cannot be read and what
/// is missing. An error when none of the sources named exist.
pub(crate) fn discover_sources(sources: &[SourceRoot], term: &Terminal) -> Result<Discovery> {
    let found = discover(sources);
    for warning in &found.warnings {
        term.warn(warning);
    }
    for missing in &found.missing {
        term.warn(&format!("{}: source does not exist; skipped", missing.display()));
    }
    if found.roots.is_empty() && !found.missing.is_empty() {
        bail!("none of the given sources exist; check the paths");
    }
    if found.roots.is_empty() {
        let tried: Vec<String> = sources.iter().map(|s| s.path.display().to_string()).collect();
        term.note(&format!(
            "no transcripts found: none of the default sources exist ({}); pass a SOURCE",
            tried.join(", ")
        ));
    }
    Ok(found)
}

/// Which known transcripts (and the transcripts duplicates point at) are gone from disk:
/// one look at each that was not found this run (`present`). Only a file the system says
/// does not exist is gone; one that cannot be reached (a folder without permission, a broken
/// mount) is not, so what was learned from it stays.
pub(crate) fn presence(sources: &Sources, present: &HashSet<Cow<str>>) -> Presence {
    // The keys are in path order: a file's sessions sit together.
    let mut paths: Vec<&str> = sources.sources.keys().map(|key| &*key.path).collect();
    paths.dedup();
    let owners = sources.sources.values().filter_map(|e| match &e.reason {
        Some(Reason::DuplicateOf(owner)) => Some(owner.as_str()),
        _ => None,
    });
    let gone = paths
        .into_iter()
        .chain(owners)
        .filter(|path| !present.contains(*path) && is_gone(Path::new(path)))
        .map(str::to_string)
        .collect();
    Presence::new(gone)
}

/// True when the file at `path` does not exist (a link counts by what it points to). Any
/// other failure to look (permission denied, a loop, an I/O error) says nothing about it.
fn is_gone(path: &Path) -> bool {
    std::fs::metadata(path).is_err_and(|e| matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory))
}

/// The key a transcript is known by: its path, as text.
pub(crate) fn key_of(path: &Path) -> String {
    key_ref(path).into_owned()
}

/// [`key_of`], borrowed from `path` when it is text (checked at the speed of `from_utf8`,
/// which a lossy conversion does not reach: a re-run asks this of every file found).
pub(crate) fn key_ref(path: &Path) -> Cow<'_, str> {
    match path.to_str() {
        Some(text) => Cow::Borrowed(text),
        None => path.to_string_lossy(),
    }
}

/// What is on disk of a transcript now, as one size and modification time. An opencode
/// database counts with its `-wal`, a session of its older tree with its messages and parts.
pub(crate) fn stat_of(path: &Path) -> Result<FileStat> {
    if super::opencode::is_database(path) {
        super::opencode::database_stat(path)
    } else if super::opencode::is_legacy_session(path) {
        super::opencode::legacy_stat(path)
    } else {
        plain_stat(path)
    }
}

/// A file's size and modification time now.
pub(crate) fn plain_stat(path: &Path) -> Result<FileStat> {
    let meta = std::fs::metadata(path).map_err(|e| anyhow::anyhow!("cannot read file metadata: {e}"))?;
    let modified = meta.modified().ok().and_then(|t| Timestamp::try_from(t).ok());
    Ok(FileStat::at(meta.len(), modified.unwrap_or(Timestamp::UNIX_EPOCH)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_transcripts_sorted_and_warns_about_loops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        std::fs::write(root.join("b/c/2.jsonl"), "{}").unwrap();
        std::fs::write(root.join("1.jsonl"), "{}").unwrap();
        std::fs::write(root.join("notes.txt"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("b/loop")).unwrap();
        let found = discover(&[
            SourceRoot { path: root.to_path_buf(), explicit: true },
            SourceRoot { path: root.join("nope"), explicit: true },
        ]);
        let names: Vec<_> = found.files.iter().map(|p| p.strip_prefix(root).unwrap().to_path_buf()).collect();
        assert_eq!(names, [PathBuf::from("1.jsonl"), PathBuf::from("b/c/2.jsonl")]);
        #[cfg(unix)]
        assert!(found.warnings.iter().any(|w| w.contains("symlink loop")), "{:?}", found.warnings);
        assert_eq!(found.missing, [root.join("nope")]);
    }

    #[test]
    fn paths_sort_as_paths_do() {
        let mut paths: Vec<PathBuf> =
            ["/a/b.jsonl", "/a-b/c.jsonl", "/a.jsonl", "/a/b/c.jsonl", "/ab/c.jsonl", "/a b/c", "/a/é.jsonl", "/a/z"]
                .iter()
                .map(PathBuf::from)
                .collect();
        let mut expected = paths.clone();
        expected.sort();
        paths.sort_unstable_by(|a, b| path_order(a, b));
        assert_eq!(paths, expected);
    }

    #[test]
    fn transcript_names_of_every_agent() {
        let taken = |p: &str| is_transcript_name(Path::new(p));
        assert!(taken("/h/.codex/sessions/2026/01/02/rollout-x.jsonl"));
        assert!(taken("/h/.codex/archived_sessions/rollout-x.jsonl.zst"));
        assert!(taken("/h/.gemini/tmp/app/chats/session-2026-03-01T10-00-1a2b3c4d.json"));
        assert!(taken("/h/.local/share/opencode/opencode.db"));
        assert!(taken("/h/.local/share/opencode/opencode-dev.db"));
        assert!(taken("/h/.local/share/opencode/storage/session/global/ses_6aade4081ffe216ygZUgcUQdR1.json"));
        assert!(!taken("/h/.local/share/opencode/storage/message/ses_1/msg_1.json"), "parts of a session, not one");
        assert!(!taken("/h/.local/share/opencode/opencode.db-wal"));
        assert!(!taken("/h/.gemini/projects.json"));
        assert!(!taken("/h/.claude/projects/x/s1/subagents/agent-a.meta.json"));
        assert!(!taken("/h/notes.txt"));
    }

    #[test]
    fn a_plain_transcript_wins_over_its_compressed_twin() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in ["a.jsonl", "a.jsonl.zst", "b.jsonl.zst"] {
            std::fs::write(root.join(name), "{}").unwrap();
        }
        let found = discover(&[SourceRoot { path: root.to_path_buf(), explicit: true }]);
        assert_eq!(found.files, [root.join("a.jsonl"), root.join("b.jsonl.zst")]);
    }

    #[cfg(unix)]
    #[test]
    fn only_a_file_that_does_not_exist_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("here.jsonl"), "{}").unwrap();
        std::os::unix::fs::symlink(root.join("loop"), root.join("loop")).unwrap();
        assert!(!is_gone(&root.join("here.jsonl")));
        assert!(is_gone(&root.join("deleted.jsonl")));
        assert!(is_gone(&root.join("here.jsonl/inside.jsonl")), "a folder that became a file holds nothing");
        assert!(!is_gone(&root.join("loop/unreachable.jsonl")), "a folder that cannot be reached may hold it");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_looked_at_in_its_open_folder_is_what_its_path_says() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("x.jsonl"), "{}").unwrap();
        std::fs::write(a.join("y.jsonl"), "{\"a\": 1}").unwrap();
        std::fs::write(b.join("z.jsonl"), "").unwrap();
        std::os::unix::fs::symlink(a.join("y.jsonl"), b.join("link.jsonl")).unwrap();
        let mut folder = Folder::default();
        for file in [a.join("x.jsonl"), a.join("y.jsonl"), b.join("link.jsonl"), b.join("z.jsonl"), a.join("x.jsonl")] {
            assert_eq!(folder.stat(&file).unwrap(), plain_stat(&file).unwrap(), "{}", file.display());
        }
        assert_eq!(folder.stat(&b.join("link.jsonl")).unwrap().size, 8, "a link counts by what it points to");
        for missing in [b.join("gone.jsonl"), dir.path().join("c/gone.jsonl")] {
            let (error, expected) = (folder.stat(&missing).unwrap_err(), plain_stat(&missing).unwrap_err());
            assert_eq!(format!("{error:#}"), format!("{expected:#}"));
        }
    }
}
