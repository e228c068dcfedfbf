//! `anonlm recognize`: flags to [`crate::recognize::stage::RecognizeSettings`], the stage,
//! and the counts per label.

use super::common;
use crate::cli::RecognizeArgs;
use crate::recognize::stage::{self, RecognizeSettings};
use anyhow::Result;
use std::process::ExitCode;

pub fn run(args: RecognizeArgs) -> Result<ExitCode> {
    let inp = &args.input;
    common::init_threads(inp.threads.count);
    let counts = stage::run(&RecognizeSettings {
        input: common::corpus_input(inp),
        recognizers: common::recognizer_settings(inp),
        out: args.output.out.clone(),
        out_format: args.output.out_format,
        overwrite: args.output.overwrite.allowed,
        out_label_map: args.out_label_map.clone(),
        quiet: inp.quiet.on,
    })?;
    if !inp.quiet.on {
        eprint!("{}", counts.table());
    }
    Ok(ExitCode::SUCCESS)
}
