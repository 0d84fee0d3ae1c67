//! Stopping a run cleanly on Ctrl-C (SIGINT) or SIGTERM. The first signal asks the run to
//! stop at the next session boundary: what is finished is committed, the coverage so far is
//! printed, the lock is released, and the run exits 130 (143 for SIGTERM). A second signal
//! ends the process at once; every write is atomic (the state's journal skips a torn last
//! line), so what is on disk stays consistent.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::{Context, Result};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// A signal that asked the run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    Interrupt,
    Terminate,
}

impl Signal {
    /// The exit status of a run it stopped: 128 plus the signal's number, as shells report.
    pub(crate) fn exit_status(self) -> u8 {
        match self {
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
        }
    }

    fn number(self) -> i32 {
        match self {
            Signal::Interrupt => SIGINT,
            Signal::Terminate => SIGTERM,
        }
    }
}

/// Whether a stop was asked for, and by which signal.
#[derive(Debug, Clone)]
pub(crate) struct Stop {
    signal: Arc<AtomicUsize>,
}

impl Stop {
    /// Catch SIGINT and SIGTERM from now on, for the rest of the process.
    pub(crate) fn install() -> Result<Stop> {
        let signal = Arc::new(AtomicUsize::new(0));
        let armed = Arc::new(AtomicBool::new(false));
        for which in [Signal::Interrupt, Signal::Terminate] {
            let number = which.number();
            // The shutdown goes first: on the first signal it is not armed yet.
            flag::register_conditional_shutdown(number, i32::from(which.exit_status()), Arc::clone(&armed))
                .and_then(|_| flag::register(number, Arc::clone(&armed)))
                .and_then(|_| flag::register_usize(number, Arc::clone(&signal), number as usize))
                .context("cannot catch Ctrl-C and termination signals")?;
        }
        Ok(Stop { signal })
    }

    /// A stop that is never asked for.
    #[cfg(test)]
    pub(crate) fn never() -> Stop {
        Stop { signal: Arc::new(AtomicUsize::new(0)) }
    }

    /// The signal that asked the run to stop, if one did.
    pub(crate) fn requested(&self) -> Option<Signal> {
        match self.signal.load(Ordering::SeqCst) as i32 {
            0 => None,
            n if n == SIGTERM => Some(Signal::Terminate),
            _ => Some(Signal::Interrupt),
        }
    }
}

/// The error a run stopped by a signal ends with; its exit status is the signal's.
#[derive(Debug)]
pub(crate) struct Interrupted(pub(crate) Signal);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.0 {
            Signal::Interrupt => "interrupted",
            Signal::Terminate => "terminated",
        };
        write!(f, "{what}: the sessions finished so far are kept; the rest wait for the next run")
    }
}

impl std::error::Error for Interrupted {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_names_its_signal_and_status() {
        let stop = Stop::never();
        assert_eq!(stop.requested(), None);
        stop.signal.store(SIGTERM as usize, Ordering::SeqCst);
        assert_eq!(stop.requested(), Some(Signal::Terminate));
        assert_eq!(Signal::Terminate.exit_status(), 143);
        stop.signal.store(SIGINT as usize, Ordering::SeqCst);
        assert_eq!(stop.requested().map(Signal::exit_status), Some(130));
        assert!(Interrupted(Signal::Interrupt).to_string().starts_with("interrupted: "));
    }
}
