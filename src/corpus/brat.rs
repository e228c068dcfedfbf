//! brat standoff directories: `<id>.txt` with `<id>.ann` holding `T` lines.

use super::{CorpusError, Document};
use crate::labels::Label;
use crate::offsets::OffsetMap;
use crate::span::Entity;
use std::fs;
use std::path::{Path, PathBuf};

/// Maps a scheme label (e.g. a MEDDOCAN type) to a canonical label; `None` means "skip this type".
pub type LabelResolver<'a> = dyn Fn(&str) -> Result<Option<Label>, String> + 'a;

/// Resolver for files that already use canonical labels (`NAME_DOCTOR`, `DATE`).
pub fn canonical_labels(raw: &str) -> Result<Option<Label>, String> {
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
    let bytes = fs::read(txt_path).map_err(|e| CorpusError::io(txt_path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        CorpusError::line(txt_path, line, "invalid UTF-8")
    })?;
    let id = txt_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut doc = Document::new(id, text);
    let ann_path = txt_path.with_extension("ann");
    if ann_path.exists() {
        let ann = fs::read_to_string(&ann_path).map_err(|e| CorpusError::io(&ann_path, e))?;
        doc.entities = parse_ann(&ann, &doc.text, &ann_path, resolve)?;
    }
    Ok(doc)
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
            _ => return Err(err(format!("bad offsets '{ranges}'"))),
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
        let label =
            match resolve(raw_label).map_err(|m| err(format!("label '{raw_label}': {m}")))? {
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
}
