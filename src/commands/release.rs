//! `anonlm release`: flags to [`crate::release::chain::ReleaseSettings`], the whole chain
//! (deid, tokenizer, mlm train with canaries, reference model, probes, vocab harvest and rewrite,
//! probe metrics, audit, report) as library calls, resumable stage by stage; exit 1 when the gate
//! does not pass. `--demo` runs it on built-in synthetic notes with `audits/demo.toml`.

use std::process::ExitCode;

use anyhow::Result;

use super::audit::exit_code;
use crate::audit::run::Outcome;
use crate::cli::ReleaseArgs;
use crate::release::chain::{self, paths, ReleaseSettings};

pub fn run(args: ReleaseArgs) -> Result<ExitCode> {
    let settings = ReleaseSettings {
        spec: args.spec.clone(),
        demo: args.demo,
        seed: args.seed,
        out: args.out.clone(),
        // As `deid`, the chain's de-identification uses the taggers of ANONLM_MODELS when set.
        models: std::env::var_os("ANONLM_MODELS")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        quiet: args.quiet.on,
    };
    let report = chain::run(&settings)?;
    let outcome = match report.decision.outcome {
        Outcome::Pass => "PASS",
        Outcome::Fail => "FAIL",
        Outcome::Invalid => "INVALID",
    };
    eprintln!(
        "release: {outcome}; report in {}",
        args.out.join(paths::REPORT).display()
    );
    for r in &report.decision.reasons {
        eprintln!("  - {r}");
    }
    Ok(exit_code(report.decision.outcome))
}
