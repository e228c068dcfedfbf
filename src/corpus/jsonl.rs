//! Document JSONL, the interchange format: one object per line,
//! `{"id", "text", "entities": [{"start", "end", "label", "subtype", "source", "score"}], "meta"}`
//! with `start`/`end` in Unicode code points (end exclusive).
//!
//! Lines are parsed straight into raw field values (`raw`) that accept any JSON type, and
//! checked by hand, so that no error message repeats a value from the document (serde's type
//! errors quote the offending value).

use crate::error::ValueError;

mod raw;

use super::codepoints::CodePoints;
use super::input::{LineReader, Source};
use super::{CorpusError, DocResult, Document, ReadOptions, SharedResolver};
use crate::span::Entity;
use raw::{Any, Entities, Meta, RawEntity, RawLine};
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::io::{BufRead, Write};
use std::path::Path;

/// Streams documents from JSONL; blank lines are skipped.
pub struct JsonlReader<R> {
    lines: LineReader<R>,
    resolve: SharedResolver,
}

impl<R: BufRead> JsonlReader<R> {
    pub fn new(reader: R, source: Source, opts: &ReadOptions, resolve: SharedResolver) -> Self {
        JsonlReader {
            lines: LineReader::new(reader, source, opts.max_doc_bytes),
            resolve,
        }
    }
}

impl<R: BufRead> Iterator for JsonlReader<R> {
    type Item = DocResult;
    fn next(&mut self) -> Option<DocResult> {
        loop {
            let line = match self.lines.next_line()? {
                Ok(l) => l,
                Err(e) => return Some(Err(e)),
            };
            if line.text.trim().is_empty() {
                continue;
            }
            let src = self.lines.source();
            return Some(
                parse_document(&line.text, &src.stem, line.no, &*self.resolve)
                    .map_err(|msg| CorpusError::line(&src.name, line.no, msg.0)),
            );
        }
    }
}

const DOC_KEYS: &[&str] = &["id", "text", "entities", "meta"];
const ENTITY_KEYS: &[&str] = &[
    "start", "end", "label", "subtype", "source", "score", "text",
];

/// Parses one JSONL line; the error is a message for `<file>:<line>: `. Each entity's label
/// goes to `resolve` as `label`, or as `label/subtype` when a subtype is given.
pub fn parse_document(
    line: &str,
    stem: &str,
    line_no: usize,
    resolve: &super::brat::LabelResolver,
) -> Result<Document, ValueError> {
    let raw: RawLine = serde_json::from_str(line).map_err(|e| json_message(&e))?;
    let RawLine::Doc(doc) = raw else {
        return Err("expected a JSON object".into());
    };
    check_keys(doc.unknown.as_deref(), DOC_KEYS, "document")?;
    let id = match doc.id {
        None | Some(Any::Null) => format!("{stem}:{line_no}"),
        Some(Any::Str(s)) if !s.is_empty() => s.into_owned(),
        Some(Any::Num(n)) if n.is_u64() || n.is_i64() => n.to_string(),
        Some(_) => return Err("field 'id' must be a non-empty string or an integer".into()),
    };
    let shown = super::show_id(&id);
    let in_doc = |msg: String| ValueError::from(format!("document {shown}: {msg}"));
    let text = match doc.text {
        Some(Any::Str(s)) => s.into_owned(),
        Some(_) => return Err(in_doc("field 'text' must be a string".into())),
        None => return Err(in_doc("missing field 'text'".into())),
    };
    let meta = match doc.meta {
        None | Some(Meta::Null) => Map::new(),
        Some(Meta::Map(m)) => m,
        Some(Meta::Other) => return Err(in_doc("field 'meta' must be an object".into())),
    };
    let raw_entities = match doc.entities {
        None | Some(Entities::Null) => Vec::new(),
        Some(Entities::List(a)) => a,
        Some(Entities::Other) => return Err(in_doc("field 'entities' must be an array".into())),
    };
    let mut entities = Vec::with_capacity(raw_entities.len());
    if !raw_entities.is_empty() {
        let cps = CodePoints::new(&text);
        for (i, raw) in raw_entities.into_iter().enumerate() {
            let ent = parse_entity(raw, &text, &cps, resolve)
                .map_err(|m| in_doc(format!("entity {i}: {m}")))?;
            entities.extend(ent);
        }
        entities.sort_by_key(|e: &Entity| (e.start, e.end));
    }
    Ok(Document {
        id,
        text,
        entities,
        meta,
    })
}

