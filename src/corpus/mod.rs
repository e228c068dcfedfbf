//! Documents and the corpus formats they are read from and written to.

pub mod brat;

use crate::span::Entity;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::str::FromStr;

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
}
