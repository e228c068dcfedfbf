//! Label Studio JSON exports back to documents: per task the latest annotation that was not
//! cancelled (or, when asked, the prediction of a task nobody annotated), every span checked
//! against the task text. Errors name the task, document id and result id, never text.

use super::{DOC_ID_KEY, TEXT_KEY};
use crate::corpus::brat::LabelResolver;
use crate::corpus::{show_id, Document};
use crate::offsets::OffsetMap;
use crate::span::Entity;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// What to import.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// A task without any annotation contributes its (latest) prediction instead of being
    /// skipped.
    pub include_predictions: bool,
}

/// Counts of an import (no text).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ImportSummary {
    pub tasks: usize,
    pub from_annotations: usize,
    pub from_predictions: usize,
    /// Tasks without any annotation (and, with `include_predictions`, without a prediction).
    pub skipped_unannotated: usize,
    /// Tasks whose every annotation was cancelled (skipped by the annotator).
    pub skipped_cancelled: usize,
    /// Results of other types than `labels` (relations, choices, ...), by type.
    pub ignored_results: BTreeMap<String, usize>,
    /// Spans whose label the label map marks as skipped.
    pub skipped_labels: usize,
    /// Spans given twice with the same offsets and label in one annotation (kept once).
    pub duplicate_spans: usize,
}

impl ImportSummary {
    /// A few lines for stderr.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} tasks: {} imported from annotations, {} from predictions; skipped: {} without \
             annotation, {} with every annotation cancelled",
            self.tasks,
            self.from_annotations,
            self.from_predictions,
            self.skipped_unannotated,
            self.skipped_cancelled
        );
        if !self.ignored_results.is_empty() {
            let parts: Vec<String> = self
                .ignored_results
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect();
            let _ = writeln!(s, "ignored results by type: {}", parts.join(", "));
        }
        if self.skipped_labels > 0 || self.duplicate_spans > 0 {
            let _ = writeln!(
                s,
                "spans left out: {} with a label the label map skips, {} duplicates",
                self.skipped_labels, self.duplicate_spans
            );
        }
        s
    }
}

/// An import error: where (task, document, result) and what, never the text.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {msg}")]
pub struct ImportError {
    pub location: String,
    pub msg: String,
}

/// At most 40 characters of a user-supplied identifier or label, for messages.
fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// Where in the export an error is.
struct Loc {
    task: String,
    doc: Option<String>,
}

impl Loc {
    fn err(&self, result: Option<&str>, msg: impl Into<String>) -> ImportError {
        let mut location = format!("task {}", show_id(&self.task));
        if let Some(d) = &self.doc {
            let _ = write!(location, " (document {})", show_id(d));
        }
        if let Some(r) = result {
            let _ = write!(location, ", result {}", show_id(r));
        }
        ImportError {
            location,
            msg: msg.into(),
        }
    }
}

/// A JSON id (string or integer) as text, whole.
fn id_value(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
        _ => None,
    }
}

/// A JSON id as text for messages (clipped).
fn id_text(v: Option<&Value>) -> Option<String> {
    id_value(v).map(|s| clip(&s))
}

/// Objects of a list with their positions.
type Indexed<'a> = Vec<(usize, &'a Map<String, Value>)>;

/// The latest of `items` (annotations or predictions) by `updated_at`, else `created_at`
/// (Label Studio writes both as UTC ISO 8601, which sorts as text), then by position.
fn latest<'a>(items: &[(usize, &'a Map<String, Value>)]) -> Option<&'a Map<String, Value>> {
    let stamp = |m: &Map<String, Value>| -> Option<String> {
        ["updated_at", "created_at"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_str).map(str::to_string))
    };
    items
        .iter()
        .max_by(|a, b| stamp(a.1).cmp(&stamp(b.1)).then(a.0.cmp(&b.0)))
        .map(|(_, m)| *m)
}

/// The objects of an optional list field (`key` names it in errors).
fn object_list<'a>(
    task: &'a Map<String, Value>,
    key: &str,
    loc: &Loc,
) -> Result<Indexed<'a>, ImportError> {
    match task.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(m) => Ok((i, m)),
                _ => Err(loc.err(None, format!("'{key}' item {i} is not an object"))),
            })
            .collect(),
        Some(_) => Err(loc.err(None, format!("'{key}' must be a list"))),
    }
}

