//! `anonlm vocab harvest`: flags to [`crate::vocab::harvest_stage::HarvestSettings`],
//! the stage, and its counts on stderr.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::VocabHarvestArgs;
use crate::vocab::harvest_stage::{self, HarvestSettings};

pub fn run(args: VocabHarvestArgs) -> Result<ExitCode> {
    let done = harvest_stage::run(&HarvestSettings {
        probe: args.probe.clone(),
        model: args.model.clone(),
        out: args.out.clone(),
        evidence: super::name_evidence::settings(&args.evidence),
        all_tokens: args.all_tokens,
        gold: args.gold.clone(),
        summary: args.summary.clone(),
        overwrite: args.overwrite.allowed,
    })?;
    let s = &done.summary;
    eprintln!(
        "vocab harvest: {} slots, {} predictions, {} distinct tokens; {} proposed for removal; review file {}",
        s["slots"],
        s["predictions"],
        s["tokens"],
        s["proposed_remove"],
        args.out.display()
    );
    if let (Some(gold), Some(g)) = (&args.gold, s.get("gold")) {
        eprintln!(
            "against the gold names of {}: {} name tokens among the harvested; precision {:.3}, recall {:.3}",
            gold.display(),
            g["gold_name_tokens"],
            g["precision"].as_f64().unwrap_or(f64::NAN),
            g["recall"].as_f64().unwrap_or(f64::NAN)
        );
    }
    Ok(ExitCode::SUCCESS)
}
