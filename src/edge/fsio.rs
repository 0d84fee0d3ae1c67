//! Every file handbook writes, removes or reads back goes through here, on private
//! permissions (folders 0700, files 0600), with errors that name the path.
//!
//! Two doors, so a rule about what may be touched lives in one place:
//! - writes: [`write_atomic`], [`write_if_changed`], [`write_json`] and [`create_new`] all
//!   end in one private `persist`: a temporary file in the target's folder, synced, then
//!   renamed into place, so a reader sees the old file or the new one and never a mix;
//!   [`Home::write_json_unsynced`] is the same without the sync, for a batch of files that
//!   [`Unsynced::sync`] then makes durable together; the one exception is [`append`], for
//!   journals, whose readers skip a torn last line;
//! - removals: [`remove_file`] and [`remove_tree`] both end in one private `remove`, which
//!   never follows a symbolic link and takes a path already gone as done.
//!
//! Inside the workspace every path goes through a [`Home`] first, which walks it from the
//! home down and refuses a symbolic link, or anything that is not a plain file or folder,
//! at any step below the home: a link there could point anywhere, and handbook must never
//! write, remove or read outside its home because of one. The home itself may be a link
//! (the user chose where it lives). The free functions are for paths the user named
//! outside the home (`summary --output`). The lock file is the one file opened elsewhere:
//! [`super::lock`] keeps it open to hold the lock, and never writes to it; its folder and
//! name are checked here all the same.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The workspace's root, as the door every path inside it goes through: each method checks
/// its path (see [`Home::check`]), then does what the free function of the same name does.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Home<'a> {
    root: &'a Path,
}

/// What the last step of a checked path is meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// A plain file, or nothing yet.
    File,
    /// A plain folder, or nothing yet.
    Folder,
    /// Anything: a removal takes a link away and never touches what it points to.
    Removable,
}

impl<'a> Home<'a> {
    pub(crate) fn new(root: &'a Path) -> Home<'a> {
        Home { root }
    }

    /// Check that `path` lies below the home and reaches its last step through plain
    /// folders only, the last step being a plain file or not there yet. The error names the
    /// first step that is wrong and says what to do with it.
    ///
    /// The check and the use of the path are two steps, so a link swapped in between them
    /// is not caught; only someone who can already write the home could do that.
    pub(crate) fn check(&self, path: &Path) -> Result<()> {
        self.walk(path, Last::File)
    }

    /// One `symlink_metadata` per step below the home, and nothing more: `summary` goes
    /// through here at every agent start.
    fn walk(&self, path: &Path, last: Last) -> Result<()> {
        let Ok(relative) = path.strip_prefix(self.root) else {
            bail!(
                "{} is outside the workspace {}; handbook keeps its own files inside its home",
                path.display(),
                self.root.display()
            );
        };
        // Every step first: a `..` after a step not there yet would otherwise slip through.
        if !relative.components().all(|step| matches!(step, Component::Normal(_))) {
            bail!("{} does not name a place inside the workspace {}", path.display(), self.root.display());
        }
        let mut at = self.root.to_path_buf();
        let mut steps = relative.components().peekable();
        while let Some(step) = steps.next() {
            at.push(step);
            let kind = match fs::symlink_metadata(&at) {
                Ok(meta) => meta.file_type(),
                // Nothing there yet: what is created below it is created as plain folders.
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(e).with_context(|| format!("cannot read {}", at.display())),
            };
            let is_last = steps.peek().is_none();
            let plain =
                if is_last { last == Last::Removable || kind.is_file() || kind.is_dir() } else { kind.is_dir() };
            if plain {
                continue;
            }
            if kind.is_symlink() {
                // Only on the way to an error: say what it should be, going by what it is now.
                let to_folder = fs::metadata(&at).is_ok_and(|m| m.is_dir());
                let want = if is_last && last == Last::File && !to_folder { "file" } else { "folder" };
                bail!(
                    "{} is a symbolic link; handbook does not follow links inside its home: replace it with a plain {want}",
                    at.display()
                );
            }
            // A file where a folder should be: the operation itself says so, naming it.
            if kind.is_file() {
                return Ok(());
            }
            bail!(
                "{} is {}, not a plain file or folder; handbook reads and writes only plain files inside its home: move it away",
                at.display(),
                describe(kind)
            );
        }
        Ok(())
    }

    /// [`ensure_private_dir`], below the home.
    pub(crate) fn ensure_dir(&self, dir: &Path) -> Result<()> {
        self.walk(dir, Last::Folder)?;
        ensure_private_dir(dir)
    }

    /// [`write_atomic`], below the home.
    pub(crate) fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.check(path)?;
        write_atomic(path, bytes)
    }