/// Byte offset of UTF-16 unit `u` of `text`, when it falls on a character boundary.
fn utf16_to_byte(text: &str, u: usize) -> Option<usize> {
    let mut units = 0;
    for (b, c) in text.char_indices() {
        if units == u {
            return Some(b);
        }
        units += c.len_utf16();
        if units > u {
            return None;
        }
    }
    (units == u).then_some(text.len())
}

/// Which of a task's label sets became the document's spans.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Annotation,
    Prediction,
}

/// Documents from a Label Studio JSON export (a list of tasks). Task data other than `text`
/// and `doc_id` becomes document metadata, with the task id as `labelstudio_task`. A task
/// without `doc_id` gets `task-<id>`. Labels go through `resolve` (a label map, or the
/// canonical parser). Two tasks with one document id are an error.
pub fn import(
    export: &Value,
    resolve: &LabelResolver,
    opts: &ImportOptions,
) -> Result<(Vec<Document>, ImportSummary), ImportError> {
    let Value::Array(tasks) = export else {
        return Err(ImportError {
            location: "top level".into(),
            msg: "expected a JSON list of tasks (Label Studio's JSON export)".into(),
        });
    };
    let mut summary = ImportSummary {
        tasks: tasks.len(),
        ..Default::default()
    };
    let mut docs = Vec::new();
    let mut ids: HashMap<String, String> = HashMap::new();
    for (i, task) in tasks.iter().enumerate() {
        let task_id = id_text(task.get("id"));
        let mut loc = Loc {
            task: task_id.clone().unwrap_or_else(|| format!("#{}", i + 1)),
            doc: None,
        };
        let Value::Object(task) = task else {
            return Err(loc.err(None, "expected an object"));
        };
        let data = match task.get("data") {
            Some(Value::Object(d)) => d,
            Some(_) => return Err(loc.err(None, "'data' must be an object")),
            None => return Err(loc.err(None, "missing 'data'")),
        };
        let doc_id = match data.get(DOC_ID_KEY) {
            None | Some(Value::Null) => format!("task-{}", loc.task.trim_start_matches('#')),
            v => id_value(v).ok_or_else(|| {
                loc.err(
                    None,
                    "'data.doc_id' must be a non-empty string or an integer",
                )
            })?,
        };
        loc.doc = Some(clip(&doc_id));
        let text = match data.get(TEXT_KEY) {
            Some(Value::String(s)) => s,
            Some(_) => return Err(loc.err(None, "'data.text' must be a string")),
            None => return Err(loc.err(None, "missing 'data.text'")),
        };
        let annotations = object_list(task, "annotations", &loc)?;
        let live: Vec<_> = annotations
            .iter()
            .filter(|(_, a)| a.get("was_cancelled").and_then(Value::as_bool) != Some(true))
            .copied()
            .collect();
        let (chosen, from) = match latest(&live) {
            Some(a) => (a, Origin::Annotation),
            None if !annotations.is_empty() => {
                summary.skipped_cancelled += 1;
                continue;
            }
            None if opts.include_predictions => {
                match latest(&object_list(task, "predictions", &loc)?) {
                    Some(p) => (p, Origin::Prediction),
                    None => {
                        summary.skipped_unannotated += 1;
                        continue;
                    }
                }
            }
            None => {
                summary.skipped_unannotated += 1;
                continue;
            }
        };
        let entities = spans(chosen, text, from, resolve, &loc, &mut summary)?;
        if let Some(first) = ids.insert(doc_id.clone(), loc.task.clone()) {
            return Err(loc.err(
                None,
                format!(
                    "document id {} is also used by task {}",
                    show_id(&doc_id),
                    show_id(&first)
                ),
            ));
        }
        let mut meta: Map<String, Value> = data
            .iter()
            .filter(|(k, _)| *k != TEXT_KEY && *k != DOC_ID_KEY)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(id) = task.get("id").filter(|_| task_id.is_some()) {
            meta.insert("labelstudio_task".into(), id.clone());
        }
        match from {
            Origin::Annotation => summary.from_annotations += 1,
            Origin::Prediction => summary.from_predictions += 1,
        }
        docs.push(Document {
            id: doc_id,
            text: text.clone(),
            entities,
            meta,
        });
    }
    Ok((docs, summary))
}

