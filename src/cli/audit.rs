//! Flags of `anonlm audit` (leakage audit of a model by a spec).

use super::shared::Overwrite;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing report.json in --out")))]
pub struct AuditArgs {
    /// The audit spec (TOML; see audits/release.toml).
    #[arg(long)]
    pub spec: PathBuf,
    /// Output folder (report.json, report.md, report.html).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
}
