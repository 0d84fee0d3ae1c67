//! Finding the project a working directory belongs to: the repository root (worktrees lead
//! back to their main checkout) and its `origin` remote, read from the files git keeps, with
//! no git binary.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::core::project::project_key;

/// Resolves project keys, remembering each cwd it has looked up.
#[derive(Debug, Default)]
pub(crate) struct Projects {
    cache: HashMap<String, String>,
}

impl Projects {
    pub(crate) fn new() -> Projects {
        Projects::default()
    }

    /// The project key for a session: its recorded remote, else what the cwd on this machine
    /// says (remote, then repository root), else the cwd itself.
    pub(crate) fn key(&mut self, remote: Option<&str>, cwd: Option<&str>) -> String {
        if remote.is_some() {
            return project_key(remote, None, cwd);
        }
        let Some(cwd) = cwd else {
            return project_key(None, None, None);
        };
        if let Some(key) = self.cache.get(cwd) {
            return key.clone();
        }
        let (root, origin) = match repository_of(Path::new(cwd)) {
            Some((root, git_dir)) => (Some(root.to_string_lossy().into_owned()), origin_url(&git_dir)),
            None => (None, None),
        };
        let key = project_key(origin.as_deref(), root.as_deref(), Some(cwd));
        self.cache.insert(cwd.to_string(), key.clone());
        key
    }
}

/// The project key of a folder given on the command line (`--project DIR`).
pub(crate) fn project_of_dir(dir: &Path) -> String {
    let dir: PathBuf = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    Projects::new().key(None, Some(&dir.to_string_lossy()))
}

/// The main checkout's root and its `.git` folder, for `dir` or any folder above it.
fn repository_of(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut current = Some(dir);
    while let Some(d) = current {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            let root = fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
            return Some((root, dot_git));
        }
        if dot_git.is_file() {
            // A worktree: `.git` names `<main>/.git/worktrees/<name>`, whose `commondir`
            // leads back to the main `.git`.
            let text = fs::read_to_string(&dot_git).ok()?;
            let gitdir = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
            let gitdir = if gitdir.is_absolute() { gitdir } else { d.join(gitdir) };
            let common = match fs::read_to_string(gitdir.join("commondir")) {
                Ok(c) => gitdir.join(c.trim()),
                Err(_) => gitdir,
            };
            let common = fs::canonicalize(&common).unwrap_or(common);
            let root = common.parent().map_or_else(|| d.to_path_buf(), Path::to_path_buf);
            return Some((root, common));
        }
        current = d.parent();
    }
    None
}

/// The URL of the `origin` remote (or the first remote) in a repository's config.
fn origin_url(git_dir: &Path) -> Option<String> {
    let config = fs::read_to_string(git_dir.join("config")).ok()?;
    let mut section = String::new();
    let mut first: Option<String> = None;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "url" || !section.starts_with("[remote ") {
            continue;
        }
        let url = value.trim().to_string();
        if section == "[remote \"origin\"]" {
            return Some(url);
        }
        first.get_or_insert(url);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worktrees_share_their_main_checkout_key() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("app");
        fs::create_dir_all(main.join(".git/worktrees/feature")).unwrap();
        fs::write(
            main.join(".git/config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n",
        )
        .unwrap();
        fs::write(main.join(".git/worktrees/feature/commondir"), "../..\n").unwrap();
        let tree = dir.path().join("feature");
        fs::create_dir_all(tree.join("src")).unwrap();
        fs::write(tree.join(".git"), format!("gitdir: {}\n", main.join(".git/worktrees/feature").display())).unwrap();
        let mut projects = Projects::new();
        assert_eq!(projects.key(None, Some(&main.join("src").to_string_lossy())), "github.com/acme/app");
        assert_eq!(projects.key(None, Some(&tree.join("src").to_string_lossy())), "github.com/acme/app");
        fs::remove_file(main.join(".git/config")).unwrap();
        let mut fresh = Projects::new();
        let main_key = fresh.key(None, Some(&main.to_string_lossy()));
        assert_eq!(fresh.key(None, Some(&tree.to_string_lossy())), main_key);
        assert_eq!(fresh.key(None, Some("/no/such/dir")), "/no/such/dir");
    }
}
