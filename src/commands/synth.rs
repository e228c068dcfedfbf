//! `anonlm synth`: flags to [`crate::synth::job::SynthSettings`], the stage, and label counts.

use super::common;
use crate::cli::SynthArgs;
use crate::lang::Lang;
use crate::synth::job::{self, SynthSettings};
use anyhow::Result;
use std::process::ExitCode;

pub use crate::synth::job::write_documents;

/// `all` or one language code.
pub fn parse_langs(spec: &str) -> Result<Vec<Lang>> {
    if spec.eq_ignore_ascii_case("all") {
        return Ok(Lang::ALL.to_vec());
    }
    Ok(spec
        .split(',')
        .map(str::parse::<Lang>)
        .collect::<Result<_, _>>()?)
}

pub fn run(args: SynthArgs) -> Result<ExitCode> {
    let docs = job::run(&SynthSettings {
        langs: parse_langs(&args.lang)?,
        docs: args.docs,
        seed: args.seed,
        out: args.out.clone(),
        format: args.format.parse()?,
        overwrite: args.overwrite,
    })?;
    let mut counts = common::LabelCounts::default();
    docs.iter().for_each(|d| counts.add(d));
    eprint!("{}", counts.table());
    Ok(ExitCode::SUCCESS)
}
