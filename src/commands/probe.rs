//! `anonlm probe build | run` (metrics: `probe_metrics`): name probe sets from a de-identified corpus, and fill-mask runs
//! at their slots with recovery figures. Prints counts only, never sentences or names.

use crate::cli::{ProbeBuildArgs, ProbeCommand, ProbeRunArgs};
use crate::commands::common::{open_documents, InputSpans};
use crate::commands::mlm::{open_runtime, JsonlSink};
use crate::corpus::{ensure_not_input, Document, Format};
use crate::lang::Lang;
use crate::probe::recovery::{CandidatePool, RecoverySettings};
use crate::probe::{
    build_probes, predict_chunk, read_manifest, read_originals, read_set, write_built,
    BuildOptions, SetKind,
};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::ExitCode;

/// Slots per chunk predicted and written (bounds memory on large sets).
const CHUNK: usize = 256;

pub fn run(command: ProbeCommand) -> Result<ExitCode> {
    match command {
        ProbeCommand::Build(a) => build(a),
        ProbeCommand::Run(a) => run_probes(a),
        ProbeCommand::Metrics(a) => super::probe_metrics::run(a),
    }
}

fn read_jsonl_docs(path: &Path, max_doc_bytes: usize) -> Result<Vec<Document>> {
    let docs = open_documents(path, Format::Jsonl, max_doc_bytes, None, InputSpans::Ignore)?
        .collect::<Result<Vec<Document>, _>>()?;
    if docs.is_empty() {
        bail!("{}: no documents", path.display());
    }
    Ok(docs)
}

fn build(args: ProbeBuildArgs) -> Result<ExitCode> {
    if args.labels.is_empty() {
        bail!("--labels needs at least one label");
    }
    let mut inputs: Vec<&Path> = vec![&args.corpus, &args.ops_log, &args.manifest];
    if let Some(o) = &args.original {
        inputs.push(o);
    }
    ensure_not_input(&args.out, &inputs)?;
    let manifest = read_manifest(&args.manifest)?;
    let corpus = read_jsonl_docs(&args.corpus, args.max_doc_bytes)
        .with_context(|| format!("reading the de-identified corpus {}", args.corpus.display()))?;
    let original = match &args.original {
        Some(p) => Some(
            read_jsonl_docs(p, args.max_doc_bytes)
                .with_context(|| format!("reading the original corpus {}", p.display()))?,
        ),
        None => None,
    };
    let opts = BuildOptions {
        labels: args.labels.clone(),
        max_per_set: args.max_per_set,
        seed: args.seed,
        max_words: args.max_words,
    };
    let built = build_probes(
        &corpus,
        original.as_deref(),
        &args.ops_log,
        &manifest,
        &opts,
    )?;
    write_built(&args.out, &built, args.overwrite)?;

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
    if args.top_k == 0 {
        bail!("--top-k must be at least 1");
    }
    if args.max_candidates < 2 {
        bail!("--max-candidates must be at least 2 (the original and one other name)");
    }
    let mut inputs: Vec<&Path> = vec![&args.set];
    inputs.extend(args.originals.as_deref());
    inputs.extend(args.candidates.as_deref());
    ensure_not_input(&args.out, &inputs)?;
    let lang = args.lang.map(Lang::code);
    let slots = read_set(&args.set, lang)?;
    if slots.is_empty() {
        bail!("{}: no probe slots", args.set.display());
    }
    let originals = args.originals.as_deref().map(read_originals).transpose()?;
    let pool = match (&originals, &args.candidates) {
        (None, _) => None,
        (Some(_), Some(path)) => Some(CandidatePool::from_file(path)?),
        (Some(_), None) => {
            let mut langs: BTreeSet<Lang> = BTreeSet::new();
            for slot in &slots {
                if let Some(code) = &slot.lang {
                    langs.insert(code.parse().map_err(|_| {
                        anyhow::anyhow!("slot {}: unknown language code '{code}'", slot.slot_id)
                    })?);
                }
            }
            langs.extend(args.lang);
            Some(CandidatePool::builtin(
                &langs.into_iter().collect::<Vec<_>>(),
            )?)
        }
    };
    let settings = match (&originals, &pool) {
        (Some(originals), Some(pool)) => Some(RecoverySettings {
            originals,
            pool,
            max_candidates: args.max_candidates,
            seed: args.seed,
            default_lang: args.lang,
        }),
        _ => None,
    };

    let mut rt = open_runtime(&args.model, &args.device)?;
    rt.batch_rows = args.batch.max(1);
    let mut sink = JsonlSink::file(&args.out, Some(&args.set), args.overwrite)?;
    let mut per_set: BTreeMap<SetKind, SetCounts> = BTreeMap::new();
    for chunk in slots.chunks(CHUNK) {
        let results = predict_chunk(&rt, chunk, args.top_k, settings.as_ref())?;
        for r in &results {
            let c = per_set.entry(r.set).or_default();
            c.slots += 1;
            if let Some(rec) = &r.recovery {
                c.with_original += 1;
                c.in_top_k += usize::from(rec.in_top_k);
                c.rank_one += usize::from(rec.pll_rank == Some(1));
            }
            sink.write(r)?;
        }
    }
    let n = sink.finish()?;
    eprintln!(
        "{n} slots probed (top {}), predictions in {}",
        args.top_k,
        args.out.display()
    );
    for (set, c) in &per_set {
        if settings.is_some() {
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

#[derive(Default)]
struct SetCounts {
    slots: usize,
    with_original: usize,
    in_top_k: usize,
    rank_one: usize,
}
