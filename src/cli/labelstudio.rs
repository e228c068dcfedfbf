//! Flags of `anonlm labelstudio` (export tasks, import annotations).

use super::shared::InputArgs;
use super::shared::Overwrite;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum LabelStudioCommand {
    /// Documents as a Label Studio task list (JSON): the text, the document id and metadata in
    /// `data`, the recognized spans (or the input's own) as predictions to correct.
    Export(Box<LabelStudioExportArgs>),
    /// A Label Studio JSON export back to Document JSONL: the latest annotation of each task
    /// that was not cancelled, every span checked against the text.
    Import(LabelStudioImportArgs),
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out (and --config); inputs are never overwritten")))]
pub struct LabelStudioExportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The task list to write (JSON), or `-` for stdout.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Export the input's own spans (JSONL entities, brat .ann, IOB tags, labels through
    /// --label-map) instead of recognizing: for correcting an existing annotation.
    #[arg(long)]
    pub use_input_spans: bool,
    /// Write labels in this label map's scheme instead of canonical labels (NAME/PATIENT).
    #[arg(long)]
    pub out_label_map: Option<String>,
    /// Also write a Label Studio labeling config (XML) listing the labels.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// `model_version` of the predictions (default: anonlm and its version, or `input` with
    /// --use-input-spans).
    #[arg(long)]
    pub model_version: Option<String>,
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out (the export is never overwritten)")))]
pub struct LabelStudioImportArgs {
    /// Label Studio JSON export (Export > JSON: a list of tasks with annotations).
    pub export: PathBuf,
    /// Document JSONL to write, or `-` for stdout.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Label map (built-in name or TOML file) for scheme labels; default: canonical labels.
    #[arg(long)]
    pub label_map: Option<String>,
    /// Tasks nobody annotated contribute their prediction instead of being skipped.
    #[arg(long)]
    pub include_predictions: bool,
    /// Largest export file accepted, in bytes.
    #[arg(long, default_value_t = 1 << 30)]
    pub max_bytes: u64,
}
