//! The `anonlm` binary: parse flags, run the subcommand, map the outcome to an exit code
//! (0 success, 1 a checked threshold not met, 2 error).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = anonlm::cli::Cli::parse();
    match anonlm::commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("anonlm: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
