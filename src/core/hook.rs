//! What an agent tells a SessionStart hook on its stdin: a JSON object with the session's
//! working directory and why it started. Claude Code, Codex and Gemini CLI all send `cwd`, so
//! `summary --hook` can scope to the project without an agent's own environment variable.
//!
//! Nothing here fails: input that is not such an object (torn, binary, of another shape) is
//! read as no input, and each field of the wrong type as absent.

use std::path::PathBuf;

use serde_json::Value;

/// The most of stdin a hook reads; the agents send a few hundred bytes.
pub(crate) const MAX_INPUT: usize = 1 << 20;

/// The fields `summary --hook` uses, each only when the agent sent it as a non-empty string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HookInput {
    /// The session's working directory.
    pub(crate) cwd: Option<String>,
    /// Why the session started: `startup`, `resume`, `clear`, `compact`, `fork`.
    pub(crate) source: Option<String>,
    pub(crate) session_id: Option<String>,
    pub(crate) hook_event_name: Option<String>,
}

impl HookInput {
    /// Read what the agent sent. Unknown fields are ignored; anything else than one JSON
    /// object (or more than [`MAX_INPUT`] bytes of it) is no input.
    pub(crate) fn parse(bytes: &[u8]) -> HookInput {
        if bytes.len() > MAX_INPUT {
            return HookInput::default();
        }
        let Ok(Value::Object(fields)) = serde_json::from_slice::<Value>(bytes) else {
            return HookInput::default();
        };
        let text = |name: &str| match fields.get(name) {
            Some(Value::String(s)) if !s.trim().is_empty() && !s.contains('\0') => Some(s.clone()),
            _ => None,
        };
        HookInput {
            cwd: text("cwd"),
            source: text("source"),
            session_id: text("session_id"),
            hook_event_name: text("hook_event_name"),
        }
    }

    /// What was read, for `summary --hook -v`: `SessionStart (startup) of session 5a1e in
    /// /home/dev/webshop`, or `none` when nothing was.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        parts.extend(self.hook_event_name.clone());
        parts.extend(self.source.as_ref().map(|s| format!("({s})")));
        parts.extend(self.session_id.as_ref().map(|s| format!("of session {s}")));
        parts.extend(self.cwd.as_ref().map(|s| format!("in {s}")));
        if parts.is_empty() { "none".to_string() } else { parts.join(" ") }
    }

    /// Whether `bytes` already hold a whole JSON object, so a reader can stop without waiting
    /// for the end of a stream an agent may keep open.
    pub(crate) fn is_complete(bytes: &[u8]) -> bool {
        bytes.trim_ascii_end().ends_with(b"}") && matches!(serde_json::from_slice::<Value>(bytes), Ok(Value::Object(_)))
    }
}

/// Which projects a summary covers, as the command line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    /// No `--project`: every project, or in hook mode the project of the agent's `cwd`.
    Unset,
    /// `--project ""` (an unset variable, say): every project, even in hook mode.
    Every,
    /// `--project DIR`.
    Project(PathBuf),
}

impl Scope {
    /// Whether the project is left to the hook's input, which is then worth reading.
    pub(crate) fn wants_hook_input(&self, hook: bool) -> bool {
        hook && *self == Scope::Unset
    }

    /// The directory whose project the summary keeps, if any: an explicit one wins, an empty
    /// one means every project, and else the hook's `cwd` (when in hook mode) names it.
    pub(crate) fn project(&self, input: Option<&HookInput>) -> Option<PathBuf> {
        match self {
            Scope::Project(dir) => Some(dir.clone()),
            Scope::Every => None,
            Scope::Unset => input.and_then(|i| i.cwd.as_ref()).map(PathBuf::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_each_agent_sends_are_read_and_the_rest_ignored() {
        let claude = br#"{"session_id":"5a1e-01","transcript_path":"/t.jsonl","cwd":"/home/dev/webshop","hook_event_name":"SessionStart","source":"startup"}"#;
        let input = HookInput::parse(claude);
        assert_eq!(input.cwd.as_deref(), Some("/home/dev/webshop"));
        assert_eq!(input.source.as_deref(), Some("startup"));
        assert_eq!(input.session_id.as_deref(), Some("5a1e-01"));
        assert_eq!(input.hook_event_name.as_deref(), Some("SessionStart"));
        assert_eq!(input.describe(), "SessionStart (startup) of session 5a1e-01 in /home/dev/webshop");
        assert_eq!(HookInput::default().describe(), "none");
        let codex = br#"{"session_id":"019c","cwd":"/w","model":"gpt-5","permission_mode":"default","source":"fork","newer":{"x":[1]}}"#;
        assert_eq!(HookInput::parse(codex).cwd.as_deref(), Some("/w"));
        assert_eq!(HookInput::parse(codex).hook_event_name, None);
    }

    #[test]
    fn bad_input_is_no_input_and_a_bad_field_is_absent() {
        for junk in [
            &b""[..],
            b"   \n",
            b"{\"cwd\":\"/home/dev/web",
            b"not json at all",
            b"\xff\xfe\x00binary",
            b"[\"cwd\", \"/w\"]",
            b"\"/home/dev/webshop\"",
            b"null",
        ] {
            assert_eq!(HookInput::parse(junk), HookInput::default(), "{junk:?}");
        }
        let wrong = br#"{"cwd": 5, "source": ["startup"], "session_id": "", "hook_event_name": "SessionStart"}"#;
        assert_eq!(
            HookInput::parse(wrong),
            HookInput { hook_event_name: Some("SessionStart".into()), ..HookInput::default() }
        );
        assert_eq!(HookInput::parse(br#"{"cwd": "  "}"#).cwd, None);
        assert_eq!(HookInput::parse(br#"{"cwd": "/a\u0000b"}"#).cwd, None, "no path holds a NUL");
        let huge = format!("{{\"cwd\": \"/w\", \"pad\": \"{}\"}}", "x".repeat(MAX_INPUT));
        assert_eq!(HookInput::parse(huge.as_bytes()), HookInput::default());
    }

    #[test]
    fn an_explicit_project_wins_an_empty_one_is_every_project_and_else_the_cwd() {
        let input = HookInput::parse(br#"{"cwd": "/home/dev/webshop"}"#);
        let webshop = Some(PathBuf::from("/home/dev/webshop"));
        assert_eq!(Scope::Unset.project(Some(&input)), webshop);
        assert_eq!(Scope::Unset.project(None), None);
        assert_eq!(Scope::Unset.project(Some(&HookInput::default())), None);
        assert_eq!(Scope::Every.project(Some(&input)), None);
        assert_eq!(Scope::Project("/p".into()).project(Some(&input)), Some(PathBuf::from("/p")));
        assert!(Scope::Unset.wants_hook_input(true));
        assert!(!Scope::Unset.wants_hook_input(false));
        assert!(!Scope::Every.wants_hook_input(true) && !Scope::Project("/p".into()).wants_hook_input(true));
    }

    #[test]
    fn a_whole_object_is_complete_and_a_torn_one_is_not() {
        assert!(HookInput::is_complete(b"{\"cwd\":\"/w\"}\n"));
        assert!(!HookInput::is_complete(b"{\"cwd\":\"/w\""));
        assert!(!HookInput::is_complete(b"{\"cwd\":\"}"));
        assert!(!HookInput::is_complete(b""));
        assert!(!HookInput::is_complete(b"[1]"));
    }
}
