//! `integrate --check`: whether a door is in place and works, from what the edge observed
//! (the files' texts, where a program resolves, the summary the door would pass on).

use serde::Serialize;

use super::codex::{self, Trust};
use super::edit::{find_hook, find_instruction, find_server};
use super::json::Document;
use super::{Part, Target, hook_words, is_guarded, pi};
use crate::core::door::Door;
use crate::core::tokens::estimate;

/// How a finding bears on the door.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Level {
    Ok,
    Warn,
    Fail,
}

/// One thing `--check` found, said so a person knows what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Finding {
    pub(crate) level: Level,
    pub(crate) text: String,
}

fn finding(level: Level, text: impl Into<String>) -> Finding {
    Finding { level, text: text.into() }
}

/// opencode's file door as it is and as it should be.
#[derive(Debug, Clone)]
pub(crate) struct FileDoor<'a> {
    pub(crate) path: &'a str,
    /// Its bytes now; `None` when missing.
    pub(crate) text: Option<&'a str>,
    /// What consolidation last made of the summary for it.
    pub(crate) wanted: &'a str,
    pub(crate) registered: bool,
}

/// Everything `--check` looks at, gathered by the edge.
pub(crate) struct Observed<'a> {
    pub(crate) door: Door,
    /// The door's files (the door's own first) and their texts (`None`: missing).
    pub(crate) files: &'a [(Target, Option<String>)],
    /// Codex's config.toml, where it records which hooks the user trusts.
    pub(crate) codex_config: Option<&'a str>,
    /// Where a program named in a config resolves to, or why it does not.
    pub(crate) resolve: &'a dyn Fn(&str) -> Result<String, String>,
    /// The summary as the door would pass it on; `None`: no handbook yet.
    pub(crate) summary: Option<&'a str>,
    pub(crate) file_door: Option<FileDoor<'a>>,
}

/// The limit an agent sets on what a door passes on, when it sets one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limit {
    Chars(usize),
    Tokens(usize),
}

/// Claude Code keeps 10,000 characters of hook output (more becomes a 2 KB preview); Codex
/// about 2,500 tokens (more is cut in the middle). The others keep what they get.
pub(crate) fn limit(door: Door) -> Option<Limit> {
    match door {
        Door::Claude => Some(Limit::Chars(10_000)),
        Door::Codex => Some(Limit::Tokens(2_500)),
        _ => None,
    }
}

/// What the agent calls itself, for messages.
pub(crate) fn agent_name(door: Door) -> &'static str {
    match door {
        Door::Claude => "Claude Code",
        Door::Codex => "Codex",
        Door::Gemini => "Gemini CLI",
        Door::Pi => "pi",
        Door::Opencode => "opencode",
    }
}

/// The findings for one door, the door's own file first.
pub(crate) fn check(seen: &Observed) -> Vec<Finding> {
    let mut out = Vec::new();
    for (target, text) in seen.files {
        match text {
            None => out.push(finding(
                Level::Fail,
                format!(
                    "{} does not exist: run `{}` to add the door",
                    target.path.display(),
                    write_command(seen.door, target.part)
                ),
            )),
            Some(text) => out.extend(check_file(seen, target, text)),
        }
    }
    out.push(check_summary(seen.door, seen.summary));
    out
}

fn write_command(door: Door, part: Part) -> String {
    let mcp = if part == Part::Mcp { " --mcp" } else { "" };
    format!("handbook integrate {}{mcp} --write", door.name())
}

