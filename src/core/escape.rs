//! Text from transcripts made safe to print: control characters (escape sequences, carriage
//! returns) are shown as `\u{…}` instead of being interpreted by the terminal.

use std::borrow::Cow;

/// `text` with every control character but newline and tab written out as `\u{…}`;
/// borrowed when there is none, which is almost always.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(
                |c| {
                    if c.is_control() && c != '\n' && c != '\t' {
                        c.escape_unicode().to_string()
                    } else {
                        c.to_string()
                    }
                },
            )
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape("plain\ttext"), "plain\ttext");
        assert_eq!(escape("\x1b[2Jboom\r"), "\\u{1b}[2Jboom\\u{d}");
        assert!(matches!(escape("line one\nline two"), Cow::Borrowed(_)));
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn escape_example() {
        use crate::core::escape::escape;
        assert_eq!(escape("plain\ttext"), "plain\ttext");
        assert_eq!(escape("\x1b[2Jboom\r"), "\\u{1b}[2Jboom\\u{d}");
    }
}
