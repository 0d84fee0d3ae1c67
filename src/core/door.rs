//! The agents whose context a summary can reach, the name each goes by on the command line
//! (`integrate <agent>`, `summary --for <agent>`) and in the workspace's records, and what
//! `summary --for` prints for each: its cap, its shape and its wrapper.

use serde::{Deserialize, Serialize};

use crate::core::integrate::quote;
use crate::core::tokens::Cap;

/// Claude Code keeps 10,000 characters of a hook's output and shows the model only a 2 KB
/// preview of anything longer, with no setting to raise it; the margin covers characters a
/// JavaScript string counts twice (emoji and other astral ones).
pub(crate) const CLAUDE_HOOK_CHARS: usize = 9_500;

/// Codex keeps about 2,500 tokens of a hook's output by default (its `additionalContextLimit`
/// raises that) and cuts the middle out of anything longer.
pub(crate) const CODEX_HOOK_TOKENS: usize = 2_500;

/// Codex counts a token per four bytes of output, coarser than the o200k estimate on prose, so
/// its profile also caps characters: 3.8 per token keeps Codex's own count 5% under the cap.
const CODEX_CHARS_PER_TEN_TOKENS: usize = 38;

/// How the summary is printed for an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A SessionStart hook's JSON, and hook mode: read the hook's stdin, never fail.
    HookJson,
    /// The text itself, for a file an agent reads or an extension's output.
    Text,
}

/// Which wrapper template frames the summary under `--prompt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrapper {
    /// `read_path.md`: the citation block in angle-bracket tags.
    Tags,
    /// `read_path_gemini.md`: no angle bracket anywhere, since Gemini CLI HTML-escapes them in
    /// hook context; the citation block is the bracketed form `extract` also reads.
    Brackets,
}

impl Wrapper {
    /// The template's file name, embedded and overridable in the configuration directory.
    pub(crate) fn template(self) -> &'static str {
        match self {
            Wrapper::Tags => "read_path.md",
            Wrapper::Brackets => "read_path_gemini.md",
        }
    }
}

/// An agent CLI with a door for the summary: a hook, an instructions file or an extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Door {
    /// Claude Code: a SessionStart hook in `settings.json`.
    Claude,
    /// OpenAI Codex CLI: a SessionStart hook, run only once the user trusts it.
    Codex,
    /// Gemini CLI: a SessionStart hook in `settings.json`.
    Gemini,
    /// pi coding agent: an extension that runs the summary at session start.
    Pi,
    /// opencode: an `instructions` entry naming a file the handbook keeps fresh.
    Opencode,
}

impl Door {
    /// Every door, in the order `integrate` lists them.
    pub(crate) const ALL: [Door; 5] = [Door::Claude, Door::Codex, Door::Gemini, Door::Pi, Door::Opencode];

