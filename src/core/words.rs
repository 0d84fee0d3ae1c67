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
}
