//! Grounding: a line a model wrote is kept only when an input supports it. A task group's
//! lessons are grounded by their `[Task N]` citations (`consolidate::settle`); the summary's
//! lines and the sentences of its profile by the consolidated `MEMORY.md` they were written
//! from ([`Evidence::supports`]). When most of an answer fails, the built-in result stands
//! for that part and a [`Dropped`] says so.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::core::model::consolidate::replace_bracketed;
use crate::core::model::summary::SummaryParts;

/// Words too common to show anything: a line is not grounded by sharing them.
const STOP_WORDS: &[&str] = &[
    "about", "after", "again", "all", "also", "and", "any", "are", "because", "been", "before", "being", "both", "but",
    "can", "could", "did", "does", "doing", "done", "each", "else", "even", "every", "for", "from", "had", "has",
    "have", "her", "here", "him", "his", "how", "into", "its", "just", "may", "more", "most", "much", "must", "not",
    "now", "off", "once", "one", "only", "other", "our", "out", "over", "own", "same", "she", "should", "some", "such",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "too",
    "under", "until", "very", "was", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "within", "would", "you", "your",
];

/// Words any profile or preference uses whatever the sessions showed ("the user prefers…",
/// "works mostly in…"): they are not the claim, so they neither ground a line nor count
/// against it.
const GENERIC_WORDS: &[&str] = &[
    "always",
    "developer",
    "engineer",
    "generally",
    "like",
    "likes",
    "mainly",
    "mostly",
    "never",
    "often",
    "person",
    "prefer",
    "preference",
    "preferred",
    "prefers",
    "primarily",
    "programmer",
    "tend",
    "tends",
    "typically",
    "use",
    "user",
    "uses",
    "usually",
    "want",
    "wants",
    "work",
    "works",
];

/// Abbreviations whose inner dot does not make them a path.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs"];

/// The text lines are checked against: the consolidated `MEMORY.md`, redacted as written.
pub(crate) struct Evidence {
    /// The text with each run of whitespace made one space, for literals.
    text: String,
    /// Every form of every word in it (see [`forms`]), lower case.
    words: BTreeSet<String>,
}

impl Evidence {
    pub(crate) fn new(text: &str) -> Evidence {
        let words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).flat_map(forms).collect();
        Evidence { text: collapse(text), words }
    }

    /// Whether the evidence supports `line`. Task references (`[Task N]`, `[Removed N]`) and
    /// redaction markers (`[REDACTED:kind]`) are set aside first: they are handbook's, not
    /// claims. Then the line is grounded when
    /// - every literal in it appears in the evidence exactly as written (case and all,
    ///   whitespace runs aside): each code span, and each word outside them that reads as a
    ///   literal: one with a digit, `/`, `\`, `_`, `=`, `@`, `::` or a dot inside it (a path,
    ///   a file, a host, a version, a number), or a leading `-` (a flag);
    /// - every name in it is a word of the evidence, in any case: a capitalised word that
    ///   does not begin a sentence, a clause or a quotation ("Haskell", "Docker");
    /// - at least half of its other content words are, in any case and up to a plural or
    ///   tense ending: the words of three letters or more left when stop words and the words
    ///   any profile uses ("user", "developer", "prefers", "works", "mostly"…) are set aside;
    /// - and it has something to check: a line of only common words shows nothing a session
    ///   did.
    ///
    /// A secret a line spells out is a literal the redacted evidence does not have, so such a
    /// line is never grounded.
    pub(crate) fn supports(&self, line: &str) -> bool {
        let line = strip_markers(line);
        let (spans, prose) = code_spans(&line);
        let mut checked = 0;
        for span in &spans {
            checked += 1;
            if !self.text.contains(&collapse(span)) {
                return false;
            }
        }
        let (mut content, mut found) = (0, 0);
        let mut at_start = true;
        for token in prose.split_whitespace() {
            let word = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '/' && c != '\\');
            let word = word.trim_end_matches(['-', '/', '\\']);
            // A quotation opens a sentence of its own.
            let starts = at_start || token.starts_with(['"', '\u{201c}']);
            at_start = token.ends_with(['.', '!', '?', ':', ';']) || matches!(token, "-" | "->" | "=>" | "→" | "—");
            if word.is_empty() {
                continue;
            }
            if is_literal(word) {
                checked += 1;
                if !self.text.contains(word) {
                    return false;
                }
                continue;
            }
            let is_name = !starts && word.chars().next().is_some_and(char::is_uppercase);
            for part in word.split(|c: char| !c.is_alphanumeric()).filter(|p| !p.is_empty()) {
                let lower = part.to_lowercase();
                let known = forms(&lower).iter().any(|f| self.words.contains(f));
                if is_name && part.chars().count() > 1 {
                    checked += 1;
                    if !known {
                        return false;
                    }
                } else if lower.chars().count() >= 3
                    && !STOP_WORDS.contains(&lower.as_str())
                    && !GENERIC_WORDS.contains(&lower.as_str())
                {
                    content += 1;
                    found += usize::from(known);
                }
            }
        }
        checked + content > 0 && found * 2 >= content
    }
}

