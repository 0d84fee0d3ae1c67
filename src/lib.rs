//! handbook: a memory that lasts across coding-agent sessions.
//!
//! ```text
//! sources ─ discover ─ read+normalise ─ filter ─ redact ─ extract ─▶ stage-1 outputs (state)
//!  edge/discover   core/formats  core/filter core/redact core/extract  core/state, edge/ledger
//!                                                   (built-in or model: core/model, edge/model)
//!                                                                          │
//! summary / search ◀─ workspace ◀─ validate ◀─ consolidate ◀─ diff vs manifest ◀─ sync ◀─ select
//!  core/summary      edge/workspace    core/consolidate (plan.rs decides; validate.rs checks)
//! ```
//!
//! Decide in the core, act at the edges: the edges gather what they observe into plain
//! values, a pure function in `core` decides and returns a typed plan, and the command in
//! `cmd` applies it (a dry run applies nothing).
//!
//! - `core` is pure: readers per transcript format, the filter, redaction, extraction, each
//!   session's state machine (`core::state`), the plans of a consolidation, and `core::model`:
//!   the prompts a model gets and the checks its answers pass.
//! - `edge` does the I/O: discovery, streaming reads, the one way to write and remove
//!   (`edge::fsio`), the lock, the terminal, and `edge::model`: the clients that call a model.
//! - `cmd` holds one module per subcommand, joining the two.
//! - [`cli`] declares the flags; [`config`] resolves them with the environment and the config
//!   file, from one table of settings.

pub mod cli;
pub(crate) mod cmd;
pub mod config;
pub mod core;
pub(crate) mod edge;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::config::{CommandSettings, Env, Settings};
use crate::edge::lock::LockHeld;
use crate::edge::signal::Interrupted;
use crate::edge::terminal::Terminal;

/// Exit status: success.
pub const EXIT_OK: u8 = 0;
/// Exit status: `search` found nothing.
pub const EXIT_NOTHING_FOUND: u8 = 1;
/// Exit status: `doctor` found something wrong.
pub const EXIT_PROBLEMS: u8 = 1;
/// Exit status: an error stopped the run.
pub const EXIT_ERROR: u8 = 2;
/// Exit status: another run holds the workspace lock.
pub const EXIT_LOCKED: u8 = 3;

/// Run handbook with parsed flags and return the exit status. An error that stops the run is
/// printed here: `handbook: error: …` on stderr and, with `--json`, an `error` object as the
/// last line on stdout.
pub fn run(cli: cli::Cli) -> ExitCode {
    // `summary --hook` runs at every agent start: nothing may stop the agent, not even a
    // broken config file or environment, and only `-v` makes it say why on stderr.
    let (hook, verbose) = match &cli.command {
        cli::Command::Summary(args) => (args.hook_mode(), args.verbose),
        _ => (false, false),
    };
    let fallback = Terminal::detect(&config::Output::before_settings(cli.json, cli.color, &Env::from_process()));
    let mut term = None;
    let result = match &cli.command {
        // A shell's startup file runs this: no config file or variable may break it.
        cli::Command::Completions(args) => cmd::completions::run(args.shell).map(|()| EXIT_OK),
        _ => run_settled(cli, &mut term),
    };
    match result {
        Ok(status) => ExitCode::from(status),
        Err(e) if hook => {
            if verbose {
                eprintln!("handbook: warning: {e:#}; printing nothing");
            }
            ExitCode::from(EXIT_OK)
        }
        Err(e) => {
            let (status, message) = exit_for(&e);
            if let Some(message) = message {
                term.unwrap_or(fallback).error(&message);
            }
            status
        }
    }
}

