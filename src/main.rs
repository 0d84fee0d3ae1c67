//! The `handbook` binary: parse flags, run, map the outcome to an exit status.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match handbook::cli::Cli::try_parse_from(&args) {
        Ok(cli) => handbook::run(cli),
        Err(error) => handbook::exit_for_flags(&error, &args),
    }
}
