//! Writing a note into the workspace: under the lock, create-only. A note is never
//! overwritten; a second note in the same second gets a suffix.

use std::time::Duration;

use anyhow::{Result, bail};
use jiff::Timestamp;

use super::workspace::Workspace;
use crate::core::notes::{Prepared, note_path};

/// Write `note` (see [`crate::core::notes::prepare`]) as a new file named for `now`, holding
/// the workspace lock (waiting up to `wait` for another run) only while it is written. Its
/// workspace-relative path.
///
/// # Errors
///
/// [`crate::edge::lock::LockHeld`] when another run keeps the lock past `wait`; an error
/// naming the file when it cannot be written.
pub(crate) fn write_note(workspace: &Workspace, now: Timestamp, note: &Prepared, wait: Duration) -> Result<String> {
    let _lock = workspace.lock(wait)?;
    write_note_locked(workspace, now, note)
}

/// As [`write_note`], for a caller that holds the workspace lock already.
pub(crate) fn write_note_locked(workspace: &Workspace, now: Timestamp, note: &Prepared) -> Result<String> {
    // Under a name nobody has, without ever replacing a file, even one another run creates
    // at the same moment.
    for attempt in 1..=1000 {
        let relative = note_path(now, &note.title, attempt);
        if workspace.create_new(&relative, &note.content)? {
            return Ok(relative);
        }
    }
    bail!("too many notes with this title in the same second; try again")
}
