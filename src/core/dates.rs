//! Reading the times people type: `2026-11-20`, RFC 3339, `7d`, `2w`, `12h`, `today`,
//! `yesterday`. Days are UTC days.

use std::fmt;

use jiff::{SignedDuration, Timestamp, civil, tz::TimeZone};

/// Which end of a day a date names: `--since 2026-11-20` starts at its first second,
/// `--until 2026-11-20` covers the whole day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edge {
    Start,
    End,
}

/// Why a time expression could not be read. The message quotes what was typed; the time
/// library's own reason, when there is one, is the [`source`](std::error::Error::source).
#[derive(Debug)]
pub(crate) enum WhenError {
    /// None of the forms this reads.
    NotATime { text: String },
    /// A span back from now that ends before the earliest time there is.
    TooFarBack { text: String, source: jiff::Error },
    /// A day at the edge of the calendar whose first or last instant is not a time.
    OutOfRange { text: String, source: jiff::Error },
}

impl fmt::Display for WhenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhenError::NotATime { text } => write!(
                f,
                "{text:?} is not a time: use a date (2026-11-20), an RFC 3339 time, 7d, 2w, 12h, today or yesterday"
            ),
            WhenError::TooFarBack { text, .. } => write!(f, "{text:?} reaches too far back"),
            WhenError::OutOfRange { text, .. } => write!(f, "{text:?} is out of range"),
        }
    }
}

impl std::error::Error for WhenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WhenError::NotATime { .. } => None,
            WhenError::TooFarBack { source, .. } | WhenError::OutOfRange { source, .. } => Some(source),
        }
    }
}

/// Parse a time expression relative to `now`.
///
/// # Errors
///
/// A [`WhenError`] when `text` is none of the forms above, or names a time outside the
/// calendar (`9999999w`, `9999-12-31` as an end).
pub(crate) fn parse_when(text: &str, now: Timestamp, edge: Edge) -> Result<Timestamp, WhenError> {
    let text = text.trim();
    let day_of = |ts: Timestamp| ts.to_zoned_datetime(TimeZone::UTC).date();
    let day = match text.to_ascii_lowercase().as_str() {
        "now" => return Ok(now),
        "today" => Some(day_of(now)),
        "yesterday" => day_of(now).yesterday().ok(),
        _ => None,
    };
    let out_of_range = |source| WhenError::OutOfRange { text: text.to_string(), source };
    if let Some(day) = day {
        return day_bound(day, edge).map_err(out_of_range);
    }
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    if let Ok(day) = text.parse::<civil::Date>() {
        return day_bound(day, edge).map_err(out_of_range);
    }
    if let Some(ago) = relative(text) {
        return now.checked_sub(ago).map_err(|source| WhenError::TooFarBack { text: text.to_string(), source });
    }
    Err(WhenError::NotATime { text: text.to_string() })
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

fn day_bound(day: civil::Date, edge: Edge) -> Result<Timestamp, jiff::Error> {
    let time = match edge {
        Edge::Start => civil::Time::midnight(),
        Edge::End => civil::Time::MAX,
    };
    day.to_datetime(time).to_zoned_datetime(TimeZone::UTC).map(|z| z.timestamp())
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
        assert!(parse_when("last tuesday", now, Edge::Start).unwrap_err().to_string().contains("is not a time"));
    }

    /// The message and its sources, as `{:#}` prints them at the edge.
    fn chain(error: &dyn std::error::Error) -> String {
        std::iter::successors(Some(error), |e| e.source()).map(ToString::to_string).collect::<Vec<_>>().join(": ")
    }

    #[test]
    fn errors_quote_the_text_and_keep_the_reason() {
        let now: Timestamp = "2026-11-29T12:00:00Z".parse().unwrap();
        let not_a_time = parse_when(" soon ", now, Edge::Start).unwrap_err();
        assert!(matches!(&not_a_time, WhenError::NotATime { text } if text == "soon"), "{not_a_time:?}");
        assert!(std::error::Error::source(&not_a_time).is_none());
        let far = parse_when("99999999w", now, Edge::Start).unwrap_err();
        assert!(matches!(far, WhenError::TooFarBack { .. }), "{far:?}");
        let far = chain(&far);
        assert!(far.starts_with("\"99999999w\" reaches too far back: ") && far.len() > 40, "{far}");
        let edge = parse_when("9999-12-31", now, Edge::End).unwrap_err();
        assert!(matches!(edge, WhenError::OutOfRange { .. }), "{edge:?}");
        assert!(chain(&edge).starts_with("\"9999-12-31\" is out of range: "), "{}", chain(&edge));
    }
}

/// Worked examples of this module's functions.
#[cfg(test)]
mod examples {
    #[test]
    fn parse_when_example() {
        use crate::core::dates::{Edge, parse_when};
        let now = "2026-11-29T12:00:00Z".parse().unwrap();
        assert_eq!(parse_when("7d", now, Edge::Start).unwrap().to_string(), "2026-11-22T12:00:00Z");
        assert_eq!(parse_when("2026-11-20", now, Edge::End).unwrap().to_string(), "2026-11-20T23:59:59.999999999Z");
        assert_eq!(parse_when("yesterday", now, Edge::Start).unwrap().to_string(), "2026-11-28T00:00:00Z");
    }
}