    /// [`write_atomic`] of what `write` writes, streamed into place: for a file too large to
    /// build in memory first.
    pub(crate) fn write_atomic_with(
        &self,
        path: &Path,
        write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        self.check(path)?;
        persist_with(path, write, Sync::Now).map(drop)
    }

    /// [`write_if_changed`], below the home.
    pub(crate) fn write_if_changed(&self, path: &Path, bytes: &[u8]) -> Result<bool> {
        self.check(path)?;
        write_if_changed(path, bytes)
    }

    /// [`create_new`], below the home.
    pub(crate) fn create_new(&self, path: &Path, bytes: &[u8]) -> Result<bool> {
        self.check(path)?;
        create_new(path, bytes)
    }

    /// [`write_json`], below the home.
    pub(crate) fn write_json<T: Serialize>(&self, path: &Path, value: &T) -> Result<()> {
        self.check(path)?;
        write_json(path, value)
    }

    /// [`write_json`] into a folder already checked with [`Home::check_folder`], at a name
    /// the caller knows is no link (it listed the folder), renamed into place without a sync:
    /// one of a batch that [`Unsynced::sync`] makes durable together. A reader still sees the old
    /// file or the new one.
    pub(crate) fn write_json_unsynced<T: Serialize>(&self, path: &Path, value: &T) -> Result<()> {
        persist(path, &json_bytes(path, value)?, Sync::Later).map(drop)
    }

    /// Check that the folder `dir` lies below the home and is reached through plain folders
    /// only (see [`Home::check`]), once for the files a run then reads and writes in it.
    pub(crate) fn check_folder(&self, dir: &Path) -> Result<()> {
        self.walk(dir, Last::Folder)
    }

    /// [`append`], below the home.
    pub(crate) fn append(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        self.check(path)?;
        append(path, bytes)
    }

    /// [`read_json`], below the home.
    pub(crate) fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<Option<T>> {
        self.check(path)?;
        read_json(path)
    }

    /// [`read_json`] of a file read a piece at a time, never whole; `seen` is shown every
    /// byte of it, in order.
    pub(crate) fn read_json_streamed<T: DeserializeOwned>(
        &self,
        path: &Path,
        seen: &mut dyn FnMut(&[u8]),
    ) -> Result<Option<T>> {
        self.check(path)?;
        let file = match fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let reader = std::io::BufReader::with_capacity(256 * 1024, Seen { inner: file, seen });
        match serde_json::from_reader(reader) {
            Ok(value) => Ok(Some(value)),
            Err(e) if e.is_io() => Err(e).with_context(|| format!("cannot read {}", path.display())),
            Err(e) => Err(e)
                .with_context(|| format!("{} is damaged; move it aside and run again to rebuild it", path.display())),
        }
    }

