//! Building the regexes handbook scans text with.
//!
//! Every pattern here is ASCII, so word boundaries are compiled as ASCII boundaries: a
//! Unicode `\b` would push the regex engine off its fast DFA onto a slower one whenever the
//! text holds non-ASCII characters, and transcripts are full of them.

use regex::{Regex, RegexSet, RegexSetBuilder};

/// The lazy DFA cache of a pattern set. A set of many patterns needs many states: with the
/// default cache it keeps throwing states away and rebuilding them, at a fraction of the
/// speed.
const SET_DFA_CACHE: usize = 64 * 1024 * 1024;

fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

/// Compile a constant pattern. Patterns are literals of this crate, exercised by its tests,
/// so a failure is a programming error.
pub(crate) fn regex(pattern: &str) -> Regex {
    Regex::new(&ascii_boundaries(pattern)).unwrap_or_else(|e| panic!("pattern {pattern:?} does not compile: {e}"))
}

/// Compile a set of constant patterns (see [`regex`]).
pub(crate) fn regex_set<'a>(patterns: impl IntoIterator<Item = &'a str>) -> RegexSet {
    let patterns: Vec<String> = patterns.into_iter().map(ascii_boundaries).collect();
    RegexSetBuilder::new(&patterns)
        .dfa_size_limit(SET_DFA_CACHE)
        .build()
        .unwrap_or_else(|e| panic!("pattern set does not compile: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_are_ascii_and_still_work_next_to_unicode() {
        assert_eq!(ascii_boundaries(r"\bsk-\w+\b"), r"(?-u:\b)sk-\w+(?-u:\b)");
        let re = regex(r"\btoken\b");
        assert!(re.is_match("é token é"));
        assert!(!re.is_match("tokens"));
    }
}