fn check_file(seen: &Observed, target: &Target, text: &str) -> Vec<Finding> {
    let path = target.path.display();
    let again = write_command(seen.door, target.part);
    if target.part == Part::Extension {
        if !pi::is_ours(text) {
            return vec![finding(
                Level::Fail,
                format!("{path} is not handbook's extension: move it aside, then run `{again}`"),
            )];
        }
        return check_program(seen, &format!("extension {path}"), pi::program(text), &again);
    }
    if target.part == Part::Mcp && seen.door == Door::Codex {
        return check_program(seen, &format!("MCP server in {path}"), codex::find_mcp(text), &again);
    }
    let root = match Document::parse(text) {
        Ok(doc) => doc.root,
        Err(e) => {
            let agent = agent_name(seen.door);
            return vec![finding(
                Level::Fail,
                format!("{path}: {e}: not valid JSON, so {agent} cannot read it either; fix it"),
            )];
        }
    };
    match target.part {
        Part::Hook => match find_hook(&root, seen.door) {
            None => vec![finding(Level::Fail, format!("no handbook hook in {path}: run `{again}`"))],
            Some((group, handler, command)) => {
                let program = hook_words(&command).into_iter().next();
                let mut found = check_program(seen, &format!("SessionStart hook in {path}"), program, &again);
                if is_guarded(&command) {
                    for f in found.iter_mut().filter(|f| f.level == Level::Fail) {
                        f.text.push_str(" (until then the hook passes nothing, and the agent starts without a word)");
                    }
                }
                if seen.door == Door::Codex {
                    found.push(check_trust(seen.codex_config, &codex::trust_key(&target.path, group, handler)));
                }
                found
            }
        },
        Part::Mcp => check_program(seen, &format!("MCP server in {path}"), find_server(&root, seen.door), &again),
        Part::Instructions => check_instructions(seen, &root, &target.path.display().to_string(), &again),
        Part::Extension => Vec::new(),
    }
}

fn check_program(seen: &Observed, what: &str, program: Option<String>, again: &str) -> Vec<Finding> {
    let Some(program) = program else {
        return vec![finding(Level::Fail, format!("no handbook {what}: run `{again}`"))];
    };
    match (seen.resolve)(&program) {
        Ok(found) => vec![finding(Level::Ok, format!("{what} runs {found}"))],
        Err(why) => vec![finding(
            Level::Fail,
            format!("{what} runs {program}, which {why}: run `{again}` to point it at this handbook"),
        )],
    }
}

fn check_trust(config: Option<&str>, key: &str) -> Finding {
    match codex::trust(config, key) {
        Trust::Recorded => finding(
            Level::Ok,
            "Codex records this hook as trusted (were the hook edited since, Codex would skip it until trusted again in /hooks)",
        ),
        Trust::None => finding(
            Level::Fail,
            "Codex has not trusted this hook and skips it silently: start `codex`, which asks to review new hooks (or type /hooks), and trust the handbook hook",
        ),
        Trust::Disabled => finding(Level::Fail, "the hook is turned off in Codex's /hooks: turn it back on there"),
        Trust::Unreadable => {
            finding(Level::Warn, "Codex's config.toml does not parse, so whether the hook is trusted is unknown")
        }
    }
}

fn check_instructions(seen: &Observed, root: &super::json::Json, path: &str, again: &str) -> Vec<Finding> {
    let Some(file_door) = &seen.file_door else { return Vec::new() };
    let dir = file_door.path.rsplit_once('/').map_or("", |(d, _)| d);
    let named = find_instruction(root, &format!("{dir}/"));
    if named.as_deref() != Some(file_door.path) {
        return vec![finding(
            Level::Fail,
            format!("{path} does not name {} in `instructions`: run `{again}`", file_door.path),
        )];
    }
    let mut out = vec![finding(Level::Ok, format!("{path} names {} in `instructions`", file_door.path))];
    out.push(match file_door.text {
        None => {
            finding(Level::Fail, format!("{} is missing, so opencode reads nothing: run `{again}`", file_door.path))
        }
        Some(text) if text != file_door.wanted => finding(
            Level::Fail,
            format!("{} is older than the last consolidation: run `{again}` to rewrite it", file_door.path),
        ),
        Some(_) => finding(Level::Ok, format!("{} holds the current summary", file_door.path)),
    });
    if !file_door.registered {
        out.push(finding(
            Level::Fail,
            format!("{} is not registered, so consolidation will not keep it fresh: run `{again}`", file_door.path),
        ));
    }
    out
}

