//! Every file handbook writes or removes goes through here, on private permissions (folders
//! 0700, files 0600), with errors that name the path.
//!
//! Two doors, so a rule about what may be touched lives in one place:
//! - writes: [`write_atomic`], [`write_if_changed`], [`write_json`] and [`create_new`] all
//!   end in one private `persist`: a temporary file in the target's folder, synced, then
//!   renamed into place, so a reader sees the old file or the new one and never a mix;
//!   the one exception is [`append`], for journals, whose readers skip a torn last line;
//! - removals: [`remove_file`] and [`remove_tree`] both end in one private `remove`, which
//!   never follows a symbolic link and takes a path already gone as done.
//!
//! The workspace reads its files back through [`read_if_exists`], [`read_json`] and
//! [`list_dir`]. The lock file is the one file opened elsewhere: [`super::lock`] keeps it
//! open to hold the lock, and never writes to it.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

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
    persist(path, bytes, true).map(drop)
}

/// Write `bytes` to `path` atomically, and not at all when the file already holds exactly
/// them, so a file other tools import (or cache) stays untouched. True when it was written.
pub(crate) fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<bool> {
    // An unreadable file counts as changed: the write then says what is wrong with it.
    if read_if_exists(path).ok().flatten().is_some_and(|old| old == bytes) {
        return Ok(false);
    }
    persist(path, bytes, true)
}

/// Create `path` holding `bytes`, never replacing a file: false, and nothing written, when
/// the name is taken, even by a file another process created a moment ago.
pub(crate) fn create_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    persist(path, bytes, false)
}

/// Write `value` as pretty JSON (with a final newline), atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).with_context(|| format!("cannot encode {}", path.display()))?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// The one door for writes: a synced temporary file renamed over `path`, or, without
/// `replace`, linked in only where no file is. False when `replace` is off and `path` exists.
fn persist(path: &Path, bytes: &[u8], replace: bool) -> Result<bool> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    ensure_private_dir(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().with_context(|| format!("cannot sync {}", path.display()))?;
    let persisted = if replace { tmp.persist(path) } else { tmp.persist_noclobber(path) };
    match persisted {
        Ok(_) => Ok(true),
        Err(e) if !replace && e.error.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) if replace => Err(e.error).with_context(|| format!("cannot replace {}", path.display())),
        Err(e) => Err(e.error).with_context(|| format!("cannot create {}", path.display())),
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

/// A file's bytes, or `None` when it does not exist.
pub(crate) fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
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
