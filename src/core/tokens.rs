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
            let len = i - start;
            let humps =
                bytes[start..i].windows(2).filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase()).count();
            tokens += 1 + len.saturating_sub(7).div_ceil(4) + humps;
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
            // Non-ASCII: a token per character (CJK, accents, emoji).
            while i < bytes.len() && bytes[i] >= 0x80 {
                i += 1;
            }
            tokens += text[start..i].chars().count();
        }
    }
    tokens + tokens.div_ceil(25)
}

/// A size limit: tokens, characters, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cap {
    pub tokens: Option<usize>,
    pub chars: Option<usize>,
}

impl Cap {
    /// True when `text` is within every limit set.
    pub fn fits(&self, text: &str) -> bool {
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
    fn caps_check_tokens_and_characters() {
        let cap = Cap { tokens: Some(3), chars: None };
        assert!(cap.fits("one two"));
        assert!(!cap.fits("one two three four five"));
        let cap = Cap { tokens: None, chars: Some(5) };
        assert!(cap.fits("héllo") && !cap.fits("hello!"));
    }
}
