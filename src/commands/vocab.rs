//! `anonlm vocab harvest | rewrite | check`: propose name-like tokens for review, rename reviewed
//! name tokens of a model's vocabulary, and check a vocabulary (merges, loading, removed
//! strings, listed names). No token strings are printed unless `--show`.

use crate::cli::{VocabCheckArgs, VocabCommand, VocabHarvestArgs, VocabRewriteArgs};
use crate::vocab::harvest_stage::{self, HarvestSettings};
use crate::vocab::{self, CheckOptions, CheckReport, RewriteOptions};
use anyhow::{Context, Result};
use std::process::ExitCode;

pub fn run(cmd: VocabCommand) -> Result<ExitCode> {
    match cmd {
        VocabCommand::Harvest(a) => harvest(a),
        VocabCommand::Rewrite(a) => rewrite(a),
        VocabCommand::Check(a) => check(a),
    }
}

fn harvest(args: VocabHarvestArgs) -> Result<ExitCode> {
    let done = harvest_stage::run(&HarvestSettings {
        probe: args.probe.clone(),
        model: args.model.clone(),
        out: args.out.clone(),
        evidence: args.evidence.settings(),
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

fn rewrite(args: VocabRewriteArgs) -> Result<ExitCode> {
    let ordinary = args
        .reference
        .as_deref()
        .map(|corpus| vocab::evidence::ordinary_uses(&args.model, corpus, "auto", None))
        .transpose()
        .context("reading --reference")?;
    let opts = RewriteOptions {
        overwrite: args.overwrite.allowed,
        ordinary,
    };
    let report = vocab::rewrite_model(&args.model, &args.tokens, &args.out, &args.map, &opts)
        .with_context(|| format!("rewriting the vocabulary of {}", args.model.display()))?;
    eprintln!(
        "vocab rewrite ({}): {} reviewed, {} renamed as confirmed, {} derived from them{}, {} merges removed",
        report.kind,
        report.reviewed,
        report.confirmed,
        report.derived_ids.len(),
        if report.derived_ids.is_empty() {
            String::new()
        } else {
            format!(
                " (ids {})",
                report
                    .derived_ids
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        report.merges_removed
    );
    eprintln!(
        "model written to {} ({}); map (mode 0600) to {}",
        args.out.display(),
        report.written.join(", "),
        args.map.display()
    );
    if !report.left_out.is_empty() {
        eprintln!("not carried over: {}", report.left_out.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: VocabCheckArgs) -> Result<ExitCode> {
    let names = args
        .names
        .iter()
        .map(|s| vocab::load_name_list(s))
        .collect::<Result<Vec<_>, _>>()
        .context("reading --names")?;
    let removed = args
        .removed
        .as_deref()
        .map(vocab::read_map)
        .transpose()
        .context("reading --removed")?;
    let encoding = match (&args.original, &args.reference) {
        (Some(original), Some(corpus)) => Some(vocab::EncodingReference {
            original: original.clone(),
            texts: crate::eval::job::read_all(corpus, "auto", None, None)
                .with_context(|| format!("reading --reference {}", corpus.display()))?
                .into_iter()
                .map(|d| d.text)
                .collect(),
        }),
        (None, None) => None,
        _ => anyhow::bail!("--original and --reference go together"),
    };
    let opts = CheckOptions {
        names,
        removed,
        show: args.show,
        encoding,
    };
    let report = vocab::check_model(&args.model, &opts)
        .with_context(|| format!("checking {}", args.model.display()))?;
    if args.json {
        let mut text = serde_json::to_string_pretty(&report)?;
        text.push('\n');
        print_out(&text)?;
    } else {
        print_out(&report_text(&report))?;
    }
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes the report to stdout; a closed pipe is an error (exit 2), not a panic.
fn print_out(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the report to stdout")
}

fn verdict(passed: bool) -> &'static str {
    if passed {
        "ok"
    } else {
        "FAIL"
    }
}

fn report_text(r: &CheckReport) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    writeln!(
        o,
        "vocab check {} ({}, {} tokens{}): {}",
        r.model.display(),
        r.kind,
        r.vocab_size,
        if r.lowercase { ", lowercasing" } else { "" },
        if r.passed { "passed" } else { "FAILED" }
    )
    .expect("writing to a String");
    let m = &r.merges;
    writeln!(
        o,
        "  merges   {:4}  {} merges, {} with a part or result missing from the vocabulary",
        verdict(m.passed),
        m.merges,
        m.broken
    )
    .expect("writing to a String");
    if let Some(list) = &m.broken_merges {
        for [a, b] in list {
            writeln!(o, "           {a} {b}").expect("writing to a String");
        }
    }
    writeln!(o, "  loads    {}", verdict(r.loads.passed)).expect("writing to a String");
    if let Some(e) = &r.loads.error {
        writeln!(o, "           {e}").expect("writing to a String");
    }
    if let Some(x) = &r.removed {
        writeln!(
            o,
            "  removed  {:4}  {} entries: {} still in the vocabulary, {} produced by \
             encoding, {} not at their id",
            verdict(x.passed),
            x.entries,
            x.still_in_vocab,
            x.encodable,
            x.id_mismatch
        )
        .expect("writing to a String");
        if !x.failing_ids.is_empty() {
            writeln!(o, "           ids {}", join_ids(&x.failing_ids))
                .expect("writing to a String");
        }
        if let Some(list) = &x.failing {
            for t in list {
                writeln!(o, "           {t}").expect("writing to a String");
            }
        }
    }
    if let Some(e) = &r.encoding {
        writeln!(o, "  encoding {:4}  {}", verdict(e.passed), e.summary())
            .expect("writing to a String");
    }
    if let Some(n) = &r.names {
        writeln!(
            o,
            "  names    {:4}  {} vocabulary entries equal a listed name",
            verdict(n.passed),
            n.matches
        )
        .expect("writing to a String");
        for l in &n.lists {
            writeln!(
                o,
                "           {}: {} names, {} entries",
                l.list, l.names, l.matches
            )
            .expect("writing to a String");
        }
        if !n.ids.is_empty() {
            writeln!(o, "           ids {}", join_ids(&n.ids)).expect("writing to a String");
        }
        if let Some(list) = &n.tokens {
            for t in list {
                writeln!(o, "           {t}").expect("writing to a String");
            }
        }
    }
    o
}

fn join_ids(ids: &[u32]) -> String {
    ids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
