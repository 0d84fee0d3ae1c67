//! Text from transcripts made safe: characters a terminal would act on or a reader could not
//! see (escape sequences, carriage returns, bidi overrides, zero-width characters) are shown
//! as `\u{…}` when printed, and removed from whatever is written to the workspace.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

/// True for a character that must never reach a terminal or a workspace file as itself: a
/// control character other than newline and tab; a bidi control, which reorders what is shown
/// so a line reads otherwise than it runs; or an invisible character (zero-width spaces and
/// joiners, the byte-order mark, tag characters), which can hide text from a reader that a
/// model still reads. Zero-width joiners inside emoji sequences go too: a split emoji is a
/// small price for text that shows everything it holds.
#[inline]
pub(crate) fn is_unsafe(c: char) -> bool {
    match c {
        ' '..='~' | '\n' | '\t' => false,
        c if c.is_control() => true,
        '\u{061c}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}' => true,
        _ => false,
    }
}

/// True when `text` holds an unsafe character: [`is_unsafe`] read off the UTF-8 bytes, so the
/// megabytes of tool output that hold none are never decoded. Only lead bytes are matched
/// (0xC2 for C1 controls, 0xD8 for U+061C, 0xE1 for U+180E, 0xE2 for U+2000–U+2FFF, 0xEF for
/// U+FExx–U+FFxx, 0xF3 for tag characters), and a lead byte is never a continuation byte.
fn holds_unsafe(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Plain printable ASCII (and tab and newline) is the bulk of every transcript: whole
    // chunks of it are passed over with a branch-free test the compiler vectorises.
    const CHUNK: usize = 32;
    let chunks = bytes.chunks_exact(CHUNK);
    let rest = chunks.remainder().len();
    for (index, chunk) in chunks.enumerate() {
        let mut odd = 0u8;
        for &b in chunk {
            odd |= (u8::from(b < 0x20) & u8::from(b != b'\n') & u8::from(b != b'\t')) | u8::from(b >= 0x7f);
        }
        let start = index * CHUNK;
        if odd != 0 && holds_unsafe_from(bytes, start, start + CHUNK) {
            return true;
        }
    }
    holds_unsafe_from(bytes, bytes.len() - rest, bytes.len())
}

/// [`holds_unsafe`] for the characters that start in `bytes[start..end]` (the bytes after
/// `end` are looked at to finish one).
fn holds_unsafe_from(bytes: &[u8], start: usize, end: usize) -> bool {
    let next = |i: usize| (bytes.get(i + 1).copied(), bytes.get(i + 2).copied());
    bytes[start..end].iter().enumerate().map(|(i, b)| (start + i, b)).any(|(i, &byte)| match byte {
        0..=8 | 0x0b..=0x1f | 0x7f => true,
        0xc2 => matches!(next(i).0, Some(0x80..=0x9f)),
        0xd8 => next(i).0 == Some(0x9c),
        0xe1 => next(i) == (Some(0xa0), Some(0x8e)),
        0xe2 => matches!(
            next(i),
            (Some(0x80), Some(0x8b..=0x8f | 0xa8..=0xae)) | (Some(0x81), Some(0xa0..=0xa4 | 0xa6..=0xaf))
        ),
        0xef => matches!(next(i), (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xb9..=0xbb))),
        0xf3 => matches!(next(i), (Some(0xa0), Some(0x80 | 0x81))),
        _ => false,
    })
}

