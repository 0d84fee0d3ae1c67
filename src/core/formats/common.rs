//! Helpers shared by the transcript readers: exit codes written as text, patch headers,
//! shell argument vectors, timestamps, and content arrays.

use std::borrow::Cow;

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::value::RawValue;

/// Parse an RFC 3339 timestamp, or `None` when it is missing or malformed.
pub fn parse_time(text: Option<&str>) -> Option<Timestamp> {
    text.and_then(|t| t.trim().parse::<Timestamp>().ok())
}

/// Parse a Unix time in milliseconds.
pub fn time_from_millis(ms: Option<i64>) -> Option<Timestamp> {
    ms.and_then(|ms| Timestamp::from_millisecond(ms).ok())
}

/// Prefixes under which agents write a command's exit status into its output text.
const EXIT_PREFIXES: [&str; 7] = [
    "exit code:",
    "exit code",
    "process exited with code",
    "command exited with code",
    "exited with code",
    "exit status:",
    "exit status",
];

/// The exit status an agent wrote into a tool's output text, such as `Exit code: 1`
/// (Codex), `Process exited with code 2` (Codex unified exec) or `Exit code 1` (Claude).
///
/// Only the first few lines and the last line are looked at: that is where agents put the
/// status, and a test log further down that mentions an exit code must not count.
pub fn exit_code_from_text(output: &str) -> Option<i64> {
    let head = output.lines().take(4);
    let tail = output.lines().next_back();
    head.chain(tail).find_map(exit_code_in_line)
}

fn exit_code_in_line(line: &str) -> Option<i64> {
    let line = line.trim();
    let lower_prefix = line.get(..line.len().min(32))?.to_ascii_lowercase();
    let prefix = EXIT_PREFIXES.iter().find(|p| lower_prefix.starts_with(**p))?;
    let rest = line[prefix.len()..].trim_start();
    let digits: &str = {
        let end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..end]
    };
    let code = digits.parse::<i64>().ok()?;
    // What follows the number must end the sentence, or this is prose that only mentions one.
    let after = rest[digits.len()..].trim_start();
    (after.is_empty() || after.starts_with(['.', ',', ';', ')', '('])).then_some(code)
}

/// Files named by an `apply_patch` envelope (`*** Add File: path` and friends).
pub fn patch_files(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    let mut files = Vec::new();
    for line in patch.lines() {
        if let Some(path) = HEADERS.iter().find_map(|h| line.strip_prefix(h)) {
            let path = path.trim().to_string();
            if !path.is_empty() && !files.contains(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// True when a command line pipes a patch into `apply_patch` (older Codex versions did).
pub fn is_inline_patch(command: &str) -> bool {
    command.contains("*** Begin Patch")
}

/// Turn an argument vector into one command line. `["bash", "-lc", "cargo test"]` becomes
/// `cargo test`; other vectors are joined, quoting the arguments that need it.
pub fn command_from_argv(argv: &[String]) -> String {
    if let [shell, flag, script] = argv {
        let shell = shell.rsplit('/').next().unwrap_or(shell);
        let is_shell = matches!(shell, "bash" | "sh" | "zsh" | "dash" | "fish" | "pwsh");
        if is_shell && (flag == "-lc" || flag == "-c" || flag == "-Command") {
            return script.clone();
        }
    }
    let quoted: Vec<Cow<str>> = argv.iter().map(|a| shell_quote(a)).collect();
    quoted.join(" ")
}

fn shell_quote(arg: &str) -> Cow<'_, str> {
    let plain = !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        Cow::Borrowed(arg)
    } else {
        Cow::Owned(format!("'{}'", arg.replace('\'', r"'\''")))
    }
}

/// One item of a content array, in the union of the shapes the agents write
/// (`{"type":"text","text":…}`, `{"type":"input_text","text":…}`, `{"type":"output_text",…}`).
/// Other item kinds (images, audio, documents) carry no text and are skipped.
#[derive(Deserialize)]
pub struct TextItem<'a> {
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
}

/// Join the text of a JSON value that is either a string or an array of text items.
/// Items are separated by a newline; non-text items are skipped.
///
/// Any other JSON type is an error: a record of the wrong shape is reported, not read as
/// empty.
pub fn text_of(raw: &RawValue) -> Result<Cow<'_, str>, String> {
    let json = raw.get();
    match json.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<Cow<str>>(json).map_err(|e| describe(&e)),
        Some(b'[') => {
            let items: Vec<TextItem> = serde_json::from_str(json).map_err(|e| describe(&e))?;
            Ok(join_texts(items.into_iter().filter_map(|i| i.text)))
        }
        _ if json == "null" => Ok(Cow::Borrowed("")),
        _ => Err(format!(
            "expected text or a list of content items, found {}",
            json_type(json)
        )),
    }
}

