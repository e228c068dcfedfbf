//! brat standoff directories: `<id>.txt` with `<id>.ann` holding `T` lines.

use super::codepoints::CodePoints;
use super::input::{file_stem, read_file_capped};
use super::output::doc_file_name;
use super::{CorpusError, DocResult, Document, OutputTarget, ReadOptions, SharedResolver};
use crate::labels::Label;
use crate::offsets::OffsetMap;
use crate::span::Entity;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Maps a scheme label (e.g. a MEDDOCAN type) to a canonical label; `None` means "skip this type".
pub type LabelResolver<'a> = dyn Fn(&str) -> Result<Option<Label>, crate::error::ValueError> + 'a;

/// The error for a label that neither the label map nor the canonical labels know. It never
/// quotes the label: a mislabelled span's label field can hold a name.
pub const UNKNOWN_LABEL: &str = "unknown label (expected a canonical label such as NAME_DOCTOR or \
     NAME/DOCTOR, or a label of the --label-map)";

/// Resolver for files that already use canonical labels (`NAME_DOCTOR`, `DATE`).
pub fn canonical_labels(raw: &str) -> Result<Option<Label>, crate::error::ValueError> {
    Label::parse(raw).map(Some)
}

/// The `.txt` files of a brat directory, sorted by name.
pub fn list_documents(dir: &Path) -> Result<Vec<PathBuf>, CorpusError> {
    let mut txts = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| CorpusError::io(dir, e))? {
        let path = entry.map_err(|e| CorpusError::io(dir, e))?.path();
        if path.extension().is_some_and(|x| x == "txt") {
            txts.push(path);
        }
    }
    txts.sort();
    Ok(txts)
}

/// Reads one document: its text and, when `<id>.ann` exists, its `T` spans checked against the text.
pub fn read_document(txt_path: &Path, resolve: &LabelResolver) -> Result<Document, CorpusError> {
    read_document_with(txt_path, resolve, &ReadOptions::default())
}

/// [`read_document`] with read limits: a `.txt` or `.ann` over `max_doc_bytes` is an error.
pub fn read_document_with(
    txt_path: &Path,
    resolve: &LabelResolver,
    opts: &ReadOptions,
) -> Result<Document, CorpusError> {
    let text = read_file_capped(txt_path, opts.max_doc_bytes)?;
    let mut doc = Document::new(file_stem(txt_path), text);
    let ann_path = txt_path.with_extension("ann");
    if ann_path.exists() {
        let ann = read_file_capped(&ann_path, opts.max_doc_bytes)?;
        doc.entities = parse_ann(&ann, &doc.text, &ann_path, resolve)?;
    }
    Ok(doc)
}

/// Streams the documents of a brat directory in name order, one file pair at a time.
pub struct BratDirReader {
    files: std::vec::IntoIter<PathBuf>,
    opts: ReadOptions,
    resolve: SharedResolver,
}

impl BratDirReader {
    /// Lists the directory; an error when it holds no `.txt` file, when a `.txt` is no
    /// readable file (a dangling symlink, a folder) or when an `.ann` has no `.txt`: its
    /// annotations would be dropped without a word.
    pub fn new(
        dir: &Path,
        opts: &ReadOptions,
        resolve: SharedResolver,
    ) -> Result<Self, CorpusError> {
        let files = list_documents(dir)?;
        if files.is_empty() {
            return Err(CorpusError::file(
                dir,
                "no documents: the directory holds no .txt files",
            ));
        }
        for txt in &files {
            let meta = fs::metadata(txt).map_err(|e| CorpusError::io(txt, e))?;
            if !meta.is_file() {
                return Err(CorpusError::file(txt, "not a regular file"));
            }
        }
        for entry in fs::read_dir(dir).map_err(|e| CorpusError::io(dir, e))? {
            let ann = entry.map_err(|e| CorpusError::io(dir, e))?.path();
            if ann.extension().is_some_and(|x| x == "ann")
                && files.binary_search(&ann.with_extension("txt")).is_err()
            {
                return Err(CorpusError::file(
                    &ann,
                    "annotations without a text: no .txt of the same name",
                ));
            }
        }
        Ok(BratDirReader {
            files: files.into_iter(),
            opts: opts.clone(),
            resolve,
        })
    }
}

