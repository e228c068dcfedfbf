//! `anonlm tokenizer train`: train a WordPiece, byte-level BPE or Unigram tokenizer on a corpus
//! and write it in the Hugging Face layout.

use super::common::{self, InputSpans};
use crate::cli::{TokenizerCommand, TokenizerTrainArgs};
use crate::tokenizer::{self, Kind, SpecialStyle, TrainOptions};
use anyhow::{Context, Result};
use std::process::ExitCode;

pub fn run(cmd: TokenizerCommand) -> Result<ExitCode> {
    match cmd {
        TokenizerCommand::Train(a) => train(a),
    }
}

fn train(args: TokenizerTrainArgs) -> Result<ExitCode> {
    let kind: Kind = args.kind.parse().map_err(anyhow::Error::msg)?;
    let specials: Option<SpecialStyle> = args
        .specials
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let format = common::resolve_format(&args.format, &args.corpus)?;
    if let (Ok(a), Ok(b)) = (args.corpus.canonicalize(), args.out.canonicalize()) {
        anyhow::ensure!(
            a != b,
            "--out {} is the corpus itself; choose another directory",
            args.out.display()
        );
    }
    anyhow::ensure!(
        !args.out.is_file(),
        "--out {}: a file is in the way (expected a directory)",
        args.out.display()
    );
    // Refuse before training, not after.
    tokenizer::ensure_writable(&args.out, args.overwrite)?;
    let docs = common::open_documents(
        &args.corpus,
        format,
        args.max_doc_bytes,
        None,
        InputSpans::Ignore,
    )?;
    let opts = TrainOptions {
        kind,
        vocab_size: args.vocab_size,
        min_frequency: args.min_frequency,
        specials,
        lowercase: args.lowercase,
        show_progress: !args.quiet,
    };
    let (tok, stats) = tokenizer::train(docs, &opts)
        .with_context(|| format!("training on {}", args.corpus.display()))?;
    tokenizer::ensure_writable(&args.out, args.overwrite)?;
    tokenizer::save_dir(&tok, &args.out)
        .with_context(|| format!("writing the tokenizer to {}", args.out.display()))?;
    eprintln!(
        "tokenizer ({}): {} documents read, vocabulary {} of {} requested, written to {}",
        args.kind.to_ascii_lowercase(),
        stats.documents,
        stats.vocab_size,
        args.vocab_size,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
