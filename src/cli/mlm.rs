//! Flags of `anonlm mlm` (prepare, train, fill, score, bench) and the canary flags of
//! prepare and train.

use super::shared::corpus_format;
use super::shared::DeviceArgs;
use super::shared::Overwrite;
use super::shared::{finite_f64, positive_usize};
use super::shared::{MaxDocBytes, Quiet, Threads};
use crate::error::ValueError;
use crate::mlm::config::MlmConfig;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum MlmCommand {
    /// Tokenize, deduplicate, split and pack a corpus into token-id shards for `mlm train --data`
    /// (streams the corpus: memory does not grow with its size).
    Prepare(MlmPrepareArgs),
    /// Pretrain a BERT/RoBERTa masked LM from scratch, or continue pretraining one (--init).
    Train(Box<MlmTrainArgs>),
    /// Fill-mask: top-k tokens with probabilities at each <mask> / [MASK].
    Fill(MlmFillArgs),
    /// Per-sentence masked-token loss (fixed masking seed) or pseudo-log-likelihood.
    Score(MlmScoreArgs),
    /// Training tokens/s, fill-mask and PLL sentences/s of a small RoBERTa on this machine.
    Bench(MlmBenchArgs),
}

/// The canary flags of `mlm prepare` and `mlm train`.
#[derive(Args, Debug, Clone)]
pub struct CanaryFlags {
    /// Insert N fake-PII canaries per --canary-repeats value into the training set (for the
    /// audit's exposure test); 0: none.
    #[arg(long, default_value_t = 0)]
    pub canaries: usize,
    /// How many copies of each canary are inserted: comma-separated values, N canaries each.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16")]
    pub canary_repeats: Vec<u64>,
    /// Seed of the canaries' secrets (default: drawn from the operating system and kept only in
    /// the protected canary file; never --seed, which the released manifest records).
    #[arg(long)]
    pub canary_seed: Option<u64>,
    /// The protected canary file (mode 0600; default: <out>.canaries.json beside --out; never
    /// inside --out).
    #[arg(long)]
    pub canary_file: Option<PathBuf>,
    /// Language of the built-in canary templates: nl, hu, es, it, en, or auto (from the corpus).
    #[arg(long, default_value = "auto", value_parser = ["auto", "nl", "hu", "es", "it", "en"])]
    pub canary_lang: String,
    /// Canary templates file instead of the built-in ones (format: see testsets/canaries/).
    #[arg(long)]
    pub canary_templates: Option<PathBuf>,
}

