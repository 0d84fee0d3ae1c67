//! The JSON doors: a SessionStart hook (Claude Code, Codex, Gemini CLI), the `handbook` MCP
//! server (Claude Code, Gemini CLI, opencode) and opencode's `instructions` entry. Each edit
//! touches only handbook's own entry; everything else in the file stays as it was.

use super::json::{Document, Json, entry};
use super::{Action, EditError, Invocation, Part, is_handbook, is_our_hook, runs_mcp};
use crate::core::door::Door;

/// What a JSON door writes: who runs handbook, and (for opencode) the file door's path.
#[derive(Debug, Clone)]
pub(crate) struct Wanted<'a> {
    pub(crate) door: Door,
    pub(crate) run: &'a Invocation,
    /// The file door opencode's `instructions` names.
    pub(crate) door_file: &'a str,
    /// Entries under this folder in `instructions` are handbook's own (older file doors).
    pub(crate) doors_dir: &'a str,
}

/// The text a JSON file should hold after `action` on `part`, from its text now (`None`: no
/// file). `None` back means no file: what is left says nothing (an empty object).
pub(crate) fn edit_json(
    part: Part,
    wanted: &Wanted,
    text: Option<&str>,
    action: Action,
) -> Result<Option<String>, EditError> {
    let mut doc = Document::parse(text.unwrap_or(""))?;
    let kind = doc.root.kind();
    let root =
        doc.root.entries_mut().ok_or_else(|| EditError::Shape(format!("the file holds {kind}, not an object")))?;
    match (part, action) {
        (Part::Hook, Action::Add) => add_hook(root, wanted)?,
        (Part::Hook, Action::Remove) => remove_hook(root, wanted.door)?,
        (Part::Mcp, Action::Add) => add_server(root, wanted)?,
        (Part::Mcp, Action::Remove) => remove_server(root, wanted.door)?,
        (Part::Instructions, Action::Add) => add_instruction(root, wanted)?,
        (Part::Instructions, Action::Remove) => remove_instruction(root, wanted)?,
        (Part::Extension, _) => return Err(EditError::Shape("an extension is not a JSON file".into())),
    }
    if doc.root == Json::Object(Vec::new()) {
        return Ok(None);
    }
    // An unchanged file keeps its exact bytes, even where rendering would lay it out anew.
    match text {
        Some(text) if Document::parse(text).is_ok_and(|old| old.root == doc.root) => Ok(Some(text.to_string())),
        _ => Ok(Some(doc.render())),
    }
}

fn not_a_list(what: &str, found: &Json) -> EditError {
    EditError::Shape(format!("{what} is {}, not a list", found.kind()))
}

/// The hook group handbook adds for `door`. Claude Code and Codex match the source with a
/// regex and leave out `resume`, whose transcript replays the context already; Gemini CLI
/// matches exact strings only and does not replay it, so its group has no matcher (every
/// source), a name, and a timeout in milliseconds.
pub(crate) fn hook_group(door: Door, run: &Invocation) -> Json {
    let command = Json::String(run.hook_command(door));
    match door {
        Door::Gemini => Json::object([(
            "hooks",
            Json::Array(vec![Json::object([
                ("type", Json::str("command")),
                ("name", Json::str("handbook")),
                ("command", command),
                ("timeout", Json::int(30_000)),
            ])]),
        )]),
        _ => Json::object([
            ("matcher", Json::str("startup|clear|compact")),
            (
                "hooks",
                Json::Array(vec![Json::object([
                    ("type", Json::str("command")),
                    ("command", command),
                    ("timeout", Json::int(30)),
                ])]),
            ),
        ]),
    }
}

/// Where handbook's hook for `door` sits: its group and handler index under
/// `hooks.SessionStart`, and its command. The first one when there are several.
pub(crate) fn find_hook(root: &Json, door: Door) -> Option<(usize, usize, String)> {
    let Some(Json::Array(groups)) = root.get("hooks").and_then(|h| h.get("SessionStart")) else { return None };
    groups.iter().enumerate().find_map(|(g, group)| {
        let Some(Json::Array(handlers)) = group.get("hooks") else { return None };
        handlers.iter().enumerate().find_map(|(h, handler)| {
            let command = handler.get("command").and_then(Json::as_str)?;
            is_our_hook(command, door).then(|| (g, h, command.to_string()))
        })
    })
}

fn is_our_handler(handler: &Json, door: Door) -> bool {
    handler.get("command").and_then(Json::as_str).is_some_and(|c| is_our_hook(c, door))
}