    /// The lines of the file at `path`, each with its newline, handed to `each` as they are
    /// read, until it returns false; the file is never held whole. `None` when it does not
    /// exist, else whether `each` took every line.
    pub(crate) fn read_lines(&self, path: &Path, each: &mut dyn FnMut(&[u8]) -> bool) -> Result<Option<bool>> {
        use std::io::BufRead;
        self.check(path)?;
        let file = match fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let mut reader = std::io::BufReader::with_capacity(256 * 1024, file);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = reader.read_until(b'\n', &mut line);
            if read.with_context(|| format!("cannot read {}", path.display()))? == 0 {
                return Ok(Some(true));
            }
            if !each(&line) {
                return Ok(Some(false));
            }
        }
    }

    /// [`read_if_exists`], below the home.
    pub(crate) fn read_if_exists(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        self.check(path)?;
        read_if_exists(path)
    }

    /// True when `path` is there, as a plain file or folder.
    pub(crate) fn exists(&self, path: &Path) -> Result<bool> {
        self.check(path)?;
        Ok(fs::symlink_metadata(path).is_ok())
    }

    /// [`list_dir`], below the home. The entries themselves are checked when they are used.
    pub(crate) fn list_dir(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        self.walk(dir, Last::Folder)?;
        list_dir(dir)
    }

    /// [`remove_file`], below the home: a link at the last step is removed, not followed.
    pub(crate) fn remove_file(&self, path: &Path) -> Result<()> {
        self.walk(path, Last::Removable)?;
        remove_file(path)
    }

    /// Rename the plain file at `from` to `to`, both below the home; neither may be reached
    /// through a link.
    pub(crate) fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.check(from)?;
        self.check(to)?;
        fs::rename(from, to).with_context(|| format!("cannot rename {} to {}", from.display(), to.display()))
    }

    /// [`remove_tree`], below the home: a link at the last step is removed, not followed.
    pub(crate) fn remove_tree(&self, path: &Path) -> Result<()> {
        self.walk(path, Last::Removable)?;
        remove_tree(path)
    }
}

/// What a thing that is neither a file, a folder nor a link is, for an error message.
fn describe(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    #[cfg(not(unix))]
    let _ = kind;
    "something else"
}

/// Create `dir` and its parents, private to the user.
pub(crate) fn ensure_private_dir(dir: &Path) -> Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).with_context(|| format!("cannot create folder {}", dir.display()))
}

/// Write `bytes` to `path` atomically, replacing whatever is there.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    persist(path, bytes, Sync::Now).map(drop)
}

/// Write `bytes` to `path` atomically, and not at all when the file already holds exactly
/// them, so a file other tools import (or cache) stays untouched. True when it was written.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool> {
    // An unreadable file counts as changed: the write then says what is wrong with it.
    if read_if_exists(path).ok().flatten().is_some_and(|old| old == bytes) {
        return Ok(false);
    }
    persist(path, bytes, Sync::Now)
}

/// [`write_atomic`] for a file of the user's own, such as an agent's settings: one already
/// there keeps its permissions, so a file other tools read stays readable to them.
pub(crate) fn write_keeping_mode(path: &Path, bytes: &[u8]) -> Result<()> {
    let permissions = fs::metadata(path).ok().map(|m| m.permissions());
    write_atomic(path, bytes)?;
    match permissions {
        Some(p) => {
            fs::set_permissions(path, p).with_context(|| format!("cannot set the permissions of {}", path.display()))
        }
        None => Ok(()),
    }
}

/// Create `path` holding `bytes`, never replacing a file: false, and nothing written, when
/// the name is taken, even by a file another process created a moment ago.
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    persist(path, bytes, Sync::NowNoClobber)
}

/// Write `value` as pretty JSON (with a final newline), atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic(path, &json_bytes(path, value)?)
}

