//! The texts handbook renders around its data (`templates/`), and the `{{ name }}`
//! placeholder filling they use.

/// `summary --prompt`: how an agent should read and cite the handbook.
pub const READ_PATH: &str = include_str!("../../templates/read_path.md");

/// Fill `{{ name }}` placeholders. Unknown placeholders are left as they are; values are not
/// scanned again, so a value holding `{{ … }}` stays literal.
///
/// ```
/// use handbook::core::templates::render;
/// assert_eq!(render("at {{ home }}: {{ summary }}", &[("home", "/h"), ("summary", "{{ home }}")]), "at /h: {{ home }}");
/// ```
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
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
