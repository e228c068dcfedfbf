//! Anonymization of a trained model's vocabulary: the harvest of name-like tokens, their review
//! file, the rewrite that renames confirmed tokens (ids and weights stay), and the checks of
//! the result.

mod check;
pub mod evidence;
mod harvest;
pub mod harvest_stage;
mod json_order;
pub mod namelike;
pub mod ordinary;
mod review;
mod rewrite;
mod tokenizer_json;

pub use check::{
    check_model, load_name_list, CheckOptions, CheckReport, EncodingReference, NameList,
};
pub use harvest::{gather, review_rows, Harvested, Judge, PredictedToken};
pub use ordinary::{EncodingDiff, OrdinaryUses};
pub use review::{
    read_review, read_review_lines, render_review, write_review, Decision, ReviewRow, HEADER,
};
pub use rewrite::{read_map, rewrite_model, MapEntry, Reason, RewriteOptions, RewriteReport};
pub use tokenizer_json::{ModelKind, TokenizerJson};

use std::path::PathBuf;

/// Errors of the vocabulary tools. Messages name files, lines and ids, never token strings
/// (a removed token is a name).
#[derive(Debug, thiserror::Error)]
pub enum AnonymizeError {
    #[error(transparent)]
    Input(#[from] crate::error::InputError),
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Tokenizer(#[from] crate::tokenizer::TokenizerError),
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl AnonymizeError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        crate::error::InputError::io(path, source).into()
    }
    pub(crate) fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        crate::error::InputError::file(path, msg).into()
    }
    pub(crate) fn line(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        crate::error::InputError::line(path, line, msg).into()
    }
}
