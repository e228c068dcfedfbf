//! `TrainError`: every way data preparation, optimisation, checkpointing and the loop can fail.

use std::path::PathBuf;

/// Errors of the training code. Messages name files, document ids and settings, never text.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: invalid JSON: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("invalid training settings: {0}")]
    Settings(String),
    #[error("document {doc_id}: tokenization failed: {message}")]
    Tokenize { doc_id: String, message: String },
    #[error("document {doc_id}: token id {id} is outside the vocabulary of size {vocab_size}")]
    TokenOutOfRange {
        doc_id: String,
        id: u32,
        vocab_size: u32,
    },
    #[error("no training data: {0}")]
    NoData(String),
    #[error(
        "checkpoint {path} was written with other settings or data (differs in: {fields}); \
         resume with the original settings or train into a new output directory"
    )]
    SettingsMismatch { path: PathBuf, fields: String },
    #[error("{path}: {message}")]
    Checkpoint { path: PathBuf, message: String },
    /// A prepared data dir that does not hold what its index says.
    #[error("{path}: {message}")]
    Data { path: PathBuf, message: String },
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
    #[error(
        "{path} already holds a checkpoint; pass resume to continue it or choose a new directory"
    )]
    CheckpointExists { path: PathBuf },
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl TrainError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        TrainError::Io {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T> = std::result::Result<T, TrainError>;