/// Resolve the settings, then run the command; `term` is set once the terminal is decided, so
/// an error is printed by the same colour rule as the run's warnings.
fn run_settled(cli: cli::Cli, term: &mut Option<Terminal>) -> Result<u8> {
    let settings = Settings::resolve(cli, &Env::from_process())?;
    let term = *term.insert(Terminal::detect(&settings.output));
    let silent = matches!(&settings.command, CommandSettings::Summary(opts) if opts.printing.hook && !opts.verbose);
    for warning in settings.warnings.iter().filter(|_| !silent) {
        term.warn(warning);
    }
    // `config` shows the settings whatever the home is like, and says what is wrong with it;
    // completions need no home at all.
    match (&settings.command, edge::workspace::check_home(&settings.home)) {
        (CommandSettings::Completions(_), _) | (_, Ok(())) => {}
        (CommandSettings::Config, Err(error)) => term.warn(&format!("{error:#}")),
        (_, Err(error)) => return Err(error),
    }
    let term = &term;
    match &settings.command {
        CommandSettings::Extract(opts) => cmd::extract::run(&settings, opts, term)?,
        CommandSettings::Consolidate(opts) => cmd::consolidate::run(&settings, opts, term)?,
        CommandSettings::Update(extract, consolidate) => cmd::update::run(&settings, extract, consolidate, term)?,
        CommandSettings::Summary(opts) => cmd::summary::run(&settings, opts, term)?,
        CommandSettings::Search(opts) => return cmd::search::run(&settings, opts, term),
        CommandSettings::Note(opts) => cmd::note::run(&settings, opts, term)?,
        CommandSettings::Mcp(opts) => cmd::mcp::run(&settings, opts)?,
        CommandSettings::Forget { sessions, undo, lock_wait } => {
            cmd::forget::run(&settings, sessions, *undo, *lock_wait, term)?
        }
        CommandSettings::Status => cmd::status::run(&settings, term)?,
        CommandSettings::Reset { yes, notes, lock_wait } => cmd::reset::run(&settings, *yes, *notes, *lock_wait, term)?,
        CommandSettings::Config => cmd::config::run(&settings, term)?,
        CommandSettings::Integrate(opts) => cmd::integrate::run(&settings, opts, term)?,
        CommandSettings::Doctor(opts) => return cmd::doctor::run(&settings, opts, term),
        CommandSettings::Completions(shell) => cmd::completions::run(*shell)?,
        CommandSettings::Log => cmd::log::run(&settings, term)?,
        CommandSettings::Diff(opts) => cmd::diff::run(&settings, opts, term)?,
        CommandSettings::Undo(opts) => cmd::undo::run(&settings, opts, term)?,
        CommandSettings::Review(opts) => cmd::review::run(&settings, opts, term)?,
        CommandSettings::Promote(opts) => cmd::promote::run(&settings, opts, term)?,
        CommandSettings::Why(opts) => cmd::why::run(&settings, opts, term)?,
    }
    Ok(EXIT_OK)
}

/// Bad flags: clap's message and status, except in `summary`'s hook mode, which never fails
/// (it prints nothing, says why on stderr only with `-v`, and exits 0). `args` is the whole
/// command line.
pub fn exit_for_flags(error: &clap::Error, args: &[std::ffi::OsString]) -> ExitCode {
    if error.use_stderr() && cli::asks_for_hook(args) {
        if cli::asks_for_verbose(args) {
            eprintln!("handbook: warning: {}; printing nothing", error.kind());
        }
        return ExitCode::from(EXIT_OK);
    }
    // clap's own colouring would follow only the terminal: the flags and the environment say.
    let output = config::Output::before_settings(false, cli::asks_for_color(args), &Env::from_process());
    let terminal = Terminal::detect(&output);
    let rendered = error.render();
    let coloured = if error.use_stderr() { terminal.color } else { terminal.color_stdout };
    let text = if coloured { rendered.ansi().to_string() } else { rendered.to_string() };
    if error.use_stderr() {
        let _ = write!(std::io::stderr().lock(), "{text}");
    } else {
        let _ = write!(std::io::stdout().lock(), "{text}");
    }
    if error.use_stderr() && cli::asks_for_json(args) {
        Terminal::json_error(&flag_error_message(error));
    }
    ExitCode::from(if error.use_stderr() { EXIT_ERROR } else { EXIT_OK })
}

/// clap's message without its `error: ` label, usage and hints: its first line.
fn flag_error_message(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// The exit status and message (without the `handbook: error:` label) for an error: a held
/// lock has its own status, a run stopped by a signal exits 128 plus its number (130 for
/// Ctrl-C, 143 for SIGTERM), and a closed stdout (`handbook … | head`) is not an error at all.
pub fn exit_for(error: &anyhow::Error) -> (ExitCode, Option<String>) {
    if error
        .chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
    {
        return (ExitCode::from(EXIT_OK), None);
    }
    let status = match (error.downcast_ref::<LockHeld>(), error.downcast_ref::<Interrupted>()) {
        (Some(_), _) => EXIT_LOCKED,
        (None, Some(Interrupted(signal))) => signal.exit_status(),
        (None, None) => EXIT_ERROR,
    };
    (ExitCode::from(status), Some(format!("{error:#}")))
}
