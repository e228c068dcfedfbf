//! Subword tokenizers for the masked language models: training (WordPiece, byte-level BPE,
//! Unigram), loading a model directory (`tokenizer.json`, `vocab.txt`, `vocab.json` +
//! `merges.txt`), saving in the Hugging Face layout, and the special tokens the models need.
//!
//! The tokenization itself is the `tokenizers` crate; this module builds the BERT and RoBERTa
//! pipelines around it and writes the files `transformers.AutoTokenizer` reads.

mod files;
pub mod job;
mod load;
mod pipeline;
mod save;
mod specials;
mod train;

pub use job::{run, TokenizerSettings, DEFAULT_SAMPLE_BYTES};
pub use load::{load_dir, parse_merges, parse_vocab_txt, CaseGuess};
pub use save::{ensure_writable, save_dir, MODEL_MAX_LENGTH};
pub use specials::{SpecialStyle, SpecialTokens};
pub use train::{train, Kind, TrainOptions, TrainStats};

use std::path::PathBuf;

/// Errors of tokenizer training, loading and saving. Messages name the file (and the line for
/// `vocab.txt` / `merges.txt`), never document text.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error(transparent)]
    Input(#[from] crate::error::InputError),
    #[error("{dir}: {msg}")]
    Dir { dir: PathBuf, msg: String },
    #[error("{path} already exists (pass --overwrite to replace it)")]
    Exists { path: PathBuf },
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
    #[error("tokenizer training: {0}")]
    Train(String),
    #[error("tokenizer: {0}")]
    Tokenizers(String),
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl TokenizerError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        crate::error::InputError::io(path, source).into()
    }
    pub(crate) fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        crate::error::InputError::file(path, msg).into()
    }
    pub(crate) fn line(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        crate::error::InputError::line(path, line, msg).into()
    }
    pub(crate) fn dir(dir: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        TokenizerError::Dir {
            dir: dir.into(),
            msg: msg.into(),
        }
    }
}

/// The `tokenizers` crate's boxed error as text (its errors carry no document text).
pub(crate) fn tk_err(e: tokenizers::Error) -> TokenizerError {
    TokenizerError::Tokenizers(e.to_string())
}

/// A tokenizer ready for a masked language model: the pipeline and its special tokens.
#[derive(Clone)]
pub struct ModelTokenizer {
    pub inner: tokenizers::Tokenizer,
    pub specials: SpecialTokens,
}

impl std::fmt::Debug for ModelTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelTokenizer")
            .field("vocab_size", &self.vocab_size())
            .field("specials", &self.specials)
            .finish()
    }
}

impl ModelTokenizer {
    /// Vocabulary size including added tokens (the embedding matrix needs this many rows).
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// Every special-token id, sorted: the five of [`SpecialTokens`] and all added tokens
    /// marked special. The masking collator never masks these.
    pub fn special_ids(&self) -> Vec<u32> {
        let s = &self.specials;
        let mut ids = vec![s.pad, s.unk, s.mask, s.cls, s.sep];
        ids.extend(
            self.inner
                .get_added_tokens_decoder()
                .iter()
                .filter(|(_, t)| t.special)
                .map(|(id, _)| *id),
        );
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Ids of `text` with the special tokens of the pipeline ([CLS] … [SEP] or <s> … </s>).
    pub fn encode_ids(&self, text: &str) -> Result<Vec<u32>, TokenizerError> {
        Ok(self
            .inner
            .encode(text, true)
            .map_err(tk_err)?
            .get_ids()
            .to_vec())
    }

    /// Text of `ids`, special tokens left out.
    pub fn decode(&self, ids: &[u32]) -> Result<String, TokenizerError> {
        self.inner.decode(ids, true).map_err(tk_err)
    }
}

#[cfg(test)]
mod tests;
