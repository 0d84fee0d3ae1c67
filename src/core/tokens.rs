//! Counting tokens without a tokenizer: a fast, conservative estimate of what the o200k
//! tokenizer (GPT-4o and later) would count, so the injected summary fits an agent's budget.
//!
//! The text is split the way BPE pre-tokenizers split it (runs of letters, digits, spaces,
//! punctuation), and each run is charged what o200k charges at most for such a run: one token
//! for a word of up to seven letters and one more per four letters beyond, one more per
//! camelCase hump, a token per three digits, per two punctuation marks, per line break run and
//! per non-ASCII character, then 4% on top. On this project's fixtures the estimate is within
//! a few percent above the real count on summaries, and never below it by more than the 5% the
//! tests allow (`tests/tokens.rs` checks it against the real tokenizer).

/// The estimated number of o200k tokens in `text`.
///
/// ```
/// use handbook::core::tokens::estimate;
/// assert!(estimate("Always run cargo fmt before committing.") >= 7);
/// assert_eq!(estimate(""), 0);
/// ```
pub fn estimate(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut tokens = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        if c.is_ascii_alphabetic() {
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            tokens += letter_run(&bytes[start..i]);
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            tokens += (i - start).div_ceil(3);
        } else if c == b' ' {
            while i < bytes.len() && bytes[i] == b' ' {
                i += 1;
            }
            // One space joins the piece after it; an indent is a piece of its own.
            if i - start > 1 {
                tokens += 1;
            }
        } else if matches!(c, b'\n' | b'\r' | b'\t') {
            while i < bytes.len() && matches!(bytes[i], b'\n' | b'\r' | b'\t') {
                i += 1;
            }
            tokens += 1;
        } else if c < 0x80 {
            while i < bytes.len()
                && bytes[i] < 0x80
                && !bytes[i].is_ascii_alphanumeric()
                && !bytes[i].is_ascii_whitespace()
            {
                i += 1;
            }
            tokens += (i - start).div_ceil(2);
        } else {
            while i < bytes.len() && bytes[i] >= 0x80 {
                i += 1;
            }
            tokens += text[start..i].chars().map(non_ascii_cost).sum::<usize>();
        }
    }
    tokens + tokens.div_ceil(25)
}

/// A run of ASCII letters: a word of up to seven letters is one token, longer ones one more
/// per four letters, plus one per camelCase hump. A run with few vowels is not a word (a hash,
/// a random id) and costs two tokens per three letters.
fn letter_run(run: &[u8]) -> usize {
    let len = run.len();
    let vowels =
        run.iter().filter(|b| matches!(b.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u' | b'y')).count();
    if len >= 5 && vowels * 4 < len {
        return (2 * len).div_ceil(3);
    }
    let humps = run.windows(2).filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase()).count();
    // Case that flips more often than camelCase does (`aGVsbG8gd29y`) is encoded data.
    if humps * 4 > len {
        return (2 * len).div_ceil(3);
    }
    1 + len.saturating_sub(7).div_ceil(4) + humps
}

/// What o200k charges at most for one non-ASCII character: CJK, kana, Hangul, Indic scripts
/// and Thai cost one token or less; other three-byte scripts and four-byte characters (emoji,
/// mathematical letters) up to three; two-byte letters (accents, Cyrillic, Greek, Arabic,
/// Hebrew) one.
fn non_ascii_cost(c: char) -> usize {
    let common_wide = matches!(
        c as u32,
        0x0900..=0x0E7F
            | 0x3000..=0x30FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7AF
            | 0xF900..=0xFAFF
            | 0xFF00..=0xFFEF
    );
    match c.len_utf8() {
        2 => 1,
        3 if common_wide => 1,
        _ => 3,
    }
}

/// A size limit: tokens, characters, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Cap {
    pub(crate) tokens: Option<usize>,
    pub(crate) chars: Option<usize>,
}

impl Cap {
    /// True when `text` is within every limit set.
    pub(crate) fn fits(&self, text: &str) -> bool {
        self.tokens.is_none_or(|max| estimate(text) <= max) && self.chars.is_none_or(|max| text.chars().count() <= max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_charged_by_kind() {
        // 7 words and a period, plus the margin.
        assert_eq!(estimate("Always run cargo fmt before committing."), 9);
        // Long and camelCase identifiers cost more than short words.
        assert!(estimate("keyboardShortcutHandler") > estimate("keyboard"));
        assert_eq!(estimate("\n\n\n"), 2);
        assert!(estimate("我们使用") >= 4);
    }

    #[test]
    fn unusual_text_is_charged_more_not_less() {
        // Emoji and mathematical letters cost o200k two to three tokens each.
        assert!(estimate("🎉🚀✅🔥💡🐛🧪📦🔒") >= 23);
        // Random ids and hashes are not words.
        assert!(estimate("xqzjvkwpmr bnqtfzlkxd") >= 12);
    }

    #[test]
    fn caps_check_tokens_and_characters() {
        let cap = Cap { tokens: Some(3), chars: None };
        assert!(cap.fits("one two"));
        assert!(!cap.fits("one two three four five"));
        let cap = Cap { tokens: None, chars: Some(5) };
        assert!(cap.fits("héllo") && !cap.fits("hello!"));
    }
}
