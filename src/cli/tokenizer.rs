//! Flags of `anonlm tokenizer train`.

use super::shared::Overwrite;
use super::shared::{MaxDocBytes, Quiet};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum TokenizerCommand {
    /// Train a tokenizer on a corpus and write it in the Hugging Face layout.
    Train(TokenizerTrainArgs),
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing tokenizer in the output directory")))]
pub struct TokenizerTrainArgs {
    /// Corpus: a text file (a document per line), a directory of .txt files, or document JSONL.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Subword model: wordpiece, bpe (byte-level, as RoBERTa) or unigram.
    #[arg(long)]
    pub kind: crate::tokenizer::Kind,
    /// Target vocabulary size, special tokens included.
    #[arg(long)]
    pub vocab_size: usize,
    /// Output directory (tokenizer.json, tokenizer_config.json, special_tokens_map.json, ...).
    #[arg(long)]
    pub out: PathBuf,
    /// Least count of a merge (wordpiece, bpe; default 2).
    #[arg(long)]
    pub min_frequency: Option<u64>,
    /// Special tokens: bert ([CLS] [SEP] [MASK] ...) or roberta (<s> </s> <mask> ...).
    /// Default: bert for wordpiece, roberta for bpe and unigram.
    #[arg(long)]
    pub specials: Option<crate::tokenizer::SpecialStyle>,
    /// Lowercase the text (off by default: clinical names are cased).
    #[arg(long)]
    pub lowercase: bool,
    /// Corpus format: auto (from the path), text or jsonl.
    #[arg(long, default_value = "auto", value_parser = ["auto", "text", "jsonl"])]
    pub format: String,
    #[command(flatten)]
    pub overwrite: Overwrite,
    #[command(flatten)]
    pub max_doc_bytes: MaxDocBytes,
    /// Train on a sample of about this many bytes when the corpus is larger (documents kept by
    /// a hash of their text, so the sample is the same every run); 0: the whole corpus. Word
    /// counts, hence memory, grow with the text read.
    #[arg(long, default_value_t = crate::tokenizer::DEFAULT_SAMPLE_BYTES)]
    pub sample_bytes: u64,
    #[command(flatten)]
    pub quiet: Quiet,
}
