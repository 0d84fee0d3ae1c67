//! The terminal, decided once per run: colour, progress bars, and how results and
//! diagnostics are printed. stdout carries results, stderr diagnostics and progress.

use std::io::{IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::cli::ColorChoice;
use crate::config::Output;
pub(crate) use crate::core::escape::escape;

/// The labels of diagnostics and their colours (SGR codes): one policy for both, under the
/// same `--color` rule.
const WARNING: (&str, &str) = ("warning", "33");
const ERROR: (&str, &str) = ("error", "31");

/// How this run talks to the user.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Terminal {
    pub(crate) json: bool,
    pub(crate) quiet: bool,
    /// Colour on stderr.
    pub(crate) color: bool,
    /// Colour on stdout (search highlights).
    pub(crate) color_stdout: bool,
    /// Progress bars on stderr.
    pub(crate) progress: bool,
    /// Nothing on stderr, not even warnings: `summary`'s hook mode without `-v`, since agents
    /// show a hook's stderr to the user at every start.
    pub(crate) silent: bool,
}

impl Terminal {
    pub(crate) fn detect(output: &Output) -> Terminal {
        let stderr_tty = std::io::stderr().is_terminal();
        let color_on = |tty: bool| match output.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty,
        };
        Terminal {
            json: output.json,
            quiet: output.quiet,
            color: color_on(stderr_tty),
            color_stdout: !output.json && color_on(std::io::stdout().is_terminal()),
            progress: stderr_tty && !output.json && !output.quiet,
            silent: false,
        }
    }

    /// A diagnostic on stderr: `handbook: warning: …`.
    pub(crate) fn warn(&self, message: &str) {
        self.diagnostic(WARNING, message);
    }

    /// The error that stopped the run: `handbook: error: …` on stderr, coloured as warnings
    /// are, and with `--json` also an `error` object, the last line on stdout.
    pub(crate) fn error(&self, message: &str) {
        self.diagnostic(ERROR, message);
        if self.json {
            Terminal::json_error(message);
        }
    }

    /// `{"type": "error", "data": {"message": …}}` on stdout, for a run that failed under
    /// `--json` (also before there is a terminal, when the flags themselves were refused).
    pub(crate) fn json_error(message: &str) {
        let object = serde_json::json!({ "type": "error", "data": { "message": message } });
        let _ = writeln!(std::io::stdout().lock(), "{object}");
    }

    fn diagnostic(&self, (label, colour): (&str, &str), message: &str) {
        if self.silent {
            return;
        }
        let label = if self.color { format!("\x1b[{colour}m{label}\x1b[0m") } else { label.to_string() };
        let _ = writeln!(std::io::stderr().lock(), "handbook: {label}: {}", escape(message));
    }

    /// A note on stderr that is not a problem, unless `--quiet`.
    pub(crate) fn note(&self, message: &str) {
        if !self.quiet && !self.silent {
            let _ = writeln!(std::io::stderr().lock(), "handbook: {}", escape(message));
        }
    }

    /// A line of results on stdout (text mode only).
    pub(crate) fn line(&self, text: &str) -> std::io::Result<()> {
        if self.json {
            return Ok(());
        }
        writeln!(std::io::stdout().lock(), "{}", escape(text))
    }

    /// A line of results on stdout that is already escaped and styled (text mode only).
    pub(crate) fn styled_line(&self, text: &str) -> std::io::Result<()> {
        if self.json {
            return Ok(());
        }
        writeln!(std::io::stdout().lock(), "{text}")
    }

    /// One `{"type": …, "data": …}` object on stdout (JSON mode only).
    pub(crate) fn json<T: Serialize>(&self, kind: &str, data: &T) -> std::io::Result<()> {
        if !self.json {
            return Ok(());
        }
        let line =
            serde_json::to_string(&serde_json::json!({ "type": kind, "data": data })).map_err(std::io::Error::other)?;
        writeln!(std::io::stdout().lock(), "{line}")
    }

    /// A progress bar over `len` items, hidden unless stderr is a terminal.
    pub(crate) fn progress(&self, len: u64, what: &str) -> Progress {
        if !self.progress || len < 2 {
            return Progress(ProgressBar::hidden());
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(escape(what).into_owned());
        Progress(bar)
    }
}

/// A progress bar whose messages (file names from the disk, which may hold anything) are
/// escaped like every other line printed.
pub(crate) struct Progress(ProgressBar);

impl Progress {
    pub(crate) fn set_message(&self, message: impl AsRef<str>) {
        self.0.set_message(escape(message.as_ref()).into_owned());
    }

    pub(crate) fn inc(&self, delta: u64) {
        self.0.inc(delta);
    }

    pub(crate) fn finish_and_clear(&self) {
        self.0.finish_and_clear();
    }

    #[cfg(test)]
    fn message(&self) -> String {
        self.0.message()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_messages_are_escaped() {
        let term =
            Terminal { json: false, quiet: false, color: false, color_stdout: false, progress: false, silent: false };
        let bar = term.progress(3, "extract");
        bar.set_message("rollout-\u{1b}]0;pwned\u{7}\u{202e}.jsonl");
        assert_eq!(bar.message(), "rollout-\\u{1b}]0;pwned\\u{7}\\u{202e}.jsonl");
    }
}
