//! Codex's `config.toml`: the `[mcp_servers.handbook]` table, edited with toml_edit so the
//! user's comments and layout stay, and the hook trust Codex records there.

use std::path::Path;

use toml_edit::{Array, DocumentMut, Item, Table, value};

use super::{Action, EditError, Invocation, is_handbook};

fn parse(text: &str) -> Result<DocumentMut, EditError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        EditError::Syntax { line, column, message: e.message().to_string() }
    })
}

/// The text `config.toml` should hold after `action` on handbook's MCP server; `None` when
/// nothing is left in it.
pub(crate) fn edit_mcp(text: Option<&str>, run: &Invocation, action: Action) -> Result<Option<String>, EditError> {
    let original = text.unwrap_or("");
    let mut doc = parse(original)?;
    let changed = match action {
        Action::Add => add(&mut doc, run)?,
        Action::Remove => remove(&mut doc),
    };
    if !changed {
        return Ok(text.map(str::to_string));
    }
    let out = doc.to_string();
    Ok((!out.trim().is_empty()).then_some(out))
}

fn server_table(run: &Invocation) -> Table {
    let mut table = Table::new();
    table["command"] = value(run.binary.as_str());
    let args: Array = run.args(&["mcp"]).iter().map(String::as_str).collect();
    table["args"] = value(args);
    table
}

fn is_ours(item: &Item) -> bool {
    let args: Vec<&str> = item
        .get("args")
        .and_then(Item::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    item.get("command").and_then(Item::as_str).is_some_and(is_handbook) || super::runs_mcp(&args)
}

fn same(item: &Item, run: &Invocation) -> bool {
    let args: Option<Vec<&str>> =
        item.get("args").and_then(Item::as_array).map(|a| a.iter().filter_map(|v| v.as_str()).collect());
    item.get("command").and_then(Item::as_str) == Some(run.binary.as_str())
        && args == Some(run.args(&["mcp"]).iter().map(String::as_str).collect())
}

fn add(doc: &mut DocumentMut, run: &Invocation) -> Result<bool, EditError> {
    let servers = doc.entry("mcp_servers").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let Some(servers) = servers.as_table_like_mut() else {
        return Err(EditError::Shape("`mcp_servers` is not a table".into()));
    };
    match servers.get("handbook") {
        Some(item) if same(item, run) => return Ok(false),
        Some(item) if !is_ours(item) => {
            return Err(EditError::Shape(
                "`mcp_servers.handbook` is another server, not a handbook binary; rename or remove it, then run again"
                    .into(),
            ));
        }
        _ => {}
    }
    servers.insert("handbook", Item::Table(server_table(run)));
    Ok(true)
}

fn remove(doc: &mut DocumentMut) -> bool {
    let Some(servers) = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut) else { return false };
    if !servers.get("handbook").is_some_and(is_ours) {
        return false;
    }
    servers.remove("handbook");
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    true
}

/// The program handbook's MCP server runs, when config.toml has one.
pub(crate) fn find_mcp(text: &str) -> Option<String> {
    let doc = parse(text).ok()?;
    let item = doc.get("mcp_servers")?.get("handbook").filter(|i| is_ours(i))?;
    item.get("command").and_then(Item::as_str).map(str::to_string)
}

/// What Codex has recorded about trusting one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trust {
    /// No record: Codex skips the hook until the user trusts it in `/hooks`.
    None,
    /// A trusted hash is recorded for the hook at this place.
    Recorded,
    /// The user turned the hook off in `/hooks`.
    Disabled,
    /// config.toml does not parse, so Codex reads no trust from it either.
    Unreadable,
}

/// The key Codex files a hook's trust under: the hooks file, the event, and the hook's
/// group and handler index.
pub(crate) fn trust_key(hooks_json: &Path, group: usize, handler: usize) -> String {
    format!("{}:session_start:{group}:{handler}", hooks_json.display())
}

/// What `config.toml` (its text, if any) records about the hook filed under `key`. The
/// recorded hash is of the hook's definition, so a hook edited since is asked about again;
/// handbook does not recompute it, since its recipe is Codex's own and changes with it.
pub(crate) fn trust(config: Option<&str>, key: &str) -> Trust {
    let Some(text) = config else { return Trust::None };
    let Ok(doc) = parse(text) else { return Trust::Unreadable };
    let Some(state) = doc.get("hooks").and_then(|h| h.get("state")).and_then(|s| s.get(key)) else {
        return Trust::None;
    };
    if state.get("enabled").and_then(Item::as_bool) == Some(false) {
        return Trust::Disabled;
    }
    match state.get("trusted_hash").and_then(Item::as_str) {
        Some(hash) if !hash.is_empty() => Trust::Recorded,
        _ => Trust::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> Invocation {
        Invocation { binary: "/opt/bin/handbook".into(), home: Some("/w".into()) }
    }

    const CONFIG: &str =
        "# my settings\nmodel = \"o4\" # the fast one\n\n[projects.\"/src/app\"]\ntrust_level = \"trusted\"\n";

    #[test]
    fn the_server_joins_and_leaves_keeping_comments() {
        let added = edit_mcp(Some(CONFIG), &run(), Action::Add).unwrap().unwrap();
        assert!(added.starts_with(CONFIG), "{added}");
        assert!(
            added.contains(
                "[mcp_servers.handbook]\ncommand = \"/opt/bin/handbook\"\nargs = [\"--home\", \"/w\", \"mcp\"]\n"
            ),
            "{added}"
        );
        assert!(!added.contains("[mcp_servers]\n"), "{added}");
        assert_eq!(find_mcp(&added).as_deref(), Some("/opt/bin/handbook"));
        assert_eq!(edit_mcp(Some(&added), &run(), Action::Add).unwrap().as_deref(), Some(added.as_str()));
        assert_eq!(edit_mcp(Some(&added), &run(), Action::Remove).unwrap().as_deref(), Some(CONFIG));
        assert_eq!(edit_mcp(None, &run(), Action::Remove).unwrap(), None);
        let alone = edit_mcp(None, &run(), Action::Add).unwrap().unwrap();
        assert_eq!(edit_mcp(Some(&alone), &run(), Action::Remove).unwrap(), None);
    }

    #[test]
    fn another_server_by_that_name_is_left_alone() {
        let theirs = "[mcp_servers.handbook]\ncommand = \"npx\"\n";
        assert!(matches!(edit_mcp(Some(theirs), &run(), Action::Add), Err(EditError::Shape(_))));
        assert_eq!(edit_mcp(Some(theirs), &run(), Action::Remove).unwrap().as_deref(), Some(theirs));
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let err = edit_mcp(Some("a = 1\nb = = 2\n"), &run(), Action::Add).unwrap_err();
        assert!(matches!(err, EditError::Syntax { line: 2, .. }), "{err:?}");
    }

    #[test]
    fn trust_is_read_from_the_hook_s_place() {
        let key = trust_key(Path::new("/h/.codex/hooks.json"), 1, 0);
        assert_eq!(key, "/h/.codex/hooks.json:session_start:1:0");
        let trusted = format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"sha256:ab\"\n");
        assert_eq!(trust(Some(&trusted), &key), Trust::Recorded);
        assert_eq!(trust(Some(&trusted), &trust_key(Path::new("/h/.codex/hooks.json"), 0, 0)), Trust::None);
        let disabled = format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"sha256:ab\"\nenabled = false\n");
        assert_eq!(trust(Some(&disabled), &key), Trust::Disabled);
        assert_eq!(trust(None, &key), Trust::None);
        assert_eq!(trust(Some("[[["), &key), Trust::Unreadable);
    }
}