/// The checked spans of one annotation or prediction, sorted, exact duplicates dropped.
fn spans(
    set: &Map<String, Value>,
    text: &str,
    from: Origin,
    resolve: &LabelResolver,
    loc: &Loc,
    summary: &mut ImportSummary,
) -> Result<Vec<Entity>, ImportError> {
    let what = match from {
        Origin::Annotation => "annotation",
        Origin::Prediction => "prediction",
    };
    let results = match set.get("result") {
        Some(Value::Array(r)) => r,
        _ => return Err(loc.err(None, format!("the {what} has no 'result' list"))),
    };
    let map = OffsetMap::new(text);
    let mut out: Vec<Entity> = Vec::with_capacity(results.len());
    for (k, r) in results.iter().enumerate() {
        let rid = id_text(r.get("id")).unwrap_or_else(|| format!("#{}", k + 1));
        let err = |msg: String| loc.err(Some(&rid), msg);
        let Value::Object(r) = r else {
            return Err(err("expected an object".into()));
        };
        let kind = match r.get("type") {
            Some(Value::String(t)) => t,
            _ => return Err(err("missing 'type'".into())),
        };
        if kind != "labels" {
            *summary.ignored_results.entry(clip(kind)).or_default() += 1;
            continue;
        }
        let Some(Value::Object(value)) = r.get("value") else {
            return Err(err("missing 'value' object".into()));
        };
        let offset = |key: &str| -> Result<usize, ImportError> {
            value
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| err(format!("'value.{key}' must be a non-negative integer")))
        };
        let (start, end) = (offset("start")?, offset("end")?);
        let len = map.char_len();
        if start >= end || end > len {
            return Err(err(format!(
                "offsets {start}-{end} must satisfy start < end <= {len} (text length in code \
                 points)"
            )));
        }
        let (bs, be) = (
            map.char_to_byte(start).expect("checked against the length"),
            map.char_to_byte(end).expect("checked against the length"),
        );
        match value.get("text") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) if *t == text[bs..be] => {}
            Some(Value::String(t)) => {
                let as_utf16 = utf16_to_byte(text, start)
                    .zip(utf16_to_byte(text, end))
                    .is_some_and(|(s, e)| text[s..e] == **t);
                let hint = if as_utf16 {
                    "; they do match it as UTF-16 code units (an export from a Label Studio \
                     release before code-point offsets)"
                } else {
                    ""
                };
                return Err(err(format!(
                    "offsets {start}-{end} do not cover the result's 'value.text'{hint}"
                )));
            }
            Some(_) => return Err(err("'value.text' must be a string".into())),
        }
        let label = match value.get("labels") {
            Some(Value::Array(l)) if l.len() == 1 => match &l[0] {
                Value::String(s) => s,
                _ => return Err(err("'value.labels' must hold a string".into())),
            },
            Some(Value::Array(l)) => {
                return Err(err(format!(
                    "'value.labels' has {} labels; one per span is needed",
                    l.len()
                )))
            }
            _ => return Err(err("missing 'value.labels' list".into())),
        };
        let label = match resolve(label).map_err(|_| {
            // The resolver's message can quote the label, which can hold a name.
            err(format!(
                "'value.labels': {}",
                crate::corpus::brat::UNKNOWN_LABEL
            ))
        })? {
            Some(l) => l,
            None => {
                summary.skipped_labels += 1;
                continue;
            }
        };
        let score = match from {
            Origin::Annotation => 1.0,
            Origin::Prediction => r
                .get("score")
                .and_then(Value::as_f64)
                .filter(|s| (0.0..=1.0).contains(s))
                .map_or(1.0, |s| s as f32),
        };
        out.push(Entity::new(
            bs,
            be,
            label,
            format!("labelstudio:{what}"),
            score,
        ));
    }
    out.sort_by_key(|a| (a.start, a.end, a.label));
    let before = out.len();
    out.dedup_by(|a, b| (a.start, a.end, a.label) == (b.start, b.end, b.label));
    summary.duplicate_spans += before - out.len();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::brat::canonical_labels;
    use crate::labels::{Category, Label, Subtype};
    use serde_json::json;

    const TEXT: &str = "😀 Dra. Núñez vio a Ana Ruiz en Vigo.";

    fn result(id: &str, start: usize, end: usize, label: &str, text: Option<&str>) -> Value {
        let mut value = json!({"start": start, "end": end, "labels": [label]});
        if let Some(t) = text {
            value["text"] = json!(t);
        }
        json!({"id": id, "from_name": "label", "to_name": "text", "type": "labels", "value": value})
    }

    fn run(
        export: Value,
        include_predictions: bool,
    ) -> Result<(Vec<Document>, ImportSummary), ImportError> {
        import(
            &export,
            &canonical_labels,
            &ImportOptions {
                include_predictions,
            },
        )
    }

    fn surfaces(d: &Document) -> Vec<(&str, String)> {
        d.entities
            .iter()
            .map(|e| (&d.text[e.start..e.end], e.label.to_string()))
            .collect()
    }

    /// Found by scripts/fuzz_inputs.py: a label, a document id, a task id and a result id
    /// were quoted whole (labels cut to 40 characters) in errors. Ids now show a short escaped
    /// prefix, labels not at all.
    #[test]
    fn errors_show_ids_by_a_short_prefix_and_never_a_label() {
        let long = format!("{}ZqSecretValue", "d".repeat(40));
        let bad_label = json!([{
            "id": long,
            "data": {"text": TEXT, "doc_id": long},
            "annotations": [{"result": [result(&long, 7, 12, "NAME/ZqSecretValue", None)]}]
        }]);
        let dup = json!([
            {"id": 1, "data": {"text": TEXT, "doc_id": long}, "annotations": [{"result": []}]},
            {"id": long, "data": {"text": TEXT, "doc_id": long}, "annotations": [{"result": []}]}
        ]);
        for export in [bad_label, dup] {
            let e = run(export, false).unwrap_err().to_string();
            assert!(!e.contains("ZqSecretValue"), "{e}");
            assert!(e.contains("dddd"), "{e}");
        }
    }

    #[test]
    fn latest_live_annotation_wins_and_offsets_are_code_points() {
        let export = json!([{
            "id": 7,
            "data": {"text": TEXT, "doc_id": "n1", "lang": "es"},
            "annotations": [
                {"id": 1, "updated_at": "2024-01-02T10:00:00Z",
                 "result": [result("a", 7, 12, "NAME/DOCTOR", Some("Núñez"))]},
                {"id": 3, "updated_at": "2024-01-03T10:00:00Z", "was_cancelled": true,
                 "result": [result("c", 31, 35, "LOCATION/CITY", None)]},
                {"id": 2, "updated_at": "2024-01-02T11:00:00Z",
                 "result": [
                    result("b2", 19, 27, "NAME_PATIENT", Some("Ana Ruiz")),
                    result("b1", 7, 12, "NAME/DOCTOR", None),
                    result("b1", 7, 12, "NAME/DOCTOR", None),
                    {"id": "r", "type": "relation", "from_id": "b1", "to_id": "b2"}
                 ]}
            ],
            "predictions": [{"result": [result("p", 31, 35, "LOCATION/CITY", None)]}]
        }]);
        let (docs, s) = run(export, true).unwrap();
        assert_eq!(docs.len(), 1);
        let d = &docs[0];
        assert_eq!(d.id, "n1");
        assert_eq!(
            surfaces(d),
            vec![
                ("Núñez", "NAME/DOCTOR".to_string()),
                ("Ana Ruiz", "NAME/PATIENT".to_string())
            ]
        );
        assert_eq!(d.entities[0].source, "labelstudio:annotation");
        assert_eq!(d.meta["lang"], "es");
        assert_eq!(d.meta["labelstudio_task"], 7);
        assert!(!d.meta.contains_key("text") && !d.meta.contains_key("doc_id"));
        assert_eq!(s.from_annotations, 1);
        assert_eq!(s.duplicate_spans, 1);
        assert_eq!(s.ignored_results.get("relation"), Some(&1));
    }

    #[test]
    fn unannotated_and_cancelled_tasks() {
        let pred = json!([{"model_version": "m", "score": 0.5,
            "result": [result("p", 31, 35, "LOCATION/CITY", Some("Vigo"))]}]);
        let export = json!([
            {"id": 1, "data": {"text": TEXT, "doc_id": "a"}, "predictions": pred},
            {"id": 2, "data": {"text": TEXT, "doc_id": "b"}, "predictions": pred,
             "annotations": [{"was_cancelled": true, "result": []}]},
            {"id": 3, "data": {"text": TEXT}, "annotations": [{"result": []}]}
        ]);
        let (docs, s) = run(export.clone(), false).unwrap();
        assert_eq!(
            docs.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
            ["task-3"]
        );
        let long_id = "x".repeat(100);
        let long =
            json!([{"data": {"text": "a", "doc_id": long_id}, "annotations": [{"result": []}]}]);
        assert_eq!(
            run(long, false).unwrap().0[0].id,
            long_id,
            "ids are kept whole"
        );
        assert!(docs[0].entities.is_empty());
        assert_eq!((s.skipped_unannotated, s.skipped_cancelled), (1, 1));
        let (docs, s) = run(export, true).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].id, "a");
        assert_eq!(
            surfaces(&docs[0]),
            vec![("Vigo", "LOCATION/CITY".to_string())]
        );
        assert_eq!(docs[0].entities[0].source, "labelstudio:prediction");
        assert_eq!((s.from_predictions, s.from_annotations), (1, 1));
    }

    #[test]
    fn label_maps_resolve_and_skip() {
        let map = crate::labelmap::LabelMap::builtin("spanish_radiology").unwrap();
        let export = json!([{"id": 1, "data": {"text": TEXT},
        "annotations": [{"result": [
            result("a", 31, 35, "INST", None),
            result("b", 0, 1, "CAB", None)
        ]}]}]);
        let (docs, s) = import(&export, &map.resolver(), &ImportOptions::default()).unwrap();
        assert_eq!(
            docs[0].entities[0].label,
            Label::new(Category::Location, Subtype::Hospital)
        );
        assert_eq!(docs[0].entities.len(), 1);
        assert_eq!(s.skipped_labels, 1);
    }

    #[test]
    fn bad_results_name_task_document_and_result_never_text() {
        let task = |r: Value| {
            json!([{"id": 9, "data": {"text": TEXT, "doc_id": "n9"},
            "annotations": [{"result": [r]}]}])
        };
        let cases = [
            (
                result("x", 7, 99, "NAME", None),
                "offsets 7-99 must satisfy start < end <= 36",
            ),
            (result("x", 12, 7, "NAME", None), "offsets 12-7"),
            (
                result("x", 7, 12, "NAME", Some("Núñe")),
                "do not cover the result's 'value.text'",
            ),
            // UTF-16 offsets of "Núñez" (the emoji counts twice): detected and said.
            (
                result("x", 8, 13, "NAME", Some("Núñez")),
                "as UTF-16 code units",
            ),
            (result("x", 7, 12, "NOPE", None), "unknown label (expected"),
            (
                json!({"id": "x", "type": "labels", "value": {"start": "7", "end": 12, "labels": ["NAME"]}}),
                "'value.start' must be a non-negative integer",
            ),
            (
                json!({"id": "x", "type": "labels", "value": {"start": 7, "end": 12, "labels": ["NAME", "DATE"]}}),
                "has 2 labels",
            ),
        ];
        for (r, want) in cases {
            let e = run(task(r), false).unwrap_err().to_string();
            assert!(
                e.starts_with("task '9' (document 'n9'), result 'x': "),
                "{e}"
            );
            assert!(e.contains(want), "{want}: {e}");
            for word in ["Núñez", "Núñe", "Ana", "Vigo", "Dra", "NOPE"] {
                assert!(!e.contains(word), "error shows text: {e}");
            }
        }
        let e = run(json!({"data": {}}), false).unwrap_err().to_string();
        assert!(e.contains("expected a JSON list of tasks"), "{e}");
        let e = run(json!([{"id": 1, "data": {"doc_id": "q"}}]), false)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "task '1' (document 'q'): missing 'data.text'");
        let dup = json!([
            {"id": 1, "data": {"text": "a", "doc_id": "same"}, "annotations": [{"result": []}]},
            {"id": 2, "data": {"text": "b", "doc_id": "same"}, "annotations": [{"result": []}]}
        ]);
        let e = run(dup, false).unwrap_err().to_string();
        assert!(
            e.contains("task '2' (document 'same')") && e.contains("task '1'"),
            "{e}"
        );
    }

    #[test]
    fn utf16_positions() {
        let t = "a😀b";
        assert_eq!(utf16_to_byte(t, 0), Some(0));
        assert_eq!(utf16_to_byte(t, 1), Some(1));
        assert_eq!(utf16_to_byte(t, 2), None, "inside the surrogate pair");
        assert_eq!(utf16_to_byte(t, 3), Some(5));
        assert_eq!(utf16_to_byte(t, 4), Some(6));
        assert_eq!(utf16_to_byte(t, 5), None);
    }
}
