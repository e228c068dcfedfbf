//! CoNLL / IOB2: a token per line with its tag in the last column, a blank line between
//! sentences, `-DOCSTART-` lines between documents (without them a file is one document).
//!
//! Reading rebuilds the text by joining tokens with single spaces and sentences with newlines;
//! the original spacing is not kept. Ids: `<stem>` for a file without `-DOCSTART-`, else
//! `<stem>:<line>` of the `-DOCSTART-` (or of the first token before any `-DOCSTART-`).
//! Writing uses the crate's word tokens ([`crate::text::tokenize_cut_at`], also cut at entity
//! edges), one sentence per line of the text, and starts each document with
//! `-DOCSTART- -X- -X- O`; documents without tokens vanish.

use crate::error::ValueError;

use super::input::{LineReader, Source};
use super::{CorpusError, DocResult, Document, ReadOptions, SharedResolver};
use crate::labels::Label;
use crate::span::Entity;
use crate::text::tokenize_cut_at;
use std::io::{BufRead, Write};
use std::path::Path;

const DOCSTART: &str = "-DOCSTART-";

/// The document being assembled.
struct Building {
    /// Line of its `-DOCSTART-` or first token.
    line: usize,
    from_docstart: bool,
    text: String,
    entities: Vec<Entity>,
    open: Option<(Label, usize, usize)>,
    in_sentence: bool,
    /// Set after an error: the rest of this document is skipped.
    failed: bool,
}

impl Building {
    fn new(line: usize, from_docstart: bool) -> Self {
        Building {
            line,
            from_docstart,
            text: String::new(),
            entities: Vec::new(),
            open: None,
            in_sentence: false,
            failed: false,
        }
    }

    fn close(&mut self) {
        if let Some((label, s, e)) = self.open.take() {
            self.entities.push(Entity::new(s, e, label, "gold", 1.0));
        }
    }

    fn end_sentence(&mut self) {
        self.close();
        self.in_sentence = false;
    }
}

/// Streams documents from CoNLL / IOB2 input.
pub struct ConllReader<R> {
    lines: LineReader<R>,
    resolve: SharedResolver,
    max: usize,
    cur: Option<Building>,
    saw_docstart: bool,
}

enum Tag<'a> {
    Outside,
    Begin(&'a str),
    Inside(&'a str),
}

fn parse_tag(tag: &str) -> Option<Tag<'_>> {
    match tag {
        "O" => Some(Tag::Outside),
        _ => match tag.split_at_checked(2) {
            Some(("B-", l)) if !l.is_empty() => Some(Tag::Begin(l)),
            Some(("I-", l)) if !l.is_empty() => Some(Tag::Inside(l)),
            _ => None,
        },
    }
}

impl<R: BufRead> ConllReader<R> {
    pub fn new(reader: R, source: Source, opts: &ReadOptions, resolve: SharedResolver) -> Self {
        ConllReader {
            lines: LineReader::new(reader, source, opts.max_doc_bytes),
            resolve,
            max: opts.max_doc_bytes,
            cur: None,
            saw_docstart: false,
        }
    }

    fn finish(&self, b: Building) -> Option<Document> {
        if b.failed || b.text.is_empty() {
            return None;
        }
        let mut b = b;
        b.close();
        let stem = &self.lines.source().stem;
        let id = if b.from_docstart || self.saw_docstart {
            format!("{stem}:{}", b.line)
        } else {
            stem.clone()
        };
        Some(Document {
            id,
            text: b.text,
            entities: b.entities,
            meta: Default::default(),
        })
    }

    /// Adds one token line to `b`; the error is a message for this line.
    fn add_token(&self, b: &mut Building, token: &str, tag: &str) -> Result<(), ValueError> {
        let tag = parse_tag(tag).ok_or("malformed tag (expected O, B-<LABEL> or I-<LABEL>)")?;
        let sep = match (b.in_sentence, b.text.is_empty()) {
            (true, _) => " ",
            (false, false) => "\n",
            (false, true) => "",
        };
        if b.text.len() + sep.len() + token.len() > self.max {
            return Err(ValueError::from(format!(
                "document grows past the limit of {} bytes (max_doc_bytes)",
                self.max
            )));
        }
        b.text.push_str(sep);
        let start = b.text.len();
        b.text.push_str(token);
        let end = b.text.len();
        b.in_sentence = true;
        let resolve =
            |l: &str| (self.resolve)(l).map_err(|_| super::brat::UNKNOWN_LABEL.to_string());
        match tag {
            Tag::Outside => b.close(),
            Tag::Begin(l) => {
                b.close();
                b.open = resolve(l)?.map(|label| (label, start, end));
            }
            Tag::Inside(l) => {
                let label = resolve(l)?;
                match &mut b.open {
                    Some((open, _, e)) if Some(*open) == label => *e = end,
                    _ => {
                        b.close();
                        b.open = label.map(|label| (label, start, end));
                    }
                }
            }
        }
        Ok(())
    }
}

