//! Helpers shared by the transcript readers: exit codes written as text, patch headers,
//! shell argument vectors, timestamps, and content arrays.

use std::borrow::Cow;

use jiff::Timestamp;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// Parse an RFC 3339 timestamp, or `None` when it is missing or malformed.
pub(crate) fn parse_time(text: Option<&str>) -> Option<Timestamp> {
    text.and_then(|t| t.trim().parse::<Timestamp>().ok())
}

/// Parse a Unix time in milliseconds.
pub(crate) fn time_from_millis(ms: Option<i64>) -> Option<Timestamp> {
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

/// How agents word a tool call the user stopped before it finished: Claude Code's refusal
/// and interruption, Gemini CLI's cancellation, opencode's abort. Only at the start of the
/// output, where the agent writes it; a command that prints the words further on ran.
const STOPPED_OPENINGS: &[&str] = &[
    "The user doesn't want to proceed with this tool use",
    "[Request interrupted by user",
    "Command was cancelled by user",
    "Tool execution aborted",
];

/// True when `output` says the user stopped the call (see [`STOPPED_OPENINGS`]).
pub(crate) fn stopped_by_user(output: &str) -> bool {
    let start = output.trim_start();
    STOPPED_OPENINGS.iter().any(|opening| start.starts_with(opening))
}

/// The exit status an agent wrote into a tool's output text, such as `Exit code: 1`
/// (Codex), `Process exited with code 2` (Codex unified exec) or `Exit code 1` (Claude).
///
/// Only the first few lines and the last line are looked at: that is where agents put the
/// status, and a test log further down that mentions an exit code must not count.
pub(crate) fn exit_code_from_text(output: &str) -> Option<i64> {
    let head = output.lines().take(4);
    let tail = output.lines().next_back();
    head.chain(tail).find_map(exit_code_in_line)
}

fn exit_code_in_line(line: &str) -> Option<i64> {
    let line = line.trim();
    let prefix = EXIT_PREFIXES.iter().find(|p| line.get(..p.len()).is_some_and(|head| head.eq_ignore_ascii_case(p)))?;
    let rest = line[prefix.len()..].trim_start();
    let digits: &str = {
        let end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..end]
    };
    let code = digits.parse::<i64>().ok()?;
    // Words after the number make this prose that only mentions an exit code.
    let after = rest[digits.len()..].trim_start();
    (!after.starts_with(char::is_alphanumeric)).then_some(code)
}

/// Files named by an `apply_patch` envelope (`*** Add File: path` and friends).
pub(crate) fn patch_files(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "];
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
pub(crate) fn is_inline_patch(command: &str) -> bool {
    command.contains("*** Begin Patch")
}

/// Turn an argument vector into one command line. `["bash", "-lc", "cargo test"]` becomes
/// `cargo test`; other vectors are joined, quoting the arguments that need it.
pub(crate) fn command_from_argv(argv: &[String]) -> String {
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
    let plain = !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain { Cow::Borrowed(arg) } else { Cow::Owned(format!("'{}'", arg.replace('\'', r"'\''"))) }
}

/// Text that agents write either as a string or as a list of content items
/// (`{"type":"text","text":…}`, `input_text`, `output_text`), read in one pass: items without
/// text (images, audio) are skipped and the rest joined by newlines. Borrows from the line
/// when it can. Any other JSON type is an error, so a record of the wrong shape is reported
/// rather than read as empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Text<'a>(pub Cow<'a, str>);

impl<'a> Text<'a> {
    pub(crate) fn into_cow(self) -> Cow<'a, str> {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Text<'a>, D::Error> {
        deserializer.deserialize_any(TextVisitor(PhantomData))
    }
}

struct TextVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
    type Value = Text<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("text or a list of content items")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'a>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'a>, E> {
        Ok(Text(Cow::Owned(v.to_string())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Text<'a>, E> {
        Ok(Text(Cow::Owned(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Text<'a>, E> {
        Ok(Text::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Text<'a>, A::Error> {
        let mut pieces = Vec::new();
        while let Some(item) = seq.next_element::<TextItem<'de>>()? {
            pieces.extend(item.text);
        }
        Ok(Text(join_texts(pieces.into_iter())))
    }
}

/// Like [`Text`], for fields whose shape varies by tool (tool results, tool inputs): an object
/// or a number there reads as nothing (or its value) instead of failing the whole record, so a
/// server tool's structured result cannot take the shell call beside it down with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LooseText<'a>(pub Cow<'a, str>);

impl<'a> LooseText<'a> {
    pub(crate) fn into_cow(self) -> Cow<'a, str> {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LooseText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LooseText<'a>, D::Error> {
        deserializer.deserialize_any(LooseVisitor(PhantomData))
    }
}

/// Reads text the way [`TextVisitor`] does, and anything else as nothing, in one pass.
struct LooseVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LooseVisitor<'a> {
    type Value = LooseText<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Owned(v.to_string())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Owned(v)))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Owned(v.to_string())))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Owned(v.to_string())))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Owned(v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<LooseText<'a>, E> {
        Ok(LooseText(Cow::Owned(v.to_string())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<LooseText<'a>, E> {
        Ok(LooseText::default())
    }

    /// An object: its `text` field if it has one (a content item), else nothing.
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<LooseText<'a>, A::Error> {
        let mut text = LooseText::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "text" {
                text = map.next_value::<LooseText<'de>>()?;
            } else {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
        Ok(text)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LooseText<'a>, A::Error> {
        let mut pieces = Vec::new();
        while let Some(item) = seq.next_element::<LooseText<'de>>()? {
            if !item.0.is_empty() {
                pieces.push(item.0);
            }
        }
        Ok(LooseText(join_texts(pieces.into_iter())))
    }
}

