//! `anonlm vocab rewrite | check`: rename reviewed name tokens of a model's vocabulary, and
//! check a vocabulary (merges, loading, removed strings, listed names). No token strings are
//! printed unless `--show`.

use crate::anonymize::{self, CheckOptions, CheckReport, RewriteOptions};
use crate::cli::{VocabCheckArgs, VocabCommand, VocabRewriteArgs};
use anyhow::{Context, Result};
use std::process::ExitCode;

pub fn run(cmd: VocabCommand) -> Result<ExitCode> {
    match cmd {
        VocabCommand::Rewrite(a) => rewrite(a),
        VocabCommand::Check(a) => check(a),
    }
}

fn rewrite(args: VocabRewriteArgs) -> Result<ExitCode> {
    let opts = RewriteOptions {
        overwrite: args.overwrite,
    };
    let report =
        anonymize::rewrite_model(&args.model, &args.tokens, &args.out, &args.map, &opts)
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
        .map(|s| anonymize::load_name_list(s))
        .collect::<Result<Vec<_>, _>>()
        .context("reading --names")?;
    let removed = args
        .removed
        .as_deref()
        .map(anonymize::read_map)
        .transpose()
        .context("reading --removed")?;
    let opts = CheckOptions {
        names,
        removed,
        show: args.show,
    };
    let report = anonymize::check_model(&args.model, &opts)
        .with_context(|| format!("checking {}", args.model.display()))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn verdict(passed: bool) -> &'static str {
    if passed {
        "ok"
    } else {
        "FAIL"
    }
}

fn print_text(r: &CheckReport) {
    println!(
        "vocab check {} ({}, {} tokens{}): {}",
        r.model.display(),
        r.kind,
        r.vocab_size,
        if r.lowercase { ", lowercasing" } else { "" },
        if r.passed { "passed" } else { "FAILED" }
    );
    let m = &r.merges;
    println!(
        "  merges   {:4}  {} merges, {} with a part or result missing from the vocabulary",
        verdict(m.passed),
        m.merges,
        m.broken
    );
    if let Some(list) = &m.broken_merges {
        for [a, b] in list {
            println!("           {a} {b}");
        }
    }
    println!("  loads    {:4}", verdict(r.loads.passed));
    if let Some(e) = &r.loads.error {
        println!("           {e}");
    }
    if let Some(x) = &r.removed {
        println!(
            "  removed  {:4}  {} entries: {} still in the vocabulary, {} produced by encoding, {} not at their id",
            verdict(x.passed),
            x.entries,
            x.still_in_vocab,
            x.encodable,
            x.id_mismatch
        );
        if !x.failing_ids.is_empty() {
            println!("           ids {}", join_ids(&x.failing_ids));
        }
        if let Some(list) = &x.failing {
            for t in list {
                println!("           {t}");
            }
        }
    }
    if let Some(n) = &r.names {
        println!(
            "  names    {:4}  {} vocabulary entries equal a listed name",
            verdict(n.passed),
            n.matches
        );
        for l in &n.lists {
            println!(
                "           {}: {} names, {} entries",
                l.list, l.names, l.matches
            );
        }
        if !n.ids.is_empty() {
            println!("           ids {}", join_ids(&n.ids));
        }
        if let Some(list) = &n.tokens {
            for t in list {
                println!("           {t}");
            }
        }
    }
}

fn join_ids(ids: &[u32]) -> String {
    ids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
