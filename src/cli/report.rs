//! Flags of `anonlm report render` and `anonlm report diff`.

use super::shared::Overwrite;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum ReportCommand {
    /// Write report.md and report.html from a report JSON.
    Render(ReportRenderArgs),
    /// What changed between two reports, metric by metric (exit 0 whenever both parse).
    Diff(ReportDiffArgs),
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace existing report.md and report.html in --out")))]
pub struct ReportRenderArgs {
    /// The report JSON (schema anonlm.report/1).
    #[arg(long)]
    pub report: PathBuf,
    /// Output folder (report.md, report.html).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out file")))]
pub struct ReportDiffArgs {
    /// The earlier report JSON.
    pub old: PathBuf,
    /// The later report JSON.
    pub new: PathBuf,
    /// Versioned JSON (anonlm.report-diff/1) instead of a text table.
    #[arg(long)]
    pub json: bool,
    /// Write the diff to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
}
