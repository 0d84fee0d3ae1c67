//! What the user's own words say: standing preferences, corrections, explicit requests to
//! remember something, acknowledgements that carry no task, and feedback on how a task went.
//! Only user text is ever read here; tool output never becomes a preference.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// How strong a preference signal is; the order is the priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SignalKind {
    /// "remember that …": the user asked for it to be kept.
    Remember,
    /// "no, …", "actually, …": the user corrected the agent.
    Correction,
    /// "I prefer …", "always …", "we use …": a standing preference.
    Preference,
}

impl SignalKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            SignalKind::Remember => "remember",
            SignalKind::Correction => "correction",
            SignalKind::Preference => "preference",
        }
    }

    /// What a future session should make of the signal.
    pub(crate) fn implication(self) -> &'static str {
        match self {
            SignalKind::Remember => "the user asked for this to be remembered",
            SignalKind::Correction => "the user corrected the agent; do it this way next time",
            SignalKind::Preference => "a standing preference; follow it by default",
        }
    }
}

/// How the user judged the outcome of the task before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feedback {
    Positive,
    Negative,
}

/// Longest sentence kept as a signal; longer ones are pasted text, not a preference.
const MAX_SIGNAL: usize = 400;

static REMEMBER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:please\s+|and\s+|also\s+|but\s+)?(?:remember|note for (?:the )?future|for future reference|keep in mind|don'?t forget|do not forget|make a note)\b|\b(?:please|always|you should|you need to|you must|can you|could you)\s+remember\b",
    )
});
static CORRECTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:no|nope|nah|wrong|actually|not quite|not like that|that'?s (?:wrong|not right|incorrect|not what i)|that is (?:wrong|not right|incorrect)|you (?:shouldn'?t|should not|should) have|instead)\b[,.!:;]?\s+\S+\s+\S+",
    )
});
static PREFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(?i)^(?:please\s+|and\s+|also\s+|but\s+|so\s+)?(?:always|never|don'?t|do not|dont|stop|avoid)\s+\w+",
        r"|\b(?:i|we)\s+(?:always|never|usually|prefer|like to|want you to|'d like you to|would like you to|'d rather|would rather|don'?t want|do not want|don'?t like|do not like|hate|use|avoid|only use|stick to)\b",
        r"|\b(?:please|always|never)\s+(?:use|run|prefer|avoid|keep|write|put|add|make|call|name|format|commit|push|test|check|ask|include|create)\b",
        r"|\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b|\bby default\b|\bas a rule\b",
        r"|\bprefer(?:red|s)?\b|\bmake sure (?:to|you|that)\b|\bour (?:convention|style|rule|policy)\b",
        r"|^use\s+\S+.*\b(?:instead of|rather than|not)\b",
    ))
});
static NEGATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:still (?:fails|failing|broken|doesn'?t|does not|not working|errors?|wrong)|doesn'?t work|does not work|didn'?t work|did not work|not working|is broken|no luck|same error|that'?s wrong|that is wrong)\b",
    )
});
static POSITIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:works|worked|working now|fixed|perfect|great|awesome|thanks|thank you|lgtm|looks good|nice|excellent|ship it|all green|passes now)\b",
    )
});

fn re(pattern: &str) -> Regex {
    crate::core::patterns::regex(pattern)
}

/// Words that acknowledge or nudge without asking for anything new.
const ACKS: &[&str] = &[
    "ok",
    "okay",
    "k",
    "yes",
    "y",
    "yep",
    "yeah",
    "yup",
    "sure",
    "continue",
    "go",
    "on",
    "ahead",
    "proceed",
    "do",
    "it",
    "thanks",
    "thank",
    "you",
    "thx",
    "ty",
    "great",
    "perfect",
    "nice",
    "cool",
    "lgtm",
    "sounds",
    "good",
    "done",
    "next",
    "retry",
    "try",
    "again",
    "please",
    "keep",
    "going",
    "alright",
    "right",
    "fine",
    "and",
    "now",
    "that",
    "works",
    "go",
    "for",
    "it's",
    "looks",
    "awesome",
    "excellent",
    "no",
    "n",
    "stop",
    "wait",
    "hi",
    "hello",
    "hey",
];

/// True when a user message asks for nothing new ("ok", "continue", "thanks!").
pub(crate) fn is_trivial(text: &str) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    words.len() <= 4 && words.iter().all(|w| ACKS.contains(&w.as_str()) || w.chars().all(|c| c.is_ascii_digit()))
}

/// The user's judgement of the work before, when the opening of a message gives one
/// ("perfect, that works", "still failing"). Only a short first sentence counts, so a new
/// request that merely contains "nice" is not taken for praise.
pub(crate) fn feedback(text: &str) -> Option<Feedback> {
    let first = sentences(text).next()?;
    if first.split_whitespace().count() > 10 {
        return None;
    }
    if NEGATIVE.is_match(first) {
        Some(Feedback::Negative)
    } else if POSITIVE.is_match(first) {
        Some(Feedback::Positive)
    } else {
        None
    }
}

/// True when a message opens with a correction of the agent ("no, use …").
pub(crate) fn is_correction(text: &str) -> bool {
    sentences(text).next().is_some_and(|s| CORRECTION.is_match(s))
}

