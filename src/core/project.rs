//! Project keys: which project a session belongs to. The git remote when known (so clones and
//! worktrees of one repository share a key), else the repository root, else the cwd.

use crate::core::extract::render::{one_line, shortened};

/// The key of a session whose project nothing names.
pub(crate) const UNKNOWN: &str = "unknown";

/// The key for a session: normalised remote, else repository root, else cwd, else `unknown`.
pub(crate) fn project_key(remote: Option<&str>, repo_root: Option<&str>, cwd: Option<&str>) -> String {
    remote
        .and_then(normalize_remote)
        .or_else(|| repo_root.map(trim_path))
        .or_else(|| cwd.map(trim_path))
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| UNKNOWN.to_string())
}

fn trim_path(path: &str) -> String {
    let trimmed = path.trim().trim_end_matches(['/', '\\']);
    if trimmed.is_empty() { path.trim().to_string() } else { trimmed.to_string() }
}

/// `host/owner/repo` for a git remote URL in any of its spellings, without credentials,
/// scheme, port or `.git`. Local paths and `file://` URLs are kept as paths.
pub(crate) fn normalize_remote(url: &str) -> Option<String> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    if let Some(path) = url.strip_prefix("file://") {
        return Some(trim_path(path));
    }
    if url.starts_with('/') || url.starts_with('.') {
        return Some(trim_path(url));
    }
    let (host, path) = match url.split_once("://") {
        Some((_, rest)) => {
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let host = authority.rsplit('@').next().unwrap_or(authority);
            let host = host.split(':').next().unwrap_or(host);
            (host.to_string(), path.to_string())
        }
        // scp-like `user@host:owner/repo`.
        None => {
            let (authority, path) = url.split_once(':')?;
            let host = authority.rsplit('@').next().unwrap_or(authority);
            (host.to_string(), path.to_string())
        }
    };
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    if host.is_empty() || path.is_empty() {
        return None;
    }
    Some(format!("{}/{}", host.to_ascii_lowercase(), path))
}

/// Keys for sessions that only knew their folder, from sessions in the same folder that knew
/// their repository's remote: `(cwd, key)` pairs in, `key → better key` out. A session
/// recorded without its remote (an older agent version, a checkout since removed) then joins
/// its project instead of standing apart. A folder seen with two remotes is left alone.
pub(crate) fn path_keys_to_remotes<'a>(
    sessions: impl Iterator<Item = (&'a str, &'a str)>,
) -> std::collections::BTreeMap<String, String> {
    use std::collections::{BTreeMap, BTreeSet};
    let is_path = |key: &str| key.starts_with('/') || key.starts_with('\\') || key.get(1..3) == Some(":\\");
    let mut remotes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut path_keyed: BTreeSet<(String, String)> = BTreeSet::new();
    for (cwd, key) in sessions {
        let cwd = trim_path(cwd);
        if key == UNKNOWN {
            continue;
        }
        if is_path(key) {
            path_keyed.insert((key.to_string(), cwd));
        } else {
            remotes.entry(cwd).or_default().insert(key.to_string());
        }
    }
    path_keyed
        .into_iter()
        .filter_map(|(key, cwd)| {
            let found = remotes.get(&cwd).filter(|r| r.len() == 1)?;
            Some((key, found.first()?.clone()))
        })
        .collect()
}

/// Longest project key shown in a heading, in characters.
const KEY_MAX: usize = 100;
/// Longest display name, in characters.
const NAME_MAX: usize = 40;

/// A project key as headings show it: on one line, and a long one cut to its start plus a
/// hash of the whole key, so it stays short, stable, and apart from other keys.
pub(crate) fn display_key(key: &str) -> String {
    shortened(&one_line(key), KEY_MAX, key)
}

/// A short display name: the last path component of the key as [`display_key`] shows it, a
/// long one cut to its start plus a hash. Made from the shown key alone, so the name of a
/// heading's key is the name of the key it shows.
pub(crate) fn display_name(key: &str) -> String {
    let shown = display_key(key);
    let last = shown.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next().filter(|s| !s.is_empty());
    shortened(last.unwrap_or(&shown), NAME_MAX, &shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_of_every_spelling_share_a_key() {
        let key = Some("github.com/acme/app".to_string());
        assert_eq!(normalize_remote("git@github.com:acme/app.git"), key);
        assert_eq!(normalize_remote("https://github.com/acme/app"), key);
        assert_eq!(normalize_remote("https://GitHub.com/acme/app.git/"), key);
        assert_eq!(normalize_remote("ssh://git@github.com:22/acme/app.git"), key);
        assert_eq!(normalize_remote("https://deploy:hunter2@github.com/acme/app.git"), key);
        assert_eq!(normalize_remote("/srv/git/app.git"), Some("/srv/git/app.git".to_string()));
        assert_eq!(normalize_remote(""), None);
    }

    #[test]
    fn keys_fall_back_to_root_then_cwd() {
        assert_eq!(project_key(None, None, Some("/w/app/")), "/w/app");
        assert_eq!(project_key(None, None, None), "unknown");
        assert_eq!(display_name("github.com/acme/app"), "app");
        assert_eq!(display_name("/w/app"), "app");
    }

    #[test]
    fn long_keys_are_shown_short_stable_and_apart() {
        let (a, b) = (format!("/w/{}a", "deep".repeat(1250)), format!("/w/{}b", "deep".repeat(1250)));
        assert!(display_key(&a).chars().count() <= KEY_MAX && display_name(&a).chars().count() <= NAME_MAX);
        assert_ne!(display_key(&a), display_key(&b));
        assert_ne!(display_name(&a), display_name(&b));
        assert_eq!(display_key(&a), display_key(&a.clone()));
        assert_eq!(
            (display_key(&display_key(&a)), display_name(&display_key(&a))),
            (display_key(&a), display_name(&a))
        );
        assert_eq!(display_key("/w/a\n# Task Group: x"), "/w/a # Task Group: x");
        assert_eq!(display_key("github.com/acme/app"), "github.com/acme/app");
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn project_key_example() {
        use crate::core::project::project_key;
        assert_eq!(project_key(Some("git@github.com:Acme/App.git"), None, Some("/w/app")), "github.com/Acme/App");
        assert_eq!(project_key(None, Some("/w/app"), Some("/w/app/src")), "/w/app");
    }

    #[test]
    fn path_keys_to_remotes_example() {
        use crate::core::project::path_keys_to_remotes;
        let sessions = [("/w/app", "github.com/acme/app"), ("/w/app/", "/w/app"), ("/w/lib", "/w/lib")];
        let better = path_keys_to_remotes(sessions.into_iter());
        assert_eq!(better.get("/w/app").map(String::as_str), Some("github.com/acme/app"));
        assert_eq!(better.get("/w/lib"), None);
    }
}