fn add_hook(root: &mut Vec<(String, Json)>, wanted: &Wanted) -> Result<(), EditError> {
    let group = hook_group(wanted.door, wanted.run);
    let starts = Json::Object(root.clone());
    if let Some(Json::Array(groups)) = starts.get("hooks").and_then(|h| h.get("SessionStart")) {
        let ours = groups
            .iter()
            .filter_map(|g| match g.get("hooks") {
                Some(Json::Array(handlers)) => Some(handlers.iter().filter(|h| is_our_handler(h, wanted.door)).count()),
                _ => None,
            })
            .sum::<usize>();
        if ours == 1 && groups.contains(&group) {
            return Ok(());
        }
    }
    // An older door (another binary, another home) is replaced, not doubled.
    remove_hook(root, wanted.door)?;
    let hooks = entry(root, "hooks", Json::Object(Vec::new()));
    let found = hooks.clone();
    let hooks =
        hooks.entries_mut().ok_or_else(|| EditError::Shape(format!("\"hooks\" is {}, not an object", found.kind())))?;
    match entry(hooks, "SessionStart", Json::Array(Vec::new())) {
        Json::Array(groups) => groups.push(group),
        other => return Err(not_a_list("\"hooks\".\"SessionStart\"", other)),
    }
    Ok(())
}

/// Take handbook's handlers out of `hooks.SessionStart`, then any group, list or object that
/// only they filled.
fn remove_hook(root: &mut Vec<(String, Json)>, door: Door) -> Result<(), EditError> {
    let Some(at) = root.iter().rposition(|(k, _)| k == "hooks") else { return Ok(()) };
    let Some(hooks) = root[at].1.entries_mut() else { return Ok(()) };
    let Some(starts_at) = hooks.iter().rposition(|(k, _)| k == "SessionStart") else { return Ok(()) };
    let Json::Array(groups) = &mut hooks[starts_at].1 else { return Ok(()) };
    let before = groups.len();
    let mut changed = false;
    groups.retain_mut(|group| {
        let Some(Json::Array(handlers)) =
            group.entries_mut().and_then(|e| e.iter_mut().rev().find(|(k, _)| k == "hooks")).map(|(_, v)| v)
        else {
            return true;
        };
        let had = handlers.len();
        handlers.retain(|h| !is_our_handler(h, door));
        changed |= handlers.len() != had;
        !(handlers.is_empty() && had > 0)
    });
    if !changed && groups.len() == before {
        return Ok(());
    }
    if groups.is_empty() {
        hooks.remove(starts_at);
    }
    if hooks.is_empty() {
        root.remove(at);
    }
    Ok(())
}

/// The key MCP servers go under, and the entry handbook's takes there, for `door`.
fn server(door: Door, run: &Invocation) -> (&'static str, Json) {
    let args = || Json::Array(run.args(&["mcp"]).into_iter().map(Json::String).collect());
    match door {
        Door::Opencode => (
            "mcp",
            Json::object([
                ("type", Json::str("local")),
                ("command", Json::Array(run.words(&["mcp"]).into_iter().map(Json::String).collect())),
                ("enabled", Json::Bool(true)),
            ]),
        ),
        Door::Claude => (
            "mcpServers",
            Json::object([
                ("type", Json::str("stdio")),
                ("command", Json::String(run.binary.clone())),
                ("args", args()),
                ("env", Json::Object(Vec::new())),
            ]),
        ),
        _ => ("mcpServers", Json::object([("command", Json::String(run.binary.clone())), ("args", args())])),
    }
}

/// True for a server entry that runs a handbook binary (a string command, or opencode's list).
/// (Or one that runs any binary with the arguments `integrate` writes, a handbook installed
/// under another name: the entry is keyed `handbook` already.)
pub(crate) fn is_our_server(entry: &Json) -> bool {
    fn strings(words: &[Json]) -> Vec<&str> {
        words.iter().filter_map(Json::as_str).collect()
    }
    match (entry.get("command"), entry.get("args")) {
        (Some(Json::String(program)), Some(Json::Array(args))) => is_handbook(program) || runs_mcp(&strings(args)),
        (Some(Json::String(program)), _) => is_handbook(program),
        (Some(Json::Array(words)), _) => {
            let words = strings(words);
            words.first().is_some_and(|p| is_handbook(p)) || words.len() > 1 && runs_mcp(&words[1..])
        }
        _ => false,
    }
}

/// The program handbook's MCP server entry runs, when there is one.
pub(crate) fn find_server(root: &Json, door: Door) -> Option<String> {
    let key = if door == Door::Opencode { "mcp" } else { "mcpServers" };
    let entry = root.get(key)?.get("handbook").filter(|e| is_our_server(e))?;
    match entry.get("command")? {
        Json::String(program) => Some(program.clone()),
        Json::Array(words) => words.first().and_then(Json::as_str).map(str::to_string),
        _ => None,
    }
}

