//! Telling one lesson said twice from two lessons: the words a preference is compared by,
//! whether two of them say the same thing, and whether one says anything once its secrets
//! are gone.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

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
/// punctuation or common words. A dotted or slashed name stands as it is and by its longer
/// parts too, so `log/slog` and `slog.Info` share `slog` (a short part, `uv` of `uv.lock`,
/// would make another project's name for a file look like its rule's words).
pub(crate) fn content_words(text: &str) -> BTreeSet<String> {
    let keep = |w: &str| w.len() >= 2 && !COMMON.contains(&w);
    let mut words = BTreeSet::new();
    for word in without_redactions(text)
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '=')))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| keep(w))
    {
        if word.contains(['.', '/']) {
            words.extend(word.split(['.', '/']).filter(|p| p.len() >= 4 && keep(p)).map(str::to_string));
        }
        words.insert(word);
    }
    words
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

/// Which projects' preferences use each content word, across the whole selection: a word
/// only one project's preferences use (`tflint`, `polars`, `thiserror`) names what that
/// project's rules are about, where `docs`, `build` or `timestamps` could be any project's.
#[derive(Debug, Default)]
pub(crate) struct Vocabulary {
    projects: BTreeMap<String, BTreeSet<String>>,
}

impl Vocabulary {
    /// Takes in one preference of `project`.
    pub(crate) fn add(&mut self, project: &str, words: &BTreeSet<String>) {
        for word in words {
            self.projects.entry(word.clone()).or_default().insert(project.to_string());
        }
    }

    /// True when `word` is one only `project`'s preferences use, and not its own name
    /// (`saltmarsh-core` in saltmarsh says nothing of a rule).
    pub(crate) fn is_own_term(&self, project: &str, name: &str, word: &str) -> bool {
        let only_here = self.projects.get(word).is_some_and(|p| p.len() == 1 && p.contains(project));
        only_here && (name.len() < 3 || !word.contains(name))
    }
}

/// True when two preferences of one project say the same thing: [`same_rule`], or they
/// share two of the project's own terms (`terraform fmt plus tflint` and `run terraform fmt
/// -recursive and tflint --recursive`), or one of them and half the words of the shorter.
pub(crate) fn same_rule_of_project(a: &BTreeSet<String>, b: &BTreeSet<String>, own: impl Fn(&str) -> bool) -> bool {
    if same_rule(a, b) {
        return true;
    }
    // A word shared as it stands or as the start of the other's (`scalafmt`, `scalafmtAll`).
    let shared: Vec<&String> = a.iter().filter(|w| b.iter().any(|v| same_word(w, v))).collect();
    let own_terms = shared.iter().filter(|w| own(w) || b.iter().any(|v| same_word(w, v) && own(v))).count();
    let small = a.len().min(b.len());
    own_terms >= 2 || (own_terms == 1 && shared.len() * 2 >= small)
}

/// True when a rule says it was said before ("I said that last time", "as I told you",
/// "like I said"): a restatement of a rule of the project, whatever its words.
pub(crate) fn says_it_again(text: &str) -> bool {
    static AGAIN: LazyLock<Regex> = LazyLock::new(|| {
        crate::core::patterns::regex(concat!(
            r"(?i)\bi (?:said|told you|mentioned|asked for) (?:this|that|it|so)?\s*(?:last time|before|already|earlier|yesterday)\b",
            r"|\b(?:as|like) i (?:said|told you|mentioned)\b|\bi(?:'ve| have) (?:said|told you) (?:this|that|it)\b",
            r"|\bsame as (?:i told you|last time|before)\b",
        ))
    });
    AGAIN.is_match(text)
}

/// The words that say a rule is said again, which tell nothing of what it says.
const AGAIN_WORDS: &[&str] = &[
    "said",
    "told",
    "mentioned",
    "asked",
    "last",
    "time",
    "before",
    "already",
    "earlier",
    "yesterday",
    "again",
    "like",
];

