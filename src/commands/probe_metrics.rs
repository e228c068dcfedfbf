//! `anonlm probe metrics`: the figures of `probe run` output per set (name-like share with an
//! exact interval, slots with any, best rank, recoveries), as a table and as JSON; exit 1 when
//! a set's name-like share is above `--max-name-like-share`.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::json;

use super::common::{file_sha256, write_bytes_atomic};
use super::name_evidence::NameEvidence;
use crate::anonymize::{read_review, Decision};
use crate::cli::ProbeMetricsArgs;
use crate::corpus::ensure_not_input;
use crate::probe::{
    probe_metrics, read_probe_results, MetricsSettings, ProbeResult, RankedPrediction, Recovery,
    SetMetrics,
};
use crate::tokenizer::{self, ModelTokenizer};

/// Version of the JSON written by `--out`; bump on any incompatible change.
pub const SCHEMA: &str = "anonlm.probe-metrics/1";

pub fn run(args: ProbeMetricsArgs) -> Result<ExitCode> {
    if args.top_k == Some(0) {
        bail!("--top-k must be at least 1");
    }
    if let Some(max) = args.max_name_like_share {
        if !(0.0..=1.0).contains(&max) {
            bail!("--max-name-like-share {max} is not a share between 0 and 1");
        }
    }
    if let Some(out) = &args.out {
        if out.exists() && !args.overwrite {
            bail!("{} exists (pass --overwrite to replace it)", out.display());
        }
        ensure_not_input(out, &inputs_of(&args))?;
    }
    let tok = tokenizer::load_dir(&args.model)
        .with_context(|| format!("loading the tokenizer of {}", args.model.display()))?;
    let mut results = Vec::new();
    for path in &args.probe {
        let file = read_probe_results(path)?;
        check_against_model(path, &file, &tok, &args.model)?;
        results.extend(file);
    }
    if results.is_empty() {
        bail!("no probe slots in {}", join_paths(&args.probe));
    }
    let reviewed = match &args.review {
        Some(path) => read_review(path)?
            .into_iter()
            .map(|r| (r.id, (r.token, r.decision)))
            .collect(),
        None => HashMap::new(),
    };
    let evidence = NameEvidence::load(&tok, &args.evidence)?;
    let judge = evidence.judge();

    // One decision per vocabulary entry: the review's when it lists the same id and string
    // (a rewritten model keeps the id under a new string: judged afresh), else the judge's.
    let decided: RefCell<BTreeMap<u32, Decided>> = RefCell::new(BTreeMap::new());
    let name_like = |p: &RankedPrediction| -> bool {
        let mut cache = decided.borrow_mut();
        let d = cache
            .entry(p.id)
            .or_insert_with(|| match reviewed.get(&p.id) {
                Some((token, decision)) if *token == p.token => Decided {
                    name_like: *decision == Decision::Remove,
                    by_review: true,
                    token: p.token.clone(),
                },
                _ => Decided {
                    name_like: judge.assess(p.id, &p.token).remove,
                    by_review: false,
                    token: p.token.clone(),
                },
            });
        d.name_like
    };
    let reference = read_reference(&args.reference_probe)?;
    let sets = probe_metrics(
        &results,
        &MetricsSettings {
            top_k: args.top_k,
            name_like: &name_like,
            reference: &reference,
        },
    );
    let decided = decided.into_inner();

    print_table(&sets);
    if args.show_tokens {
        print_tokens(&results, args.top_k, &decided);
    }
    let by_review = decided.values().filter(|d| d.by_review).count();
    let name_like_by = |review: bool| {
        decided
            .values()
            .filter(|d| d.by_review == review && d.name_like)
            .count()
    };
    let exceeded: Vec<&SetMetrics> = match args.max_name_like_share {
        Some(max) => sets
            .iter()
            .filter(|s| s.name_like_predictions.estimate.is_some_and(|e| e > max))
            .collect(),
        None => Vec::new(),
    };
    if let Some(out) = &args.out {
        let report = json!({
            "schema": SCHEMA,
            "tool": format!("anonlm {}", env!("CARGO_PKG_VERSION")),
            "model": {
                "dir": args.model.display().to_string(),
                "tokenizer_sha256": file_sha256(&args.model.join("tokenizer.json"))?,
            },
            "probe_files": described(&args.probe)?,
            "reference_probe_files": described(&args.reference_probe)?,
            "top_k": args.top_k,
            "judgement": {
                "review": args.review.as_ref().map(|p| p.display().to_string()),
                "evidence": evidence.summary(),
                "distinct_tokens": decided.len(),
                "decided_by_review": by_review,
                "decided_automatically": decided.len() - by_review,
                "name_like_by_review": name_like_by(true),
                "name_like_automatically": name_like_by(false),
            },
            "sets": sets,
            "gate": args.max_name_like_share.map(|max| json!({
                "max_name_like_share": max,
                "passed": exceeded.is_empty(),
            })),
        });
        let mut text = serde_json::to_string_pretty(&report)?;
        text.push('\n');
        write_bytes_atomic(out, text.as_bytes(), args.overwrite, &inputs_of(&args))?;
        eprintln!("metrics written to {}", out.display());
    }
    eprintln!(
        "judged {} distinct predicted tokens: {by_review} by the review file, {} automatically",
        decided.len(),
        decided.len() - by_review
    );
    if let Some(max) = args.max_name_like_share {
        if exceeded.is_empty() {
            eprintln!("gate passed: no set has a name-like share above {max}");
        } else {
            for s in &exceeded {
                eprintln!(
                    "gate FAILED: set {} has a name-like share of {} (maximum {max})",
                    s.set,
                    s.name_like_predictions.describe()
                );
            }
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The decision on one predicted vocabulary entry.
struct Decided {
    name_like: bool,
    by_review: bool,
    token: String,
}

/// Every prediction must name this model's vocabulary entry at its id: a run of another model
/// (or of the model before its rewrite) would otherwise be judged on the wrong strings.
fn check_against_model(
    path: &Path,
    results: &[ProbeResult],
    tok: &ModelTokenizer,
    model: &Path,
) -> Result<()> {
    for r in results {
        for p in &r.predictions {
            if tok.inner.id_to_token(p.id).as_deref() != Some(p.token.as_str()) {
                bail!(
                    "{}: slot '{}': prediction id {} is another vocabulary entry in {} (was the run made with another model?)",
                    path.display(),
                    r.slot_id,
                    p.id,
                    model.display()
                );
            }
        }
    }
    Ok(())
}

/// Recovery figures of reference runs by slot id; a run without any is refused.
fn read_reference(paths: &[PathBuf]) -> Result<HashMap<String, Recovery>> {
    let mut out = HashMap::new();
    for path in paths {
        let before = out.len();
        for r in read_probe_results(path)? {
            if let Some(rec) = r.recovery {
                if out.insert(r.slot_id.clone(), rec).is_some() {
                    bail!(
                        "{}: slot '{}' appears twice in the reference runs",
                        path.display(),
                        r.slot_id
                    );
                }
            }
        }
        if out.len() == before {
            bail!(
                "{}: no recovery figures (run the reference model with probe run --originals)",
                path.display()
            );
        }
    }
    Ok(out)
}

fn described(paths: &[PathBuf]) -> Result<Vec<serde_json::Value>> {
    paths
        .iter()
        .map(|p| {
            Ok(json!({
                "path": p.display().to_string(),
                "sha256": file_sha256(p)?,
            }))
        })
        .collect()
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_table(sets: &[SetMetrics]) {
    for s in sets {
        println!("{}: {} slots, top {}", s.set, s.slots, s.top_k);
        println!(
            "  name-like predictions   {}",
            s.name_like_predictions.describe()
        );
        println!(
            "  slots with any          {}",
            s.slots_with_name_like.describe()
        );
        println!("  name-like first         {}", s.top1_name_like.describe());
        match (s.best_name_like_rank, s.median_best_name_like_rank) {
            (Some(best), Some(median)) => {
                println!("  best name-like rank     {best} (median of the slots' best: {median})")
            }
            _ => println!("  best name-like rank     none"),
        }
        if let Some(r) = &s.recovery {
            println!("  original in top-k       {}", r.in_top_k.describe());
            let chance = r
                .uniform_rank_first
                .map(|c| format!(" (uniform 1/candidates: {:.2}%)", 100.0 * c))
                .unwrap_or_default();
            println!(
                "  original first by PLL   {}{chance}",
                r.pll_rank_first.describe()
            );
            if let (Some(rank), Some(n), Some(pct)) = (
                r.median_pll_rank,
                r.median_candidates,
                r.mean_rank_percentile,
            ) {
                println!(
                    "  PLL rank                median {rank} of {n} candidates; mean percentile {:.3} (uniform 0.5)",
                    pct
                );
            }
            if let Some(c) = &r.reference {
                println!(
                    "  reference model         first by PLL {} on the same slots (this model {})",
                    c.reference_rank_first.describe(),
                    c.model_rank_first.describe()
                );
                let p = c
                    .sign_test_p
                    .map(|p| format!("; sign test p = {p:.3}"))
                    .unwrap_or_default();
                println!(
                    "  vs reference            better at {}, worse at {}, tied at {} slots{p}",
                    c.model_better, c.reference_better, c.ties
                );
            }
            if r.ranked < r.slots {
                println!(
                    "  unspellable originals   {} (the vocabulary cannot produce them)",
                    r.slots - r.ranked
                );
            }
        }
    }
}

/// The name-like tokens predicted (within the counted k) with how often: names, possibly real.
fn print_tokens(results: &[ProbeResult], top_k: Option<usize>, decided: &BTreeMap<u32, Decided>) {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for r in results {
        for p in &r.predictions {
            if top_k.is_none_or(|k| p.rank <= k) && decided.get(&p.id).is_some_and(|d| d.name_like)
            {
                *counts.entry(p.id).or_default() += 1;
            }
        }
    }
    let mut rows: Vec<(usize, u32)> = counts.into_iter().map(|(id, n)| (n, id)).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    println!("name-like tokens predicted (count, id, token, decided by):");
    for (n, id) in rows {
        let d = &decided[&id];
        let by = if d.by_review { "review" } else { "judge" };
        println!("  {n:>6}  {id:>6}  {}  {by}", d.token);
    }
}

/// The files a `probe metrics` run reads, which its output must not replace.
fn inputs_of(args: &ProbeMetricsArgs) -> Vec<&Path> {
    let mut inputs: Vec<&Path> = args
        .probe
        .iter()
        .chain(&args.reference_probe)
        .map(PathBuf::as_path)
        .collect();
    inputs.extend(args.review.as_deref());
    inputs.push(&args.model);
    inputs
}