    /// The lower-case name used in flags, files and output.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Door::Claude => "claude",
            Door::Codex => "codex",
            Door::Gemini => "gemini",
            Door::Pi => "pi",
            Door::Opencode => "opencode",
        }
    }

    /// The door named `name`, as [`Door::name`] spells it.
    pub(crate) fn from_name(name: &str) -> Option<Door> {
        Door::ALL.into_iter().find(|door| door.name() == name)
    }

    /// How the summary reaches this agent: a SessionStart hook (Claude Code, Codex, Gemini
    /// CLI) or a text an extension or an instructions entry picks up (pi, opencode).
    pub(crate) fn shape(self) -> Shape {
        match self {
            Door::Claude | Door::Codex | Door::Gemini => Shape::HookJson,
            Door::Pi | Door::Opencode => Shape::Text,
        }
    }

    /// The wrapper this agent can read as written.
    pub(crate) fn wrapper(self) -> Wrapper {
        match self {
            Door::Gemini => Wrapper::Brackets,
            _ => Wrapper::Tags,
        }
    }

    /// Whether the summary's `<` and `>` are written as HTML entities for this agent: Gemini
    /// CLI escapes them in a hook's context (see [`crate::core::escape::html_entities`]), so
    /// written that way already they reach the model as printed.
    pub(crate) fn writes_entities(self) -> bool {
        self == Door::Gemini
    }

    /// The cap for this agent, from the caps `asked` for on the command line and the
    /// configured token cap. The agent's own limit holds unless a lower cap was asked for;
    /// Codex's is only a default, since `additionalContextLimit` raises it: an explicit token
    /// cap replaces it, and the character cap follows the token cap.
    pub(crate) fn cap(self, asked: Cap, configured_tokens: usize) -> Cap {
        let tokens = asked.tokens.unwrap_or(configured_tokens);
        match self {
            Door::Claude => Cap { tokens: Some(tokens), chars: Some(lowest(asked.chars, CLAUDE_HOOK_CHARS)) },
            Door::Codex => {
                let tokens = asked.tokens.unwrap_or(configured_tokens.min(CODEX_HOOK_TOKENS));
                let chars = tokens.saturating_mul(CODEX_CHARS_PER_TEN_TOKENS) / 10;
                Cap { tokens: Some(tokens), chars: Some(lowest(asked.chars, chars)) }
            }
            Door::Gemini | Door::Pi | Door::Opencode => Cap { tokens: Some(tokens), chars: asked.chars },
        }
    }
}

/// The cap without an agent: the one asked for, the configured token cap by default.
pub(crate) fn plain_cap(asked: Cap, configured_tokens: usize) -> Cap {
    Cap { tokens: Some(asked.tokens.unwrap_or(configured_tokens)), chars: asked.chars }
}

/// How `summary` was asked to print, in the terms of its flags (caps as asked, before an
/// agent's limit or the configured cap applies). A file `summary --output` wrote is recorded
/// with it, so a later run writes the file again the same way, under the caps then in effect.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Printing {
    /// `--for AGENT`.
    #[serde(rename = "for", skip_serializing_if = "Option::is_none")]
    pub(crate) door: Option<Door>,
    /// The wrapper is on: `--prompt`, or `--for` without `--no-prompt`.
    pub(crate) prompt: bool,
    /// Hook mode: SessionStart JSON (`--hook`, or `--for` a hook agent).
    pub(crate) hook: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_tokens: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_chars: Option<usize>,
}

impl Printing {
    /// What `summary --for door` prints, with no cap asked for.
    pub(crate) fn for_door(door: Door) -> Printing {
        Printing { door: Some(door), prompt: true, hook: door.shape() == Shape::HookJson, ..Printing::default() }
    }

    /// The cap everything printed must fit, from the configured token cap.
    pub(crate) fn cap(&self, configured_tokens: usize) -> Cap {
        let asked = Cap { tokens: self.max_tokens, chars: self.max_chars };
        match self.door {
            Some(door) => door.cap(asked, configured_tokens),
            None => plain_cap(asked, configured_tokens),
        }
    }

    /// The wrapper around the summary, when there is one: the agent's, else the tagged one.
    pub(crate) fn wrapper(&self) -> Option<Wrapper> {
        self.prompt.then(|| self.door.map_or(Wrapper::Tags, Door::wrapper))
    }

    /// Whether `<` and `>` are written as entities (see [`Door::writes_entities`]).
    pub(crate) fn entities(&self) -> bool {
        self.door.is_some_and(Door::writes_entities)
    }

    /// The `summary` flags that print this way again, as command-line words.
    pub(crate) fn flags(&self) -> Vec<String> {
        let mut words = Vec::new();
        match self.door {
            Some(door) => {
                words.extend(["--for".to_string(), door.name().to_string()]);
                if !self.prompt {
                    words.push("--no-prompt".to_string());
                }
                if self.hook && door.shape() != Shape::HookJson {
                    words.push("--hook".to_string());
                }
            }
            None => {
                words.extend(self.prompt.then(|| "--prompt".to_string()));
                words.extend(self.hook.then(|| "--hook".to_string()));
            }
        }
        words.extend(self.max_tokens.iter().flat_map(|n| ["--max-tokens".to_string(), n.to_string()]));
        words.extend(self.max_chars.iter().flat_map(|n| ["--max-chars".to_string(), n.to_string()]));
        words
    }

