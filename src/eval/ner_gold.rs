//! Gold of the news NER corpora (CoNLL-2002, KIND / WNUT / BTC TSV, GUM IO, NerKor CoNLL-U
//! Plus) as documents of tokens typed person, place, organisation or other, for the name-recall
//! report. The text is rebuilt by joining tokens with a space and sentences with a newline.
//!
//! Column files: a token per line, its tag in the last column (tab or blanks), a blank line
//! between sentences, `-DOCSTART-` between documents (a file without one is one document).
//! Tags are IOB2, IOB1 or IO: a new entity starts at `B-`, or where the type changes.
//! CoNLL-U Plus: the first line declares the columns (`# global.columns = ... CONLL:NER ...`),
//! `#` lines are comments, `# newdoc` starts a document; a directory is read recursively
//! (files in name order, each at least one document).

use crate::error::ValueError;

use std::path::{Path, PathBuf};

/// The entity types the report tells apart; everything else is `Other` (MISC, product, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NerType {
    Person,
    Place,
    Organization,
    Other,
}

impl NerType {
    /// The type of a corpus label: CoNLL (PER, LOC, ORG, MISC), WNUT (person, location,
    /// corporation, group, ...), GUM (person, place, organization, ...), BVMC (PERS).
    pub fn of_label(label: &str) -> NerType {
        match label.to_ascii_lowercase().as_str() {
            "per" | "pers" | "person" => NerType::Person,
            "loc" | "location" | "place" | "gpe" => NerType::Place,
            "org" | "organization" | "organisation" | "corporation" | "group" => {
                NerType::Organization
            }
            _ => NerType::Other,
        }
    }
}

/// One gold document: its rebuilt text, the byte range of every corpus token, and the gold
/// entity (if any) each token belongs to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NerDoc {
    pub id: String,
    pub text: String,
    pub tokens: Vec<(usize, usize)>,
    pub types: Vec<Option<NerType>>,
}

impl NerDoc {
    fn push_token(&mut self, form: &str, ty: Option<NerType>, new_sentence: bool) {
        if !self.text.is_empty() {
            self.text.push(if new_sentence { '\n' } else { ' ' });
        }
        let start = self.text.len();
        self.text.push_str(form);
        self.tokens.push((start, self.text.len()));
        self.types.push(ty);
    }
}

/// Entity spans of a tag sequence as `(first token, last token, type)`.
fn spans(tags: &[Tag]) -> Vec<(usize, usize, NerType)> {
    let mut out: Vec<(usize, usize, NerType)> = Vec::new();
    for (i, t) in tags.iter().enumerate() {
        match *t {
            Tag::Outside => {}
            Tag::Begin(ty) => out.push((i, i, ty)),
            Tag::Inside(ty) => match out.last_mut() {
                Some(last) if last.1 + 1 == i && last.2 == ty => last.1 = i,
                _ => out.push((i, i, ty)),
            },
        }
    }
    out
}

/// A token's tag, its type already resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    Outside,
    Begin(NerType),
    Inside(NerType),
}

/// Parses `O`, `B-X`, `I-X` and a bare `X` (IO schemes); `None` for anything else.
pub fn parse_tag(tag: &str) -> Option<Tag> {
    if tag == "O" || tag == "_" {
        return Some(Tag::Outside);
    }
    match tag.split_at_checked(2) {
        Some(("B-", l)) if !l.is_empty() => Some(Tag::Begin(NerType::of_label(l))),
        Some(("I-", l)) if !l.is_empty() => Some(Tag::Inside(NerType::of_label(l))),
        _ if tag
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_') =>
        {
            Some(Tag::Inside(NerType::of_label(tag)))
        }
        _ => None,
    }
}

/// Which reader a gold path needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoldFormat {
    /// Token per line, tag in the last column.
    Columns,
    /// CoNLL-U Plus with a `CONLL:NER` column.
    ConlluPlus,
}

impl std::str::FromStr for GoldFormat {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "conll" | "conll2002" | "tsv" | "kind" | "iob" | "iob2" => Ok(GoldFormat::Columns),
            "conllu" | "conllup" | "conllu-plus" | "nerkor" => Ok(GoldFormat::ConlluPlus),
            _ => Err(ValueError::from(format!(
                "unknown NER gold format '{s}' (expected conll, tsv or conllup)"
            ))),
        }
    }
}

impl GoldFormat {
    /// `.conllup` files, or a directory holding them, are CoNLL-U Plus; anything else columns.
    pub fn detect(path: &Path) -> GoldFormat {
        let is_up = |p: &Path| p.extension().is_some_and(|e| e == "conllup");
        if is_up(path)
            || (path.is_dir() && files_under(path).is_ok_and(|f| f.iter().any(|p| is_up(p))))
        {
            GoldFormat::ConlluPlus
        } else {
            GoldFormat::Columns
        }
    }
}