fn add_server(root: &mut Vec<(String, Json)>, wanted: &Wanted) -> Result<(), EditError> {
    let (key, wanted_entry) = server(wanted.door, wanted.run);
    let servers = entry(root, key, Json::Object(Vec::new()));
    let found = servers.clone();
    let servers = servers
        .entries_mut()
        .ok_or_else(|| EditError::Shape(format!("\"{key}\" is {}, not an object", found.kind())))?;
    match servers.iter_mut().rev().find(|(k, _)| k == "handbook") {
        Some((_, existing)) if *existing == wanted_entry => {}
        Some((_, existing)) if is_our_server(existing) => *existing = wanted_entry,
        Some(_) => {
            return Err(EditError::Shape(format!(
                "\"{key}\".\"handbook\" is another server, not a handbook binary; rename or remove it, then run again"
            )));
        }
        None => servers.push(("handbook".to_string(), wanted_entry)),
    }
    Ok(())
}

fn remove_server(root: &mut Vec<(String, Json)>, door: Door) -> Result<(), EditError> {
    let key = if door == Door::Opencode { "mcp" } else { "mcpServers" };
    let Some(at) = root.iter().rposition(|(k, _)| k == key) else { return Ok(()) };
    let Some(servers) = root[at].1.entries_mut() else { return Ok(()) };
    let before = servers.len();
    servers.retain(|(k, v)| !(k == "handbook" && is_our_server(v)));
    if servers.len() != before && servers.is_empty() {
        root.remove(at);
    }
    Ok(())
}

fn is_our_instruction(item: &Json, wanted: &Wanted) -> bool {
    item.as_str().is_some_and(|s| s == wanted.door_file || s.starts_with(wanted.doors_dir))
}

fn add_instruction(root: &mut Vec<(String, Json)>, wanted: &Wanted) -> Result<(), EditError> {
    let path = Json::str(wanted.door_file);
    match entry(root, "instructions", Json::Array(Vec::new())) {
        Json::Array(items) => {
            let ours = items.iter().filter(|i| is_our_instruction(i, wanted)).count();
            if !(ours == 1 && items.contains(&path)) {
                items.retain(|i| !is_our_instruction(i, wanted));
                items.push(path);
            }
            Ok(())
        }
        other => Err(not_a_list("\"instructions\"", other)),
    }
}

fn remove_instruction(root: &mut Vec<(String, Json)>, wanted: &Wanted) -> Result<(), EditError> {
    let Some(at) = root.iter().rposition(|(k, _)| k == "instructions") else { return Ok(()) };
    let Json::Array(items) = &mut root[at].1 else { return Ok(()) };
    let before = items.len();
    items.retain(|i| !is_our_instruction(i, wanted));
    if items.len() != before && items.is_empty() {
        root.remove(at);
    }
    Ok(())
}

