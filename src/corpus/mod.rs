//! Documents and the corpus formats they are read from and written to.
//!
//! Readers stream documents lazily (`open_input`), writers stage output atomically
//! (`OutputTarget`, `open_output`). Inside the process entity offsets are bytes; every reader
//! and writer converts at the edge (code points in JSONL and brat).

use crate::error::ValueError;

pub mod brat;
mod codepoints;
pub mod conll;
pub mod counts;
pub mod input;
pub mod jsonl;
pub mod output;
pub mod records;
pub mod source;
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
pub type SharedResolver =
    Arc<dyn Fn(&str) -> Result<Option<Label>, crate::error::ValueError> + Send + Sync>;

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
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(Format::Text),
            "jsonl" | "json" => Ok(Format::Jsonl),
            "brat" => Ok(Format::Brat),
            "conll" | "iob" | "iob2" => Ok(Format::Conll),
            _ => Err(ValueError::from(format!(
                "unknown format '{s}' (expected text, jsonl, brat or conll)"
            ))),
        }
    }
}

/// Longest prefix of a document id shown in messages, in characters.
const SHOWN_ID_CHARS: usize = 32;

/// A document id as messages show it: quoted, control and other unusual characters escaped,
/// cut to a short prefix (an id can be a file name or a field that holds more than an id).
pub fn show_id(id: &str) -> String {
    let mut out = String::from("'");
    for (i, c) in id.chars().enumerate() {
        if i == SHOWN_ID_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() || c == '\'' || c == '\\' || (c.is_whitespace() && c != ' ') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Errors reading or writing a corpus. Messages name the file and line or document, never
/// the document's text.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error(transparent)]
    Input(#[from] crate::error::InputError),
    #[error("document {}: {msg}", show_id(id))]
    Doc { id: String, msg: String },
    #[error(transparent)]
    Fs(#[from] crate::fsio::FsError),
}

impl CorpusError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        crate::error::InputError::io(path, source).into()
    }
    pub fn line(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        crate::error::InputError::line(path, line, msg).into()
    }
    pub fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        crate::error::InputError::file(path, msg).into()
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
        matches!(
            self,
            CorpusError::Input(crate::error::InputError::Io { .. })
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_shown_escaped_and_cut() {
        assert_eq!(show_id("doc-1"), "'doc-1'");
        assert_eq!(show_id("a\u{1b}[2Jb\nc"), "'a\\u{1b}[2Jb\\nc'");
        let long = "x".repeat(100);
        let shown = show_id(&long);
        assert_eq!(shown.chars().count(), SHOWN_ID_CHARS + 3, "{shown}");
        assert!(CorpusError::doc(long.as_str(), "m").to_string().len() < 60);
    }
}