/// Whether the summary fits what the agent keeps of it.
pub(crate) fn check_summary(door: Door, summary: Option<&str>) -> Finding {
    let Some(text) = summary else {
        return finding(Level::Warn, "no handbook yet: the door passes nothing until `handbook update` has run");
    };
    let (tokens, chars) = (estimate(text), text.chars().count());
    let agent = agent_name(door);
    let size = format!("the summary is about {tokens} tokens, {chars} characters");
    match limit(door) {
        Some(Limit::Chars(most)) if chars > most => {
            finding(Level::Fail, format!("{size}, over the {most} characters {agent} keeps: lower summary_max_tokens"))
        }
        Some(Limit::Tokens(most)) if tokens > most => {
            finding(Level::Fail, format!("{size}, over the {most} tokens {agent} keeps: lower summary_max_tokens"))
        }
        Some(Limit::Chars(most)) => finding(Level::Ok, format!("{size}, within the {most} characters {agent} keeps")),
        Some(Limit::Tokens(most)) => finding(Level::Ok, format!("{size}, within the {most} tokens {agent} keeps")),
        None => finding(Level::Ok, format!("{size}; {agent} keeps it whole")),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::core::integrate::Invocation;
    use crate::core::integrate::edit::hook_group;

    fn resolve(program: &str) -> Result<String, String> {
        if program == "/bin/handbook" { Ok(program.to_string()) } else { Err("does not exist".to_string()) }
    }

    fn hooks(binary: &str) -> String {
        let run = Invocation { binary: binary.into(), home: None };
        let group = serde_json::to_string(&hook_group(Door::Codex, &run)).unwrap();
        format!("{{\"hooks\":{{\"SessionStart\":[{group}]}}}}")
    }

    fn seen<'a>(files: &'a [(Target, Option<String>)], config: Option<&'a str>) -> Vec<Finding> {
        check(&Observed {
            door: Door::Codex,
            files,
            codex_config: config,
            resolve: &resolve,
            summary: Some("v1\n"),
            file_door: None,
        })
    }

    #[test]
    fn a_codex_hook_works_once_trusted() {
        let path = PathBuf::from("/h/.codex/hooks.json");
        let files = [(Target { path: path.clone(), part: Part::Hook }, Some(hooks("/bin/handbook")))];
        let trusted = format!("[hooks.state.\"{}\"]\ntrusted_hash = \"sha256:1\"\n", codex::trust_key(&path, 0, 0));
        let levels = |f: Vec<Finding>| f.iter().map(|f| f.level).collect::<Vec<_>>();
        assert_eq!(levels(seen(&files, Some(&trusted))), [Level::Ok, Level::Ok, Level::Ok]);
        let untrusted = seen(&files, Some("model = \"o4\"\n"));
        assert_eq!(untrusted[1].level, Level::Fail);
        assert!(untrusted[1].text.contains("/hooks"), "{untrusted:?}");
    }

    #[test]
    fn a_missing_binary_or_file_fails_and_says_what_to_run() {
        let path = PathBuf::from("/h/.codex/hooks.json");
        let files = [(Target { path: path.clone(), part: Part::Hook }, Some(hooks("/gone/handbook")))];
        let found = seen(&files, None);
        assert_eq!(found[0].level, Level::Fail);
        assert!(found[0].text.contains("/gone/handbook, which does not exist"), "{found:?}");
        if cfg!(unix) {
            assert!(found[0].text.ends_with("the agent starts without a word)"), "{found:?}");
        }
        let missing = [(Target { path, part: Part::Hook }, None)];
        let found = seen(&missing, None);
        assert!(found[0].text.ends_with("run `handbook integrate codex --write` to add the door"), "{found:?}");
    }

    #[test]
    fn the_summary_is_held_to_the_agent_s_limit() {
        let long = "word ".repeat(2_500);
        assert_eq!(check_summary(Door::Claude, Some(&long)).level, Level::Fail);
        assert_eq!(check_summary(Door::Gemini, Some(&long)).level, Level::Ok);
        assert_eq!(check_summary(Door::Claude, Some("v1\n")).level, Level::Ok);
        assert_eq!(check_summary(Door::Claude, None).level, Level::Warn);
    }
}
