//! Reading a model's answer: finding the JSON object in a reply, and [`AnswerError`], which
//! says what was wrong with one that does not follow the contract.

use std::fmt;

use serde_json::Value;

/// Why an answer was not what was asked. The message says what the model wrote instead;
/// the caller adds which request it answered.
#[derive(Debug)]
pub(crate) enum AnswerError {
    /// The reply is blank.
    Empty,
    /// Nothing in the reply parses as a JSON object; `begins` is how the reply starts.
    NoObject { begins: String },
    /// The reply is JSON, but a list, string or number rather than an object.
    NotAnObject,
    /// The reply's `{…}` is not valid JSON, even with raw line breaks in strings forgiven.
    BadJson(serde_json::Error),
    /// The object lacks a field the answer must have.
    MissingField(&'static str),
    /// A field holds the wrong kind of value: `found` is what it holds (`a number`).
    WrongType { field: &'static str, expected: &'static str, found: &'static str },
}

impl AnswerError {
    /// The error for `field`, which should hold `expected` (`a string`) but holds `value`.
    pub(crate) fn wrong_type(field: &'static str, value: &Value, expected: &'static str) -> AnswerError {
        AnswerError::WrongType { field, expected, found: kind_of(value) }
    }
}

/// The JSON error is quoted in the message, where the reason an answer failed is read in one
/// line (`sources.json`, the terminal), as well as given as the
/// [`source`](std::error::Error::source).
impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerError::Empty => f.write_str("the answer is empty"),
            AnswerError::NoObject { begins } => write!(f, "the answer holds no JSON object (it begins {begins:?})"),
            AnswerError::NotAnObject => f.write_str("the answer is JSON but not an object"),
            AnswerError::BadJson(error) => write!(f, "the answer's JSON does not parse ({error})"),
            AnswerError::MissingField(field) => write!(f, "the answer has no `{field}`"),
            AnswerError::WrongType { field, expected, found } => write!(f, "`{field}` is {found}, not {expected}"),
        }
    }
}

impl std::error::Error for AnswerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AnswerError::BadJson(error) => Some(error),
            _ => None,
        }
    }
}

/// The first JSON object in a reply: the whole reply when it is one, else the first
/// balanced `{…}` that parses (models wrap JSON in prose and code fences). Raw line breaks and
/// tabs inside strings, which small models often write, are read as their escapes.
pub(crate) fn json_object(reply: &str) -> Result<serde_json::Map<String, Value>, AnswerError> {
    let parse = |text: &str| -> Result<serde_json::Map<String, Value>, AnswerError> {
        let first = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => return Ok(map),
            Ok(_) => return Err(AnswerError::NotAnObject),
            Err(e) => e,
        };
        match serde_json::from_str::<Value>(&escape_controls_in_strings(text)) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(AnswerError::BadJson(first)),
        }
    };
    if let Ok(map) = parse(reply.trim()) {
        return Ok(map);
    }
    let mut error = None;
    let mut from = 0;
    while let Some(offset) = reply[from..].find('{') {
        let start = from + offset;
        if let Some(end) = balanced_end(&reply[start..]) {
            match parse(&reply[start..start + end]) {
                Ok(map) => return Ok(map),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        from = start + 1;
    }
    Err(match error {
        _ if reply.trim().is_empty() => AnswerError::Empty,
        Some(error) => error,
        None => AnswerError::NoObject { begins: reply.trim().chars().take(120).collect() },
    })
}

/// Whether the first `{` of a reply opens an object that also closes: false for an answer
/// cut off mid-object, even when a `{…}` quoted inside one of its strings is whole.
pub(crate) fn opens_with_complete_object(reply: &str) -> bool {
    reply.find('{').is_some_and(|start| balanced_end(&reply[start..]).is_some())
}

/// Where a JSON text's string literals are, one character at a time.
#[derive(Default)]
struct Strings {
    in_string: bool,
    escaped: bool,
}

impl Strings {
    /// True when `c`, the next character, is inside a string literal: after its opening
    /// quote and before (or at) its closing one.
    fn inside(&mut self, c: char) -> bool {
        if !self.in_string {
            self.in_string = c == '"';
            return false;
        }
        match c {
            _ if self.escaped => self.escaped = false,
            '\\' => self.escaped = true,
            '"' => self.in_string = false,
            _ => {}
        }
        true
    }
}

/// Control characters inside JSON strings written as their escapes.
fn escape_controls_in_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut strings = Strings::default();
    for c in text.chars() {
        let escaped = strings.escaped;
        if strings.inside(c) && !escaped && c.is_control() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                other => out.push_str(&format!("\\u{:04x}", other as u32)),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The length of the balanced `{…}` at the start of `text`, minding strings and escapes.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut strings = Strings::default();
    for (i, c) in text.char_indices() {
        if strings.inside(c) {
            continue;
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_errors_say_what_the_model_wrote_instead() {
        let cases = [
            (AnswerError::Empty, "the answer is empty"),
            (
                AnswerError::NoObject { begins: "Sorry, I".to_string() },
                "the answer holds no JSON object (it begins \"Sorry, I\")",
            ),
            (AnswerError::NotAnObject, "the answer is JSON but not an object"),
            (AnswerError::MissingField("raw_memory"), "the answer has no `raw_memory`"),
            (
                AnswerError::wrong_type("failures", &Value::from(3), "a list of strings"),
                "`failures` is a number, not a list of strings",
            ),
            (AnswerError::wrong_type("user_profile", &Value::Null, "a string"), "`user_profile` is null, not a string"),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
            assert!(std::error::Error::source(&error).is_none(), "{error:?}");
        }
    }

    #[test]
    fn json_that_does_not_parse_keeps_the_parser_error() {
        let error = json_object(r#"{"raw_memory": "m" "rollout_summary": "s"}"#).unwrap_err();
        assert!(matches!(error, AnswerError::BadJson(_)), "{error:?}");
        assert_eq!(error.to_string(), "the answer's JSON does not parse (expected `,` or `}` at line 1 column 20)");
        let inner = std::error::Error::source(&error).and_then(|e| e.downcast_ref::<serde_json::Error>());
        assert_eq!(inner.map(serde_json::Error::column), Some(20));
        assert!(matches!(json_object("[1, 2]"), Err(AnswerError::NoObject { .. })));
        assert!(matches!(json_object("  \n"), Err(AnswerError::Empty)));
    }
}