impl Iterator for BratDirReader {
    type Item = DocResult;
    fn next(&mut self) -> Option<DocResult> {
        let path = self.files.next()?;
        Some(read_document_with(&path, &*self.resolve, &self.opts))
    }
}

/// Maps a label to the brat type written for it.
pub type TypeMap<'a> = dyn Fn(Label) -> String + 'a;

/// The default brat type: the label's tag form (`NAME_DOCTOR`).
pub fn tag_form_type(label: Label) -> String {
    label.tag_form()
}

/// The `.ann` content for `doc`: a `T` line per entity, offsets in code points. An entity
/// spanning a line break is written as fragments (`s e;s e`) with its surface parts joined by
/// spaces, since an `.ann` line cannot hold a line break.
pub fn encode_ann(doc: &Document, type_of: &TypeMap) -> Result<String, CorpusError> {
    let text = &doc.text;
    let cps = CodePoints::new(text);
    let mut ann = String::new();
    for (i, e) in doc.entities.iter().enumerate() {
        let err = |m: &str| CorpusError::doc(&doc.id, format!("entity {i}: {m}"));
        let (Some(_), Some(_)) = (cps.to_char(e.start), cps.to_char(e.end)) else {
            return Err(err(&format!(
                "byte offsets {}-{} lie outside the text or not on character boundaries",
                e.start, e.end
            )));
        };
        let ty = type_of(e.label);
        if ty.is_empty() || ty.chars().any(char::is_whitespace) {
            return Err(err("brat type is empty or holds whitespace"));
        }
        let mut ranges = Vec::new();
        let mut surface = Vec::new();
        let mut pos = e.start;
        for part in text[e.start..e.end].split(['\n', '\r']) {
            if !part.is_empty() {
                let (s, t) = (
                    cps.to_char(pos).unwrap(),
                    cps.to_char(pos + part.len()).unwrap(),
                );
                ranges.push(format!("{s} {t}"));
                surface.push(part);
            }
            pos += part.len() + 1;
        }
        if ranges.is_empty() {
            return Err(err("span covers only line breaks"));
        }
        ann.push_str(&format!(
            "T{}\t{ty} {}\t{}\n",
            i + 1,
            ranges.join(";"),
            surface.join(" ")
        ));
    }
    Ok(ann)
}

/// Writes `<id>.txt` (the text byte for byte) and `<id>.ann` into a directory target.
pub fn write_doc(
    target: &OutputTarget,
    doc: &Document,
    type_of: &TypeMap,
) -> Result<(), CorpusError> {
    let ann = encode_ann(doc, type_of)?;
    let txt_name = doc_file_name(&doc.id, "txt")?;
    let ann_name = doc_file_name(&doc.id, "ann")?;
    for (name, content) in [(txt_name, doc.text.as_str()), (ann_name, ann.as_str())] {
        let mut f = target.create_in_dir(&name)?;
        f.write_all(content.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| CorpusError::io(target.path().join(&name), e))?;
    }
    Ok(())
}