impl<R: BufRead> Iterator for ConllReader<R> {
    type Item = DocResult;
    fn next(&mut self) -> Option<DocResult> {
        loop {
            let line = match self.lines.next_line() {
                None => {
                    let done = self.cur.take()?;
                    match self.finish(done) {
                        Some(d) => return Some(Ok(d)),
                        None => return None,
                    }
                }
                Some(Err(e)) => {
                    // The bad line belongs to the current document (or starts one): drop it.
                    let b = self.cur.get_or_insert_with(|| Building::new(0, false));
                    b.failed = true;
                    return Some(Err(e));
                }
                Some(Ok(l)) => l,
            };
            let mut cols = line.text.split_whitespace();
            let Some(first) = cols.next() else {
                if let Some(b) = self.cur.as_mut() {
                    b.end_sentence();
                }
                continue;
            };
            if first == DOCSTART {
                self.saw_docstart = true;
                let prev = self.cur.replace(Building::new(line.no, true));
                let done = prev.and_then(|p| self.finish(p));
                match done {
                    Some(d) => return Some(Ok(d)),
                    None => continue,
                }
            }
            let Some(tag) = cols.last() else {
                if let Some(b) = self.cur.as_mut() {
                    b.failed = true;
                }
                return Some(Err(CorpusError::line(
                    &self.lines.source().name,
                    line.no,
                    "expected a token and a tag separated by whitespace",
                )));
            };
            let mut b = self
                .cur
                .take()
                .unwrap_or_else(|| Building::new(line.no, false));
            let res = if b.failed {
                Ok(())
            } else {
                self.add_token(&mut b, first, tag)
            };
            if res.is_err() {
                b.failed = true;
            }
            self.cur = Some(b);
            if let Err(msg) = res {
                return Some(Err(CorpusError::line(
                    &self.lines.source().name,
                    line.no,
                    msg.0,
                )));
            }
        }
    }
}

