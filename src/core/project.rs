//! Project keys: which project a session belongs to. The git remote when known (so clones and
//! worktrees of one repository share a key), else the repository root, else the cwd.

/// The key for a session: normalised remote, else repository root, else cwd, else `unknown`.
///
/// ```
/// use handbook::core::project::project_key;
/// assert_eq!(project_key(Some("git@github.com:Acme/App.git"), None, Some("/w/app")), "github.com/Acme/App");
/// assert_eq!(project_key(None, Some("/w/app"), Some("/w/app/src")), "/w/app");
/// ```
pub fn project_key(remote: Option<&str>, repo_root: Option<&str>, cwd: Option<&str>) -> String {
    remote
        .and_then(normalize_remote)
        .or_else(|| repo_root.map(trim_path))
        .or_else(|| cwd.map(trim_path))
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

fn trim_path(path: &str) -> String {
    let trimmed = path.trim().trim_end_matches(['/', '\\']);
    if trimmed.is_empty() { path.trim().to_string() } else { trimmed.to_string() }
}

/// `host/owner/repo` for a git remote URL in any of its spellings, without credentials,
/// scheme, port or `.git`. Local paths and `file://` URLs are kept as paths.
pub fn normalize_remote(url: &str) -> Option<String> {
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

/// A short display name: the last path component of the key.
pub fn display_name(key: &str) -> &str {
    key.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next().filter(|s| !s.is_empty()).unwrap_or(key)
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
}
