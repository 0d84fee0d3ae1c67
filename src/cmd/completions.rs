//! `handbook completions SHELL`: a completion script for the shell, made from the clap
//! definition, so it names every subcommand and flag the binary has.

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;

/// Print the script for `shell` on stdout.
pub(crate) fn run(shell: Shell) -> Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "handbook", &mut out);
    std::io::Write::write_all(&mut std::io::stdout().lock(), &out).context("cannot write the completion script")
}