/// `text` with each run of whitespace made one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A word that names something exactly: a path, a file, a number, a flag, a host.
fn is_literal(word: &str) -> bool {
    if ABBREVIATIONS.contains(&word.to_lowercase().as_str()) {
        return false;
    }
    let inner_dot = word
        .char_indices()
        .any(|(i, c)| c == '.' && i > 0 && word[i + 1..].chars().next().is_some_and(char::is_alphanumeric));
    word.chars().any(|c| c.is_ascii_digit() || matches!(c, '/' | '\\' | '_' | '=' | '@'))
        || word.contains("::")
        || inner_dot
        || (word.starts_with('-') && word.trim_start_matches('-').chars().next().is_some_and(char::is_alphanumeric))
}

/// The forms a lower-case word is matched by: itself, and itself without a plural or tense
/// ending (`caches` is `cache`, `prefers` is `prefer`, `fixed` is `fix`).
fn forms(word: &str) -> Vec<String> {
    let word = word.to_lowercase();
    let mut out = vec![word.clone()];
    for (suffix, with) in [("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("d", "")] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
        {
            out.push(format!("{stem}{with}"));
        }
    }
    out
}

/// `line` without its task references and redaction markers.
fn strip_markers(line: &str) -> String {
    replace_bracketed(line, |inner| {
        let reference = inner
            .strip_prefix("Task ")
            .or_else(|| inner.strip_prefix("Removed "))
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        (reference || inner.starts_with("REDACTED:")).then(|| " ".to_string())
    })
}

/// The code spans of `line` (each opened and closed by the same run of backticks, as in
/// Markdown), and the prose around them; an unclosed run of backticks opens a span that
/// runs to the end.
fn code_spans(line: &str) -> (Vec<String>, String) {
    let (mut spans, mut prose) = (Vec::new(), String::new());
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        prose.push_str(&rest[..open]);
        let ticks = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let after = &rest[open + ticks..];
        let fence = "`".repeat(ticks);
        let close = after.match_indices(&fence).find(|(i, _)| !after[i + ticks..].starts_with('`'));
        match close {
            Some((end, _)) => {
                let span = after[..end].trim();
                if !span.is_empty() {
                    spans.push(span.to_string());
                }
                prose.push(' ');
                rest = &after[end + ticks..];
            }
            // What follows an unclosed run was meant as code: it is checked as a span.
            None => {
                if !after.trim().is_empty() {
                    spans.push(after.trim().to_string());
                }
                return (spans, prose);
            }
        }
    }
    prose.push_str(rest);
    (spans, prose)
}

/// The sentences of a paragraph: it is cut after `.`, `!` or `?` where the next word starts
/// with a capital, a digit, a quote or a backtick (so `e.g. this` and `v1.2` stay whole).
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == '`' {
            in_code = !in_code;
        }
        if in_code || !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let word = chars[k + 1..].iter().map(|&(_, n)| n).find(|n| !n.is_whitespace());
        let breaks = next.is_some_and(char::is_whitespace)
            && word.is_some_and(|w| w.is_uppercase() || w.is_ascii_digit() || matches!(w, '"' | '`' | '\''));
        if breaks {
            out.push(text[start..=i].trim());
            start = i + 1;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// What validation dropped of one part of a model's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Dropped {
    /// The task group's key, or `summary`.
    pub(crate) part: String,
    /// Lines dropped as ungrounded, of the lines the model wrote.
    pub(crate) dropped: usize,
    pub(crate) of: usize,
    /// More than half was dropped, so the built-in result was kept for this part.
    pub(crate) builtin_kept: bool,
}

