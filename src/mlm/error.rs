//! Errors of the masked-LM side: config, weights files, hub resolution.

use std::path::PathBuf;

/// Everything that can go wrong while building, loading or saving a masked LM.
#[derive(Debug, thiserror::Error)]
pub enum MlmError {
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
    #[error(
        "unsupported architecture {found}: anonlm supports BERT and RoBERTa masked LMs \
         (model_type bert, roberta, xlm-roberta or camembert)"
    )]
    UnsupportedArchitecture { found: String },
    #[error("invalid model config: {0}")]
    InvalidConfig(String),
    #[error("{file}: tensor {name} holds NaN or infinite values; refusing a broken model")]
    NonFinite { name: String, file: PathBuf },
    #[error("{file}: missing tensor {name}")]
    MissingTensor { name: String, file: PathBuf },
    #[error(
        "{file}: no masked-LM head: missing {count} tensor(s) {names}; anonlm needs the encoder \
         and the masked-LM head (a checkpoint saved without it, e.g. as BertModel or for \
         classification, cannot fill masks)"
    )]
    MissingHead {
        file: PathBuf,
        count: usize,
        /// The missing names, comma-separated.
        names: String,
    },
    #[error("{file}: tensor {name} has shape {found:?}, expected {expected:?}")]
    ShapeMismatch {
        name: String,
        file: PathBuf,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    #[error(
        "{file}: config.json says vocab_size {config} but the word embeddings have {embeddings} rows"
    )]
    VocabMismatch {
        file: PathBuf,
        config: usize,
        embeddings: usize,
    },
    #[error(
        "the tokenizer has {tokenizer} tokens but the model's embeddings only have {model} rows"
    )]
    TokenizerLargerThanModel { tokenizer: usize, model: usize },
    #[error("{file}: {name} differs from the word embeddings; untied decoders are not supported")]
    UntiedDecoder { name: String, file: PathBuf },
    #[error("{dir}: no model.safetensors or pytorch_model.bin")]
    NoWeights { dir: PathBuf },
    #[error("{path}: already exists (refusing to overwrite)")]
    Exists { path: PathBuf },
    #[error("{spec}: not a local directory and not a hub id (org/name[@revision])")]
    BadSpec { spec: String },
    #[error("{id}: {what} is not in the offline Hugging Face cache at {cache}")]
    NotInCache {
        id: String,
        what: String,
        cache: PathBuf,
    },
    #[error("{id}: download failed: {message}")]
    Download { id: String, message: String },
    #[error("{context}: {source}")]
    Candle {
        context: String,
        #[source]
        source: candle_core::Error,
    },
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl MlmError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        MlmError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn candle(context: impl Into<String>, source: candle_core::Error) -> Self {
        MlmError::Candle {
            context: context.into(),
            source,
        }
    }
}
