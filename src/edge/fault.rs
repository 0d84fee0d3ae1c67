//! Fault injection for tests: a run aborts at a named point when `HANDBOOK_FAULT` names it,
//! to prove that a run killed there loses nothing. Compiled in only with the
//! `fault-injection` feature, which the test suite turns on; in a normal build a point does
//! nothing and the variable is never read.

use crate::config::Settings;

/// Abort here when the run's fault names `point`.
#[cfg(feature = "fault-injection")]
pub(crate) fn point(settings: &Settings, point: &str) {
    if settings.fault.as_deref() == Some(point) {
        std::process::abort();
    }
}

/// Nothing: a build without fault injection.
#[cfg(not(feature = "fault-injection"))]
pub(crate) fn point(_settings: &Settings, _point: &str) {}
