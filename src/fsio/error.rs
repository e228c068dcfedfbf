//! `FsError`: why an output was refused or could not be written, always naming the path.

use std::path::PathBuf;

/// An output refused before anything was written, or an I/O failure while staging or
/// publishing it. Every variant names the path; none carries file contents.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("{path}: already exists; give --overwrite to replace it")]
    Exists { path: PathBuf },
    #[error("{path}: is also an input of this run; refusing to overwrite it")]
    IsInput { path: PathBuf },
    #[error("{path}: is a directory holding an input of this run; refusing to replace it")]
    HoldsInput { path: PathBuf },
    #[error("{path}: lies inside an input directory of this run; write it elsewhere")]
    InsideInput { path: PathBuf },
    #[error(
        "{path}: is a {kind}, not a regular file; refusing to write to it, even with \
         --overwrite (use '-' for standard output)"
    )]
    Special { path: PathBuf, kind: &'static str },
    #[error("{path}: exists and is not {expected}; refusing to replace it")]
    WrongKind {
        path: PathBuf,
        expected: &'static str,
    },
    #[error(
        "{path}: another anonlm run is writing these outputs (lock {lock} is held); wait for \
         it to finish or choose another output"
    )]
    Locked { path: PathBuf, lock: PathBuf },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl FsError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FsError::Io {
            path: path.into(),
            source,
        }
    }

    pub fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        FsError::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, FsError>;