/// The JSON type of a raw value, for messages.
fn json_type(json: &str) -> &'static str {
    match json.as_bytes().first() {
        Some(b'{') => "an object",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        Some(b'"') => "a string",
        Some(b'[') => "a list",
        _ => "a number",
    }
}

/// A serde error in words that fit a warning about one transcript line: the position within
/// the line as a column (the line number is the transcript's own).
pub fn describe(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => &text,
    };
    match error.column() {
        0 => message.to_string(),
        column => format!("{message} (column {column})"),
    }
}

/// A reader's error for a record of `what` that did not parse.
pub fn bad(what: &str, error: serde_json::Error) -> String {
    format!("{what}: {}", describe(&error))
}

/// Join text pieces with newlines, borrowing when there is only one.
pub fn join_texts<'a>(mut pieces: impl Iterator<Item = Cow<'a, str>>) -> Cow<'a, str> {
    let Some(first) = pieces.next() else {
        return Cow::Borrowed("");
    };
    match pieces.next() {
        None => first,
        Some(second) => {
            let mut joined = first.into_owned();
            for piece in std::iter::once(second).chain(pieces) {
                joined.push('\n');
                joined.push_str(&piece);
            }
            Cow::Owned(joined)
        }
    }
}

/// A tool's input as compact JSON text, borrowed from the transcript line.
pub fn compact_input(raw: Option<&RawValue>) -> Cow<'_, str> {
    raw.map_or(Cow::Borrowed(""), |r| Cow::Borrowed(r.get()))
}

/// Read the fields that name a shell command or touched files out of a tool's JSON input.
#[derive(Deserialize, Default)]
pub struct ToolInput {
    #[serde(default)]
    pub command: Option<serde_json::Value>,
    #[serde(default)]
    pub cmd: Option<String>,
    #[serde(default)]
    pub file_path: Option<String>,
    #[serde(default)]
    pub notebook_path: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub input: Option<String>,
    #[serde(default)]
    pub patch: Option<String>,
}

impl ToolInput {
    /// Parse a tool input; inputs of another shape read as empty.
    pub fn parse(json: &str) -> ToolInput {
        serde_json::from_str(json).unwrap_or_default()
    }

    /// The shell command this input runs, from `cmd` or `command` (string or argv).
    pub fn shell_command(&self) -> Option<String> {
        if let Some(cmd) = &self.cmd {
            return Some(cmd.clone());
        }
        match &self.command {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Array(items)) => {
                let argv: Vec<String> = items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
                (!argv.is_empty()).then(|| command_from_argv(&argv))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_written_as_text_are_found() {
        assert_eq!(
            exit_code_from_text("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom"),
            Some(1)
        );
        assert_eq!(
            exit_code_from_text("Chunk ID: c1\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\n"),
            Some(2)
        );
        assert_eq!(
            exit_code_from_text("Exit code 127\nbash: foo: command not found"),
            Some(127)
        );
        assert_eq!(exit_code_from_text("running 3 tests\n...\nexit status: 101"), Some(101));
        assert_eq!(exit_code_from_text("all good"), None);
    }

    #[test]
    fn prose_that_mentions_an_exit_code_is_not_a_status() {
        assert_eq!(exit_code_from_text("exit code 3 means the config is missing"), None);
        let log = "line\nline\nline\nline\nexit code 1\nline\nok";
        assert_eq!(exit_code_from_text(log), None);
    }

    #[test]
    fn patch_headers_name_the_files() {
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: b.txt\n+new\n*** Delete File: c.txt\n*** End Patch";
        assert_eq!(patch_files(patch), ["src/a.rs", "b.txt", "c.txt"]);
    }

    #[test]
    fn shell_argv_becomes_a_command_line() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_from_argv(&argv(&["bash", "-lc", "cargo test -q"])),
            "cargo test -q"
        );
        assert_eq!(
            command_from_argv(&argv(&["git", "commit", "-m", "fix it"])),
            "git commit -m 'fix it'"
        );
    }

    #[test]
    fn text_of_reads_strings_and_item_arrays() {
        let raw: Box<RawValue> = serde_json::from_str(
            r#"[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"x"},{"type":"text","text":"b"}]"#,
        )
        .unwrap();
        assert_eq!(text_of(&raw).unwrap(), "a\nb");
        let raw: Box<RawValue> = serde_json::from_str(r#""plain\ntext""#).unwrap();
        assert_eq!(text_of(&raw).unwrap(), "plain\ntext");
        let raw: Box<RawValue> = serde_json::from_str("42").unwrap();
        assert_eq!(
            text_of(&raw).unwrap_err(),
            "expected text or a list of content items, found a number"
        );
    }

    #[test]
    fn serde_errors_speak_of_columns() {
        let err = serde_json::from_str::<serde_json::Value>("{oops").unwrap_err();
        assert_eq!(describe(&err), "key must be a string (column 2)");
    }
}
