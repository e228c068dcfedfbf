//! Flags of `anonlm audit` (leakage audit of a model by a spec).

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// The audit spec (TOML; see audits/release.toml).
    #[arg(long)]
    pub spec: PathBuf,
    /// Output folder (report.json, report.md, report.html).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing report.json in --out.
    #[arg(long)]
    pub overwrite: bool,
}
