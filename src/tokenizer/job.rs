//! The `tokenizer train` stage as a library call: train on a corpus and write the tokenizer
//! in the Hugging Face layout.

use std::path::PathBuf;

use super::{ensure_writable, save_dir, train, Kind, SpecialStyle, TrainOptions, TrainStats};
use crate::corpus::source::{open_documents, resolve_format, InputSpans};
use crate::error::{StageContext, StageResult, ValueError};

/// Everything one tokenizer training run needs.
#[derive(Clone, Debug)]
pub struct TokenizerSettings {
    pub corpus: PathBuf,
    /// A format name, or `auto` (from the corpus path).
    pub format: String,
    pub max_doc_bytes: usize,
    pub kind: Kind,
    pub vocab_size: usize,
    pub min_frequency: Option<u64>,
    pub specials: Option<SpecialStyle>,
    pub lowercase: bool,
    pub out: PathBuf,
    pub overwrite: bool,
    pub quiet: bool,
}

/// Trains and writes the tokenizer; refuses an output in the way before reading anything.
pub fn run(s: &TokenizerSettings) -> StageResult<TrainStats> {
    let format = resolve_format(&s.format, &s.corpus)?;
    if let (Ok(a), Ok(b)) = (s.corpus.canonicalize(), s.out.canonicalize()) {
        if a == b {
            return Err(ValueError::new(format!(
                "--out {} is the corpus itself; choose another directory",
                s.out.display()
            ))
            .into());
        }
    }
    if s.out.is_file() {
        return Err(ValueError::new(format!(
            "--out {}: a file is in the way (expected a directory)",
            s.out.display()
        ))
        .into());
    }
    // Refuse before training, not after.
    ensure_writable(&s.out, s.overwrite)?;
    let docs = open_documents(&s.corpus, format, s.max_doc_bytes, None, InputSpans::Ignore)?;
    let opts = TrainOptions {
        kind: s.kind,
        vocab_size: s.vocab_size,
        min_frequency: s.min_frequency,
        specials: s.specials,
        lowercase: s.lowercase,
        show_progress: !s.quiet,
    };
    let (tok, stats) =
        train(docs, &opts).with_stage_context(|| format!("training on {}", s.corpus.display()))?;
    ensure_writable(&s.out, s.overwrite)?;
    save_dir(&tok, &s.out)
        .with_stage_context(|| format!("writing the tokenizer to {}", s.out.display()))?;
    Ok(stats)
}
