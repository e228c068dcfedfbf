//! `anonlm keygen`: a new random key file (mode 0600, never overwritten).

use crate::cli::KeygenArgs;
use crate::keys::Key;
use anyhow::Result;
use std::process::ExitCode;

pub fn run(args: KeygenArgs) -> Result<ExitCode> {
    let key = Key::generate(&args.out)?;
    let fingerprint = key.fingerprint();
    eprintln!(
        "wrote {} (fingerprint {fingerprint}); keep it out of the release",
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
