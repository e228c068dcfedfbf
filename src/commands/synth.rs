//! `anonlm synth`: flags to [`crate::synth::job::SynthSettings`], the stage, and label counts.

use super::common;
use crate::cli::SynthArgs;
use crate::synth::job::{self, SynthSettings};
use anyhow::Result;
use std::process::ExitCode;

pub use crate::synth::job::write_documents;

pub fn run(args: SynthArgs) -> Result<ExitCode> {
    let docs = job::run(&SynthSettings {
        langs: args.lang.0.clone(),
        docs: args.docs,
        seed: args.seed,
        out: args.out.clone(),
        format: args.format,
        overwrite: args.overwrite.allowed,
    })?;
    let mut counts = common::LabelCounts::default();
    docs.iter().for_each(|d| counts.add(d));
    eprint!("{}", counts.table());
    Ok(ExitCode::SUCCESS)
}
