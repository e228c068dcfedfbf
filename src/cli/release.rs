//! Flags of `anonlm release` (the whole chain on a corpus).

use super::shared::Quiet;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(mut_arg("quiet", |a| a.help("No progress bars")))]
pub struct ReleaseArgs {
    /// Audit spec with a [release] section (see audits/release.toml).
    #[arg(long, required_unless_present = "demo", conflicts_with = "demo")]
    pub spec: Option<PathBuf>,
    /// Run on built-in synthetic Dutch notes with the settings of audits/demo.toml.
    #[arg(long)]
    pub demo: bool,
    /// Seed of the demo's synthetic notes.
    #[arg(long, default_value_t = 1, requires = "demo")]
    pub seed: u64,
    /// Release directory: every stage's output, release.state.json and report/. Running again
    /// resumes: finished stages whose inputs and settings are unchanged are skipped.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub quiet: Quiet,
}