/// `text` with every unsafe character (see [`is_unsafe`]) written out as `\u{…}`, for
/// printing; borrowed when there is none, which is almost always, so clean text is printed
/// byte for byte.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !holds_unsafe(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with `<` and `>` written as the HTML entities `&lt;` and `&gt;`, and an `&` that
/// would start an entity (one followed by a letter or `#`) as `&amp;`, so reading the
/// entities back gives `text` exactly; other ampersands (`&&`, `2>&1`) stay as they are.
/// This is how the summary reaches Gemini CLI, which HTML-escapes `<` and `>` in a hook's
/// context (and nothing else): written so already, it arrives unchanged, and a model reads
/// it the way it reads HTML-escaped code. Borrowed when there is nothing to write out.
pub(crate) fn html_entities(text: &str) -> Cow<'_, str> {
    let starts_entity = |rest: &str| rest.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic() || c == '#');
    let needs = |(at, c): (usize, char)| matches!(c, '<' | '>') || (c == '&' && starts_entity(&text[at..]));
    if !text.char_indices().any(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (at, c) in text.char_indices() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' if starts_entity(&text[at..]) => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` without its unsafe characters, for the workspace: terminal escape sequences go
/// whole (colour codes, window titles, hyperlinks), so a coloured error line stays readable;
/// a carriage return ends a line (`\r\n` is one line end); every other unsafe character is
/// dropped. Borrowed when there is nothing to remove.
pub(crate) fn strip_controls(text: &str) -> Cow<'_, str> {
    if !holds_unsafe(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\r' if chars.peek() != Some(&'\n') => out.push('\n'),
            c if is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Skip what follows an ESC: a control sequence (`ESC [ …`), a string (`ESC ] … BEL`, and
/// the DCS, SOS, PM and APC strings), or a two-character escape with its intermediates.
fn skip_escape(chars: &mut Peekable<Chars<'_>>) {
    match chars.peek() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_string(chars);
        }
        Some(' '..='/') => {
            while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
            chars.next_if(|c| matches!(c, '0'..='~'));
        }
        Some('0'..='~') => {
            chars.next();
        }
        _ => {}
    }
}

/// Skip a control sequence's parameters, intermediates and final byte.
fn skip_csi(chars: &mut Peekable<Chars<'_>>) {
    while chars.next_if(|c| matches!(c, '0'..='?')).is_some() {}
    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
    chars.next_if(|c| matches!(c, '@'..='~'));
}

/// Skip a string up to its terminator (BEL, `ESC \` or ST). An unterminated string ends at
/// the line's end, so one stray escape cannot swallow the rest of a text.
fn skip_string(chars: &mut Peekable<Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            '\n' => return,
            '\u{7}' | '\u{9c}' => {
                chars.next();
                return;
            }
            '\u{1b}' => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angle_brackets_become_entities_that_read_back_exactly() {
        assert_eq!(html_entities("plain && text 2>&1 | tee log"), "plain && text 2&gt;&1 | tee log");
        assert_eq!(html_entities("Vec<String>"), "Vec&lt;String&gt;");
        assert!(matches!(html_entities("cargo test && echo ok"), Cow::Borrowed(_)));
        // An ampersand that would start an entity is written out too, so nothing is ambiguous.
        assert_eq!(html_entities("write &lt; or &#60; for <"), "write &amp;lt; or &amp;#60; for &lt;");
        assert_eq!(html_entities("?a=1&b=2 & more&"), "?a=1&amp;b=2 & more&");
        let back = |text: &str| text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
        for text in ["a<b>&c", "&lt;", "&&amp;", "x &#x3c; y", "naïve ✓ <é>"] {
            let written = html_entities(text);
            assert!(!written.contains(['<', '>']), "{written}");
            assert_eq!(back(&written), text, "{written}");
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape("plain\ttext"), "plain\ttext");
        assert_eq!(escape("\x1b[2Jboom\r"), "\\u{1b}[2Jboom\\u{d}");
        assert!(matches!(escape("line one\nline two"), Cow::Borrowed(_)));
    }

    #[test]
    fn bidi_and_invisible_characters_are_escaped() {
        assert_eq!(escape("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
        assert_eq!(escape("zero\u{200b}width\u{feff}"), "zero\\u{200b}width\\u{feff}");
        assert_eq!(escape("tag\u{e0041}\u{85}"), "tag\\u{e0041}\\u{85}");
        for clean in ["“quoted” — café, 日本語, naïve…", "🎉 done", "→ ≠ ∑"] {
            assert!(matches!(escape(clean), Cow::Borrowed(_)), "{clean}");
        }
    }

    #[test]
    fn the_byte_scan_finds_exactly_the_unsafe_characters() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            assert_eq!(holds_unsafe(&text), is_unsafe(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn escape_sequences_are_removed_whole() {
        assert_eq!(strip_controls("\x1b]0;pwned\x07title"), "title");
        assert_eq!(strip_controls("\x1b[1;31merror\x1b[0m: bad"), "error: bad");
        assert_eq!(strip_controls("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\"), "link");
        assert_eq!(strip_controls("\x1b(Bplain\x1b7"), "plain");
        assert_eq!(strip_controls("\u{9b}2Jcleared"), "cleared");
        assert_eq!(strip_controls("\x1b]0;unterminated\nnext line"), "\nnext line");
    }

    #[test]
    fn other_unsafe_characters_are_dropped() {
        assert_eq!(strip_controls("a\u{202e}b\u{200b}c\u{7}d\u{0}e"), "abcde");
        assert_eq!(strip_controls("one\r\ntwo\rthree"), "one\ntwo\nthree");
        assert_eq!(strip_controls("tab\tand\nnewline"), "tab\tand\nnewline");
        assert!(matches!(strip_controls("“clean” text…"), Cow::Borrowed(_)));
        assert_eq!(strip_controls("ends with\x1b"), "ends with");
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

    #[test]
    fn strip_controls_example() {
        use crate::core::escape::strip_controls;
        assert_eq!(strip_controls("\x1b[31merror\x1b[0m: \u{202e}bad"), "error: bad");
    }
}
