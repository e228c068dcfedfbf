//! `anonlm tokenizer train`: train a WordPiece, byte-level BPE or Unigram tokenizer on a corpus
//! and write it in the Hugging Face layout.

use crate::cli::{TokenizerCommand, TokenizerTrainArgs};
use crate::tokenizer::{self, TokenizerSettings};
use anyhow::Result;
use std::process::ExitCode;

pub fn run(cmd: TokenizerCommand) -> Result<ExitCode> {
    match cmd {
        TokenizerCommand::Train(a) => train(a),
    }
}

/// The stage's settings from the flags.
pub fn settings(args: &TokenizerTrainArgs) -> Result<TokenizerSettings> {
    Ok(TokenizerSettings {
        corpus: args.corpus.clone(),
        format: args.format.clone(),
        max_doc_bytes: args.max_doc_bytes.bytes,
        sample_bytes: args.sample_bytes,
        kind: args.kind,
        vocab_size: args.vocab_size,
        min_frequency: args.min_frequency,
        specials: args.specials,
        lowercase: args.lowercase,
        out: args.out.clone(),
        overwrite: args.overwrite.allowed,
        quiet: args.quiet.on,
    })
}

fn train(args: TokenizerTrainArgs) -> Result<ExitCode> {
    let stats = tokenizer::run(&settings(&args)?)?;
    eprintln!(
        "tokenizer ({}): {} documents read, vocabulary {} of {} requested, written to {}",
        format!("{:?}", args.kind).to_lowercase(),
        stats.documents,
        stats.vocab_size,
        args.vocab_size,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