fn json_bytes<T: Serialize>(path: &Path, value: &T) -> Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).with_context(|| format!("cannot encode {}", path.display()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// When a write reaches the disk for good, and whether it may replace a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sync {
    /// Synced before it is renamed into place.
    Now,
    /// The same, and never replacing a file.
    NowNoClobber,
    /// Renamed into place at once, synced later with its batch ([`Unsynced`]).
    Later,
}

/// The one door for writes: a temporary file renamed over `path` (synced first unless
/// `sync` says later), or, with [`Sync::NowNoClobber`], linked in only where no file is.
/// False when that found a file at `path`.
fn persist(path: &Path, bytes: &[u8], sync: Sync) -> Result<bool> {
    persist_with(path, &mut |out| out.write_all(bytes), sync)
}

/// [`persist`] of what `write` writes, straight into the temporary file: a file of tens of
/// megabytes is never held whole in memory first.
fn persist_with(path: &Path, write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>, sync: Sync) -> Result<bool> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // A batch's folder was made (and checked) before its first write.
    if sync != Sync::Later {
        ensure_private_dir(dir)?;
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, tmp.as_file_mut());
    write(&mut out).and_then(|()| out.flush()).with_context(|| format!("cannot write {}", path.display()))?;
    drop(out);
    if sync != Sync::Later {
        tmp.as_file().sync_all().with_context(|| format!("cannot sync {}", path.display()))?;
    }
    let replace = sync != Sync::NowNoClobber;
    let persisted = if replace { tmp.persist(path) } else { tmp.persist_noclobber(path) };
    match persisted {
        Ok(_) => Ok(true),
        Err(e) if !replace && e.error.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) if replace => Err(e.error).with_context(|| format!("cannot replace {}", path.display())),
        Err(e) => Err(e.error).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// Files at least this many are made durable by syncing their file system as a whole, where
/// the system can: one call instead of one per file, each of which waits for the disk.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const SYNC_WHOLE_FROM: usize = 64;

/// Files written by [`Home::write_json_unsynced`] into one folder, to make durable together.
#[derive(Debug, Default)]
pub(crate) struct Unsynced {
    files: Vec<PathBuf>,
    /// More were written than `files` keeps: past [`SYNC_WHOLE_FROM`] on Linux, which ones
    /// no longer matters.
    more: bool,
}

impl Unsynced {
    pub(crate) fn add(&mut self, file: PathBuf) {
        if cfg!(target_os = "linux") && self.files.len() >= SYNC_WHOLE_FROM {
            self.more = true;
        } else {
            self.files.push(file);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Make the files, written into `dir`, and their names durable: each file synced, then
    /// the folder; or, for many files on Linux, the file system they are on synced at once
    /// (which also syncs what other programs wrote there).
    pub(crate) fn sync(&mut self, dir: &Path) -> Result<()> {
        if self.files.is_empty() {
            return Ok(());
        }
        let folder = fs::File::open(dir).with_context(|| format!("cannot open {} to sync it", dir.display()))?;
        #[cfg(target_os = "linux")]
        if self.files.len() >= SYNC_WHOLE_FROM {
            rustix::fs::syncfs(&folder).with_context(|| format!("cannot sync the file system of {}", dir.display()))?;
            *self = Unsynced::default();
            return Ok(());
        }
        for file in &self.files {
            // A file removed since it was written has nothing left to sync.
            match fs::File::open(file) {
                Ok(opened) => opened.sync_all().with_context(|| format!("cannot sync {}", file.display()))?,
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("cannot open {} to sync it", file.display())),
            }
        }
        // The names the renames gave; a folder cannot be synced on every system.
        let _ = folder.sync_all();
        *self = Unsynced::default();
        Ok(())
    }
}

/// Append `bytes` to the file at `path` (created private if missing) and sync it. Not
/// atomic: a run killed mid-append leaves a torn last line, which a journal's reader skips.
pub(crate) fn append(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    ensure_private_dir(dir)?;
    let mut options = fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).with_context(|| format!("cannot open {} to append", path.display()))?;
    file.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))?;
    file.sync_data().with_context(|| format!("cannot sync {}", path.display()))
}

/// Read a JSON file, or `None` when it does not exist. A damaged file is an error that names
/// it, so the user can move it aside rather than lose it silently.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let Some(bytes) = read_if_exists(path)? else { return Ok(None) };
    serde_json::from_slice(&bytes)
        .map(Some)
        .with_context(|| format!("{} is damaged; move it aside and run again to rebuild it", path.display()))
}

/// A reader that shows every byte it reads to `seen`.
struct Seen<'a, R> {
    inner: R,
    seen: &'a mut dyn FnMut(&[u8]),
}

impl<R: std::io::Read> std::io::Read for Seen<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        (self.seen)(&buf[..n]);
        Ok(n)
    }
}

