//! Counted nouns for the lines people read: `1 session`, `2 sessions`.

/// `n` and `noun`, plural unless `n` is 1 (`noun` takes an `s`).
///
/// ```
/// # use handbook::core::words::count;
/// assert_eq!(count(1, "session"), "1 session");
/// assert_eq!(count(0, "call"), "0 calls");
/// ```
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
