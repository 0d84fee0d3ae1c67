//! Telling one lesson said twice from two lessons: the words a preference is compared by,
//! whether two of them say the same thing, and whether one says anything once its secrets
//! are gone.

use std::collections::BTreeSet;

use crate::core::extract::strip_redactions;

/// Words too common to tell two preferences apart.
const COMMON: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "when", "then", "than", "are", "was", "you", "your",
    "our", "can", "should", "will", "please", "always", "never", "use", "uses", "using", "run", "runs", "all", "any",
    "every", "repo", "project", "here", "there", "its", "it's", "we", "they", "them", "have", "has", "before", "after",
    "must", "need", "needs", "also", "just", "now", "from", "not", "don't", "do", "is", "be", "by", "in", "on", "of",
    "to", "a", "an", "it", "or", "as", "at", "so", "if", "remember", "note", "prefer", "default",
];

/// The words of a sentence that carry its meaning: lower-case, without redaction markers,
/// punctuation or common words.
pub(crate) fn content_words(text: &str) -> BTreeSet<String> {
    without_redactions(text)
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '=')))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| w.len() >= 2 && !COMMON.contains(&w.as_str()))
        .collect()
}

/// True when two preferences say the same thing: nearly the same content words (a Jaccard
/// index of at least 0.7), or all of the shorter one's, when it has at least three.
pub(crate) fn same_rule(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() {
        return false;
    }
    let shared = small.intersection(large).count();
    let union = a.union(b).count();
    (shared * 10 >= union * 7) || (small.len() >= 3 && shared == small.len())
}

/// True when a preference says nothing once its redacted secrets are taken out ("Remember
/// that the CI token is [REDACTED:github].").
pub(crate) fn mostly_redacted(text: &str) -> bool {
    if !text.contains("[REDACTED:") {
        return false;
    }
    let kept: usize = without_redactions(text).chars().filter(|c| !c.is_whitespace()).count();
    let all: usize = text.chars().filter(|c| !c.is_whitespace()).count();
    content_words(text).len() < 3 || kept * 10 < all * 6
}

/// Text with each redaction marker a word break, so no two words join across one.
fn without_redactions(text: &str) -> String {
    strip_redactions(text, " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_rule_in_other_words_is_one_rule() {
        let a = content_words("We use pnpm, not npm.");
        let b = content_words("We use pnpm and not npm in this repo.");
        assert!(same_rule(&a, &b));
        let c = content_words("All Python is formatted with black.");
        let d = content_words("Keep all Python formatted with black.");
        assert!(same_rule(&c, &d));
        assert!(!same_rule(&a, &c));
        assert!(!same_rule(&content_words("Use port 8443 for staging."), &content_words("Use port 8080 for staging.")));
    }

    #[test]
    fn a_rule_that_is_only_a_secret_says_nothing() {
        assert!(mostly_redacted("The CI token is [REDACTED:github]."));
        assert!(!mostly_redacted("Always pass OPENAI_API_KEY=[REDACTED:openai] to the deploy job."));
        assert!(!mostly_redacted("We use pnpm, not npm."));
    }
}