/// The preference signals in a user message, near-verbatim, strongest kind per sentence.
pub(crate) fn preference_signals(text: &str) -> Vec<(SignalKind, String)> {
    let mut found: Vec<(SignalKind, String)> = Vec::new();
    for sentence in sentences(text) {
        if sentence.len() > MAX_SIGNAL || sentence.split_whitespace().count() < 3 {
            continue;
        }
        let question = sentence.ends_with('?');
        let kind = if REMEMBER.is_match(sentence) {
            Some(SignalKind::Remember)
        } else if question {
            None
        } else if CORRECTION.is_match(sentence) {
            Some(SignalKind::Correction)
        } else if PREFERENCE.is_match(sentence) {
            Some(SignalKind::Preference)
        } else {
            None
        };
        if let Some(kind) = kind
            && !found.iter().any(|(_, s)| s == sentence)
        {
            found.push((kind, sentence.to_string()));
        }
    }
    found
}

/// The sentences of a message, outside code blocks and quotes, with list markers removed.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut in_fence = false;
    text.lines()
        .filter(move |line| {
            let fence = line.trim_start().starts_with("```");
            if fence {
                in_fence = !in_fence;
            }
            !fence && !in_fence
        })
        .filter(|line| !line.starts_with("    ") && !line.starts_with('\t') && !line.trim_start().starts_with('>'))
        .flat_map(split_sentences)
        .map(|s| s.trim().trim_start_matches(['-', '*', '•']).trim_start())
        .map(strip_list_number)
        .filter(|s| !s.is_empty())
}

fn strip_list_number(s: &str) -> &str {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    match s[digits..].strip_prefix(['.', ')']) {
        Some(rest) if digits > 0 && digits < 3 => rest.trim_start(),
        _ => s,
    }
}

/// Split a line after `.`, `!` or `?` followed by a space, keeping the punctuation.
fn split_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        let ends = matches!(bytes[i], b'.' | b'!' | b'?') && bytes.get(i + 1).is_some_and(|b| *b == b' ');
        if !ends {
            continue;
        }
        // `e.g. x` is not a sentence end. (`get` because byte i-3 may sit inside a character.)
        let abbreviation = i >= 3 && matches!(line.get(i - 3..=i), Some("e.g." | "i.e." | "etc." | " vs."));
        if !abbreviation {
            out.push(&line[start..=i]);
            start = i + 1;
        }
    }
    out.push(&line[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<SignalKind> {
        preference_signals(text).into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn standing_preferences_are_found() {
        use SignalKind::*;
        assert_eq!(kinds("I prefer tabs over spaces in this repo."), [Preference]);
        assert_eq!(kinds("Always run cargo fmt before committing."), [Preference]);
        assert_eq!(kinds("We use pnpm, not npm."), [Preference]);
        assert_eq!(kinds("Please use the staging database for tests."), [Preference]);
        assert_eq!(kinds("From now on, write commit messages in English."), [Preference]);
        assert_eq!(kinds("Don't touch the generated files under gen/."), [Preference]);
        assert_eq!(kinds("Use ripgrep instead of grep."), [Preference]);
    }

    #[test]
    fn corrections_and_remember_requests_outrank_preferences() {
        use SignalKind::*;
        assert_eq!(kinds("No, use the v2 endpoint for uploads."), [Correction]);
        assert_eq!(kinds("Actually, the config lives in ~/.config/app."), [Correction]);
        assert_eq!(kinds("Remember that we always deploy on Tuesdays."), [Remember]);
        assert_eq!(kinds("Please remember: the API key rotates monthly."), [Remember]);
        assert_eq!(kinds("Can you remember that port 8443 is staging?"), [Remember]);
    }

    #[test]
    fn questions_descriptions_and_code_are_not_preferences() {
        assert!(kinds("Why does it always fail on CI?").is_empty());
        assert!(kinds("The tests always fail on Mondays.").is_empty());
        assert!(kinds("I don't remember where it is.").is_empty());
        assert!(kinds("```\nalways_run = true\nnever do this\n```").is_empty());
        assert!(kinds("> Always ignore the tests\nwhat does this quote mean").is_empty());
        assert!(kinds("what's 2+2?").is_empty());
    }

    #[test]
    fn sentences_keep_their_words() {
        let found = preference_signals("Fix it. - Always use `just test`, e.g. in CI. thanks");
        assert_eq!(found, [(SignalKind::Preference, "Always use `just test`, e.g. in CI.".to_string())]);
    }

    #[test]
    fn text_in_any_script_is_read_without_panicking() {
        assert_eq!(kinds("Café menu: please always use pnpm. Ça marche? Déjà vu."), [SignalKind::Preference]);
        assert_eq!(kinds("日本語のテキスト。 Always run the linter first. 🎉! done."), [SignalKind::Preference]);
        assert!(preference_signals("éé. ü! ñ? ").is_empty());
    }

    #[test]
    fn acknowledgements_are_trivial() {
        for text in ["ok", "Continue.", "thanks!", "yes please", "go ahead", "2", "LGTM 👍"] {
            assert!(is_trivial(text), "{text}");
        }
        for text in ["fix the build", "what's 2+2?", "No, use the v2 endpoint"] {
            assert!(!is_trivial(text), "{text}");
        }
    }

    #[test]
    fn feedback_reads_short_verdicts() {
        assert_eq!(feedback("perfect, that works"), Some(Feedback::Positive));
        assert_eq!(feedback("still failing with the same error"), Some(Feedback::Negative));
        assert_eq!(feedback("add a test for the parser"), None);
        assert_eq!(feedback("Now add a nice logo to the README, centred above the title please"), None);
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn preference_signals_example() {
        use crate::core::extract::signals::{SignalKind, preference_signals};
        let found = preference_signals("Fix the login bug. Remember that staging uses port 8443!");
        assert_eq!(found, [(SignalKind::Remember, "Remember that staging uses port 8443!".to_string())]);
    }
}
