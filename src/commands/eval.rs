//! `anonlm eval`: flags to [`crate::eval::job::EvalSettings`], the stage, and its tables.

use super::eval_risk;
use crate::cli::EvalArgs;
use crate::eval::job::{self, EvalSettings, RiskSettings};
use crate::labels::Label;
use anyhow::Result;
use std::process::ExitCode;

/// The stage's settings from the flags.
pub fn settings(args: &EvalArgs) -> Result<EvalSettings> {
    let r = &args.risk;
    anyhow::ensure!(
        args.names || r.risk || (r.language.lists.is_none() && r.taggers.model.is_none()),
        "--lists and --model need --risk or --names (they configure the recognizers those run)"
    );
    Ok(EvalSettings {
        gold: args.gold.clone(),
        format: args.format.clone(),
        label_map: args.label_map.clone(),
        pred: args.pred.clone(),
        pred_format: args.pred_format.clone(),
        pred_label_map: args.pred_label_map.clone(),
        exclude: args
            .exclude
            .iter()
            .map(|s| Label::parse(s))
            .collect::<Result<_, _>>()?,
        ops_log: args.ops_log.clone(),
        deid: args.deid.clone(),
        max_doc_bytes: args.max_doc_bytes,
        names: args.names.then(|| eval_risk::recognizers(args)),
        risk: if r.risk {
            Some(RiskSettings {
                recognizers: eval_risk::recognizers(args),
                policy: super::deid::load_policy(&r.policy)?,
                key_file: r.key_file.clone(),
                passes: r.passes,
                svg: r.risk_svg.clone(),
            })
        } else {
            None
        },
        json: args.json.clone(),
        overwrite: args.overwrite.allowed,
    })
}

pub fn run(args: EvalArgs) -> Result<ExitCode> {
    let file = job::run(&settings(&args)?)?;
    print_tables(&file);
    Ok(ExitCode::SUCCESS)
}

/// The tables of the parts that ran, on stdout.
pub fn print_tables(file: &job::EvalFile) {
    let r = &file.report;
    if let Some(names) = &r.names {
        print!("{}", names.to_table());
    }
    if let Some(spans) = &r.spans {
        print!("{}", spans.to_table());
    }
    if let Some(residual) = &r.residual {
        print!("{}", residual.to_table());
    }
    if let Some(risk) = &r.risk {
        print!("{}", risk.to_table());
    }
}