/// Which of a project's kept rules (each with whether it says it is said again, and the
/// words of every wording it has) the rule of `words` restates: the one it shares most
/// words with, when one of the two says it is said again and no other shares as many. One
/// shared word is enough only when it is the project's own term (`own`): `tests` could be
/// any rule's.
pub(crate) fn restated_in<'a>(
    words: &BTreeSet<String>,
    again: bool,
    kept: impl Iterator<Item = (bool, &'a [BTreeSet<String>])>,
    own: impl Fn(&str) -> bool,
) -> Option<usize> {
    let meant = |w: &&String| w.len() >= 3 && !AGAIN_WORDS.contains(&w.as_str());
    let mut best: Option<(usize, usize)> = None;
    let mut tied = false;
    for (at, (into_again, seen)) in kept.enumerate() {
        if !(again || into_again) {
            continue;
        }
        let shared: Vec<&String> =
            words.iter().filter(meant).filter(|w| seen.iter().any(|s| s.iter().any(|v| same_word(w, v)))).collect();
        let shared = match shared.as_slice() {
            [one] if !own(one) => 0,
            all => all.len(),
        };
        match best {
            _ if shared == 0 => {}
            Some((_, most)) if shared < most => {}
            Some((_, most)) if shared == most => tied = true,
            _ => {
                best = Some((at, shared));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(at, _)| at)
}

/// One word in two forms: the same, or one the start of the other and five letters or more.
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 5 && long.starts_with(short))
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
    fn a_rule_said_again_says_so() {
        for said in [
            "No. Never pip in halibut, it's uv. I said that last time.",
            "nope. Result objects, not exceptions, I told you that last time",
            "as I said, named exports only",
            "Same as I told you before: factories, not constructors.",
        ] {
            assert!(says_it_again(said), "{said}");
        }
        for said in
            ["Never pip in halibut, it's uv.", "I said no globals in the request above", "Last time the build broke."]
        {
            assert!(!says_it_again(said), "{said}");
        }
    }

    #[test]
    fn a_restated_rule_is_the_one_it_shares_most_with() {
        let words = content_words("Never pip in halibut, it's uv: `uv add` for a dependency. I said that last time.");
        let pip = [content_words("Never `pip install`, never activate the .venv by hand.")];
        let ruff = [content_words("Run ruff check before you finish.")];
        let kept = || [(false, &ruff[..]), (false, &pip[..])].into_iter();
        let own = |w: &str| w == "pip";
        assert_eq!(restated_in(&words, true, kept(), own), Some(1));
        // Said again by neither, or shared by two alike, it restates nothing; nor does one
        // shared word that any project's rule could have.
        assert_eq!(restated_in(&words, false, kept(), own), None);
        assert_eq!(restated_in(&words, true, kept(), |_: &str| false), None);
        let uv = [content_words("Add a dependency with uv add.")];
        let pip_too = [content_words("Never pip; no dependency without asking.")];
        assert_eq!(restated_in(&words, true, [(false, &uv[..]), (false, &pip_too[..])].into_iter(), own), None);
        // The words that say it was said before are no shared meaning.
        let other = [content_words("The last time we said the CI was down.")];
        assert_eq!(restated_in(&words, true, [(false, &other[..])].into_iter(), own), None);
    }

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
    fn two_rules_that_share_the_projects_own_terms_are_one() {
        let mut vocabulary = Vocabulary::default();
        let rules = [
            ("skyrail", "Every time you change HCL: terraform fmt plus tflint, please."),
            (
                "skyrail",
                "Whenever you touch a module, run `terraform fmt -recursive` and `tflint --recursive` afterwards.",
            ),
            ("skyrail", "Don't run terraform apply, ever, from here. Applies only happen through Atlantis."),
            ("wren", "Logs are different from the API: in log lines we write timestamps as epoch milliseconds."),
            ("wren", "API responses always render timestamps as ISO 8601 in UTC."),
            ("parcel", "Timestamps come from timezone.now(), never datetime.now()."),
            ("inkwell", "Front matter dates are ISO 8601, and the API is documented in docs/api.md."),
        ];
        for (project, text) in rules {
            vocabulary.add(project, &content_words(text));
        }
        let same = |p: &str, a: usize, b: usize| {
            same_rule_of_project(&content_words(rules[a].1), &content_words(rules[b].1), |w| {
                vocabulary.is_own_term(p, p, w)
            })
        };
        assert!(same("skyrail", 0, 1));
        let mut scala = Vocabulary::default();
        let (fmt, restated) = (
            "Please always run `sbt scalafmtAll` and `sbt \"scalafixAll --check\"` before you say you're done.",
            "Same as always, scalafmt + scalafix --check before done",
        );
        scala.add("marlin", &content_words(fmt));
        scala.add("marlin", &content_words(restated));
        assert!(same_rule_of_project(&content_words(fmt), &content_words(restated), |w| scala
            .is_own_term("marlin", "marlin", w)));
        let mut go = Vocabulary::default();
        let (slog, again) = (
            "For whoever picks this up: argent logs with log/slog and nothing else, so no fmt.Printf debugging and no log.Println.",
            "Logging-wise, in argent we log through log/slog only, never fmt.Println or the old log package.",
        );
        go.add("argent", &content_words(slog));
        go.add("argent", &content_words(again));
        go.add("gules", &content_words("Keep the lockfile as uv.lock and log to stderr."));
        assert!(same_rule_of_project(&content_words(slog), &content_words(again), |w| go
            .is_own_term("argent", "argent", w)));
        // One shared tool is two rules about it.
        assert!(!same("skyrail", 0, 2));
        // Related rules in words other projects use too are two rules.
        assert!(!same("wren", 3, 4));
    }

    #[test]
    fn a_rule_that_is_only_a_secret_says_nothing() {
        assert!(mostly_redacted("The CI token is [REDACTED:github]."));
        assert!(!mostly_redacted("Always pass OPENAI_API_KEY=[REDACTED:openai] to the deploy job."));
        assert!(!mostly_redacted("We use pnpm, not npm."));
    }
}
