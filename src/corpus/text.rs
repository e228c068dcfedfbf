//! Plain text corpora: a directory with a `.txt` file per document, or a document per line.
//!
//! Line output refuses (does not escape) a document whose text holds a line break: escaping
//! would make plain text that happens to contain `\n` ambiguous when read back. Such corpora
//! should be written as a text directory or JSONL.

use super::input::{list_files, read_file_capped, LineReader, Source};
use super::output::doc_file_name;
use super::{CorpusError, DocResult, Document, OutputTarget, ReadOptions};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// A document per non-empty line; id `<stem>:<line>` (empty lines still count).
pub struct TextLinesReader<R> {
    lines: LineReader<R>,
}

impl<R: BufRead> TextLinesReader<R> {
    pub fn new(reader: R, source: Source, opts: &ReadOptions) -> Self {
        TextLinesReader {
            lines: LineReader::new(reader, source, opts.max_doc_bytes),
        }
    }
}

impl<R: BufRead> Iterator for TextLinesReader<R> {
    type Item = DocResult;
    fn next(&mut self) -> Option<DocResult> {
        loop {
            let line = match self.lines.next_line()? {
                Ok(l) => l,
                Err(e) => return Some(Err(e)),
            };
            if line.text.is_empty() {
                continue;
            }
            let id = format!("{}:{}", self.lines.source().stem, line.no);
            return Some(Ok(Document::new(id, line.text)));
        }
    }
}

/// The `.txt` files of a directory, a document each (id = file stem), in name order.
pub struct TextDirReader {
    files: std::vec::IntoIter<PathBuf>,
    max: usize,
}

impl TextDirReader {
    /// Lists the directory; an error when it holds no `.txt` file.
    pub fn new(dir: &Path, opts: &ReadOptions) -> Result<Self, CorpusError> {
        let files = list_files(dir, &["txt"])?;
        if files.is_empty() {
            return Err(CorpusError::file(
                dir,
                "no documents: the directory holds no .txt files",
            ));
        }
        Ok(TextDirReader {
            files: files.into_iter(),
            max: opts.max_doc_bytes,
        })
    }
}

impl Iterator for TextDirReader {
    type Item = DocResult;
    fn next(&mut self) -> Option<DocResult> {
        let path = self.files.next()?;
        Some(
            read_file_capped(&path, self.max)
                .map(|text| Document::new(super::input::file_stem(&path), text)),
        )
    }
}

/// Writes `doc.text` as one line. A line break inside the text (or a trailing `\r`, which a
/// reader would strip) is refused with an error naming the document.
pub fn write_line(out: &mut dyn Write, doc: &Document, sink: &Path) -> Result<(), CorpusError> {
    if memchr::memchr(b'\n', doc.text.as_bytes()).is_some() || doc.text.ends_with('\r') {
        return Err(CorpusError::doc(
            &doc.id,
            "text holds a line break; a document-per-line file cannot hold it (write a text \
             directory or jsonl instead)",
        ));
    }
    out.write_all(doc.text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .map_err(|e| CorpusError::io(sink, e))
}

/// Writes `doc.text` byte for byte to `<id>.txt` in a directory target.
pub fn write_file(target: &OutputTarget, doc: &Document) -> Result<(), CorpusError> {
    let name = doc_file_name(&doc.id, "txt")?;
    let mut f = target.create_in_dir(&name)?;
    f.write_all(doc.text.as_bytes())
        .and_then(|()| f.flush())
        .map_err(|e| CorpusError::io(target.path().join(&name), e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_become_documents_with_line_ids() {
        let input = "Kovács Ödön\n\nSeñora Núñez 😀\r\n";
        let docs: Vec<Document> = TextLinesReader::new(
            Cursor::new(input),
            Source::file(Path::new("dir/notes.txt")),
            &ReadOptions::default(),
        )
        .collect::<Result<_, _>>()
        .unwrap();
        let got: Vec<(&str, &str)> = docs.iter().map(|d| (&*d.id, &*d.text)).collect();
        assert_eq!(
            got,
            [("notes:1", "Kovács Ödön"), ("notes:3", "Señora Núñez 😀")]
        );
    }

    #[test]
    fn line_writer_refuses_line_breaks_without_echoing_text() {
        let mut out = Vec::new();
        let sink = Path::new("<stdout>");
        write_line(&mut out, &Document::new("a", "Ágnes"), sink).unwrap();
        for text in ["Ágnes\nBéla", "Ágnes\r"] {
            let e = write_line(&mut out, &Document::new("b", text), sink).unwrap_err();
            assert!(e.to_string().starts_with("document 'b':"), "{e}");
            assert!(!e.to_string().contains("Ágnes"), "{e}");
        }
        assert_eq!(out, "Ágnes\n".as_bytes());
    }
}