/// Errors reading NER gold: the shared file/line error.
pub type GoldError = crate::error::InputError;

/// Reads every document of `path` (a file, or a directory read recursively).
pub fn read_gold(path: &Path, format: GoldFormat) -> Result<Vec<NerDoc>, GoldError> {
    let files = if path.is_dir() {
        files_under(path)?
    } else {
        vec![path.to_path_buf()]
    };
    let mut docs = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).map_err(|source| GoldError::Io {
            path: f.clone(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|e| GoldError::Line {
            path: f.clone(),
            line: crate::wordlists::invalid_utf8_line(&e),
            msg: "invalid UTF-8".into(),
        })?;
        let stem = f
            .strip_prefix(path)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned();
        match format {
            GoldFormat::Columns => read_columns(&text, f, &stem, &mut docs)?,
            GoldFormat::ConlluPlus => read_conllup(&text, f, &stem, &mut docs)?,
        }
    }
    if docs.iter().all(|d| d.tokens.is_empty()) {
        return Err(GoldError::File {
            path: path.to_path_buf(),
            msg: "no tokens found".into(),
        });
    }
    docs.retain(|d| !d.tokens.is_empty());
    Ok(docs)
}

/// Regular files under `dir`, recursively, in path order (hidden files and licences skipped).
fn files_under(dir: &Path) -> Result<Vec<PathBuf>, GoldError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).map_err(|source| GoldError::Io {
            path: d.clone(),
            source,
        })?;
        for e in rd {
            let e = e.map_err(|source| GoldError::Io {
                path: d.clone(),
                source,
            })?;
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .is_some_and(|x| matches!(x.to_str(), Some("conllup" | "conll" | "tsv" | "bio")))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Collects tokens and tags of one document and turns them into a `NerDoc`.
struct DocBuilder {
    doc: NerDoc,
    tags: Vec<Tag>,
    sentence_open: bool,
}

impl DocBuilder {
    fn new(id: String) -> Self {
        DocBuilder {
            doc: NerDoc {
                id,
                ..Default::default()
            },
            tags: Vec::new(),
            sentence_open: false,
        }
    }

    fn token(&mut self, form: &str, tag: Tag) {
        let new_sentence = !self.sentence_open;
        self.sentence_open = true;
        // IOB1 / IO: an inside tag after a sentence break starts a new entity.
        let tag = match tag {
            Tag::Inside(t) if new_sentence => Tag::Begin(t),
            t => t,
        };
        self.doc.push_token(form, None, new_sentence);
        self.tags.push(tag);
    }

    fn end_sentence(&mut self) {
        self.sentence_open = false;
    }

    fn finish(mut self, out: &mut Vec<NerDoc>) {
        for (a, b, ty) in spans(&self.tags) {
            for t in &mut self.doc.types[a..=b] {
                *t = Some(ty);
            }
        }
        if !self.doc.tokens.is_empty() {
            out.push(self.doc);
        }
    }
}

fn read_columns(
    text: &str,
    path: &Path,
    stem: &str,
    out: &mut Vec<NerDoc>,
) -> Result<(), GoldError> {
    let mut cur = DocBuilder::new(stem.to_string());
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            cur.end_sentence();
            continue;
        }
        let mut cols = line.split(['\t', ' ']).filter(|c| !c.is_empty());
        let form = cols.next().unwrap_or("");
        if form == "-DOCSTART-" {
            let next = DocBuilder::new(format!("{stem}:{}", n + 1));
            std::mem::replace(&mut cur, next).finish(out);
            continue;
        }
        let tag_text = cols.next_back().ok_or_else(|| GoldError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            msg: "a token line needs a tag column".into(),
        })?;
        let tag = parse_tag(tag_text).ok_or_else(|| GoldError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            msg: "the last column is not an O, B-X, I-X or X tag".into(),
        })?;
        cur.token(form, tag);
    }
    cur.finish(out);
    Ok(())
}