/// One item of a content list; only its text matters.
#[derive(Deserialize)]
struct TextItem<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

/// A serde error in words that fit a warning about one transcript line: the position within
/// the line as a column (the line number is the transcript's own).
pub(crate) fn describe(error: &serde_json::Error) -> String {
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

/// Join text pieces with newlines, borrowing when there is only one.
pub(crate) fn join_texts<'a>(mut pieces: impl Iterator<Item = Cow<'a, str>>) -> Cow<'a, str> {
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
pub(crate) fn compact_input(raw: Option<&RawValue>) -> Cow<'_, str> {
    raw.map_or(Cow::Borrowed(""), |r| Cow::Borrowed(r.get()))
}

/// Read the fields that name a shell command or touched files out of a tool's JSON input.
#[derive(Deserialize, Default)]
pub(crate) struct ToolInput {
    #[serde(default)]
    pub(crate) command: Option<serde_json::Value>,
    #[serde(default)]
    pub(crate) cmd: Option<String>,
    #[serde(default)]
    pub(crate) file_path: Option<String>,
    #[serde(default)]
    pub(crate) notebook_path: Option<String>,
    #[serde(default)]
    pub(crate) input: Option<String>,
    #[serde(default)]
    pub(crate) patch: Option<String>,
}

impl ToolInput {
    /// Parse a tool input; inputs of another shape read as empty.
    pub(crate) fn parse(json: &str) -> ToolInput {
        serde_json::from_str(json).unwrap_or_default()
    }

    /// The shell command this input runs, from `cmd` or `command` (string or argv).
    pub(crate) fn shell_command(&self) -> Option<String> {
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
    fn a_call_is_stopped_by_what_the_agent_wrote_first() {
        assert!(stopped_by_user("The user doesn't want to proceed with this tool use. The tool use was rejected."));
        assert!(stopped_by_user("[Request interrupted by user for tool use]"));
        assert!(stopped_by_user("\nCommand was cancelled by user before it could complete.\nDownloading"));
        assert!(stopped_by_user("Tool execution aborted"));
        assert!(!stopped_by_user("grep: src/x.rs: Command was cancelled by user"));
        assert!(!stopped_by_user("error: build failed"));
    }

    #[test]
    fn exit_codes_written_as_text_are_found() {
        assert_eq!(exit_code_from_text("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom"), Some(1));
        assert_eq!(
            exit_code_from_text("Chunk ID: c1\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\n"),
            Some(2)
        );
        assert_eq!(exit_code_from_text("Exit code 127\nbash: foo: command not found"), Some(127));
        assert_eq!(exit_code_from_text("running 3 tests\n...\nexit status: 101"), Some(101));
        assert_eq!(exit_code_from_text("all good"), None);
        assert_eq!(exit_code_from_text("Exit code 2 — échec de la compilation"), Some(2));
        assert_eq!(exit_code_from_text("ééééééééééééééééé"), None);
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
        assert_eq!(command_from_argv(&argv(&["bash", "-lc", "cargo test -q"])), "cargo test -q");
        assert_eq!(command_from_argv(&argv(&["git", "commit", "-m", "fix it"])), "git commit -m 'fix it'");
    }

    #[test]
    fn text_reads_strings_and_item_lists_in_one_pass() {
        let read = |json: &'static str| serde_json::from_str::<Text>(json).map(|t| t.0.into_owned());
        let items =
            r#"[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"x"},{"type":"text","text":"b"}]"#;
        assert_eq!(read(items).unwrap(), "a\nb");
        assert_eq!(read(r#""plain\ntext""#).unwrap(), "plain\ntext");
        assert_eq!(read("null").unwrap(), "");
        let err = read("42").unwrap_err();
        assert_eq!(describe(&err), "invalid type: integer `42`, expected text or a list of content items (column 2)");
        let borrowed: Text = serde_json::from_str(r#""no escapes""#).unwrap();
        assert!(matches!(borrowed.0, Cow::Borrowed(_)));
        let loose: LooseText = serde_json::from_str(r#"{"type":"web_search_result","url":"u"}"#).unwrap();
        assert_eq!(loose.0, "");
        let loose: LooseText = serde_json::from_str(r#"[{"type":"image"},"raw",{"type":"text","text":"b"}]"#).unwrap();
        assert_eq!(loose.0, "raw\nb");
        let loose: LooseText = serde_json::from_str(r#"[{"type":"text","text":"a"}]"#).unwrap();
        assert_eq!(loose.0, "a");
    }

    #[test]
    fn serde_errors_speak_of_columns() {
        let err = serde_json::from_str::<serde_json::Value>("{oops").unwrap_err();
        assert_eq!(describe(&err), "key must be a string (column 2)");
    }
}
