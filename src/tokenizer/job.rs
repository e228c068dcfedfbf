//! The `tokenizer train` stage as a library call: train on a corpus and write the tokenizer
//! in the Hugging Face layout.

use std::path::PathBuf;

use super::{ensure_writable, save_dir, train, Kind, SpecialStyle, TrainOptions, TrainStats};
use crate::corpus::source::{input_size, open_documents, resolve_format, InputSpans};
use crate::error::{StageContext, StageResult, ValueError};

/// The default `--sample-bytes`: word counts of 500 MB of notes take about 500 MB of memory.
pub const DEFAULT_SAMPLE_BYTES: u64 = 500_000_000;

/// Everything one tokenizer training run needs.
#[derive(Clone, Debug)]
pub struct TokenizerSettings {
    pub corpus: PathBuf,
    /// A format name, or `auto` (from the corpus path).
    pub format: String,
    pub max_doc_bytes: usize,
    /// Train on a hash-chosen sample of about this many bytes of a larger corpus (0: all).
    pub sample_bytes: u64,
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
    let share = sample_share(s.sample_bytes, input_size(&s.corpus));
    if share < 1.0 {
        eprintln!(
            "tokenizer: the corpus is larger than --sample-bytes {}; training on about {:.1}% \
             of its documents, chosen by a hash of their text",
            s.sample_bytes,
            share * 100.0
        );
    }
    let docs = docs.filter(move |d| d.as_ref().map_or(true, |d| in_sample(&d.text, share)));
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

/// The share of documents a sample of `budget` bytes takes from a corpus of `size` bytes (1:
/// all, also when the size is unknown, as on standard input).
fn sample_share(budget: u64, size: Option<u64>) -> f64 {
    match size {
        Some(size) if budget > 0 && size > budget => budget as f64 / size as f64,
        _ => 1.0,
    }
}

/// Whether a document is in a sample taking `share` of them: the first 8 bytes of the SHA-256
/// of its text, as a fraction of 2^64, below the share.
fn in_sample(text: &str, share: f64) -> bool {
    use sha2::{Digest, Sha256};
    if share >= 1.0 {
        return true;
    }
    let d = Sha256::digest(text.as_bytes());
    let x = u64::from_be_bytes(d[..8].try_into().expect("8 bytes"));
    (x as f64) < share * 2f64.powi(64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_takes_its_share_by_text_and_a_small_corpus_all() {
        assert_eq!(sample_share(100, Some(50)), 1.0);
        assert_eq!(sample_share(0, Some(500)), 1.0);
        assert_eq!(sample_share(100, None), 1.0);
        let share = sample_share(250, Some(1000));
        let kept = (0..4000)
            .filter(|i| in_sample(&format!("note {i}"), share))
            .count();
        assert!((850..1150).contains(&kept), "{kept}");
        assert!(in_sample("a note", 1.0));
        let again = (0..4000)
            .filter(|i| in_sample(&format!("note {i}"), share))
            .count();
        assert_eq!(kept, again);
    }
}