impl Dropped {
    /// Whether dropping `dropped` of `of` lines leaves too little to trust the rest.
    pub(crate) fn too_many(dropped: usize, of: usize) -> bool {
        dropped * 2 > of
    }

    /// The warning a run gives when the built-in result was kept.
    pub(crate) fn warning(&self) -> Option<String> {
        if !self.builtin_kept {
            return None;
        }
        let (what, why, kept) = match self.part.as_str() {
            "summary" => ("the summary".to_string(), "not supported by MEMORY.md", "the built-in summary is"),
            key => (format!("task group {key}"), "citing no task of the group", "the built-in lessons are"),
        };
        Some(format!(
            "{what}: the model's answer was mostly ungrounded ({} of {} lines dropped, {why}); {kept} kept",
            self.dropped, self.of
        ))
    }
}

/// The summary's parts with every line `memory` does not support dropped (the profile
/// sentence by sentence), and what was dropped. When more than half goes, nothing of the
/// answer is kept: the built-in summary stands (every part empty).
pub(crate) fn ground_summary(parts: SummaryParts, memory: &str) -> (SummaryParts, Option<Dropped>) {
    let evidence = Evidence::new(memory);
    let profile = sentences(&parts.profile);
    let of = profile.len() + parts.preferences.len() + parts.tips.len();
    let grounded: Vec<&str> = profile.iter().copied().filter(|s| evidence.supports(s)).collect();
    let kept = SummaryParts {
        profile: grounded.join(" "),
        preferences: parts.preferences.into_iter().filter(|l| evidence.supports(l)).collect(),
        tips: parts.tips.into_iter().filter(|l| evidence.supports(l)).collect(),
    };
    let dropped = of - (grounded.len() + kept.preferences.len() + kept.tips.len());
    if dropped == 0 {
        return (kept, None);
    }
    let builtin_kept = Dropped::too_many(dropped, of);
    let report = Dropped { part: "summary".to_string(), dropped, of, builtin_kept };
    (if builtin_kept { SummaryParts::default() } else { kept }, Some(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMORY: &str = "\
# Task Group: /home/dev/webshop

## User preferences

- \"We use pnpm, not npm.\" (preference; 1 session) [Task 1]
- \"Remember that the CI token is [REDACTED:github] for the deploy job.\" (remember) [Task 2]

## Reusable knowledge

- verified test command: `pnpm vitest run` (1 session) [Task 1]
- the staging API lives at https://staging.webshop.example:8443 and needs the VPN [Task 2]

## Failures and how to do differently

- `npm test` failed with `npm error Missing script: \"test\"` -> after editing `src/cart.ts`, `pnpm   vitest run` succeeded [Task 1]
";

    fn supports(line: &str) -> bool {
        Evidence::new(MEMORY).supports(line)
    }

    #[test]
    fn lines_the_memory_shows_are_grounded() {
        assert!(supports("webshop: verified `pnpm vitest run`"));
        assert!(supports("Use pnpm, never npm (webshop)"));
        assert!(supports("The staging API needs the VPN: https://staging.webshop.example:8443 [Task 2]"));
        assert!(supports("after a missing test script, edit src/cart.ts and run the tests with `pnpm vitest run`."));
        // Plurals and tenses are the same word.
        assert!(supports("webshop: tests verified with pnpm"));
        assert!(supports("Edit `src/cart.ts` when the tests fail"));
    }

    #[test]
    fn literals_no_session_shows_are_not() {
        assert!(!supports("webshop: run `kubectl rollout restart deploy/web` after a deploy"), "a command");
        assert!(!supports("webshop: the tests live in src/cart.test.ts"), "a path");
        assert!(!supports("webshop: the staging API listens on port 9443"), "a number");
        assert!(!supports("webshop: run pnpm vitest run --coverage"), "a flag");
        assert!(!supports("Use pnpm with Docker in webshop"), "a name");
        assert!(!supports("The user is a senior Haskell developer who prefers tabs."), "an invented profile");
        assert!(!supports("The user prefers clean code."), "nothing to check but common words");
        assert!(!supports("Be careful."), "nothing to check at all");
        assert!(!supports("Deploys go through terraform, ansible and helm charts on webshop"), "most words unknown");
    }

    #[test]
    fn case_matters_for_literals_only() {
        assert!(supports("WEBSHOP: VERIFIED TEST COMMAND `pnpm vitest run`"), "prose in any case");
        assert!(supports("webshop needs the vpn for the staging api"), "names in any case");
        assert!(supports("webshop: the user said \"Always run the tests with pnpm\""), "a quotation opens a sentence");
        assert!(!supports("webshop: verified `PNPM vitest run`"), "a command is what it is, case and all");
        assert!(!supports("edit SRC/cart.ts"), "so is a path");
    }

    #[test]
    fn backticks_are_read_as_markdown_reads_them() {
        // A span whose whitespace differs is the same span.
        assert!(supports("webshop: `pnpm vitest  run` verified"));
        // A span opened by two backticks holds single ones.
        let memory = "- `cargo test` failed with `` error[E0425]: cannot find value `x` `` [Task 1]";
        let evidence = Evidence::new(memory);
        assert!(evidence.supports("parser: `cargo test` failed with `` error[E0425]: cannot find value `x` ``"));
        assert!(!evidence.supports("parser: `cargo test` failed with `` error[E0425]: cannot find value `y` ``"));
        // An unclosed backtick opens a span to the end of the line.
        assert!(supports("webshop: verified `pnpm vitest run"));
        assert!(!supports("webshop: verified `kubectl apply"));
    }

    #[test]
    fn redaction_markers_and_task_references_are_not_claims() {
        assert!(supports("The CI token is [REDACTED:github] for the deploy job (webshop)"));
        assert!(
            supports("Remember the CI token for the deploy job [REDACTED:npm] [Task 7]"),
            "which marker is not a claim"
        );
        assert!(!supports("[REDACTED:github] [Task 1]"), "nothing left to check");
        // A secret spelled out is never in the redacted memory.
        assert!(!supports("The CI token for the deploy job is ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    }

    #[test]
    fn paragraphs_split_into_sentences() {
        assert_eq!(
            sentences("Works on a web shop. Prefers pnpm, e.g. for tests! Uses v1.2 daily? `make` then"),
            ["Works on a web shop.", "Prefers pnpm, e.g. for tests!", "Uses v1.2 daily?", "`make` then"]
        );
        assert_eq!(sentences("  "), Vec::<&str>::new());
        assert_eq!(sentences("Run `a. B` first. Then go."), ["Run `a. B` first.", "Then go."]);
    }

    #[test]
    fn a_summary_keeps_what_is_grounded_or_else_nothing() {
        let parts = SummaryParts {
            profile: "Works on the webshop with pnpm. The user is a senior Haskell developer who prefers tabs."
                .to_string(),
            preferences: vec!["Use pnpm, never npm".to_string()],
            tips: vec!["webshop: verified `pnpm vitest run`".to_string(), "webshop: run `make deploy`".to_string()],
        };
        let (kept, dropped) = ground_summary(parts.clone(), MEMORY);
        assert_eq!(kept.profile, "Works on the webshop with pnpm.");
        assert_eq!(kept.preferences, ["Use pnpm, never npm"]);
        assert_eq!(kept.tips, ["webshop: verified `pnpm vitest run`"]);
        assert_eq!(dropped, Some(Dropped { part: "summary".into(), dropped: 2, of: 5, builtin_kept: false }));
        assert_eq!(dropped.and_then(|d| d.warning()), None, "only a fallback warns");

        let mostly_invented = SummaryParts { preferences: Vec::new(), ..parts.clone() };
        let mostly_invented = SummaryParts { tips: vec!["webshop: run `make deploy`".to_string()], ..mostly_invented };
        let (kept, dropped) = ground_summary(mostly_invented, MEMORY);
        assert_eq!(kept, SummaryParts::default(), "the built-in summary stands");
        let dropped = dropped.unwrap();
        assert_eq!((dropped.dropped, dropped.of, dropped.builtin_kept), (2, 3, true));
        let warning = dropped.warning().unwrap();
        assert!(warning.starts_with("the summary:") && warning.contains("2 of 3 lines dropped"), "{warning}");
        assert!(warning.ends_with("; the built-in summary is kept"), "{warning}");

        let (kept, dropped) = ground_summary(SummaryParts::default(), MEMORY);
        assert_eq!((kept, dropped), (SummaryParts::default(), None), "an empty answer drops nothing");
    }
}
