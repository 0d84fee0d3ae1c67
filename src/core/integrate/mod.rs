//! `integrate`: which files open a door for the summary into an agent, and what each should
//! hold. Pure planners: given the agent, the scope and the current text of a file (or none),
//! they return the text it should have (or none: no file). The edge reads, backs up and writes.

pub(crate) mod check;
pub(crate) mod codex;
pub(crate) mod edit;
pub(crate) mod json;
pub(crate) mod pi;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::core::door::Door;

/// Where the door goes: the user's own settings, or the current project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    User,
    Project,
}

/// Add the door, or take it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Add,
    Remove,
}

/// Where each agent keeps its settings, resolved from HOME and each agent's own variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Places {
    /// Claude Code's folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub(crate) claude: PathBuf,
    /// Claude Code's state file, which holds user-level MCP servers (`~/.claude.json`, or
    /// `.claude.json` in `$CLAUDE_CONFIG_DIR`).
    pub(crate) claude_json: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub(crate) codex: PathBuf,
    /// `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
    pub(crate) gemini: PathBuf,
    /// `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
    pub(crate) pi: PathBuf,
    /// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
    pub(crate) opencode: PathBuf,
}

/// What a file is to the door.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// A SessionStart hook in a JSON settings file.
    Hook,
    /// The `handbook mcp` server in the agent's MCP settings.
    Mcp,
    /// opencode's `instructions` entry naming the file door.
    Instructions,
    /// pi's extension file.
    Extension,
}

/// One file a door touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) path: PathBuf,
    pub(crate) part: Part,
}

/// Why a file cannot be edited: its text does not parse, or its shape is not what the agent
/// reads. Nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EditError {
    Syntax { line: usize, column: usize, message: String },
    Shape(String),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EditError::Syntax { line, column, message } => write!(f, "line {line}, column {column}: {message}"),
            EditError::Shape(what) => f.write_str(what),
        }
    }
}

/// How an agent runs handbook: this binary, and the home when it is not the default one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    pub(crate) binary: String,
    pub(crate) home: Option<String>,
}

impl Invocation {
    /// The words of a run of `tail`, with `--home` first when there is one.
    pub(crate) fn words(&self, tail: &[&str]) -> Vec<String> {
        let home = self.home.iter().flat_map(|h| ["--home".to_string(), h.clone()]);
        std::iter::once(self.binary.clone()).chain(home).chain(tail.iter().map(|w| w.to_string())).collect()
    }

    /// The arguments alone (the words after the binary).
    pub(crate) fn args(&self, tail: &[&str]) -> Vec<String> {
        self.words(tail).into_iter().skip(1).collect()
    }

    /// The same as one shell command line.
    pub(crate) fn shell(&self, tail: &[&str]) -> String {
        self.words(tail).iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }

    /// What a SessionStart hook of `door` runs: the summary, after a guard that ends the hook
    /// quietly (status 0, no output) when the binary is not there, so an uninstalled handbook
    /// shows the user nothing either. Claude Code runs a hook's command with bash, Codex with
    /// `$SHELL -lc` (else `/bin/sh`), Gemini CLI with `bash -c`: all read the POSIX guard. On
    /// Windows they differ (Git Bash, `cmd /C`, PowerShell), so there the command stands alone.
    pub(crate) fn hook_command(&self, door: Door) -> String {
        let run = self.shell(&["summary", "--for", door.name(), "--hook"]);
        match cfg!(windows) {
            true => run,
            false => format!("[ -x {} ] || exit 0; {run}", quote(&self.binary)),
        }
    }
}

/// The words of the command a hook runs, after the guard [`Invocation::hook_command`] puts
/// first when it is there (a hook written without one is read as it is).
pub(crate) fn hook_words(command: &str) -> Vec<String> {
    let words = shell_words(command);
    match words.as_slice() {
        [open, test, _, close, or, exit, zero, rest @ ..]
            if [open, test, close, or, exit, zero].map(String::as_str) == ["[", "-x", "]", "||", "exit", "0;"] =>
        {
            rest.to_vec()
        }
        _ => words,
    }
}

/// Whether a hook's command ends quietly when its binary is gone (see [`hook_words`]).
pub(crate) fn is_guarded(command: &str) -> bool {
    hook_words(command).len() != shell_words(command).len()
}

