//! `anonlm eval`: precision/recall/F1 at six levels, per label, and residual PII after deid.

use super::common;
use crate::cli::EvalArgs;
use crate::corpus::{Document, ReadOptions};
use crate::eval::{evaluate, residual_report, risk_svg, EvalOptions};
use crate::labels::Label;
use anyhow::{Context, Result};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

pub(crate) fn read_all(
    path: &Path,
    format: &str,
    max: Option<usize>,
    map: Option<&str>,
) -> Result<Vec<Document>> {
    let format = common::resolve_format(format, path)?;
    let max = max.unwrap_or(ReadOptions::DEFAULT_MAX_DOC_BYTES);
    let docs = common::open_documents(path, format, max, map, common::InputSpans::Keep)?;
    Ok(docs.collect::<Result<Vec<_>, _>>()?)
}

pub fn run(args: EvalArgs) -> Result<ExitCode> {
    let opts = EvalOptions {
        exclude: args
            .exclude
            .iter()
            .map(|s| Label::parse(s).map_err(anyhow::Error::msg))
            .collect::<Result<_>>()?,
    };
    // Every file this run reads; no output may land on one of them.
    let inputs: Vec<&Path> = [
        Some(&args.gold),
        args.pred.as_ref(),
        args.ops_log.as_ref(),
        args.deid.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|p| p.as_path())
    .collect();
    // Refused before any work: a long evaluation must not end in a refusal.
    let outputs = [args.json.as_deref(), args.risk.risk_svg.as_deref()];
    for out in outputs.into_iter().flatten() {
        crate::fsio::check_dest(
            out,
            false,
            args.overwrite,
            &crate::fsio::Inputs::of(inputs.iter().copied()),
        )?;
    }
    let r = &args.risk;
    anyhow::ensure!(
        args.names || r.risk || (r.lists.is_none() && r.model.is_none()),
        "--lists and --model need --risk or --names (they configure the recognizers those run)"
    );
    let mut report = serde_json::Map::new();
    if args.names {
        let names = super::eval_names::run(&args)?;
        print!("{}", names.to_table());
        report.insert("names".into(), serde_json::to_value(&names)?);
        return write_json(&args, report, &inputs);
    }
    let gold = read_all(
        &args.gold,
        &args.format,
        args.max_doc_bytes,
        args.label_map.as_deref(),
    )
    .context("reading gold")?;
    if let Some(pred_path) = &args.pred {
        let pred_format = args.pred_format.as_deref().unwrap_or(&args.format);
        let pred = read_all(
            pred_path,
            pred_format,
            args.max_doc_bytes,
            args.pred_label_map.as_deref(),
        )
        .context("reading predictions")?;
        let scores = evaluate(&gold, &pred, &opts)?;
        print!("{}", scores.to_table());
        report.insert("spans".into(), serde_json::to_value(&scores)?);
    }
    if args.ops_log.is_some() || args.deid.is_some() {
        let replaced = args
            .ops_log
            .as_deref()
            .map(|p| crate::opslog::read_replaced_ranges(p, &gold))
            .transpose()?;
        let output = match &args.deid {
            Some(p) => Some(read_all(p, "auto", args.max_doc_bytes, None)?),
            None => None,
        };
        let generated = match (&args.ops_log, &output) {
            (Some(log), Some(out)) => Some(crate::opslog::read_generated_ranges(log, out)?),
            _ => None,
        };
        let residual = residual_report(
            &gold,
            replaced.as_ref(),
            output.as_deref(),
            generated.as_ref(),
            &opts,
        )?;
        print!("{}", residual.to_table());
        report.insert("residual".into(), serde_json::to_value(&residual)?);
    }
    if args.risk.risk {
        let risk = super::eval_risk::run(&args, &gold, &opts)?;
        print!("{}", risk.to_table());
        if let Some(path) = &args.risk.risk_svg {
            common::write_bytes_atomic(path, risk_svg(&risk).as_bytes(), args.overwrite, &inputs)?;
        }
        report.insert("risk".into(), serde_json::to_value(&risk)?);
    }
    anyhow::ensure!(
        !report.is_empty(),
        "nothing to evaluate: give --pred, --ops-log / --deid for residual PII, or --risk"
    );
    write_json(&args, report, &inputs)
}

fn write_json(
    args: &EvalArgs,
    report: serde_json::Map<String, serde_json::Value>,
    inputs: &[&Path],
) -> Result<ExitCode> {
    if let Some(path) = &args.json {
        let body =
            json!({"tool": "anonlm", "version": env!("CARGO_PKG_VERSION"), "report": report});
        let text = serde_json::to_string_pretty(&body)?;
        common::write_bytes_atomic(path, text.as_bytes(), args.overwrite, inputs)?;
    }
    Ok(ExitCode::SUCCESS)
}
