//! `CorpusWriter`: writes documents in one format to an atomic [`OutputTarget`].

use super::output::{OutputTarget, TargetKind};
use super::{brat, conll, jsonl, text, CorpusError, Document, Format};
use crate::labels::Label;
use std::sync::Arc;

/// Maps a label to the brat type written for it (default: `label.tag_form()`).
pub type BratTypeMap = Arc<dyn Fn(Label) -> String + Send + Sync>;

/// Format-specific writing choices.
#[derive(Clone, Default)]
pub struct WriteOptions {
    pub brat_type: Option<BratTypeMap>,
}

/// Writes documents to a target; nothing appears at the destination before [`finish`].
///
/// A document that fails validation (bad offsets, a line break in line-per-document text, an
/// id unusable as a file name) is reported by id and written nowhere; the writer stays usable.
/// After an I/O error the writer is poisoned and `finish` fails, leaving no output.
///
/// [`finish`]: CorpusWriter::finish
pub struct CorpusWriter {
    format: Format,
    target: OutputTarget,
    opts: WriteOptions,
    buf: Vec<u8>,
    written: usize,
    poisoned: bool,
}

/// Opens a writer for `format` on `target`. brat needs a directory target; JSONL and CoNLL a
/// file or stdout; text writes a `.txt` per document to a directory, else a document per line.
pub fn open_output(
    format: Format,
    target: OutputTarget,
    opts: &WriteOptions,
) -> Result<CorpusWriter, CorpusError> {
    let dir = target.kind() == TargetKind::Dir;
    let ok = match format {
        Format::Brat => dir,
        Format::Jsonl | Format::Conll => !dir,
        Format::Text => true,
    };
    if !ok {
        let want = if dir { "a file or '-'" } else { "a directory" };
        return Err(CorpusError::file(
            target.path(),
            format!("{format:?} output must be {want}"),
        ));
    }
    Ok(CorpusWriter {
        format,
        target,
        opts: opts.clone(),
        buf: Vec::new(),
        written: 0,
        poisoned: false,
    })
}

/// A document made ready for writing on a worker thread: JSONL lines are encoded there, so
/// the single writing thread only copies bytes. Other formats carry the document itself.
pub enum Prepared {
    Encoded(Result<Vec<u8>, CorpusError>),
    Doc(Document),
}

/// Prepares `doc` for a writer of `format` (see [`Prepared`]).
pub fn prepare(format: Format, doc: Document) -> Prepared {
    match format {
        Format::Jsonl => {
            let mut buf = Vec::with_capacity(doc.text.len() + 64 * doc.entities.len() + 64);
            Prepared::Encoded(jsonl::encode(&doc, &mut buf).map(|()| buf))
        }
        _ => Prepared::Doc(doc),
    }
}

impl CorpusWriter {
    /// Writes one prepared document (see [`prepare`]); same contract as [`CorpusWriter::write`].
    pub fn write_prepared(&mut self, doc: Prepared) -> Result<(), CorpusError> {
        let bytes = match doc {
            Prepared::Doc(doc) => return self.write(&doc),
            Prepared::Encoded(bytes) => bytes?,
        };
        if self.poisoned {
            return Err(CorpusError::file(
                self.target.path(),
                "an earlier write failed; output abandoned",
            ));
        }
        let sink = self.target.path().to_path_buf();
        let out = self
            .target
            .stream()
            .expect("jsonl writes to a file or stdout");
        match out.write_all(&bytes) {
            Ok(()) => {
                self.written += 1;
                Ok(())
            }
            Err(e) => {
                self.poisoned = true;
                Err(CorpusError::io(sink, e))
            }
        }
    }

    /// Writes one document.
    pub fn write(&mut self, doc: &Document) -> Result<(), CorpusError> {
        if self.poisoned {
            return Err(CorpusError::file(
                self.target.path(),
                "an earlier write failed; output abandoned",
            ));
        }
        let sink = self.target.path().to_path_buf();
        let res = match (self.format, self.target.kind()) {
            (Format::Brat, _) => {
                let default = brat::tag_form_type;
                let type_of: &brat::TypeMap = match &self.opts.brat_type {
                    Some(f) => &**f,
                    None => &default,
                };
                brat::write_doc(&self.target, doc, type_of)
            }
            (Format::Text, TargetKind::Dir) => text::write_file(&self.target, doc),
            (format, _) => {
                let out = self.target.stream().expect("file or stdout target");
                match format {
                    Format::Jsonl => jsonl::write_doc(out, doc, &mut self.buf, &sink),
                    Format::Conll => conll::write_doc(out, doc, &sink),
                    _ => text::write_line(out, doc, &sink),
                }
            }
        };
        match &res {
            Ok(()) => self.written += 1,
            Err(e) if e.is_io() => self.poisoned = true,
            Err(_) => {}
        }
        res
    }

    /// Number of documents written so far.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Commits the output (renames it into place) and returns the number of documents.
    pub fn finish(self) -> Result<usize, CorpusError> {
        let written = self.written;
        self.into_target()?.commit()?;
        Ok(written)
    }

    /// The target, unpublished, for a run that publishes it with its other outputs.
    pub fn into_target(self) -> Result<OutputTarget, CorpusError> {
        if self.poisoned {
            return Err(CorpusError::file(
                self.target.path(),
                "an earlier write failed; output abandoned",
            ));
        }
        Ok(self.target)
    }
}