/// A file's bytes, or `None` when it does not exist.
pub(crate) fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The names in `dir`, each with whether it is a plain file (by the folder's own listing,
/// without following links); a folder that does not exist is empty. One read of the folder,
/// however many entries it holds.
pub(crate) fn list_names(dir: &Path) -> Result<Vec<(String, bool)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let plain = entry.file_type().is_ok_and(|t| t.is_file());
        names.push((entry.file_name().to_string_lossy().into_owned(), plain));
    }
    Ok(names)
}

/// The entries of `dir`, sorted by name; a folder that does not exist is empty.
pub(crate) fn list_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut paths = Vec::new();
    for entry in entries {
        paths.push(entry.with_context(|| format!("cannot read {}", dir.display()))?.path());
    }
    paths.sort();
    Ok(paths)
}

/// Remove a file (or a symbolic link, not what it points to); a file already gone is fine.
/// A folder is an error: removing one takes [`remove_tree`].
pub(crate) fn remove_file(path: &Path) -> Result<()> {
    remove(path, false)
}

/// Remove a file or a whole folder, never following a symbolic link (a link is removed,
/// not what it points to); a path already gone is fine.
pub(crate) fn remove_tree(path: &Path) -> Result<()> {
    remove(path, true)
}

/// The one door for removals.
fn remove(path: &Path, tree: bool) -> Result<()> {
    let is_dir = match fs::symlink_metadata(path) {
        Ok(meta) => meta.is_dir(),
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot remove {}", path.display())),
    };
    let removed = if tree && is_dir { fs::remove_dir_all(path) } else { fs::remove_file(path) };
    match removed {
        Err(e) if e.kind() != ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_are_private_and_replace_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/state.json");
        write_json(&path, &vec![1, 2, 3]).unwrap();
        write_json(&path, &vec![4]).unwrap();
        assert_eq!(read_json::<Vec<u32>>(&path).unwrap(), Some(vec![4]));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(fs::metadata(dir.path().join("a")).unwrap().permissions().mode() & 0o777, 0o700);
        }
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[test]
    fn damaged_json_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sources.json");
        fs::write(&path, "{not json").unwrap();
        let err = read_json::<Vec<u32>>(&path).unwrap_err();
        assert!(format!("{err:#}").contains("sources.json is damaged"), "{err:#}");
        assert_eq!(read_json::<Vec<u32>>(&dir.path().join("missing.json")).unwrap(), None);
    }

    #[cfg(unix)]
    #[test]
    fn unchanged_bytes_leave_the_file_untouched() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out/summary.md");
        assert!(write_if_changed(&path, b"v1\n").unwrap());
        let before = fs::metadata(&path).unwrap();
        assert!(!write_if_changed(&path, b"v1\n").unwrap());
        let after = fs::metadata(&path).unwrap();
        assert_eq!(
            (after.ino(), after.mtime(), after.mtime_nsec()),
            (before.ino(), before.mtime(), before.mtime_nsec())
        );
        assert!(write_if_changed(&path, b"v2\n").unwrap());
        assert_ne!(fs::metadata(&path).unwrap().ino(), before.ino(), "a change is a new file renamed in");
        assert_eq!(fs::read(&path).unwrap(), b"v2\n");
    }

    #[test]
    fn creating_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes/a.md");
        assert!(create_new(&path, b"first").unwrap());
        assert!(!create_new(&path, b"second").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"first");
        let names: Vec<_> = list_dir(path.parent().unwrap()).unwrap();
        assert_eq!(names, vec![path.clone()], "a refused creation leaves no temporary file");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    #[test]
    fn racing_creations_of_one_name_leave_exactly_one_winner() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("note.md");
        let wins: Vec<bool> = std::thread::scope(|scope| {
            let racers: Vec<_> = (0..8u8)
                .map(|i| {
                    let path = &path;
                    scope.spawn(move || create_new(path, &[i]).unwrap())
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert_eq!(wins.iter().filter(|w| **w).count(), 1, "{wins:?}");
        let winner = wins.iter().position(|w| *w).unwrap() as u8;
        assert_eq!(fs::read(&path).unwrap(), [winner]);
    }

    #[test]
    fn removing_what_is_gone_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        remove_tree(&dir.path().join("no/such/tree")).unwrap();
        remove_file(&dir.path().join("no-such-file")).unwrap();
        let tree = dir.path().join("tree");
        fs::create_dir_all(tree.join("deep")).unwrap();
        fs::write(tree.join("deep/file"), "x").unwrap();
        remove_tree(&tree).unwrap();
        assert!(!tree.exists());
        let file = dir.path().join("file");
        fs::write(&file, "x").unwrap();
        remove_tree(&file).unwrap();
        assert!(!file.exists());
    }

    #[cfg(unix)]
    #[test]
    fn removing_a_link_keeps_what_it_points_to() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep.txt"), "keep me").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        remove_tree(&link).unwrap();
        assert!(fs::symlink_metadata(&link).is_err());
        std::os::unix::fs::symlink(&target, &link).unwrap();
        remove_file(&link).unwrap();
        assert!(fs::symlink_metadata(&link).is_err());
        assert_eq!(fs::read_to_string(target.join("keep.txt")).unwrap(), "keep me");
    }

    #[test]
    fn errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("blocker");
        fs::write(&blocker, "a file where a folder should be").unwrap();
        let under = blocker.join("x.md");
        for err in [
            write_atomic(&under, b"x").unwrap_err(),
            create_new(&under, b"x").unwrap_err(),
            write_if_changed(&under, b"x").unwrap_err(),
        ] {
            assert!(format!("{err:#}").contains("blocker"), "{err:#}");
        }
        let folder = dir.path().join("a-folder");
        fs::create_dir(&folder).unwrap();
        let err = remove_file(&folder).unwrap_err();
        assert!(format!("{err:#}").starts_with(&format!("cannot remove {}", folder.display())), "{err:#}");
        assert!(folder.exists());
        let err = list_dir(&blocker).unwrap_err();
        assert!(format!("{err:#}").contains(&format!("cannot read {}", blocker.display())), "{err:#}");
        let err = write_atomic(&folder, b"x").unwrap_err();
        assert!(format!("{err:#}").contains(&format!("cannot replace {}", folder.display())), "{err:#}");
    }

    /// A home with `inside/` linked to a folder outside holding `keep.md`; the home, the
    /// outside folder, and the link.
    #[cfg(unix)]
    fn home_with_a_linked_folder() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
        let home = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("keep.md"), "keep me").unwrap();
        let link = home.path().join("inside");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        (home, outside, link)
    }

    #[cfg(unix)]
    #[test]
    fn nothing_goes_through_a_linked_folder_inside_the_home() {
        let (root, outside, link) = home_with_a_linked_folder();
        let home = Home::new(root.path());
        let file = link.join("keep.md");
        let deeper = link.join("deeper/new.md");
        let expected = format!(
            "{} is a symbolic link; handbook does not follow links inside its home: replace it with a plain folder",
            link.display()
        );
        let refusals = [
            home.write_atomic(&file, b"x").unwrap_err(),
            home.write_if_changed(&file, b"x").unwrap_err(),
            home.create_new(&link.join("new.md"), b"x").unwrap_err(),
            home.write_json(&deeper, &1).unwrap_err(),
            home.append(&file, b"x").unwrap_err(),
            home.ensure_dir(&link.join("deeper")).unwrap_err(),
            home.read_if_exists(&file).unwrap_err(),
            home.read_json::<u32>(&file).unwrap_err(),
            home.exists(&file).unwrap_err(),
            home.list_dir(&link).unwrap_err(),
            home.remove_file(&file).unwrap_err(),
            home.remove_tree(&link.join("keep.md")).unwrap_err(),
        ];
        for err in refusals {
            assert_eq!(format!("{err:#}"), expected);
        }
        assert_eq!(list_dir(outside.path()).unwrap(), vec![outside.path().join("keep.md")]);
        assert_eq!(fs::read(outside.path().join("keep.md")).unwrap(), b"keep me");
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_file_is_neither_read_nor_written_and_removing_it_keeps_its_target() {
        let (root, outside, _) = home_with_a_linked_folder();
        let home = Home::new(root.path());
        let link = root.path().join("note.md");
        std::os::unix::fs::symlink(outside.path().join("keep.md"), &link).unwrap();
        let expected = format!(
            "{} is a symbolic link; handbook does not follow links inside its home: replace it with a plain file",
            link.display()
        );
        assert_eq!(format!("{:#}", home.read_if_exists(&link).unwrap_err()), expected);
        assert_eq!(format!("{:#}", home.write_atomic(&link, b"x").unwrap_err()), expected);
        // A link to a folder where a file is expected is still said to want a folder.
        let folder_link = root.path().join("inside");
        let err = home.read_if_exists(&folder_link).unwrap_err();
        assert!(format!("{err:#}").ends_with("replace it with a plain folder"), "{err:#}");
        home.remove_file(&link).unwrap();
        home.remove_tree(&folder_link).unwrap();
        assert!(fs::symlink_metadata(&link).is_err() && fs::symlink_metadata(&folder_link).is_err());
        assert_eq!(fs::read(outside.path().join("keep.md")).unwrap(), b"keep me");
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_home_is_followed_and_what_is_below_it_checked() {
        let (_root, outside, link) = home_with_a_linked_folder();
        let home = Home::new(&link);
        home.write_json(&link.join("state/a.json"), &7).unwrap();
        assert_eq!(home.read_json::<u32>(&link.join("state/a.json")).unwrap(), Some(7));
        assert_eq!(home.read_if_exists(&link.join("keep.md")).unwrap().as_deref(), Some(&b"keep me"[..]));
        assert!(outside.path().join("state/a.json").is_file());
        assert_eq!(home.list_dir(&link).unwrap().len(), 2);
        std::os::unix::fs::symlink(outside.path(), outside.path().join("loop")).unwrap();
        let err = home.list_dir(&link.join("loop")).unwrap_err();
        assert!(format!("{err:#}").contains("loop is a symbolic link"), "{err:#}");
    }

    #[cfg(unix)]
    #[test]
    fn something_that_is_not_a_plain_file_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let home = Home::new(root.path());
        let socket = root.path().join("MEMORY.md");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = home.read_if_exists(&socket).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            format!(
                "{} is a socket, not a plain file or folder; handbook reads and writes only plain files inside its home: move it away",
                socket.display()
            )
        );
        assert!(home.write_atomic(&socket, b"x").is_err());
        home.remove_file(&socket).unwrap();
    }

    #[test]
    fn a_path_outside_the_home_or_climbing_out_of_it_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("home");
        fs::create_dir(&root).unwrap();
        let home = Home::new(&root);
        let elsewhere = base.path().join("elsewhere.md");
        let err = home.write_atomic(&elsewhere, b"x").unwrap_err();
        assert!(format!("{err:#}").contains("is outside the workspace"), "{err:#}");
        let climbing = root.join("notes/../../x.md");
        let err = home.write_atomic(&climbing, b"x").unwrap_err();
        assert!(format!("{err:#}").contains("does not name a place inside the workspace"), "{err:#}");
        assert_eq!(list_dir(base.path()).unwrap(), vec![root.clone()], "nothing was written beside the home");
        assert!(list_dir(&root).unwrap().is_empty());
        // Plain files and folders, present or not, pass.
        home.write_atomic(&root.join("a/b.md"), b"x").unwrap();
        assert_eq!(home.read_if_exists(&root.join("a/b.md")).unwrap().as_deref(), Some(&b"x"[..]));
        assert_eq!(home.read_if_exists(&root.join("a/c/missing.md")).unwrap(), None);
        assert!(home.exists(&root.join("a")).unwrap());
    }

    #[test]
    fn listing_is_sorted_and_a_missing_folder_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(list_dir(&dir.path().join("missing")).unwrap().is_empty());
        for name in ["b", "c", "a"] {
            fs::write(dir.path().join(name), name).unwrap();
        }
        let names: Vec<_> = list_dir(dir.path()).unwrap().iter().map(|p| p.file_name().unwrap().to_owned()).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }
}
