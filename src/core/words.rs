//! Counted nouns for the lines people read: `1 session`, `2 sessions`, `2 fixes`.

/// `n` and `noun`, plural unless `n` is 1. The plural of the last word follows the regular
/// rules: `fix` → `fixes`, `entry` → `entries`, else an `s`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        return format!("1 {noun}");
    }
    let consonant_y = noun.len() >= 2
        && noun.ends_with('y')
        && !matches!(noun.as_bytes()[noun.len() - 2], b'a' | b'e' | b'i' | b'o' | b'u');
    if consonant_y {
        format!("{n} {}ies", &noun[..noun.len() - 1])
    } else if ["s", "x", "z", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{n} {noun}es")
    } else {
        format!("{n} {noun}s")
    }
}

/// The word of `known` closest to `word`, when one is close enough to be what was meant: at
/// most a third of its letters (and at least one) added, removed or changed. For "did you
/// mean" hints after a typo.
pub(crate) fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let most = (word.chars().count() / 3).max(1);
    known.into_iter().map(|k| (edits(word, k), k)).filter(|(d, _)| *d <= most).min().map(|(_, k)| k)
}

/// How many characters must be added, removed or changed to turn `a` into `b`.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn count_example() {
        use crate::core::words::count;
        assert_eq!(count(1, "session"), "1 session");
        assert_eq!(count(0, "call"), "0 calls");
        assert_eq!(count(2, "fix"), "2 fixes");
        assert_eq!(count(3, "try"), "3 tries");
        assert_eq!(count(2, "more line"), "2 more lines");
    }

    #[test]
    fn closest_example() {
        use crate::core::words::closest;
        let keys = ["min_idle_hours", "max_age_days", "summary_max_tokens"];
        assert_eq!(closest("min_idle_hour", keys), Some("min_idle_hours"));
        assert_eq!(closest("sumary_max_token", keys), Some("summary_max_tokens"));
        assert_eq!(closest("engine", keys), None);
        assert_eq!(closest("", keys), None);
    }
}
