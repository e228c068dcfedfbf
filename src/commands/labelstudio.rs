//! `anonlm labelstudio export|import`: flags to the Label Studio stages' settings
//! ([`crate::labelstudio::stage`]), the stages, and their counts.

use super::common;
use crate::cli::{LabelStudioCommand, LabelStudioExportArgs, LabelStudioImportArgs};
use crate::labelstudio::stage::{self, ExportSettings, ImportSettings};
use anyhow::Result;
use std::process::ExitCode;

pub fn run(cmd: LabelStudioCommand) -> Result<ExitCode> {
    match cmd {
        LabelStudioCommand::Export(a) => run_export(*a),
        LabelStudioCommand::Import(a) => run_import(a),
    }
}

fn run_export(args: LabelStudioExportArgs) -> Result<ExitCode> {
    let inp = &args.input;
    common::init_threads(inp.threads.count);
    let counts = stage::export_corpus(&ExportSettings {
        input: common::corpus_input(inp),
        recognizers: common::recognizer_settings(inp),
        use_input_spans: args.use_input_spans,
        out: args.out.clone(),
        overwrite: args.overwrite.allowed,
        out_label_map: args.out_label_map.clone(),
        config: args.config.clone(),
        model_version: args.model_version.clone(),
        quiet: inp.quiet.on,
    })?;
    if !inp.quiet.on {
        eprint!("{}", counts.table());
    }
    Ok(ExitCode::SUCCESS)
}

fn run_import(args: LabelStudioImportArgs) -> Result<ExitCode> {
    let (summary, counts) = stage::import_tasks(&ImportSettings {
        export: args.export.clone(),
        out: args.out.clone(),
        overwrite: args.overwrite.allowed,
        label_map: args.label_map.clone(),
        include_predictions: args.include_predictions,
        max_bytes: args.max_bytes,
    })?;
    eprint!("{}", summary.to_text());
    eprint!("{}", counts.table());
    Ok(ExitCode::SUCCESS)
}
