//! The `handbook` binary: parse flags, run, map the outcome to an exit status.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match handbook::cli::Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => return handbook::exit_for_flags(&error, &args),
    };
    match handbook::run(cli) {
        Ok(status) => ExitCode::from(status),
        Err(error) => {
            let (status, message) = handbook::exit_for(&error);
            if let Some(message) = message {
                eprintln!("{message}");
            }
            status
        }
    }
}
