//! The library's shared error vocabulary: bad input at a file and line ([`InputError`]), a bad
//! setting or value ([`ValueError`]), and [`StageError`], which every stage entry point
//! returns. Messages name files, lines, fields and what was expected, never a value read from a
//! document or an input field.

use std::path::{Path, PathBuf};

/// Bad or unreadable input, located by file and, where there is one, line.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Line {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    #[error("{path}: {msg}")]
    File { path: PathBuf, msg: String },
}

impl InputError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        InputError::Io {
            path: path.into(),
            source,
        }
    }

    pub fn line(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        InputError::Line {
            path: path.into(),
            line,
            msg: msg.into(),
        }
    }

    pub fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        InputError::File {
            path: path.into(),
            msg: msg.into(),
        }
    }

    /// A JSON document that did not parse, by line, column and kind only: serde's own
    /// messages can quote the offending value.
    pub fn json(path: &Path, e: &serde_json::Error) -> Self {
        InputError::line(
            path,
            e.line().max(1),
            format!("{} (column {})", json_kind(e), e.column()),
        )
    }
}

/// The kind of a JSON error only: serde's messages can quote values.
pub fn json_kind(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "I/O error",
        serde_json::error::Category::Syntax => "malformed JSON",
        serde_json::error::Category::Data => "unexpected fields or types",
        serde_json::error::Category::Eof => "truncated JSON",
    }
}

/// A setting or value that is not one of the accepted ones; the message says what was
/// expected. Also the error of the command line's value parsers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ValueError(pub String);

impl ValueError {
    pub fn new(msg: impl Into<String>) -> Self {
        ValueError(msg.into())
    }
}

/// Read as the message text (tests and callers that add a prefix).
impl std::ops::Deref for ValueError {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for ValueError {
    fn from(msg: String) -> Self {
        ValueError(msg)
    }
}

impl From<&str> for ValueError {
    fn from(msg: &str) -> Self {
        ValueError(msg.to_string())
    }
}

/// Why a stage (a library entry point such as [`crate::deid::run`]) stopped.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Value(#[from] ValueError),
    #[error(transparent)]
    Files(#[from] crate::fsio::FsError),
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
    #[error(transparent)]
    Keys(#[from] crate::keys::KeyError),
    #[error(transparent)]
    Policy(#[from] crate::deid::policy::PolicyError),
    #[error(transparent)]
    Deid(#[from] crate::deid::apply::DeidError),
    #[error(transparent)]
    Recognizers(#[from] crate::recognize::build::BuildError),
    #[error(transparent)]
    Lists(#[from] crate::wordlists::VocabError),
    #[error(transparent)]
    LabelMap(#[from] crate::labelmap::LabelMapError),
    #[error(transparent)]
    Tokenizer(#[from] crate::tokenizer::TokenizerError),
    #[error(transparent)]
    Mlm(#[from] crate::mlm::error::MlmError),
    #[error(transparent)]
    Training(#[from] crate::mlm::train::error::TrainError),
    #[error(transparent)]
    Inference(#[from] crate::mlm::runtime::InferError),
    #[error(transparent)]
    Device(#[from] crate::mlm::device::DeviceError),
    /// A tensor operation of a model failed (shapes, device memory).
    #[error("model computation: {0}")]
    Tensor(#[from] candle_core::Error),
    #[error(transparent)]
    Probe(#[from] crate::probe::error::ProbeError),
    #[error(transparent)]
    Canary(#[from] crate::canary::CanaryError),
    #[error(transparent)]
    Anonymize(#[from] crate::vocab::AnonymizeError),
    #[error(transparent)]
    Eval(#[from] crate::eval::EvalError),
    #[error(transparent)]
    OpsLog(#[from] crate::opslog::OpsLogError),
    /// A JSON value this program built that did not serialize (a bug, not bad input).
    #[error("serializing: {}", crate::error::json_kind(.0))]
    Serialize(#[from] serde_json::Error),
    /// Kept as a cause of its own (not transparent) so that a closed stdout is found in the
    /// chain and ends the run quietly.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// What the stage was doing when its cause happened.
    #[error("{context}")]
    Context {
        context: String,
        #[source]
        source: Box<StageError>,
    },
}

pub type StageResult<T> = Result<T, StageError>;

/// Adds what a stage was doing to an error, like anyhow's `Context`, keeping the typed cause.
pub trait StageContext<T> {
    fn stage_context(self, context: impl Into<String>) -> StageResult<T>;
    fn with_stage_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> StageResult<T>;
}

impl<T, E: Into<StageError>> StageContext<T> for Result<T, E> {
    fn stage_context(self, context: impl Into<String>) -> StageResult<T> {
        self.map_err(|e| StageError::Context {
            context: context.into(),
            source: Box::new(e.into()),
        })
    }

    fn with_stage_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> StageResult<T> {
        self.map_err(|e| StageError::Context {
            context: context().into(),
            source: Box::new(e.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_name_the_line_and_kind_but_not_the_value() {
        let err = serde_json::from_str::<u64>("\n\"Xyloquentin\"").unwrap_err();
        let msg = InputError::json(Path::new("f.json"), &err).to_string();
        assert!(
            msg.starts_with("f.json:2: unexpected fields or types (column "),
            "{msg}"
        );
        assert!(!msg.contains("Xyloquentin"));
    }

    #[test]
    fn context_keeps_the_typed_cause_in_the_chain() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe");
        let err = Err::<(), _>(io).stage_context("writing").unwrap_err();
        assert_eq!(err.to_string(), "writing");
        let cause = std::error::Error::source(&err).expect("a cause");
        let io = std::error::Error::source(cause)
            .and_then(|c| c.downcast_ref::<std::io::Error>())
            .or_else(|| cause.downcast_ref::<std::io::Error>());
        assert!(io.is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe));
    }
}
