//! pi's door: an extension file, rendered from `templates/pi-extension.ts`, that runs the
//! summary at session start and appends it to the system prompt before each turn.

use super::{Action, EditError, Invocation};
use crate::core::door::Door;
use crate::core::templates::render;

/// The extension's template.
pub(crate) const TEMPLATE: &str = include_str!("../../../templates/pi-extension.ts");

/// The line that marks an extension file as handbook's own.
const MARK: &str = "Written by `handbook integrate pi`";

/// The extension that runs `run`'s handbook.
pub(crate) fn extension(run: &Invocation) -> String {
    // JSON strings are JavaScript strings: any path reads back exactly.
    let binary = serde_json::Value::String(run.binary.clone()).to_string();
    let args = serde_json::Value::from(run.args(&["summary", "--for", Door::Pi.name()])).to_string();
    render(TEMPLATE, &[("binary", &binary), ("args", &args)])
}

/// True for an extension file handbook wrote.
pub(crate) fn is_ours(text: &str) -> bool {
    text.contains(MARK)
}

/// The handbook binary an extension file of handbook's runs.
pub(crate) fn program(text: &str) -> Option<String> {
    let line = text.lines().find_map(|l| l.trim().strip_prefix("const HANDBOOK: string = "))?;
    serde_json::from_str(line.trim_end_matches(';')).ok()
}

/// The extension file's text after `action`; `None`: no file. A file of the same name that
/// handbook did not write is never replaced or removed.
pub(crate) fn edit_extension(
    text: Option<&str>,
    run: &Invocation,
    action: Action,
) -> Result<Option<String>, EditError> {
    if text.is_some_and(|t| !is_ours(t)) {
        return Err(EditError::Shape(
            "this extension was not written by handbook; move it aside (or rename it), then run again".into(),
        ));
    }
    Ok(match action {
        Action::Add => Some(extension(run)),
        Action::Remove => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_binary_and_home_and_reads_them_back() {
        let run = Invocation { binary: "/opt/my \"tools\"/handbook".into(), home: Some("/w".into()) };
        let text = extension(&run);
        assert!(is_ours(&text));
        assert_eq!(program(&text).as_deref(), Some("/opt/my \"tools\"/handbook"));
        assert!(text.contains(r#"const ARGS: string[] = ["--home","/w","summary","--for","pi"];"#), "{text}");
        assert!(!text.contains("{{"), "{text}");
        assert!(text.contains("before_agent_start") && text.contains("session_start"));
    }

    #[test]
    fn a_system_prompt_given_as_sections_stays_a_list() {
        // Oh My Pi hands `before_agent_start` the prompt as a list of sections; a template
        // string would join them with commas.
        let text = extension(&Invocation { binary: "/bin/handbook".into(), home: None });
        assert!(text.contains("Array.isArray(prompt) ? [...prompt, summary]"), "{text}");
        assert!(!text.contains("`${event.systemPrompt}"), "{text}");
    }

    #[test]
    fn someone_else_s_extension_is_left_alone() {
        let run = Invocation { binary: "/bin/handbook".into(), home: None };
        assert!(edit_extension(Some("export default () => {}"), &run, Action::Add).is_err());
        assert!(edit_extension(Some("export default () => {}"), &run, Action::Remove).is_err());
        let ours = extension(&run);
        assert_eq!(edit_extension(Some(&ours), &run, Action::Remove).unwrap(), None);
        assert_eq!(edit_extension(None, &run, Action::Add).unwrap(), Some(ours));
    }
}