    /// The command line that writes `path` this way again, for the project of `project_dir`.
    pub(crate) fn command(&self, project_dir: Option<&str>, path: &str) -> String {
        let mut words = vec!["handbook".to_string(), "summary".to_string()];
        words.extend(self.flags());
        words.extend(project_dir.iter().flat_map(|dir| ["--project".to_string(), dir.to_string()]));
        words.extend(["--output".to_string(), path.to_string()]);
        words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }
}

fn lowest(asked: Option<usize>, limit: usize) -> usize {
    asked.map_or(limit, |asked| asked.min(limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_door_reads_back_from_its_name() {
        for door in Door::ALL {
            assert_eq!(Door::from_name(door.name()), Some(door));
        }
        assert_eq!(Door::from_name("generic"), None);
        assert_eq!(Door::from_name("Claude"), None, "names are lower-case, as printed");
    }

    #[test]
    fn hook_agents_get_hook_json_and_gemini_the_bracket_wrapper() {
        let hooks: Vec<Door> = Door::ALL.into_iter().filter(|d| d.shape() == Shape::HookJson).collect();
        assert_eq!(hooks, [Door::Claude, Door::Codex, Door::Gemini]);
        assert_eq!(Door::Pi.shape(), Shape::Text);
        assert_eq!(Door::Opencode.shape(), Shape::Text);
        let brackets: Vec<Door> = Door::ALL.into_iter().filter(|d| d.wrapper() == Wrapper::Brackets).collect();
        assert_eq!(brackets, [Door::Gemini]);
        assert_eq!(Door::Gemini.wrapper().template(), "read_path_gemini.md");
        assert_eq!(Door::Claude.wrapper().template(), "read_path.md");
    }

    #[test]
    fn every_wrapper_is_embedded_and_gemini_s_has_no_angle_bracket() {
        for door in Door::ALL {
            let template = crate::core::templates::embedded(door.wrapper().template());
            assert!(template.is_some_and(|t| t.contains("{{ summary }}") && t.contains("{{ home }}")), "{door:?}");
        }
        let gemini = crate::core::templates::embedded(Wrapper::Brackets.template()).unwrap_or_default();
        assert!(!gemini.contains('<') && !gemini.contains('>'), "Gemini CLI escapes these: {gemini}");
        // The block it asks for, filled in as a model would, reads back.
        let start = gemini.find("[handbook-citation]").unwrap_or(gemini.len());
        let reply = gemini[start..].replace("the session_id of each entry you used, one per line", "s-0001\ns-0002");
        assert_eq!(crate::core::citations::cited_sessions(&reply), ["s-0001", "s-0002"]);
        // And so does the tagged one.
        let tags = crate::core::templates::embedded(Wrapper::Tags.template()).unwrap_or_default();
        let start = tags.find("<handbook-citation>").unwrap_or(tags.len());
        let reply = tags[start..].replace("<session_id of each entry you used, one per line>", "s-0003");
        assert_eq!(crate::core::citations::cited_sessions(&reply), ["s-0003"]);
    }

    #[test]
    fn each_agent_s_limit_holds_unless_a_lower_cap_is_asked_for() {
        let none = Cap::default();
        let asked = |tokens, chars| Cap { tokens, chars };
        // Claude: 9,500 characters whatever is asked, lower if asked; tokens as configured.
        assert_eq!(Door::Claude.cap(none, 2500), asked(Some(2500), Some(9500)));
        assert_eq!(Door::Claude.cap(asked(None, Some(20_000)), 2500), asked(Some(2500), Some(9500)));
        assert_eq!(Door::Claude.cap(asked(Some(800), Some(3000)), 2500), asked(Some(800), Some(3000)));
        assert_eq!(Door::Claude.cap(none, 6000), asked(Some(6000), Some(9500)));
        // Codex: 2,500 tokens by default, even over a larger configured cap; an explicit cap
        // (after raising additionalContextLimit) replaces it, and the characters follow.
        assert_eq!(Door::Codex.cap(none, 2500), asked(Some(2500), Some(9500)));
        assert_eq!(Door::Codex.cap(none, 6000), asked(Some(2500), Some(9500)));
        assert_eq!(Door::Codex.cap(none, 1000), asked(Some(1000), Some(3800)));
        assert_eq!(Door::Codex.cap(asked(Some(4000), None), 2500), asked(Some(4000), Some(15_200)));
        assert_eq!(Door::Codex.cap(asked(None, Some(2000)), 2500), asked(Some(2500), Some(2000)));
        // The others: nothing beyond the configured cap and what is asked.
        for door in [Door::Gemini, Door::Pi, Door::Opencode] {
            assert_eq!(door.cap(none, 2500), asked(Some(2500), None), "{door:?}");
            assert_eq!(door.cap(asked(Some(9000), Some(40_000)), 2500), asked(Some(9000), Some(40_000)), "{door:?}");
        }
        assert_eq!(plain_cap(none, 2500), asked(Some(2500), None));
        assert_eq!(plain_cap(asked(Some(10), Some(20)), 2500), asked(Some(10), Some(20)));
    }

    #[test]
    fn gemini_alone_gets_entities() {
        let entities: Vec<Door> = Door::ALL.into_iter().filter(|d| d.writes_entities()).collect();
        assert_eq!(entities, [Door::Gemini]);
        assert!(Printing::for_door(Door::Gemini).entities());
        assert!(!Printing { prompt: true, ..Printing::default() }.entities());
    }

    #[test]
    fn a_printing_gives_its_caps_and_wrapper_and_the_flags_that_print_it_again() {
        let pi = Printing { max_tokens: Some(800), ..Printing::for_door(Door::Pi) };
        assert_eq!(pi.cap(2500), Cap { tokens: Some(800), chars: None });
        assert_eq!(pi.wrapper(), Some(Wrapper::Tags));
        assert_eq!(pi.flags(), ["--for", "pi", "--max-tokens", "800"]);
        let claude = Printing::for_door(Door::Claude);
        assert!(claude.hook);
        assert_eq!(claude.cap(2500), Cap { tokens: Some(2500), chars: Some(CLAUDE_HOOK_CHARS) });
        assert_eq!(claude.flags(), ["--for", "claude"]);
        let bare = Printing { prompt: false, ..Printing::for_door(Door::Gemini) };
        assert_eq!((bare.wrapper(), bare.flags()), (None, vec!["--for".into(), "gemini".into(), "--no-prompt".into()]));
        let plain = Printing { prompt: true, hook: true, max_chars: Some(900), ..Printing::default() };
        assert_eq!(plain.cap(2500), Cap { tokens: Some(2500), chars: Some(900) });
        assert_eq!(plain.flags(), ["--prompt", "--hook", "--max-chars", "900"]);
        assert_eq!(Printing::default().flags(), Vec::<String>::new());
        assert_eq!(
            pi.command(Some("/home/me/my app"), "/home/me/.config/summary.md"),
            "handbook summary --for pi --max-tokens 800 --project '/home/me/my app' --output /home/me/.config/summary.md"
        );
        // As recorded with a file `--output` wrote.
        let json = serde_json::to_string(&pi).unwrap();
        assert_eq!(json, r#"{"for":"pi","prompt":true,"hook":false,"max_tokens":800}"#);
        assert_eq!(serde_json::from_str::<Printing>(&json).unwrap(), pi);
    }

    #[test]
    fn the_serialised_name_is_the_printed_name() {
        for door in Door::ALL {
            assert_eq!(serde_json::to_string(&door).ok(), Some(format!("\"{}\"", door.name())));
        }
    }
}