/// The files `door` touches in `scope` (`project` is the repository's root for a project
/// door), and the MCP settings too with `mcp`.
pub(crate) fn targets(door: Door, scope: Scope, places: &Places, project: &Path, mcp: bool) -> Vec<Target> {
    let user = scope == Scope::User;
    let at = |user_path: PathBuf, project_path: &str| if user { user_path } else { project.join(project_path) };
    let (door_path, door_part) = match door {
        Door::Claude => (at(places.claude.join("settings.json"), ".claude/settings.local.json"), Part::Hook),
        Door::Codex => (at(places.codex.join("hooks.json"), ".codex/hooks.json"), Part::Hook),
        Door::Gemini => (at(places.gemini.join("settings.json"), ".gemini/settings.json"), Part::Hook),
        Door::Pi => (at(places.pi.join("extensions/handbook.ts"), ".pi/extensions/handbook.ts"), Part::Extension),
        Door::Opencode => (at(places.opencode.join("opencode.json"), "opencode.json"), Part::Instructions),
    };
    let mut targets = vec![Target { path: door_path.clone(), part: door_part }];
    let mcp_path = match door {
        Door::Claude => Some(at(places.claude_json.clone(), ".mcp.json")),
        Door::Codex => Some(at(places.codex.join("config.toml"), ".codex/config.toml")),
        Door::Gemini | Door::Opencode => Some(door_path),
        Door::Pi => None,
    };
    if let Some(path) = mcp_path.filter(|_| mcp) {
        targets.push(Target { path, part: Part::Mcp });
    }
    targets
}

/// Why `door` gets no MCP server, when it cannot have one.
pub(crate) fn no_mcp(door: Door) -> Option<&'static str> {
    (door == Door::Pi).then_some("pi has no MCP client; its door is the extension, which needs no server")
}

/// The file door handbook keeps fresh for `door` in `home`: one for the user, one per project.
pub(crate) fn door_file(home: &Path, door: Door, project_key: Option<&str>) -> PathBuf {
    let name = match project_key {
        None => format!("{}.md", door.name()),
        Some(key) => {
            let slug: String = key
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
                .collect::<String>()
                .split('-')
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            let slug: String = slug.chars().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect();
            let hash = blake3::hash(key.as_bytes()).to_hex();
            format!("{}-{}-{}.md", door.name(), slug.trim_matches('-'), &hash[..8])
        }
    };
    home.join("doors").join(name)
}

/// `word` as a POSIX shell word: as it is when nothing in it is special, else single-quoted.
pub(crate) fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The words of a shell command line, for the quoting [`quote`] writes and the usual plain
/// forms (double quotes, backslashes). Variables and other expansions stay as written.
pub(crate) fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|c| *c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// True when `program` names a handbook binary, wherever it is installed.
pub(crate) fn is_handbook(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name == "handbook" || name == "handbook.exe"
}

/// True for a hook command that `integrate` wrote for `door`: a handbook binary running
/// `summary --for <door>`, whatever its path, home or other flags, or any binary doing so
/// behind the guard only `integrate` writes (a handbook installed under another name).
pub(crate) fn is_our_hook(command: &str, door: Door) -> bool {
    let words = hook_words(command);
    let wanted = ["summary", "--for", door.name()];
    let guarded_by_itself = {
        let all = shell_words(command);
        all.len() > 2 && words.first() == all.get(2)
    };
    (words.first().is_some_and(|p| is_handbook(p)) || is_guarded(command) && guarded_by_itself)
        && words.windows(3).any(|w| w == wanted)
}

/// True for the arguments of an MCP server entry `integrate` wrote: `mcp` last, after
/// `--home DIR` at most, whatever the binary is called.
pub(crate) fn runs_mcp(args: &[&str]) -> bool {
    matches!(args, ["mcp"] | ["--home", _, "mcp"])
}

/// The text `target` should hold after `action`, from its text now (`None`: no file).
pub(crate) fn plan(
    target: &Target,
    wanted: &edit::Wanted,
    text: Option<&str>,
    action: Action,
) -> Result<Option<String>, EditError> {
    match (target.part, wanted.door) {
        (Part::Extension, _) => pi::edit_extension(text, wanted.run, action),
        (Part::Mcp, Door::Codex) => codex::edit_mcp(text, wanted.run, action),
        (part, _) => edit::edit_json(part, wanted, text, action),
    }
}