/// The file door an opencode config names, when it names one under `doors_dir`.
pub(crate) fn find_instruction(root: &Json, doors_dir: &str) -> Option<String> {
    let Some(Json::Array(items)) = root.get("instructions") else { return None };
    items.iter().filter_map(Json::as_str).find(|s| s.starts_with(doors_dir)).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> Invocation {
        Invocation { binary: "/opt/bin/handbook".into(), home: None }
    }

    fn wanted(door: Door, run: &Invocation) -> Wanted<'_> {
        Wanted { door, run, door_file: "/w/doors/opencode.md", doors_dir: "/w/doors/" }
    }

    fn apply(part: Part, door: Door, text: Option<&str>, action: Action) -> Option<String> {
        let run = run();
        edit_json(part, &wanted(door, &run), text, action).unwrap()
    }

    const CLAUDE: &str = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"say done\"\n          }\n        ]\n      }\n    ]\n  },\n  \"zz\": true\n}\n";

    #[test]
    fn a_hook_joins_the_other_settings_and_leaves_again_without_a_trace() {
        for door in [Door::Claude, Door::Codex, Door::Gemini] {
            let added = apply(Part::Hook, door, Some(CLAUDE), Action::Add).unwrap();
            assert!(added.starts_with("{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\""), "{added}");
            assert!(added.contains("summary --for"), "{added}");
            assert!(added.ends_with("  \"zz\": true\n}\n"), "{added}");
            assert_eq!(apply(Part::Hook, door, Some(&added), Action::Add).as_deref(), Some(added.as_str()));
            assert_eq!(apply(Part::Hook, door, Some(&added), Action::Remove).as_deref(), Some(CLAUDE));
        }
    }

    #[test]
    fn into_a_missing_file_and_out_again_leaves_no_file() {
        let added = apply(Part::Hook, Door::Claude, None, Action::Add).unwrap();
        let doc = Document::parse(&added).unwrap();
        assert_eq!(find_hook(&doc.root, Door::Claude).map(|(g, h, _)| (g, h)), Some((0, 0)));
        assert_eq!(
            doc.root.get("hooks").and_then(|h| h.get("SessionStart")),
            Some(&Json::Array(vec![hook_group(Door::Claude, &run())]))
        );
        assert_eq!(apply(Part::Hook, Door::Claude, Some(&added), Action::Remove), None);
        assert_eq!(apply(Part::Hook, Door::Claude, None, Action::Remove), None);
    }

    #[test]
    fn gemini_gets_no_matcher_and_a_timeout_in_milliseconds() {
        let group = hook_group(Door::Gemini, &run());
        assert_eq!(group.get("matcher"), None);
        let Some(Json::Array(handlers)) = group.get("hooks") else { panic!() };
        assert_eq!(handlers[0].get("timeout"), Some(&Json::int(30_000)));
        assert_eq!(hook_group(Door::Claude, &run()).get("matcher"), Some(&Json::str("startup|clear|compact")));
    }

    #[test]
    fn an_older_door_is_replaced_not_doubled() {
        let old = Invocation { binary: "/old/handbook".into(), home: Some("/w".into()) };
        let first = edit_json(Part::Hook, &wanted(Door::Claude, &old), Some(CLAUDE), Action::Add).unwrap().unwrap();
        let second = apply(Part::Hook, Door::Claude, Some(&first), Action::Add).unwrap();
        assert_eq!(second.matches("summary --for claude").count(), 1, "{second}");
        assert!(second.contains("/opt/bin/handbook summary") && !second.contains("/old/"), "{second}");
    }

    #[test]
    fn a_hook_group_shared_with_the_users_own_handler_keeps_it() {
        let shared = r#"{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"},{"type":"command","command":"/x/handbook summary --for claude --hook"}]}]}}"#;
        let removed = apply(Part::Hook, Door::Claude, Some(shared), Action::Remove).unwrap();
        assert!(removed.contains("echo hi") && !removed.contains("handbook"), "{removed}");
    }

    #[test]
    fn a_wrong_shape_is_refused_with_what_was_found() {
        let run = run();
        let err =
            edit_json(Part::Hook, &wanted(Door::Claude, &run), Some(r#"{"hooks": []}"#), Action::Add).unwrap_err();
        assert_eq!(err.to_string(), "\"hooks\" is a list, not an object");
        let err = edit_json(Part::Hook, &wanted(Door::Claude, &run), Some("[1]"), Action::Add).unwrap_err();
        assert_eq!(err.to_string(), "the file holds a list, not an object");
    }

    #[test]
    fn mcp_servers_are_added_replaced_and_removed_only_when_handbook_s() {
        for door in [Door::Claude, Door::Gemini, Door::Opencode] {
            let other =
                r#"{"mcpServers":{"git":{"command":"git-mcp"}},"mcp":{"git":{"type":"local","command":["git-mcp"]}}}"#;
            let added = apply(Part::Mcp, door, Some(other), Action::Add).unwrap();
            let root = Document::parse(&added).unwrap().root;
            assert_eq!(find_server(&root, door).as_deref(), Some("/opt/bin/handbook"), "{door:?}");
            assert_eq!(apply(Part::Mcp, door, Some(&added), Action::Add).as_deref(), Some(added.as_str()));
            let removed = apply(Part::Mcp, door, Some(&added), Action::Remove).unwrap();
            assert_eq!(Document::parse(&removed).unwrap().root, Document::parse(other).unwrap().root);
        }
        let theirs = r#"{"mcpServers":{"handbook":{"command":"/usr/bin/other-tool"}}}"#;
        let run = run();
        assert!(edit_json(Part::Mcp, &wanted(Door::Claude, &run), Some(theirs), Action::Add).is_err());
        assert_eq!(apply(Part::Mcp, Door::Claude, Some(theirs), Action::Remove).as_deref(), Some(theirs));
    }

    #[test]
    fn opencode_instructions_keep_the_users_own_entries() {
        let text = "{\n  \"instructions\": [\n    \"CONTRIBUTING.md\",\n    \"/w/doors/opencode-old.md\"\n  ]\n}\n";
        let added = apply(Part::Instructions, Door::Opencode, Some(text), Action::Add).unwrap();
        assert_eq!(added, "{\n  \"instructions\": [\n    \"CONTRIBUTING.md\",\n    \"/w/doors/opencode.md\"\n  ]\n}\n");
        assert_eq!(
            find_instruction(&Document::parse(&added).unwrap().root, "/w/doors/").as_deref(),
            Some("/w/doors/opencode.md")
        );
        let removed = apply(Part::Instructions, Door::Opencode, Some(&added), Action::Remove).unwrap();
        assert_eq!(removed, "{\n  \"instructions\": [\n    \"CONTRIBUTING.md\"\n  ]\n}\n");
    }
}