/// Parses the `T` lines of an `.ann` file. Offsets are code points; each surface must match.
/// Discontinuous spans (`start end;start end`) are taken from the first start to the last end.
pub fn parse_ann(
    ann: &str,
    text: &str,
    ann_path: &Path,
    resolve: &LabelResolver,
) -> Result<Vec<Entity>, CorpusError> {
    let map = OffsetMap::new(text);
    let mut out = Vec::new();
    for (i, line) in ann.lines().enumerate() {
        let lineno = i + 1;
        if !line.starts_with('T') {
            continue;
        }
        let err = |msg: String| CorpusError::line(ann_path, lineno, msg);
        let mut fields = line.splitn(3, '\t');
        let (_id, info, surface) = (fields.next(), fields.next(), fields.next());
        let info =
            info.ok_or_else(|| err("expected 'T<n><TAB>LABEL START END<TAB>text'".into()))?;
        let (raw_label, ranges) = info
            .split_once(' ')
            .ok_or_else(|| err("missing offsets after the label".into()))?;
        let mut nums = ranges.split([' ', ';']).map(|n| n.parse::<usize>());
        let first = nums.next();
        let last = nums.next_back();
        let (start, end) = match (first, last) {
            (Some(Ok(s)), Some(Ok(e))) if s < e => (s, e),
            _ => {
                return Err(err(
                    "bad offsets: expected 'START END' (or 'S E;S E') with START < END, \
                     whole numbers of characters"
                        .into(),
                ))
            }
        };
        let (bs, be) = match (map.char_to_byte(start), map.char_to_byte(end)) {
            (Some(bs), Some(be)) => (bs, be),
            _ => {
                return Err(err(format!(
                    "offsets {start}-{end} lie outside the text ({} characters)",
                    map.char_len()
                )))
            }
        };
        if let Some(surface) = surface {
            let continuous = !ranges.contains(';');
            if continuous && text[bs..be] != *surface {
                return Err(err(format!(
                    "offsets {start}-{end} do not match the span text given on this line"
                )));
            }
        }
        // The resolver's message may quote the label, which is input: say what was expected.
        let label = match resolve(raw_label).map_err(|_| err(UNKNOWN_LABEL.into()))? {
            Some(l) => l,
            None => continue,
        };
        out.push(Entity::new(bs, be, label, "gold", 1.0));
    }
    out.sort_by_key(|e| (e.start, e.end));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category, Subtype};

    #[test]
    fn parses_non_ascii_offsets_and_rejects_mismatch() {
        let text = "Señor Pérez vive en Málaga.";
        let ann = "T1\tNAME_PATIENT 6 11\tPérez\nT2\tLOCATION_CITY 20 26\tMálaga\n";
        let ents = parse_ann(ann, text, Path::new("x.ann"), &canonical_labels).unwrap();
        assert_eq!(&text[ents[0].start..ents[0].end], "Pérez");
        assert_eq!(ents[1].label, Label::new(Category::Location, Subtype::City));
        let bad = "T1\tNAME_PATIENT 5 11\tPérez\n";
        let e = parse_ann(bad, text, Path::new("x.ann"), &canonical_labels).unwrap_err();
        assert!(e.to_string().starts_with("x.ann:1:"), "{e}");
        assert!(
            !e.to_string().contains("Pérez"),
            "error must not echo document text"
        );
    }

    #[test]
    fn encode_ann_round_trips_and_splits_line_breaks() {
        let mut doc = Document::new("d", "Dr. Ődön\nKovács 😀 Núñez");
        let doctor = Label::new(Category::Name, Subtype::Doctor);
        let s = doc.text.find("Ődön").unwrap();
        let e = doc.text.find(" 😀").unwrap();
        doc.entities.push(Entity::new(s, e, doctor, "x", 1.0));
        let n = doc.text.find("Núñez").unwrap();
        doc.entities
            .push(Entity::new(n, doc.text.len(), doctor, "x", 1.0));
        let ann = encode_ann(&doc, &tag_form_type).unwrap();
        assert_eq!(
            ann,
            "T1\tNAME_DOCTOR 4 8;9 15\tŐdön Kovács\nT2\tNAME_DOCTOR 18 23\tNúñez\n"
        );
        let back = parse_ann(&ann, &doc.text, Path::new("d.ann"), &canonical_labels).unwrap();
        let spans: Vec<(usize, usize)> = back.iter().map(|e| (e.start, e.end)).collect();
        let want: Vec<(usize, usize)> = doc.entities.iter().map(|e| (e.start, e.end)).collect();
        assert_eq!(spans, want);

        let custom = encode_ann(&doc, &|l: Label| format!("X-{}", l.category)).unwrap();
        assert!(custom.starts_with("T1\tX-NAME 4 8;9 15"), "{custom}");
        assert!(encode_ann(&doc, &|_| "two words".to_string()).is_err());
        doc.entities[0].start += 1; // inside 'Ő'
        let e = encode_ann(&doc, &tag_form_type).unwrap_err().to_string();
        assert!(
            e.starts_with("document 'd': entity 0:") && !e.contains("Ődön"),
            "{e}"
        );
    }
}
