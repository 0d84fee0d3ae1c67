//! The agents whose context a summary can reach, and the name each goes by on the command
//! line (`integrate <agent>`, `summary --for <agent>`) and in the workspace's records.

use serde::{Deserialize, Serialize};

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
    fn the_serialised_name_is_the_printed_name() {
        for door in Door::ALL {
            assert_eq!(serde_json::to_string(&door).ok(), Some(format!("\"{}\"", door.name())));
        }
    }
}