fn read_conllup(
    text: &str,
    path: &Path,
    stem: &str,
    out: &mut Vec<NerDoc>,
) -> Result<(), GoldError> {
    let mut lines = text.lines().enumerate();
    let header = lines.next().map(|(_, l)| l).unwrap_or("");
    let cols: Vec<&str> = header
        .strip_prefix("# global.columns =")
        .ok_or_else(|| GoldError::Line {
            path: path.to_path_buf(),
            line: 1,
            msg: "a CoNLL-U Plus file starts with '# global.columns = ...'".into(),
        })?
        .split_whitespace()
        .collect();
    let pos = |name: &str| cols.iter().position(|c| *c == name);
    let (form_col, ner_col) = match (pos("FORM"), pos("CONLL:NER")) {
        (Some(f), Some(n)) => (f, n),
        _ => {
            return Err(GoldError::Line {
                path: path.to_path_buf(),
                line: 1,
                msg: "the columns need FORM and CONLL:NER".into(),
            })
        }
    };
    let id_col = pos("ID");
    let mut cur = DocBuilder::new(stem.to_string());
    for (n, line) in lines {
        let line = line.trim_end_matches('\r');
        if line.starts_with("# newdoc") {
            if !cur.doc.tokens.is_empty() {
                let next = DocBuilder::new(format!("{stem}:{}", n + 1));
                std::mem::replace(&mut cur, next).finish(out);
            }
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            cur.end_sentence();
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let bad = |msg: &str| GoldError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            msg: msg.into(),
        };
        if fields.len() != cols.len() {
            return Err(bad("the number of columns differs from the header"));
        }
        // Multiword-token ranges (1-2) and empty nodes (1.1) carry no surface token of their own.
        if id_col.is_some_and(|c| fields[c].contains(['-', '.'])) {
            continue;
        }
        let tag = parse_tag(fields[ner_col])
            .ok_or_else(|| bad("the CONLL:NER column is not an O, B-X or I-X tag"))?;
        cur.token(fields[form_col], tag);
    }
    cur.finish(out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(d: &NerDoc) -> Vec<(&str, Option<NerType>)> {
        d.tokens
            .iter()
            .zip(&d.types)
            .map(|(&(s, e), t)| (&d.text[s..e], *t))
            .collect()
    }

    fn read_str(body: &str, format: GoldFormat, name: &str) -> Result<Vec<NerDoc>, GoldError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        read_gold(&p, format)
    }

    #[test]
    fn conll2002_with_docstart_and_pos_column() {
        let body = "-DOCSTART- -DOCSTART- O\nGisteren Adv O\nkwam V O\nAnke N B-PER\nJanssen N I-PER\n\
                    uit Prep O\nZwolle N B-LOC\n. Punc O\n\n-DOCSTART- -DOCSTART- O\nDe Art B-MISC\n";
        let docs = read_str(body, GoldFormat::Columns, "x.testa").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].text, "Gisteren kwam Anke Janssen uit Zwolle .");
        use NerType::*;
        assert_eq!(
            words(&docs[0]),
            [
                ("Gisteren", None),
                ("kwam", None),
                ("Anke", Some(Person)),
                ("Janssen", Some(Person)),
                ("uit", None),
                ("Zwolle", Some(Place)),
                (".", None)
            ]
        );
        assert_eq!(words(&docs[1]), [("De", Some(Other))]);
    }

    #[test]
    fn tsv_io_tags_and_sentence_breaks() {
        // IO tags (GUM style) and WNUT labels; a sentence break ends an entity.
        let body = "Lucia\tperson\nwent\tO\nto\tO\nAcme\tcorporation\n\nParis\tB-location\n";
        let docs = read_str(body, GoldFormat::Columns, "x.tsv").unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].text, "Lucia went to Acme\nParis");
        assert_eq!(docs[0].types[3], Some(NerType::Organization));
        assert_eq!(docs[0].types[4], Some(NerType::Place));
    }

    #[test]
    fn conllup_reads_the_declared_ner_column() {
        let body = "# global.columns = FORM LEMMA CONLL:NER\n# sent_id = 1\nKiss\tKiss\tB-PER\n\
                    Ilona\tIlona\tI-PER\nGyőrben\tGyőr\tB-LOC\nél\tél\tO\n\n# newdoc id = b\n\
                    Ma\tma\tO\n";
        let docs = read_str(body, GoldFormat::ConlluPlus, "a.conllup").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].text, "Kiss Ilona Győrben él");
        assert_eq!(docs[0].types[2], Some(NerType::Place));
        assert_eq!(docs[1].text, "Ma");
    }

    #[test]
    fn bad_input_names_file_and_line() {
        let cases: &[(&str, GoldFormat, &str)] = &[
            ("Anna B-PER\nis\n", GoldFormat::Columns, ":2:"),
            ("Anna X-PER!\n", GoldFormat::Columns, ":1:"),
            ("FORM\tCONLL:NER\n", GoldFormat::ConlluPlus, ":1:"),
            (
                "# global.columns = FORM CONLL:NER\nAnna\tB-PER\textra\n",
                GoldFormat::ConlluPlus,
                ":2:",
            ),
            ("\n\n", GoldFormat::Columns, "no tokens"),
        ];
        for (body, fmt, want) in cases {
            let err = read_str(body, *fmt, "g.txt").unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
            assert!(!err.contains("Anna"), "no document text in errors: {err}");
        }
    }
}
