//! The kinds of value a setting takes: each is read one way from a flag's or a variable's
//! text and one way from the config file, so every source is held to the same rules.

use std::path::PathBuf;

use clap::ValueEnum;
use jiff::{SignedDuration, Timestamp};

use crate::cli::ColorChoice;
use crate::config::EngineKind;

/// Why a value was refused. The caller says where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Problem {
    /// Not what the setting takes, such as "expected a whole number"; the caller shows the
    /// value next to where it came from.
    Expected(String),
    /// Not one of the names the setting knows; the message names the value itself.
    Unknown(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Expected(message) | Problem::Unknown(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Problem {}

fn expected(what: &str) -> Problem {
    Problem::Expected(format!("expected {what}"))
}

/// A kind of value a setting can hold.
pub(crate) trait Kind: Sized + Clone {
    /// Read a flag's or a variable's text.
    fn from_text(text: &str) -> Result<Self, Problem>;
    /// Read the config file's value.
    fn from_toml(value: &toml::Value) -> Result<Self, Problem>;
    /// The value as `handbook config` and the docs show it.
    fn show(&self) -> String;
}

macro_rules! whole_numbers {
    ($($t:ty),*) => {$(
        impl Kind for $t {
            fn from_text(text: &str) -> Result<Self, Problem> {
                text.trim().parse().map_err(|_| expected("a whole number"))
            }

            fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
                match value {
                    toml::Value::Integer(n) => <$t>::try_from(*n).map_err(|_| expected("a whole number")),
                    _ => Err(expected("a whole number")),
                }
            }

            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

whole_numbers!(u32, u64, usize);

/// Seconds, which may have a fraction.
impl Kind for f64 {
    fn from_text(text: &str) -> Result<Self, Problem> {
        text.trim().parse().map_err(|_| expected("a number"))
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        match value {
            // Exact: every seconds setting is far below 2^53.
            toml::Value::Integer(n) => Ok(*n as f64),
            toml::Value::Float(x) => Ok(*x),
            _ => Err(expected("a number")),
        }
    }

    fn show(&self) -> String {
        self.to_string()
    }
}

impl Kind for bool {
    fn from_text(text: &str) -> Result<Self, Problem> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => Err(expected("true or false")),
        }
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        value.as_bool().ok_or_else(|| expected("true or false"))
    }

    fn show(&self) -> String {
        self.to_string()
    }
}

impl Kind for String {
    fn from_text(text: &str) -> Result<Self, Problem> {
        Ok(text.to_string())
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        value.as_str().map(str::to_string).ok_or_else(|| expected("a string"))
    }

    fn show(&self) -> String {
        self.clone()
    }
}

impl Kind for PathBuf {
    fn from_text(text: &str) -> Result<Self, Problem> {
        Ok(PathBuf::from(text))
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        value.as_str().map(PathBuf::from).ok_or_else(|| expected("a path"))
    }

    fn show(&self) -> String {
        self.display().to_string()
    }
}

/// A list of paths: a TOML array of strings, or text separated as in `PATH`.
impl Kind for Vec<PathBuf> {
    fn from_text(text: &str) -> Result<Self, Problem> {
        Ok(std::env::split_paths(text).collect())
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        let list = || expected("a list of paths, such as [\"~/.codex/sessions\"]");
        value.as_array().ok_or_else(list)?.iter().map(|p| p.as_str().map(PathBuf::from).ok_or_else(list)).collect()
    }

    fn show(&self) -> String {
        self.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}

/// A length of time in hours: a bare number counts hours (`6`), or give a unit (`90m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hours(pub SignedDuration);

/// A length of time in days: a bare number counts days (`10`), or give a unit (`2w`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Days(pub SignedDuration);

impl Kind for Hours {
    fn from_text(text: &str) -> Result<Self, Problem> {
        parse_span(text, 1.0).map(Hours)
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        span_from_toml(value, 1.0).map(Hours)
    }

    fn show(&self) -> String {
        show_span(self.0)
    }
}

impl Kind for Days {
    fn from_text(text: &str) -> Result<Self, Problem> {
        parse_span(text, 24.0).map(Days)
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        span_from_toml(value, 24.0).map(Days)
    }

    fn show(&self) -> String {
        show_span(self.0)
    }
}

/// The longest span a setting may hold: about 114 years, far beyond any sensible window and
/// well within what `SignedDuration` can hold.
const MAX_HOURS: f64 = 1e6;

fn span_of_hours(hours: f64) -> Result<SignedDuration, Problem> {
    if !(0.0..=MAX_HOURS).contains(&hours) {
        return Err(expected("a length of time from 0 to 1000000 hours"));
    }
    Ok(SignedDuration::from_secs_f64(hours * 3600.0))
}

fn span_from_toml(value: &toml::Value, hours_per_unit: f64) -> Result<SignedDuration, Problem> {
    match value {
        toml::Value::Integer(n) => span_of_hours(*n as f64 * hours_per_unit),
        toml::Value::Float(x) => span_of_hours(x * hours_per_unit),
        _ => Err(expected("a number")),
    }
}

/// `90m`, `6h`, `10d`, `2w`, or a bare number of `hours_per_unit` hours.
fn parse_span(text: &str, hours_per_unit: f64) -> Result<SignedDuration, Problem> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let Ok(value) = number.trim().parse::<f64>() else {
        return Err(expected("a duration such as 6h, 90m, 10d or 2w"));
    };
    let hours_per = match unit.trim() {
        "" => hours_per_unit,
        "m" | "min" | "mins" | "minutes" => 1.0 / 60.0,
        "h" | "hour" | "hours" => 1.0,
        "d" | "day" | "days" => 24.0,
        "w" | "week" | "weeks" => 168.0,
        _ => return Err(expected("a duration with a unit of m, h, d or w")),
    };
    span_of_hours(value * hours_per)
}

/// The span in the largest unit that holds it whole: `10d`, `6h`, `90m`, `45s`.
fn show_span(span: SignedDuration) -> String {
    let secs = span.as_secs();
    if secs == 0 {
        return "0".to_string();
    }
    match [(86_400, "d"), (3600, "h"), (60, "m")].into_iter().find(|(unit, _)| secs % unit == 0) {
        Some((unit, name)) => format!("{}{name}", secs / unit),
        None => format!("{}s", span.as_secs_f64()),
    }
}

impl Kind for Timestamp {
    fn from_text(text: &str) -> Result<Self, Problem> {
        text.trim().parse().map_err(|_| expected("an RFC 3339 time such as 2026-11-29T12:00:00Z"))
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        Timestamp::from_text(value.as_str().ok_or_else(|| expected("an RFC 3339 time"))?)
    }

    fn show(&self) -> String {
        self.to_string()
    }
}

/// One of the names a `ValueEnum` knows, spelled as on the command line.
fn choice<E: ValueEnum>(what: &str, text: &str) -> Result<E, Problem> {
    E::from_str(text.trim(), false).map_err(|_| {
        let names: Vec<String> =
            E::value_variants().iter().filter_map(|v| Some(v.to_possible_value()?.get_name().to_string())).collect();
        Problem::Unknown(format!("unknown {what} {text:?}; expected {}", either(&names)))
    })
}

/// `a, b or c`.
pub(crate) fn either(names: &[String]) -> String {
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

fn choice_name<E: ValueEnum>(value: &E) -> String {
    value.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
}

impl Kind for EngineKind {
    fn from_text(text: &str) -> Result<Self, Problem> {
        choice("engine", text)
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        choice("engine", value.as_str().ok_or_else(|| expected("an engine's name as a string"))?)
    }

    fn show(&self) -> String {
        choice_name(self)
    }
}

impl Kind for ColorChoice {
    fn from_text(text: &str) -> Result<Self, Problem> {
        choice("colour choice", text)
    }

    fn from_toml(value: &toml::Value) -> Result<Self, Problem> {
        choice("colour choice", value.as_str().ok_or_else(|| expected("auto, always or never"))?)
    }

    fn show(&self) -> String {
        choice_name(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_units_and_bare_numbers() {
        assert_eq!(Hours::from_text("6").unwrap().0, SignedDuration::from_hours(6));
        assert_eq!(Days::from_text("10").unwrap().0, SignedDuration::from_hours(240));
        assert_eq!(Days::from_text("2w").unwrap().0, SignedDuration::from_hours(336));
        assert_eq!(Hours::from_text("90m").unwrap().0, SignedDuration::from_mins(90));
        assert!(Hours::from_text("soon").is_err());
        assert!(Hours::from_text("5y").is_err());
        assert!(Hours::from_text("-1").is_err());
        assert!(Hours::from_text("NaN").is_err());
        assert_eq!(Hours::from_toml(&toml::Value::Integer(2)).unwrap().0, SignedDuration::from_hours(2));
        assert_eq!(Days::from_toml(&toml::Value::Float(0.5)).unwrap().0, SignedDuration::from_hours(12));
        assert_eq!(Hours(SignedDuration::from_mins(90)).show(), "90m");
        assert_eq!(Days(SignedDuration::from_hours(240)).show(), "10d");
    }

    #[test]
    fn whole_numbers_are_integers_in_every_source() {
        assert_eq!(u32::from_text("20"), Ok(20));
        assert!(u32::from_text("2.5").is_err());
        assert!(u32::from_text("-1").is_err());
        assert_eq!(u64::from_text("18446744073709551615"), Ok(u64::MAX));
        assert!(usize::from_toml(&toml::Value::Float(3.0)).is_err());
        assert!(u32::from_toml(&toml::Value::Integer(-3)).is_err());
        assert!(u32::from_toml(&toml::Value::String("3".into())).is_err());
        assert_eq!(f64::from_toml(&toml::Value::Integer(30)), Ok(30.0));
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = EngineKind::from_text("opnai").unwrap_err();
        assert_eq!(err.to_string(), "unknown engine \"opnai\"; expected builtin, openai, anthropic or command");
        assert_eq!(EngineKind::from_text("openai"), Ok(EngineKind::OpenAi));
        assert_eq!(ColorChoice::from_text("never"), Ok(ColorChoice::Never));
    }
}
