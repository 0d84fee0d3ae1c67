//! The texts handbook renders around its data (`templates/`), and the `{{ name }}`
//! placeholder filling they use.

/// `summary --prompt`: how an agent should read and cite the handbook.
pub(crate) const READ_PATH: &str = include_str!("../../templates/read_path.md");
/// `summary --for gemini`: the same without an angle bracket, which Gemini CLI would escape.
pub(crate) const READ_PATH_GEMINI: &str = include_str!("../../templates/read_path_gemini.md");
/// Model extraction: the system prompt.
pub(crate) const STAGE_ONE_SYSTEM: &str = include_str!("../../templates/stage_one_system.md");
/// Model extraction: the request around one transcript.
pub(crate) const STAGE_ONE_INPUT: &str = include_str!("../../templates/stage_one_input.md");
/// Model consolidation: the system prompt.
pub(crate) const CONSOLIDATION: &str = include_str!("../../templates/consolidation.md");
/// Model consolidation: the request for one task group.
pub(crate) const CONSOLIDATION_GROUP: &str = include_str!("../../templates/consolidation_group.md");
/// Model consolidation: the request for the summary.
pub(crate) const CONSOLIDATION_SUMMARY: &str = include_str!("../../templates/consolidation_summary.md");

/// Every template, by its file name (the name an override in the configuration directory
/// takes).
pub(crate) const ALL: &[(&str, &str)] = &[
    ("read_path.md", READ_PATH),
    ("read_path_gemini.md", READ_PATH_GEMINI),
    ("stage_one_system.md", STAGE_ONE_SYSTEM),
    ("stage_one_input.md", STAGE_ONE_INPUT),
    ("consolidation.md", CONSOLIDATION),
    ("consolidation_group.md", CONSOLIDATION_GROUP),
    ("consolidation_summary.md", CONSOLIDATION_SUMMARY),
];

/// The embedded template of this file name.
pub(crate) fn embedded(name: &str) -> Option<&'static str> {
    ALL.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Fill `{{ name }}` placeholders. Unknown placeholders are left as they are; values are not
/// scanned again, so a value holding `{{ … }}` stays literal.
pub(crate) fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = after[..end].trim();
        match values.iter().find(|(key, _)| *key == name) {
            Some((_, value)) => out.push_str(value),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn render_example() {
        use crate::core::templates::render;
        assert_eq!(
            render("at {{ home }}: {{ summary }}", &[("home", "/h"), ("summary", "{{ home }}")]),
            "at /h: {{ home }}"
        );
    }
}