fn parse_entity(
    raw: RawEntity,
    text: &str,
    cps: &CodePoints,
    resolve: &super::brat::LabelResolver,
) -> Result<Option<Entity>, ValueError> {
    let RawEntity::Obj(obj) = raw else {
        return Err("expected an object".into());
    };
    check_keys(obj.unknown.as_deref(), ENTITY_KEYS, "entity")?;
    let offset = |v: &Option<Any>, key: &str| -> Result<usize, ValueError> {
        match v {
            Some(Any::Num(n)) => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| ValueError::from(format!("'{key}' must be a non-negative integer"))),
            Some(_) => Err(ValueError::from(format!(
                "'{key}' must be a non-negative integer"
            ))),
            None => Err(ValueError::from(format!("missing '{key}'"))),
        }
    };
    let (start, end) = (offset(&obj.start, "start")?, offset(&obj.end, "end")?);
    let len = cps.char_len();
    if start >= end || end > len {
        return Err(ValueError::from(format!(
            "offsets {start}-{end} must satisfy start < end <= {len} (text length in code points)"
        )));
    }
    let (bs, be) = (cps.to_byte(start).unwrap(), cps.to_byte(end).unwrap());
    let label = match obj.label {
        Some(Any::Str(s)) => s,
        Some(_) => return Err("'label' must be a string".into()),
        None => return Err("missing 'label'".into()),
    };
    let raw_label = match obj.subtype {
        None | Some(Any::Null) => label,
        Some(Any::Str(st)) => Cow::Owned(format!("{label}/{st}")),
        Some(_) => return Err("'subtype' must be a string or null".into()),
    };
    let source = match obj.source {
        None | Some(Any::Null) => "gold".to_string(),
        Some(Any::Str(s)) => s.into_owned(),
        Some(_) => return Err("'source' must be a string".into()),
    };
    let score = match obj.score {
        None | Some(Any::Null) => 1.0,
        Some(Any::Num(n)) => match n.as_f64() {
            Some(s) if (0.0..=1.0).contains(&s) => s as f32,
            _ => return Err("'score' must be a number in [0, 1]".into()),
        },
        Some(_) => return Err("'score' must be a number in [0, 1]".into()),
    };
    match obj.text {
        None | Some(Any::Null) => {}
        Some(Any::Str(s)) if *s == text[bs..be] => {}
        Some(_) => {
            return Err(ValueError::from(format!(
                "offsets {start}-{end} do not match the entity's 'text' field"
            )))
        }
    }
    let label = match resolve(&raw_label).map_err(|_| super::brat::UNKNOWN_LABEL.to_string())? {
        Some(l) => l,
        None => return Ok(None),
    };
    Ok(Some(Entity::new(bs, be, label, source, score)))
}

/// `unknown` is the first field name (in sorted order) outside `allowed`, if any.
fn check_keys(unknown: Option<&str>, allowed: &[&str], what: &str) -> Result<(), ValueError> {
    match unknown {
        None => Ok(()),
        // A field name is input too (a misplaced name can become a key): never quoted.
        Some(_) => Err(ValueError::from(format!(
            "unknown {what} field (expected only {}; put extra fields in 'meta')",
            allowed.join(", ")
        ))),
    }
}

