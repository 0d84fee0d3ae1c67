//! The `handbook` binary: parse flags, run, map the outcome to an exit status.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = handbook::cli::Cli::parse();
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
