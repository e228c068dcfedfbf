//! `anonlm deid`: flags to [`crate::deid::DeidSettings`], the stage, and its summary on stderr.

use super::common;
use crate::cli::DeidArgs;
use crate::deid::job::{self, DeidSettings};
use crate::deid::policy::Policy;
use anyhow::{Context, Result};
use std::process::ExitCode;

pub use crate::deid::job::load_policy;

/// A built-in policy name, or a TOML file, with the flag overrides applied.
pub fn build_policy(args: &DeidArgs) -> Result<Policy> {
    let mut policy = load_policy(&args.policy)?;
    if let Some(op) = args.operator {
        policy.set("default", op.as_str())?;
    }
    for pair in &args.ops {
        let (label, op) = pair
            .split_once('=')
            .with_context(|| format!("--op '{pair}': expected LABEL=OPERATOR"))?;
        policy.set(label.trim(), op.trim())?;
    }
    if let Some(style) = &args.tag_style {
        policy.tag_style = style.clone();
    }
    Ok(policy)
}

/// The stage's settings from the flags.
pub fn settings(args: &DeidArgs) -> Result<DeidSettings> {
    let inp = &args.input;
    Ok(DeidSettings {
        input: common::corpus_input(inp),
        recognizers: common::recognizer_settings(inp),
        out: args.output.out.clone(),
        out_format: args.output.out_format,
        overwrite: args.output.overwrite.allowed,
        policy: build_policy(args)?,
        key_file: args.key_file.clone(),
        seed: args.seed,
        passes: args.passes,
        ops_log: args.ops_log.clone(),
        stats: args.stats.clone(),
        patient_key: args.patient_key.clone(),
        use_input_spans: args.use_input_spans,
        quiet: inp.quiet.on,
    })
}

pub fn run(args: DeidArgs) -> Result<ExitCode> {
    common::init_threads(args.input.threads.count);
    let settings = settings(&args)?;
    let summary = job::run(&settings)?;
    if !settings.quiet {
        let stats = &summary.stats.stats;
        eprintln!(
            "{} documents, {} replacements in {:.2}s",
            summary.stats.documents, stats.spans, summary.seconds
        );
        for (label, n) in &stats.by_label {
            eprintln!("  {label:<28} {n:>9}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