/// serde_json's syntax message with the column, without its "line 1" (we name the real line).
/// Syntax messages are fixed phrases; data messages (`invalid type: string "…"`) can quote a
/// value, so those are replaced by a phrase of our own.
fn json_message(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let full = e.to_string();
    let msg = match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m)
            .to_string(),
        Category::Data => "a field holds a value of the wrong type".to_string(),
    };
    format!("malformed JSON: {msg} at column {}", e.column())
}

#[derive(Serialize)]
struct OutEntity<'a> {
    start: usize,
    end: usize,
    label: &'static str,
    subtype: Option<&'static str>,
    source: &'a str,
    score: f32,
}

#[derive(Serialize)]
struct OutDocument<'a> {
    id: &'a str,
    text: &'a str,
    entities: Vec<OutEntity<'a>>,
    meta: &'a Map<String, Value>,
}

/// The code-point offsets of every entity of `doc`, in order. Entities off the text or off
/// character boundaries, or with a score that is not finite, are an error naming the
/// document and the entity.
pub fn entity_char_spans(doc: &Document) -> Result<Vec<(usize, usize)>, CorpusError> {
    let cps = CodePoints::new(&doc.text);
    doc.entities
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let span = match (cps.to_char(e.start), cps.to_char(e.end)) {
                (Some(s), Some(t)) if s < t => (s, t),
                _ => {
                    return Err(CorpusError::doc(
                        &doc.id,
                        format!(
                            "entity {i}: byte offsets {}-{} are empty, outside the text or not \
                             on character boundaries",
                            e.start, e.end
                        ),
                    ))
                }
            };
            if !e.score.is_finite() {
                return Err(CorpusError::doc(
                    &doc.id,
                    format!("entity {i}: score is not finite"),
                ));
            }
            Ok(span)
        })
        .collect()
}

/// Serializes `doc` as one JSONL line (with its newline) into `buf`, offsets in code points.
/// Entities off the text or off character boundaries are an error naming the document.
pub fn encode(doc: &Document, buf: &mut Vec<u8>) -> Result<(), CorpusError> {
    let spans = entity_char_spans(doc)?;
    let mut entities = Vec::with_capacity(doc.entities.len());
    for (e, (start, end)) in doc.entities.iter().zip(spans) {
        entities.push(OutEntity {
            start,
            end,
            label: e.label.category.as_str(),
            subtype: e.label.subtype.map(|s| s.as_str()),
            source: &e.source,
            score: e.score,
        });
    }
    let out = OutDocument {
        id: &doc.id,
        text: &doc.text,
        entities,
        meta: &doc.meta,
    };
    buf.clear();
    serde_json::to_writer(&mut *buf, &out)
        .map_err(|e| CorpusError::doc(&doc.id, format!("cannot encode as JSON: {e}")))?;
    buf.push(b'\n');
    Ok(())
}