impl CanaryFlags {
    /// The stage's canary settings.
    pub fn settings(&self) -> crate::canary::setup::CanarySettings {
        crate::canary::setup::CanarySettings {
            canaries: self.canaries,
            repeats: self.canary_repeats.clone(),
            seed: self.canary_seed,
            file: self.canary_file.clone(),
            lang: self.canary_lang.clone(),
            templates: self.canary_templates.clone(),
        }
    }
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out")))]
#[command(mut_arg("max_doc_bytes", |a| a.help("Largest document accepted, in bytes")))]
pub struct MlmPrepareArgs {
    /// Corpus: text (a document per line, or a directory of .txt) or Document JSONL; read twice.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Corpus format: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto", value_parser = corpus_format)]
    pub format: String,
    /// Tokenizer directory (`anonlm tokenizer train`, or a model dir); copied into the data dir.
    #[arg(long)]
    pub tokenizer: PathBuf,
    /// Tokens per block, specials included.
    #[arg(long, default_value_t = 128)]
    pub seq_len: usize,
    /// Fraction of distinct documents held out for evaluation.
    #[arg(long, default_value_t = 0.05, value_parser = finite_f64)]
    pub held_out: f64,
    /// Seed of the held-out choice.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    #[command(flatten)]
    pub max_doc_bytes: MaxDocBytes,
    /// Output data dir (data.json, *.ids shards, documents.jsonl, duplicates.jsonl, tokenizer/).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub canary: CanaryFlags,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub quiet: Quiet,
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace a model already in --out")))]
#[command(mut_arg("max_doc_bytes", |a| a.help("Largest document accepted, in bytes")))]
pub struct MlmTrainArgs {
    /// Training corpus: text (a document per line, or a directory of .txt) or Document JSONL;
    /// prepared into a scratch dir inside --out first (as `mlm prepare` does).
    #[arg(long, required_unless_present = "data", conflicts_with = "data")]
    pub corpus: Option<PathBuf>,
    /// A data dir written by `mlm prepare` (token-id shards; its tokenizer, block length and
    /// held-out split are used).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Corpus format: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto", value_parser = corpus_format)]
    pub format: String,
    /// Tokenizer directory (`anonlm tokenizer train`); default: the --init model's tokenizer.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Model size preset (tiny, small, base) or a config.json file; ignored with --init.
    #[arg(long, default_value = "tiny", value_parser = model_config)]
    pub config: String,
    /// Architecture of a new model: bert or roberta (default: from the tokenizer's special tokens).
    #[arg(long)]
    pub arch: Option<crate::mlm::Arch>,
    /// Continued pretraining: start from this model dir or hub id (local cache).
    #[arg(long)]
    pub init: Option<String>,
    /// Output model dir (config.json, model.safetensors, tokenizer, manifest.json,
    /// train_log.jsonl, checkpoint/). A dir with a checkpoint of the same run is resumed.
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Optimizer steps (with --epochs, whichever ends first).
    #[arg(long, required_unless_present = "epochs")]
    pub steps: Option<u64>,
    /// Passes over the training blocks.
    #[arg(long)]
    pub epochs: Option<u64>,
    /// Sequences per micro-batch.
    #[arg(long, default_value_t = 16, value_parser = positive_usize)]
    pub batch: usize,
    /// Micro-batches per optimizer step.
    #[arg(long, default_value_t = 1, value_parser = positive_usize)]
    pub grad_accum: usize,
    /// Tokens per sequence, specials included (default 128; with --data, the data's).
    #[arg(long)]
    pub seq_len: Option<usize>,
    /// Peak learning rate.
    #[arg(long, default_value_t = 5e-4, value_parser = finite_f64)]
    pub lr: f64,
    /// Warm-up: a fraction of the steps (< 1) or a number of steps (>= 1).
    #[arg(long, default_value_t = 0.06, value_parser = finite_f64)]
    pub warmup: f64,
    #[arg(long, default_value_t = 0.01, value_parser = finite_f64)]
    pub weight_decay: f64,
    /// Global gradient-norm clip (0: none).
    #[arg(long, default_value_t = 1.0, value_parser = finite_f64)]
    pub clip_norm: f64,
    /// Fraction of documents held out for evaluation, listed in the manifest (default 0.05;
    /// with --data, the data's).
    #[arg(long, value_parser = finite_f64)]
    pub held_out: Option<f64>,
    /// Held-out loss every N steps (0: only at the end).
    #[arg(long, default_value_t = 200)]
    pub eval_every: u64,
    /// Stop after this many steps without held-out improvement (0: never).
    #[arg(long, default_value_t = 1600)]
    pub patience: u64,
    /// Checkpoint every N steps (0: only at the end).
    #[arg(long, default_value_t = 500)]
    pub checkpoint_every: u64,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    #[command(flatten)]
    pub max_doc_bytes: MaxDocBytes,
    #[command(flatten)]
    pub canary: CanaryFlags,
    #[command(flatten)]
    pub quiet: Quiet,
}

#[derive(Args, Debug)]
pub struct MlmFillArgs {
    /// Model dir or hub id `org/name[@revision]` (local cache).
    #[arg(long)]
    pub model: String,
    /// Predictions per mask.
    #[arg(long, default_value_t = 5)]
    pub top_k: usize,
    /// Sentences with <mask>, [MASK] or the model's own mask token.
    pub text: Vec<String>,
    /// A file of sentences: one per line, or JSONL with "text" (and "id"); `-` for stdin.
    #[arg(long, conflicts_with = "text")]
    pub input: Option<PathBuf>,
    /// JSONL output (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// JSONL on stdout for sentences given on the command line (default: a readable list).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Sequences per forward pass.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreMethod {
    /// Mean NLL of a fixed, seeded 15% of the tokens masked at once.
    Loss,
    /// Pseudo-log-likelihood: each token masked in turn.
    Pll,
}

#[derive(Args, Debug)]
pub struct MlmScoreArgs {
    /// Model dir or hub id `org/name[@revision]` (local cache).
    #[arg(long)]
    pub model: String,
    /// Sentences: one per line, or JSONL with "text" (and "id"); `-` for stdin.
    #[arg(long)]
    pub input: PathBuf,
    /// JSONL output, one line per sentence (`-` for stdout).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value = "pll")]
    pub method: ScoreMethod,
    /// Masking seed of --method loss.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Fraction of tokens masked by --method loss.
    #[arg(long, default_value_t = 0.15, value_parser = finite_f64)]
    pub mask_prob: f64,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Sequences per forward pass.
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
}

/// A section of `mlm bench`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
#[value(rename_all = "snake_case")]
pub enum BenchSection {
    Train,
    FillMask,
    Pll,
}

#[derive(Args, Debug)]
#[command(mut_arg("threads", |a| a.help("CPU threads (default: all cores)")))]
pub struct MlmBenchArgs {
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub device: DeviceArgs,
    /// Model size: tiny, small (hidden 256, 4 layers) or base (RoBERTa-base: hidden 768, 12 layers).
    #[arg(long, default_value = "small")]
    pub preset: String,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, default_value_t = 16000)]
    pub vocab: usize,
    /// Training sequence length.
    #[arg(long, default_value_t = 128)]
    pub seq: usize,
    /// Ordinary tokens per fill-mask / PLL sentence.
    #[arg(long, default_value_t = 24)]
    pub words: usize,
    /// Warm-up steps / batches before each measurement.
    #[arg(long, default_value_t = 2)]
    pub warmup: usize,
    #[arg(long, default_value_t = 10)]
    pub train_steps: usize,
    #[arg(long, default_value_t = 8)]
    pub train_batch: usize,
    #[arg(long, default_value_t = 20)]
    pub fill_batches: usize,
    #[arg(long, default_value_t = 32)]
    pub fill_batch: usize,
    #[arg(long, default_value_t = 64)]
    pub pll_sentences: usize,
    /// Masked copies per forward pass.
    #[arg(long, default_value_t = 64)]
    pub pll_batch: usize,
    /// Sections to skip: train, fill_mask, pll.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub skip: Vec<BenchSection>,
    /// Also write the JSON here.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Checks `mlm train --config` as clap parses it: a preset name, or a file that exists (read
/// and checked against the tokenizer later).
fn model_config(s: &str) -> Result<String, ValueError> {
    if MlmConfig::PRESETS.contains(&s) || std::path::Path::new(s).is_file() {
        return Ok(s.to_string());
    }
    Err(ValueError::new(format!(
        "neither a preset ({}) nor a config.json file",
        MlmConfig::PRESETS.join(", ")
    )))
}
