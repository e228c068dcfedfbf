//! `anonlm probe metrics`: flags to [`crate::probe::metrics_stage::ProbeMetricsSettings`], the
//! stage, its table (and with `--show-tokens` the name-like tokens); exit 1 when a set's
//! name-like share is above `--max-name-like-share`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ProbeMetricsArgs;
use crate::probe::metrics_stage::{self, Decided, ProbeMetricsSettings};
use crate::probe::{ProbeResult, SetMetrics};

pub fn run(args: ProbeMetricsArgs) -> Result<ExitCode> {
    let outcome = metrics_stage::run(&ProbeMetricsSettings {
        probe: args.probe.clone(),
        model: args.model.clone(),
        review: args.review.clone(),
        evidence: args.evidence.settings(),
        reference_probe: args.reference_probe.clone(),
        top_k: args.top_k,
        out: args.out.clone(),
        overwrite: args.overwrite.allowed,
        max_name_like_share: args.max_name_like_share,
    })?;
    let file = &outcome.file;
    print_table(&file.sets);
    if args.show_tokens {
        print_tokens(&outcome.results, args.top_k, &outcome.decided);
    }
    if let Some(out) = &args.out {
        eprintln!("metrics written to {}", out.display());
    }
    let j = &file.judgement;
    eprintln!(
        "judged {} distinct predicted tokens: {} by the review file, {} automatically",
        j.distinct_tokens, j.decided_by_review, j.decided_automatically
    );
    if let Some(gate) = &file.gate {
        let max = gate.max_name_like_share;
        if gate.passed {
            eprintln!("gate passed: no set has a name-like share above {max}");
        } else {
            for s in file.sets.iter().filter(|s| gate.exceeded.contains(&s.set)) {
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