/// Writes `doc` as one JSONL line.
pub fn write_doc(
    out: &mut dyn Write,
    doc: &Document,
    buf: &mut Vec<u8>,
    sink: &Path,
) -> Result<(), CorpusError> {
    encode(doc, buf)?;
    out.write_all(buf).map_err(|e| CorpusError::io(sink, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::brat::canonical_labels;
    use crate::labels::{Category, Label, Subtype};

    fn parse(line: &str) -> Result<Document, ValueError> {
        parse_document(line, "f", 7, &canonical_labels)
    }

    #[test]
    fn code_points_become_bytes() {
        let d = parse(
            r#"{"id":"d1","text":"Dr. Ődön Kovács 😀 Núñez","entities":[
            {"start":18,"end":23,"label":"NAME","subtype":"PATIENT","source":"x","score":0.5},
            {"start":4,"end":15,"label":"NAME_DOCTOR","text":"Ődön Kovács"}],"meta":{"k":1}}"#
                .replace('\n', "")
                .as_str(),
        )
        .unwrap();
        let surfaces: Vec<&str> = d.entities.iter().map(|e| &d.text[e.start..e.end]).collect();
        assert_eq!(surfaces, ["Ődön Kovács", "Núñez"]);
        assert_eq!(
            d.entities[0].label,
            Label::new(Category::Name, Subtype::Doctor)
        );
        assert_eq!(d.entities[0].source, "gold");
        assert_eq!(
            (d.entities[1].source.as_str(), d.entities[1].score),
            ("x", 0.5)
        );
        assert_eq!(d.meta["k"], 1);
    }

    #[test]
    fn id_is_generated_when_missing() {
        assert_eq!(parse(r#"{"text":"x"}"#).unwrap().id, "f:7");
        assert_eq!(parse(r#"{"id":12,"text":"x"}"#).unwrap().id, "12");
    }

    #[test]
    fn bad_documents_are_rejected_without_echoing_text() {
        let cases = [
            (
                r#"{"id":"a","text":"Ágota"#,
                "malformed JSON: EOF while parsing a string",
            ),
            (r#"["Ágota"]"#, "expected a JSON object"),
            (r#"{"id":"a"}"#, "missing field 'text'"),
            (r#"{"id":"a","text":5}"#, "'text' must be a string"),
            (
                r#"{"id":["Ágota"],"text":"x"}"#,
                "'id' must be a non-empty string",
            ),
            (
                r#"{"id":"a","text":"Ágota","meta":["Ágota"]}"#,
                "'meta' must be an object",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":"Ágota"}"#,
                "'entities' must be an array",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":["Ágota"]}"#,
                "entity 0: expected an object",
            ),
            (
                r#"{"id":"a","text":"Ágota","zz":1,"extra":["Ágota"]}"#,
                "unknown document field (expected only id, text, entities, meta",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":0,"end":5,"label":"NAME","x":1}]}"#,
                "entity 0: unknown entity field (expected only start, end",
            ),
            (
                r#"{"id":"a","text":"Ágota","extra":1}"#,
                "unknown document field (expected only id, text, entities, meta",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":0,"end":6,"label":"NAME"}]}"#,
                "entity 0: offsets 0-6 must satisfy start < end <= 5",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":2,"end":2,"label":"NAME"}]}"#,
                "entity 0: offsets 2-2",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":0,"end":"Ágota","label":"NAME"}]}"#,
                "'end' must be a non-negative integer",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":0,"end":5,"label":"NOPE"}]}"#,
                "unknown label (expected",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":0,"end":5,"label":"NAME","text":"Ágot"}]}"#,
                "do not match the entity's 'text' field",
            ),
            (
                r#"{"id":"a","text":"Ágota","entities":[{"start":0,"end":5,"label":"NAME","score":2}]}"#,
                "'score' must be a number in [0, 1]",
            ),
        ];
        for (line, want) in cases {
            let e = parse(line).unwrap_err();
            assert!(e.contains(want), "{line}: got {e}");
            assert!(!e.contains("Ágot"), "{line}: error echoes text: {e}");
            // Neither labels nor field names read from the line are quoted.
            assert!(
                !e.contains("NOPE") && !e.contains("zz") && !e.contains("extra'"),
                "{line}: error echoes a value: {e}"
            );
        }
    }

    #[test]
    fn encode_round_trips_and_rejects_bad_offsets() {
        let mut doc = Document::new("x", "Señora Núñez, 😀 ő");
        let name = Label::new(Category::Name, Subtype::Patient);
        doc.entities
            .push(Entity::new(8, 15, name, "pattern:t", 0.9));
        doc.meta.insert("lang".into(), "es".into());
        let mut buf = Vec::new();
        encode(&doc, &mut buf).unwrap();
        let line = std::str::from_utf8(&buf).unwrap();
        assert!(line.contains(r#""start":7,"end":12,"label":"NAME","subtype":"PATIENT""#));
        assert!(line.contains(r#""score":0.9"#), "{line}");
        assert_eq!(parse(line.trim_end()).unwrap(), doc);

        doc.entities[0].start = 10; // inside 'ú'
        let e = encode(&doc, &mut buf).unwrap_err().to_string();
        assert!(e.starts_with("document 'x': entity 0"), "{e}");
    }
}
