//! What an edit of a settings file changed: the setting lines it wrote (`MAILER_DSN=null://null`
//! in `.env.test`, `polars>=1.18,<2` in `pyproject.toml`, `distributionUrl=…gradle-8.9-all.zip`
//! in `gradle-wrapper.properties`), so a fix that edited one says what it set, not only where.
//!
//! The edit is read from the tool's input as the transcript gives it (a JSON object with the
//! old and new text, a patch, a whole file), whatever the agent: the setting lines are found
//! by their shape, and of two values of one setting the later is the new one (new text comes
//! after old text in every edit tool's input, and a patch's removed lines are skipped).

use std::sync::LazyLock;

use regex::Regex;

use crate::core::redact::redact;

/// Setting lines kept from one edit at most.
const MAX_SETTINGS: usize = 3;
/// Longest setting line kept, in bytes; a longer one is a value no one retypes.
const MAX_SETTING: usize = 100;

/// Names and extensions of files that hold settings rather than code.
const SETTINGS_NAMES: &[&str] = &[
    "pyproject.toml",
    "Cargo.toml",
    "package.json",
    "go.mod",
    "Gemfile",
    "Pipfile",
    "requirements.txt",
    "requirements-dev.txt",
    "constraints.txt",
    "setup.cfg",
    "tox.ini",
    "pytest.ini",
    "Makefile",
    "Dockerfile",
    "docker-compose.yml",
    "compose.yaml",
    "compose.yml",
    "gradle.properties",
    "gradle-wrapper.properties",
    "build.gradle",
    "build.gradle.kts",
    "libs.versions.toml",
    "mix.exs",
    "deno.json",
    "tsconfig.json",
    ".npmrc",
    ".nvmrc",
    ".tool-versions",
    ".python-version",
    ".ruby-version",
    "rust-toolchain.toml",
    "global.json",
];
const SETTINGS_EXTENSIONS: &[&str] = &["toml", "ini", "cfg", "conf", "properties", "env", "yaml", "yml"];

/// True when `path` names a file of settings (`.env.test`, `pyproject.toml`, `app.yaml`).
pub(crate) fn is_settings_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let extension = name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase());
    SETTINGS_NAMES.contains(&name)
        || name == ".env"
        || name.starts_with(".env.")
        || extension.is_some_and(|ext| SETTINGS_EXTENSIONS.contains(&ext.as_str()))
}

/// One setting line: `NAME=value`, `key = "value"`, `key: value`, or a pinned requirement
/// (`polars>=1.18,<2`).
static SETTING: LazyLock<Regex> = LazyLock::new(|| {
    crate::core::patterns::regex(concat!(
        r#"^(?:export\s+)?(?P<a>[A-Za-z_][\w.-]*)\s*(?:=|:)\s*"?[^\s"{}\[\],][^"{}\[\]]*"?$"#,
        r#"|^"?(?P<b>[A-Za-z0-9_.-]+)\s*(?:[<>=!~]=|[<>])\s*[\w.*]+(?:\s*,\s*(?:[<>=!~]=|[<>])\s*[\w.*]+)*"?$"#,
    ))
});

/// The settings an edit's `input` wrote, each as its line, the newest value of each setting
/// only, redacted; none when nothing in it has a setting's shape.
pub(crate) fn settings_in(input: &str) -> Vec<String> {
    let mut found: Vec<(String, String)> = Vec::new();
    let texts = texts_of(input);
    for line in texts.iter().flat_map(|text| text.lines()) {
        // A patch's removed line is the old value.
        if line.starts_with('-') {
            continue;
        }
        let line = line.trim().trim_start_matches('+').trim().trim_end_matches(',').trim();
        // A requirement quoted in a TOML list (`"polars>=1.18,<2",`) is the requirement.
        let line =
            line.strip_prefix('"').and_then(|l| l.strip_suffix('"')).filter(|l| !l.contains('"')).unwrap_or(line);
        if line.is_empty() || line.len() > MAX_SETTING {
            continue;
        }
        let Some(caps) = SETTING.captures(line) else { continue };
        let Some(key) = caps.name("a").or_else(|| caps.name("b")).map(|m| m.as_str().to_string()) else { continue };
        let redacted = redact(line).into_owned();
        found.retain(|(k, _)| *k != key);
        if !redacted.contains("[REDACTED:") {
            found.push((key, redacted));
        }
    }
    let start = found.len().saturating_sub(MAX_SETTINGS);
    found.drain(start..).map(|(_, line)| line).collect()
}

/// The texts of a tool's input in the order it gives them: each string of a JSON input
/// (`old_string` before `new_string`, as written, not as a map would sort them), else the
/// input itself.
fn texts_of(input: &str) -> Vec<String> {
    if !input.trim_start().starts_with(['{', '[']) {
        return vec![input.to_string()];
    }
    let mut texts = Vec::new();
    let mut rest = input;
    while let Some(start) = rest.find('"') {
        let body = &rest[start + 1..];
        let mut escaped = false;
        let end = body.char_indices().find(|&(_, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes
        });
        let Some((end, _)) = end else { break };
        if let Ok(text) = serde_json::from_str::<String>(&rest[start..start + end + 2]) {
            texts.push(text);
        }
        rest = &body[end + 1..];
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_files_are_told_from_code() {
        for path in [".env.test", "pyproject.toml", "gradle/wrapper/gradle-wrapper.properties", "config/app.yaml"] {
            assert!(is_settings_file(path), "{path}");
        }
        for path in ["src/app.py", "lib/fee.ex", "README.md", "environment.rs"] {
            assert!(!is_settings_file(path), "{path}");
        }
    }

    #[test]
    fn the_new_value_of_each_setting_is_read_from_any_edit() {
        let claude = r#"{"file_path":".env.test","old_string":"MAILER_DSN=smtp://mailpit:1025","new_string":"MAILER_DSN=null://null"}"#;
        assert_eq!(settings_in(claude), ["MAILER_DSN=null://null"]);
        let patch = "*** Update File: pyproject.toml\n@@\n-    \"polars>=1.0\",\n+    \"polars>=1.18,<2\",\n";
        assert_eq!(settings_in(patch), ["polars>=1.18,<2"]);
        let properties = "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.9-all.zip";
        assert_eq!(settings_in(properties), [properties]);
        // Code, prose and secrets are no settings to tell.
        assert!(settings_in("def f(x):\\n    return x + 1").is_empty());
        assert!(settings_in("DB_PASSWORD=hunter2-very-secret").is_empty());
    }
}
