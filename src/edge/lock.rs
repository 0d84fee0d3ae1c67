//! The workspace lock: every command that writes holds `.handbook/lock`, an advisory lock the
//! operating system releases when the process ends, however it ends.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::fsio::Home;

/// Held while a run writes the workspace; dropping it releases the lock.
#[derive(Debug)]
pub(crate) struct WorkspaceLock {
    _file: File,
}

/// Another run holds the lock and did not release it in time.
#[derive(Debug)]
pub(crate) struct LockHeld {
    pub(crate) path: String,
    pub(crate) waited: Duration,
}

impl std::fmt::Display for LockHeld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "another handbook run holds the workspace lock {} (waited {:.1}s); try again when it ends, or wait longer (--wait, or lock_wait_seconds in the config file)",
            self.path,
            self.waited.as_secs_f64()
        )
    }
}

impl std::error::Error for LockHeld {}

/// Take the lock at `path` below `home`, waiting up to `wait` for another run to release it.
/// A lock reached through a link would be a lock on some other file, so neither its folder
/// nor the file itself may be one.
pub(crate) fn acquire(home: Home<'_>, path: &Path, wait: Duration) -> Result<WorkspaceLock> {
    if let Some(dir) = path.parent() {
        home.ensure_dir(dir)?;
    }
    home.check(path)?;
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path).with_context(|| format!("cannot open the lock file {}", path.display()))?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(WorkspaceLock { _file: file }),
            Err(TryLockError::WouldBlock) if start.elapsed() < wait => std::thread::sleep(Duration::from_millis(50)),
            Err(TryLockError::WouldBlock) => {
                return Err(LockHeld { path: path.display().to_string(), waited: start.elapsed() }.into());
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_then_gives_up() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let path = dir.path().join(".handbook/lock");
        let first = acquire(home, &path, Duration::ZERO).unwrap();
        let err = acquire(home, &path, Duration::from_millis(120)).unwrap_err();
        assert!(err.downcast_ref::<LockHeld>().is_some());
        drop(first);
        acquire(home, &path, Duration::ZERO).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_through_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".handbook")).unwrap();
        let err = acquire(home, &dir.path().join(".handbook/lock"), Duration::ZERO).unwrap_err();
        assert!(format!("{err:#}").contains(".handbook is a symbolic link"), "{err:#}");
        std::fs::remove_file(dir.path().join(".handbook")).unwrap();
        std::fs::create_dir(dir.path().join(".handbook")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("lock"), dir.path().join(".handbook/lock")).unwrap();
        let err = acquire(home, &dir.path().join(".handbook/lock"), Duration::ZERO).unwrap_err();
        assert!(format!("{err:#}").contains("lock is a symbolic link"), "{err:#}");
        assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none(), "no lock file was created outside");
    }
}
