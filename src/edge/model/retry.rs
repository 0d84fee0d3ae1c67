//! How long to wait before trying a request again.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

/// The longest wait between two tries. A server that asks for more is not retried this run.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(120);

/// The wait before retry number `retry` (0 for the first): what the server's `Retry-After`
/// asked for, else `base` doubled per retry with up to 50% random jitter (so clients that
/// failed together do not retry together), at most two minutes.
pub(crate) fn backoff(base: Duration, retry: u32, retry_after: Option<Duration>) -> Duration {
    if let Some(after) = retry_after {
        return after.min(MAX_WAIT);
    }
    let exponential = base.saturating_mul(1u32 << retry.min(16));
    let jitter = exponential.mul_f64(random_fraction() * 0.5);
    (exponential + jitter).min(MAX_WAIT)
}

/// A number in [0, 1) from the randomly seeded hasher std gives every map.
fn random_fraction() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// A `Retry-After` value: seconds, or an HTTP date.
pub(crate) fn parse_retry_after(value: &str, now: jiff::Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)));
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    let wait = at.duration_since(now);
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_with_jitter_and_honour_the_server() {
        let base = Duration::from_millis(100);
        for retry in 0..4 {
            let wait = backoff(base, retry, None);
            let floor = base * (1 << retry);
            assert!(wait >= floor && wait <= floor.mul_f64(1.5), "{retry}: {wait:?}");
        }
        assert_eq!(backoff(base, 0, Some(Duration::from_secs(7))), Duration::from_secs(7));
        assert_eq!(backoff(base, 0, Some(Duration::from_secs(7200))), MAX_WAIT);
        assert_eq!(backoff(Duration::from_secs(10), 30, None), MAX_WAIT);
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        let now: jiff::Timestamp = "2026-11-29T12:00:00Z".parse().unwrap();
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("Sun, 29 Nov 2026 12:00:05 GMT", now), Some(Duration::from_secs(5)));
        assert_eq!(parse_retry_after("Sun, 29 Nov 2026 11:00:00 GMT", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
    }
}
