//! Errors of probe building and probe runs: each names the file and line, the document id or
//! the slot id, never a sentence or a name.

use crate::error::InputError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Bad or unreadable input at a file (and line, or CSV row).
    #[error(transparent)]
    Input(#[from] InputError),
    /// A problem with one slot of a probe set.
    #[error("slot {slot_id}: {msg}")]
    Slot { slot_id: String, msg: String },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Infer(#[from] crate::mlm::runtime::InferError),
    #[error(transparent)]
    Vocab(#[from] crate::wordlists::VocabError),
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl ProbeError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Self {
        InputError::io(path, source).into()
    }

    pub(crate) fn line(path: &std::path::Path, line: usize, msg: impl Into<String>) -> Self {
        InputError::line(path, line, msg).into()
    }

    pub(crate) fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        InputError::file(path, msg).into()
    }
}

pub(crate) use crate::error::json_kind;