/// Writes `doc` as a CoNLL document (`-DOCSTART-`, token lines, blank lines between sentences).
pub fn write_doc(out: &mut dyn Write, doc: &Document, sink: &Path) -> Result<(), CorpusError> {
    let text = &doc.text;
    let mut ents: Vec<&Entity> = doc.entities.iter().collect();
    ents.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
    let mut cuts = Vec::with_capacity(ents.len() * 2);
    for (i, e) in ents.iter().enumerate() {
        let ok = e.start < e.end
            && e.end <= text.len()
            && text.is_char_boundary(e.start)
            && text.is_char_boundary(e.end);
        if !ok {
            return Err(CorpusError::doc(
                &doc.id,
                format!(
                    "entity {i}: byte offsets {}-{} are empty, outside the text or not on \
                     character boundaries",
                    e.start, e.end
                ),
            ));
        }
        cuts.extend([e.start, e.end]);
    }
    cuts.sort_unstable();
    let mut buf = String::with_capacity(text.len() * 2 + 32);
    buf.push_str(DOCSTART);
    buf.push_str(" -X- -X- O\n\n");
    let mut j = 0;
    let mut prev: Option<usize> = None;
    let mut last_end: Option<usize> = None;
    for (start, end) in tokenize_cut_at(text, &cuts) {
        // A CoNLL sentence is a line of the text, so reading restores the lines.
        if last_end.is_some_and(|l| text[l..start].contains('\n')) {
            buf.push('\n');
            prev = None;
        }
        last_end = Some(end);
        while j < ents.len() && ents[j].end <= start {
            j += 1;
        }
        let inside = (j < ents.len() && ents[j].start <= start).then_some(j);
        buf.push_str(&text[start..end]);
        match inside {
            None => buf.push_str(" O\n"),
            Some(k) => {
                buf.push_str(if prev == Some(k) { " I-" } else { " B-" });
                buf.push_str(&ents[k].label.tag_form());
                buf.push('\n');
            }
        }
        prev = inside;
    }
    buf.push('\n');
    out.write_all(buf.as_bytes())
        .map_err(|e| CorpusError::io(sink, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::canonical_resolver;
    use crate::labels::{Category, Subtype};
    use std::io::Cursor;

    fn read(input: &str) -> Vec<Result<Document, String>> {
        ConllReader::new(
            Cursor::new(input.to_string()),
            Source::file(Path::new("a/train.conll")),
            &ReadOptions::default(),
            canonical_resolver(),
        )
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
    }

    fn spans(d: &Document) -> Vec<(&str, String)> {
        d.entities
            .iter()
            .map(|e| (&d.text[e.start..e.end], e.label.tag_form()))
            .collect()
    }

    #[test]
    fn reads_iob2_with_sentences_and_columns() {
        let docs = read(
            "Dr\tNN\tO\nŐdön\tNNP\tB-NAME_DOCTOR\nKovács\tNNP\tI-NAME_DOCTOR\n.\t.\tO\n\n\
             Vive O\nen O\nMálaga B-LOCATION_CITY\n\n\n",
        );
        assert_eq!(docs.len(), 1);
        let d = docs[0].as_ref().unwrap();
        assert_eq!(d.id, "train");
        assert_eq!(d.text, "Dr Ődön Kovács .\nVive en Málaga");
        assert_eq!(
            spans(d),
            [
                ("Ődön Kovács", "NAME_DOCTOR".into()),
                ("Málaga", "LOCATION_CITY".into())
            ]
        );
    }

    #[test]
    fn inside_without_begin_and_label_changes_start_entities() {
        let d = read("a I-NAME\nb I-NAME\nc I-DATE\nd B-DATE\ne O\nf I-AGE\n");
        let d = d[0].as_ref().unwrap();
        assert_eq!(
            spans(d),
            [
                ("a b", "NAME".into()),
                ("c", "DATE".into()),
                ("d", "DATE".into()),
                ("f", "AGE".into())
            ]
        );
    }

    #[test]
    fn docstart_separates_documents() {
        let docs =
            read("x O\n\n-DOCSTART- -X- -X- O\n\ny B-AGE\n-DOCSTART- O\n\n-DOCSTART- O\nz O\n");
        let ids: Vec<&str> = docs
            .iter()
            .map(|d| d.as_ref().unwrap().id.as_str())
            .collect();
        assert_eq!(ids, ["train:1", "train:3", "train:8"]);
    }

    #[test]
    fn malformed_lines_name_the_line_not_the_token() {
        let cases = [
            (
                "Ágnes O\nBéla\n",
                "a/train.conll:2: expected a token and a tag",
            ),
            ("Ágnes X-NAME\n", "a/train.conll:1: malformed tag"),
            ("Ágnes B-\n", "a/train.conll:1: malformed tag"),
            ("Ágnes B-NOPE\n", "a/train.conll:1: unknown label (expected"),
        ];
        for (input, want) in cases {
            let got = read(input);
            let e = got[0].as_ref().unwrap_err();
            assert!(e.starts_with(want), "{input:?}: {e}");
            assert!(!e.contains("Ágnes") && !e.contains("Béla"), "{e}");
            assert_eq!(got.len(), 1, "the failed document must not be yielded");
        }
    }

    #[test]
    fn writes_iob2_tags() {
        let mut doc = Document::new("d", "El Dr. Núñez-Pérez.\nEdad: 45 años");
        let name = Label::new(Category::Name, Subtype::Doctor);
        let s = doc.text.find("Núñez").unwrap();
        let e = doc.text.find(".\n").unwrap();
        doc.entities.push(Entity::new(s, e, name, "t", 1.0));
        let mut out = Vec::new();
        write_doc(&mut out, &doc, Path::new("o")).unwrap();
        let got = String::from_utf8(out).unwrap();
        assert_eq!(
            got,
            "-DOCSTART- -X- -X- O\n\nEl O\nDr O\n. O\nNúñez B-NAME_DOCTOR\n- I-NAME_DOCTOR\n\
             Pérez I-NAME_DOCTOR\n. O\n\nEdad O\n: O\n45 O\naños O\n\n"
        );
    }
}
