//! Reading the times people type: `2026-11-20`, RFC 3339, `7d`, `2w`, `12h`, `today`,
//! `yesterday`. Days are UTC days.

use jiff::{SignedDuration, Timestamp, civil, tz::TimeZone};

/// Which end of a day a date names: `--since 2026-11-20` starts at its first second,
/// `--until 2026-11-20` covers the whole day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Start,
    End,
}

/// Parse a time expression relative to `now`.
///
/// ```
/// use handbook::core::dates::{parse_when, Edge};
/// let now = "2026-11-29T12:00:00Z".parse().unwrap();
/// assert_eq!(parse_when("7d", now, Edge::Start).unwrap().to_string(), "2026-11-22T12:00:00Z");
/// assert_eq!(parse_when("2026-11-20", now, Edge::End).unwrap().to_string(), "2026-11-20T23:59:59.999999999Z");
/// assert_eq!(parse_when("yesterday", now, Edge::Start).unwrap().to_string(), "2026-11-28T00:00:00Z");
/// ```
pub fn parse_when(text: &str, now: Timestamp, edge: Edge) -> Result<Timestamp, String> {
    let text = text.trim();
    let day_of = |ts: Timestamp| ts.to_zoned_datetime(TimeZone::UTC).date();
    let day = match text.to_ascii_lowercase().as_str() {
        "now" => return Ok(now),
        "today" => Some(day_of(now)),
        "yesterday" => day_of(now).yesterday().ok(),
        _ => None,
    };
    if let Some(day) = day {
        return day_bound(day, edge);
    }
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    if let Ok(day) = text.parse::<civil::Date>() {
        return day_bound(day, edge);
    }
    if let Some(ago) = relative(text) {
        return now.checked_sub(ago).map_err(|e| format!("{text:?} reaches too far back: {e}"));
    }
    Err(format!("{text:?} is not a time: use a date (2026-11-20), an RFC 3339 time, 7d, 2w, 12h, today or yesterday"))
}

/// `7d`, `2w`, `12h`, `30m`: a span back from now.
fn relative(text: &str) -> Option<SignedDuration> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().ok()?;
    let seconds = match unit {
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return None,
    };
    Some(SignedDuration::from_secs(n.checked_mul(seconds)?))
}

fn day_bound(day: civil::Date, edge: Edge) -> Result<Timestamp, String> {
    let time = match edge {
        Edge::Start => civil::Time::midnight(),
        Edge::End => civil::Time::MAX,
    };
    day.to_datetime(time).to_zoned_datetime(TimeZone::UTC).map(|z| z.timestamp()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_read() {
        let now: Timestamp = "2026-11-29T12:00:00Z".parse().unwrap();
        let at = |text: &str, edge| parse_when(text, now, edge).unwrap().to_string();
        assert_eq!(at("2026-11-20", Edge::Start), "2026-11-20T00:00:00Z");
        assert_eq!(at("2026-11-20T08:30:00+02:00", Edge::Start), "2026-11-20T06:30:00Z");
        assert_eq!(at("2w", Edge::Start), "2026-11-15T12:00:00Z");
        assert_eq!(at("12h", Edge::Start), "2026-11-29T00:00:00Z");
        assert_eq!(at("today", Edge::Start), "2026-11-29T00:00:00Z");
        assert_eq!(at("yesterday", Edge::End), "2026-11-28T23:59:59.999999999Z");
        assert!(parse_when("last tuesday", now, Edge::Start).unwrap_err().contains("is not a time"));
    }
}
