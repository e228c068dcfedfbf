//! Flags of `anonlm probe` (build, run, metrics).

use super::shared::finite_f64;
use super::shared::DeviceArgs;
use super::shared::MaxDocBytes;
use super::shared::Overwrite;
use super::vocab::NameEvidenceArgs;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum ProbeCommand {
    /// Probe sets from a de-identified corpus and its ops log: one masked sentence per replaced
    /// name, split into seen (training) and unseen (held-out) documents of a model.
    Build(ProbeBuildArgs),
    /// Top-k fill-mask predictions at every slot of a probe set or a user file of sentences.
    Run(ProbeRunArgs),
    /// Metrics of `probe run` output per set: share of name-like predictions (95% exact
    /// interval), slots with any, best rank, recoveries of the original.
    Metrics(ProbeMetricsArgs),
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out")))]
pub struct ProbeMetricsArgs {
    /// Output of `probe run` (JSONL). Repeatable; slots are grouped by their set.
    #[arg(long, required = true)]
    pub probe: Vec<PathBuf>,
    /// The probed model dir (its tokenizer decides markers, case and corpus counts).
    #[arg(long)]
    pub model: PathBuf,
    /// A review file of `vocab harvest`, edited or not: its decisions settle the tokens it
    /// lists (same id and string); other tokens are judged automatically.
    #[arg(long)]
    pub review: Option<PathBuf>,
    #[command(flatten)]
    pub evidence: NameEvidenceArgs,
    /// `probe run --originals` output of a reference model on the same slots (one that never
    /// saw the names, e.g. trained on the de-identified corpus): the original's PLL rank is
    /// compared slot by slot. Repeatable.
    #[arg(long)]
    pub reference_probe: Vec<PathBuf>,
    /// Count only the first K predictions of each slot (the paper's final test: 20).
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Write the metrics as JSON (schema `anonlm.probe-metrics/1`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Exit 1 when a set's share of name-like predictions is above this (e.g. 0.002).
    #[arg(long, value_parser = finite_f64)]
    pub max_name_like_share: Option<f64>,
    /// Also list the name-like tokens predicted, with counts (they may be real names: only
    /// inside the secure environment).
    #[arg(long)]
    pub show_tokens: bool,
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace a probe set already in --out")))]
#[command(mut_arg("max_doc_bytes", |a| a.help("Largest document accepted, in bytes")))]
pub struct ProbeBuildArgs {
    /// The de-identified corpus (Document JSONL written by `anonlm deid`).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Its ops log (`anonlm deid --ops-log`).
    #[arg(long)]
    pub ops_log: PathBuf,
    /// The model's manifest.json (or the model dir holding it), from `anonlm mlm train`.
    #[arg(long)]
    pub manifest: PathBuf,
    /// Output directory: probes.jsonl, summary.json (and originals.jsonl with --original).
    #[arg(long)]
    pub out: PathBuf,
    /// The input of deid (Document JSONL, same ids): writes the protected originals.jsonl (0600).
    #[arg(long)]
    pub original: Option<PathBuf>,
    /// Op labels that make slots (all subtypes), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "NAME")]
    pub labels: Vec<crate::labels::Category>,
    /// Slots kept per set, sampled with --seed (default: all).
    #[arg(long)]
    pub max_per_set: Option<usize>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sentences longer than this many whitespace words are skipped.
    #[arg(long, default_value_t = 250)]
    pub max_words: usize,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub max_doc_bytes: MaxDocBytes,
}

#[derive(Args, Debug)]
pub struct ProbeRunArgs {
    /// Model dir or hub id `org/name[@revision]` (local cache).
    #[arg(long)]
    pub model: String,
    /// A probe set (dir from `probe build`, or its probes.jsonl), or a user file of sentences
    /// with one <mask> each: one per line, or a .csv with a `sentences` column.
    #[arg(long)]
    pub set: PathBuf,
    /// Predictions per slot (40 to harvest, 20 for the final test).
    #[arg(long, default_value_t = 40)]
    pub top_k: usize,
    /// JSONL output, one line per slot (`-` for stdout).
    #[arg(long)]
    pub out: PathBuf,
    /// The protected originals.jsonl of `probe build`: adds recovery figures (never the names).
    #[arg(long)]
    pub originals: Option<PathBuf>,
    /// Candidate names for the PLL rank, one per line (default: built-in lists of the language).
    #[arg(long)]
    pub candidates: Option<PathBuf>,
    /// Candidates scored per slot, the original included (sampled with --seed).
    #[arg(long, default_value_t = 1000)]
    pub max_candidates: usize,
    /// Language of user-file sentences (for built-in candidate names).
    #[arg(long)]
    pub lang: Option<crate::lang::Lang>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sequences per forward pass.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub overwrite: Overwrite,
}
