//! Errors of probe building and probe runs: each names the file and line, the document id or
//! the slot id, never a sentence or a name.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Bad input at a line (or CSV row) of a file.
    #[error("{path}:{line}: {msg}")]
    Line {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    /// Bad input about a whole file.
    #[error("{path}: {msg}")]
    File { path: PathBuf, msg: String },
    /// A problem with one slot of a probe set.
    #[error("slot {slot_id}: {msg}")]
    Slot { slot_id: String, msg: String },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Infer(#[from] crate::mlm::runtime::InferError),
    #[error(transparent)]
    Vocab(#[from] crate::vocab::VocabError),
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl ProbeError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        ProbeError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn line(path: &std::path::Path, line: usize, msg: impl Into<String>) -> Self {
        ProbeError::Line {
            path: path.to_path_buf(),
            line,
            msg: msg.into(),
        }
    }
}

/// The kind of a JSON error only: serde's messages can quote values.
pub(crate) fn json_kind(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "I/O error",
        serde_json::error::Category::Syntax => "malformed JSON",
        serde_json::error::Category::Data => "unexpected fields or types",
        serde_json::error::Category::Eof => "truncated JSON",
    }
}
