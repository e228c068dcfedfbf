//! Canaries (Carlini et al. 2019, "The Secret Sharer"): fake-PII sentences made from templates
//! with one random secret each, inserted into the training data so that an audit can measure
//! how much of a secret the model memorized. This module owns the templates, the secret kinds
//! and the protected canary file; `setup` places a training run's canary file and `exposure` measures
//! how much of each secret a model memorized (the audit's canary check).

pub mod exposure;
pub mod file;
pub mod secret;
pub mod setup;
pub mod template;

use std::path::PathBuf;

pub use file::{CanaryFile, CanaryRecord, CANARY_SCHEMA};
pub use secret::SecretKind;
pub use template::Template;

/// Errors of templates, secrets and canary files. Messages name files and lines, never secrets.
#[derive(Debug, thiserror::Error)]
pub enum CanaryError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: invalid canary file: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{source_name}:{line}: {message}")]
    Template {
        source_name: String,
        line: usize,
        message: String,
    },
    #[error("{0}")]
    Settings(String),
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl CanaryError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CanaryError::Io {
            path: path.into(),
            source,
        }
    }
}