/// True when `text` (the file `target` names) holds handbook's door.
pub(crate) fn has_door(target: &Target, door: Door, text: &str, doors_dir: &str) -> bool {
    let json = || json::Document::parse(text).ok().map(|d| d.root);
    match (target.part, door) {
        (Part::Extension, _) => pi::is_ours(text),
        (Part::Mcp, Door::Codex) => codex::find_mcp(text).is_some(),
        (Part::Mcp, _) => json().is_some_and(|root| edit::find_server(&root, door).is_some()),
        (Part::Hook, _) => json().is_some_and(|root| edit::find_hook(&root, door).is_some()),
        (Part::Instructions, _) => json().is_some_and(|root| edit::find_instruction(&root, doors_dir).is_some()),
    }
}

/// A unified diff from `before` to `after` of the file at `path` (`None`: no file).
pub(crate) fn diff(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    let name = path.display().to_string();
    let (old, new) =
        (before.map_or("/dev/null".to_string(), |_| name.clone()), after.map_or("/dev/null".to_string(), |_| name));
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(&old, &new)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_a_new_file_against_nothing() {
        let text = diff(Path::new("/h/a.json"), None, Some("{}\n"));
        assert_eq!(text, "--- /dev/null\n+++ /h/a.json\n@@ -0,0 +1 @@\n+{}\n");
    }

    #[test]
    fn quoted_words_read_back() {
        for word in ["/usr/bin/handbook", "/home/me/My Tools/handbook", "it's", "", "a\"b", "$HOME"] {
            assert_eq!(shell_words(&quote(word)), vec![word.to_string()], "{word}");
        }
        assert_eq!(shell_words(r#"a "b c" d\ e"#), ["a", "b c", "d e"]);
    }

    #[cfg(unix)]
    #[test]
    fn the_hook_command_is_guarded_and_names_the_home_only_when_it_is_not_the_default() {
        let plain = Invocation { binary: "/bin/handbook".into(), home: None };
        assert_eq!(
            plain.hook_command(Door::Claude),
            "[ -x /bin/handbook ] || exit 0; /bin/handbook summary --for claude --hook"
        );
        let homed = Invocation { binary: "/opt/my tools/handbook".into(), home: Some("/w".into()) };
        let gemini = homed.hook_command(Door::Gemini);
        assert_eq!(
            gemini,
            "[ -x '/opt/my tools/handbook' ] || exit 0; '/opt/my tools/handbook' --home /w summary --for gemini --hook"
        );
        assert!(is_guarded(&gemini) && !is_guarded("/bin/handbook summary --for gemini --hook"));
        assert_eq!(hook_words(&gemini)[0], "/opt/my tools/handbook");
        assert!(is_our_hook(&gemini, Door::Gemini));
        assert!(!is_our_hook(&gemini, Door::Claude));
        assert!(!is_our_hook("/bin/other summary --for gemini --hook", Door::Gemini));
        // A handbook installed under another name, behind the guard integrate writes.
        let renamed = Invocation { binary: "/opt/hb".into(), home: None }.hook_command(Door::Claude);
        assert!(is_our_hook(&renamed, Door::Claude));
        assert!(!is_our_hook("[ -x /bin/a ] || exit 0; /bin/b summary --for claude --hook", Door::Claude));
        assert!(runs_mcp(&["mcp"]) && runs_mcp(&["--home", "/w", "mcp"]) && !runs_mcp(&["serve"]));
        // A hook written before the guard is still handbook's, to replace or remove.
        assert!(is_our_hook("/old/handbook summary --for gemini --hook", Door::Gemini));
    }

    #[test]
    fn project_doors_get_files_of_their_own() {
        let home = Path::new("/w");
        assert_eq!(door_file(home, Door::Opencode, None), Path::new("/w/doors/opencode.md"));
        let a = door_file(home, Door::Opencode, Some("github.com/me/app"));
        let b = door_file(home, Door::Opencode, Some("github.com/me/App"));
        assert_ne!(a, b);
        assert!(a.to_string_lossy().starts_with("/w/doors/opencode-github-com-me-app-"), "{}", a.display());
    }
}
