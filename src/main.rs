//! The `anonlm` binary: parse flags, run the subcommand, map the outcome to an exit code
//! (0 success, 1 a checked threshold not met, 2 error).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = anonlm::cli::Cli::parse();
    match anonlm::commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("anonlm: error: {}", describe(&err));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes, each cause added only when the text so far does not already
/// carry it (our error types print their source inline, so `{:#}` would repeat it).
fn describe(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.is_empty() {
            text = part;
        } else if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}
