//! Documents and the corpus formats they are read from and written to.
//!
//! Readers stream documents lazily (`open_input`), writers stage output atomically
//! (`OutputTarget`, `open_output`). Inside the process entity offsets are bytes; every reader
//! and writer converts at the edge (code points in JSONL and brat).

pub mod brat;
mod codepoints;
pub mod conll;
pub mod input;
pub mod jsonl;
pub mod output;
pub mod text;
pub mod writer;

pub use input::{detect_format, open_input, LineReader, Source};
pub use output::{ensure_not_input, OutputOptions, OutputTarget, TargetKind};
pub use writer::{open_output, prepare, BratTypeMap, CorpusWriter, Prepared, WriteOptions};

use crate::labels::Label;
use crate::span::Entity;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

/// One read result: a document, or an error naming the file and line / document.
pub type DocResult = Result<Document, CorpusError>;

/// A lazy stream of documents, as returned by [`open_input`].
pub type DocIter = Box<dyn Iterator<Item = DocResult> + Send>;

/// A label resolver that can travel with a reader across threads (see [`brat::LabelResolver`]).
pub type SharedResolver = Arc<dyn Fn(&str) -> Result<Option<Label>, String> + Send + Sync>;

/// The resolver for inputs that already use canonical labels.
pub fn canonical_resolver() -> SharedResolver {
    Arc::new(brat::canonical_labels)
}

/// Limits applied while reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Largest document (or input line) accepted, in bytes. Longer input is an error, and it is
    /// never read into memory beyond this many bytes.
    pub max_doc_bytes: usize,
}

impl ReadOptions {
    pub const DEFAULT_MAX_DOC_BYTES: usize = 16 * 1024 * 1024;
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_doc_bytes: Self::DEFAULT_MAX_DOC_BYTES,
        }
    }
}

/// One document of a corpus. Entity offsets are bytes into `text`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    pub id: String,
    pub text: String,
    pub entities: Vec<Entity>,
    pub meta: Map<String, Value>,
}

impl Document {
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        Document {
            id: id.into(),
            text: text.into(),
            ..Default::default()
        }
    }
}

/// On-disk corpus formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Plain text: a file per document (directory input) or a document per line (file/stdin).
    Text,
    /// Document JSONL, the interchange format.
    Jsonl,
    /// brat standoff directory: `<id>.txt` + `<id>.ann`.
    Brat,
    /// CoNLL / IOB2: token per line, tag last, blank line between sentences.
    Conll,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(Format::Text),
            "jsonl" | "json" => Ok(Format::Jsonl),
            "brat" => Ok(Format::Brat),
            "conll" | "iob" | "iob2" => Ok(Format::Conll),
            _ => Err(format!(
                "unknown format '{s}' (expected text, jsonl, brat or conll)"
            )),
        }
    }
}

/// Errors reading or writing a corpus. Messages name the file and line or document, never
/// the document's text.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
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
    #[error("document '{id}': {msg}")]
    Doc { id: String, msg: String },
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl CorpusError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CorpusError::Io {
            path: path.into(),
            source,
        }
    }
    pub fn line(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        CorpusError::Line {
            path: path.into(),
            line,
            msg: msg.into(),
        }
    }
    pub fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        CorpusError::File {
            path: path.into(),
            msg: msg.into(),
        }
    }
    pub fn doc(id: impl Into<String>, msg: impl Into<String>) -> Self {
        CorpusError::Doc {
            id: id.into(),
            msg: msg.into(),
        }
    }
    /// True for failures of the file system or stream itself (after which a reader stops), as
    /// opposed to one bad line or document.
    pub fn is_io(&self) -> bool {
        matches!(self, CorpusError::Io { .. })
    }
}
