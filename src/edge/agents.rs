//! The agents' own settings files, for `integrate`: reading them, writing them back with a
//! backup beside each, finding programs on PATH, and telling which agents this machine has.
//!
//! A settings file that is a symbolic link is read (to show the change) but never written:
//! writing through it would change a file somewhere else (a dotfiles repository, say), and
//! replacing it would silently cut the link the user made. The error says what to do instead.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use jiff::Timestamp;

use crate::core::door::Door;
use crate::core::integrate::Places;
use crate::edge::fsio::{create_new, remove_file, write_keeping_mode};

/// A settings file as found: its text, and where it leads when it is a link.
#[derive(Debug, Clone, Default)]
pub(crate) struct Found {
    pub(crate) text: Option<String>,
    pub(crate) link: Option<PathBuf>,
}

/// Read the settings file at `path` (`text: None` when it does not exist).
pub(crate) fn read(path: &Path) -> Result<Found> {
    let link = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Some(fs::read_link(path).unwrap_or_else(|_| path.to_path_buf())),
        Ok(meta) if !meta.is_file() => bail!("{} is not a plain file; move it away and run again", path.display()),
        Ok(_) => None,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Found::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let text = match fs::read(path) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!("{} is not UTF-8 text; fix it or move it aside, then run again", path.display())
        })?),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok(Found { text, link })
}

/// opencode reads `opencode.jsonc` when there is no `opencode.json`: edit the one it reads.
pub(crate) fn opencode_file(path: &Path) -> PathBuf {
    let jsonc = path.with_extension("jsonc");
    if !path.exists() && jsonc.is_file() { jsonc } else { path.to_path_buf() }
}

/// Make the file at `path` hold `after` (`None`: no file), first copying what is there to a
/// backup beside it, which is returned. Refuses a link (see the module's note).
pub(crate) fn apply(path: &Path, found: &Found, after: Option<&str>, now: Timestamp) -> Result<Option<PathBuf>> {
    if let Some(target) = &found.link {
        bail!(
            "{} is a symbolic link to {}; handbook writes no file through a link, so nothing was written: \
             make the change shown above in {} yourself, or replace the link with a plain file and run again",
            path.display(),
            target.display(),
            target.display()
        );
    }
    let backup = match &found.text {
        Some(text) => Some(back_up(path, text, now)?),
        None => None,
    };
    match after {
        Some(text) => write_keeping_mode(path, text.as_bytes())?,
        None => remove_file(path)?,
    }
    Ok(backup)
}

/// Copy `text` to `<path>.handbook-backup-<UTC time>`, never over an earlier backup.
fn back_up(path: &Path, text: &str, now: Timestamp) -> Result<PathBuf> {
    let stamp = now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for attempt in 1..=100 {
        let suffix = if attempt == 1 { String::new() } else { format!("-{attempt}") };
        let backup = path.with_file_name(format!("{name}.handbook-backup-{stamp}{suffix}"));
        if create_new(&backup, text.as_bytes())? {
            return Ok(backup);
        }
    }
    bail!("too many backups of {} in one second; try again", path.display())
}

/// Where `program` (a hook's or server's command) leads, or why it leads nowhere: an
/// absolute path must be an executable file; a bare name is looked for on `path`.
pub(crate) fn resolve(program: &str, path: &[PathBuf]) -> Result<String, String> {
    let candidate = Path::new(program);
    if candidate.is_absolute() {
        return match executable(candidate) {
            Ok(()) => Ok(program.to_string()),
            Err(why) => Err(why.to_string()),
        };
    }
    if program.contains('/') {
        return Err("is a relative path, which depends on the folder the agent starts in".to_string());
    }
    path.iter()
        .map(|dir| dir.join(program))
        .find(|p| executable(p).is_ok())
        .map(|p| p.display().to_string())
        .ok_or_else(|| "is not on PATH".to_string())
}

fn executable(path: &Path) -> Result<(), &'static str> {
    let meta = fs::metadata(path).map_err(|_| "does not exist")?;
    if !meta.is_file() {
        return Err("is not a file");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err("is not executable");
        }
    }
    Ok(())
}

/// True when this machine has `door`'s agent: its settings folder exists, or its binary is
/// on `path`.
pub(crate) fn is_installed(door: Door, places: &Places, path: &[PathBuf]) -> bool {
    let (dir, binary) = match door {
        Door::Claude => (&places.claude, "claude"),
        Door::Codex => (&places.codex, "codex"),
        Door::Gemini => (&places.gemini, "gemini"),
        Door::Pi => (&places.pi, "pi"),
        Door::Opencode => (&places.opencode, "opencode"),
    };
    dir.is_dir() || resolve(binary, path).is_ok()
}

/// This handbook binary, by its real path, as an agent should run it.
pub(crate) fn this_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot tell where this handbook binary is")?;
    Ok(fs::canonicalize(&exe).unwrap_or(exe))
}

/// The root of the repository the current folder is in (the folder itself outside one).
pub(crate) fn project_root() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    Ok(cwd.ancestors().find(|d| d.join(".git").exists()).unwrap_or(&cwd).to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_resolves_by_path_or_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("tool");
        fs::write(&tool, "#!/bin/sh\n").unwrap();
        assert_eq!(resolve(&tool.to_string_lossy(), &[]).unwrap_err(), "is not executable");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&tool, fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(resolve(&tool.to_string_lossy(), &[]).unwrap(), tool.to_string_lossy());
        assert_eq!(resolve("tool", &[dir.path().to_path_buf()]).unwrap(), tool.to_string_lossy());
        assert_eq!(resolve("tool", &[]).unwrap_err(), "is not on PATH");
        assert_eq!(resolve("/no/such/handbook", &[]).unwrap_err(), "does not exist");
    }

    #[test]
    fn a_backup_never_replaces_an_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let now: Timestamp = "2026-01-02T03:04:05Z".parse().unwrap();
        let first = back_up(&path, "one", now).unwrap();
        let second = back_up(&path, "two", now).unwrap();
        assert_eq!(first.file_name().unwrap(), "settings.json.handbook-backup-20260102T030405Z");
        assert_eq!(fs::read_to_string(first).unwrap(), "one");
        assert_eq!(fs::read_to_string(second).unwrap(), "two");
    }
}
