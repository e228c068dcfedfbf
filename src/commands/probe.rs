//! `anonlm probe build | run` (metrics: `probe_metrics`): flags to the probe stages'
//! settings ([`crate::probe::job`]), the stages, and counts on stderr, never sentences or names.

use crate::cli::{ProbeBuildArgs, ProbeCommand, ProbeRunArgs};
use crate::probe::job::{self, ProbeBuildSettings, ProbeRunSettings};
use crate::probe::SetKind;
use anyhow::Result;
use std::process::ExitCode;

pub fn run(command: ProbeCommand) -> Result<ExitCode> {
    match command {
        ProbeCommand::Build(a) => build(a),
        ProbeCommand::Run(a) => run_probes(a),
        ProbeCommand::Metrics(a) => super::probe_metrics::run(a),
    }
}

fn build(args: ProbeBuildArgs) -> Result<ExitCode> {
    let built = job::build(&ProbeBuildSettings {
        corpus: args.corpus.clone(),
        ops_log: args.ops_log.clone(),
        manifest: args.manifest.clone(),
        out: args.out.clone(),
        original: args.original.clone(),
        labels: args.labels.clone(),
        max_per_set: args.max_per_set,
        seed: args.seed,
        max_words: args.max_words,
        overwrite: args.overwrite.allowed,
        max_doc_bytes: args.max_doc_bytes.bytes,
    })?;
    let s = &built.summary;
    let d = &s.documents;
    let n = |set: SetKind| s.slots.get(&set).map_or(0, |m| m.values().sum::<usize>());
    eprintln!(
        "probe set in {}: {} seen slots ({} documents), {} unseen slots ({} documents)",
        args.out.display(),
        n(SetKind::Seen),
        d.seen,
        n(SetKind::Unseen),
        d.unseen
    );
    eprintln!(
        "documents: {} in the corpus, {} in the ops log, {} not in the manifest (skipped), {} without ops",
        d.corpus, d.ops_log_lines, d.not_in_manifest, d.without_ops_line
    );
    let basis = match s.manifest_hashes {
        crate::probe::build::HashBasis::Deidentified => "the de-identified texts",
        crate::probe::build::HashBasis::Original => "the original texts",
        crate::probe::build::HashBasis::Unmatched => "neither corpus given; matched by id only",
    };
    eprintln!(
        "manifest hashes match {basis}; {} hash mismatches (skipped); {} slots in sentences over {} words (skipped)",
        d.hash_mismatch, s.skipped_too_long, s.max_words
    );
    if built.originals.is_some() {
        eprintln!("originals: protected side file written (mode 0600), not printed");
    }
    Ok(ExitCode::SUCCESS)
}

fn run_probes(args: ProbeRunArgs) -> Result<ExitCode> {
    let summary = job::run(&ProbeRunSettings {
        model: args.model.clone(),
        set: args.set.clone(),
        top_k: args.top_k,
        out: args.out.clone(),
        originals: args.originals.clone(),
        candidates: args.candidates.clone(),
        max_candidates: args.max_candidates,
        lang: args.lang,
        seed: args.seed,
        batch: args.batch,
        device: args.device.spec.clone(),
        overwrite: args.overwrite.allowed,
    })?;
    eprintln!(
        "{} slots probed (top {}), predictions in {}",
        summary.slots,
        args.top_k,
        args.out.display()
    );
    for (set, c) in &summary.per_set {
        if summary.recovery {
            eprintln!(
                "  {:<7} {} slots; {} with a known original: {} in the top-k, {} ranked first by PLL",
                set.as_str(),
                c.slots,
                c.with_original,
                c.in_top_k,
                c.rank_one
            );
        } else {
            eprintln!("  {:<7} {} slots", set.as_str(), c.slots);
        }
    }
    Ok(ExitCode::SUCCESS)
}
