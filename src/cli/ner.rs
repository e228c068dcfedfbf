//! Flags of `anonlm ner` (train a learned tagger).

use super::shared::corpus_format;
use super::shared::Overwrite;
use super::shared::{finite_f32, finite_f64, positive_usize};
use super::shared::{MaxDocBytes, Quiet, Threads};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum NerCommand {
    /// Train a tagger on annotated documents, early-stopping on dev strict entity F1; writes a
    /// model directory that `recognize`, `deid` and `eval --risk` take with --model.
    Train(Box<NerTrainArgs>),
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing model directory")))]
#[command(mut_arg("threads", |a| a.help("Training threads (default: all cores)")))]
#[command(mut_arg("quiet", |a| a.help("No progress lines")))]
pub struct NerTrainArgs {
    /// bilstm-crf (Lample et al. 2016) or transformer (token classification on an anonlm MLM).
    #[arg(long, default_value = "bilstm-crf")]
    pub arch: crate::ner::config::Arch,
    /// Format of --train and --dev: brat, conll, jsonl, or auto (from the path).
    #[arg(long, default_value = "auto", value_parser = corpus_format)]
    pub format: String,
    /// Annotated training documents.
    #[arg(long)]
    pub train: PathBuf,
    /// Annotated development documents (early stopping and the reported score).
    #[arg(long)]
    pub dev: PathBuf,
    /// Model directory to write (replaced as a whole at the end).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Label map for the annotation scheme (built-in name such as meddocan or hungarian, or a
    /// TOML file); without it labels must be canonical.
    #[arg(long)]
    pub label_map: Option<String>,
    /// Labels not to learn (e.g. OTHER/SEX), repeatable.
    #[arg(long)]
    pub exclude: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Longest training run in epochs [default: 30 for bilstm-crf, 10 for transformer].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Sentences (bilstm-crf) or windows (transformer) per batch.
    #[arg(long, default_value_t = 16, value_parser = positive_usize)]
    pub batch_size: usize,
    /// Peak learning rate [default: 2e-3 for bilstm-crf; 5e-5 for transformer, reached after a
    /// warm-up of a tenth of the steps and then decayed linearly].
    #[arg(long, value_parser = finite_f64)]
    pub lr: Option<f64>,
    /// Dropout [default: 0.5 for bilstm-crf; the base model's hidden dropout before the
    /// transformer's classifier].
    #[arg(long, value_parser = finite_f32)]
    pub dropout: Option<f32>,
    /// Evaluate on dev every N optimizer steps (and after every epoch).
    #[arg(long, default_value_t = 1000, value_parser = positive_usize)]
    pub eval_every: usize,
    /// Stop after this many evaluations without a better dev F1.
    #[arg(long, default_value_t = 6)]
    pub patience: usize,
    /// Decay of the exponential moving average of the weights that is evaluated and saved
    /// [default: 0.999 for bilstm-crf, none for transformer]; 0 turns it off.
    #[arg(long, value_parser = finite_f64)]
    pub ema: Option<f64>,
    /// Stop after this many minutes, keeping the best weights so far.
    #[arg(long, value_parser = finite_f64)]
    pub max_minutes: Option<f64>,
    /// Word embedding size (BiLSTM-CRF).
    #[arg(long, default_value_t = 100)]
    pub word_dim: usize,
    /// Word-level LSTM size per direction (BiLSTM-CRF).
    #[arg(long, default_value_t = 100)]
    pub hidden: usize,
    /// Size of the embedding of each token's rule hit, the built-in recognizers' label for it
    /// (BiLSTM-CRF); 0: none (with `--list-dim 0` too, the model reads words only).
    #[arg(long, default_value_t = 16)]
    pub rule_dim: usize,
    /// Size of the embedding of which built-in word lists (first names, surnames, places, the
    /// allow list) hold each token, case ignored (BiLSTM-CRF); 0: the model does not read them.
    #[arg(long, default_value_t = 8)]
    pub list_dim: usize,
    /// Masked LM to fine-tune (transformer): an anonlm or Hugging Face model directory with
    /// its tokenizer, or a hub id in the local cache.
    #[arg(long)]
    pub base: Option<String>,
    /// Tokens per window, special tokens included (transformer; capped by the base model's
    /// positions). Longer documents are cut into overlapping windows.
    #[arg(long, default_value_t = 256)]
    pub window: usize,
    /// Subwords shared by consecutive windows (transformer); each word is tagged from the
    /// window where it has most context.
    #[arg(long, default_value_t = 64)]
    pub overlap: usize,
    #[command(flatten)]
    pub max_doc_bytes: MaxDocBytes,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub quiet: Quiet,
}
