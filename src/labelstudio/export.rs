//! Documents as Label Studio tasks: `data` (text, doc id, the document's metadata) and one
//! prediction whose results are the document's entities, offsets in code points.

use super::{DOC_ID_KEY, FROM_NAME, TEXT_KEY, TO_NAME};
use crate::corpus::jsonl::entity_char_spans;
use crate::corpus::{CorpusError, Document};
use crate::labels::Label;
use serde_json::{json, Map, Value};

/// The label text written for an entity (canonical `NAME/PATIENT`, or a scheme's label).
pub type LabelName<'a> = dyn Fn(Label) -> String + Sync + 'a;

/// The canonical text form of a label: `NAME/PATIENT`, `DATE`.
pub fn canonical_name(label: Label) -> String {
    label.to_string()
}

/// One task for `doc`. `data` holds `text`, `doc_id` and every metadata field of the document
/// (a metadata field named `text` or `doc_id` is an error: it would shadow the task's own).
/// The prediction's `score` is the lowest entity score (Label Studio sorts tasks by it, so the
/// least certain documents can be corrected first); each result carries its entity's score.
pub fn task(
    doc: &Document,
    model_version: &str,
    label_name: &LabelName,
) -> Result<Value, CorpusError> {
    let mut data = Map::with_capacity(doc.meta.len() + 2);
    data.insert(TEXT_KEY.into(), Value::from(doc.text.as_str()));
    data.insert(DOC_ID_KEY.into(), Value::from(doc.id.as_str()));
    for (k, v) in &doc.meta {
        if k == TEXT_KEY || k == DOC_ID_KEY {
            return Err(CorpusError::doc(
                &doc.id,
                format!("metadata field '{k}' would replace the task's own '{k}' field"),
            ));
        }
        data.insert(k.clone(), v.clone());
    }
    let spans = entity_char_spans(doc)?;
    let mut result = Vec::with_capacity(doc.entities.len());
    let mut lowest: Option<f32> = None;
    for (i, (e, (start, end))) in doc.entities.iter().zip(spans).enumerate() {
        lowest = Some(lowest.map_or(e.score, |l| l.min(e.score)));
        result.push(json!({
            "id": format!("p{i}"),
            "from_name": FROM_NAME,
            "to_name": TO_NAME,
            "type": "labels",
            "origin": "prediction",
            "score": e.score,
            "value": {
                "start": start,
                "end": end,
                "text": &doc.text[e.start..e.end],
                "labels": [label_name(e.label)],
            },
        }));
    }
    let mut prediction = Map::new();
    prediction.insert("model_version".into(), Value::from(model_version));
    if let Some(score) = lowest {
        prediction.insert("score".into(), json!(score));
    }
    prediction.insert("result".into(), Value::Array(result));
    Ok(json!({ "data": data, "predictions": [prediction] }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category, Subtype};
    use crate::span::Entity;

    fn doc() -> Document {
        // An astral-plane character before the entities: one code point, two UTF-16 units,
        // four bytes.
        let text = "😀 Dra. Núñez vio a Ana Ruiz en Vigo.";
        let mut d = Document::new("n1", text);
        let at = |w: &str, label: Label, score: f32| {
            let s = text.find(w).unwrap();
            Entity::new(s, s + w.len(), label, "t", score)
        };
        d.entities = vec![
            at("Núñez", Label::new(Category::Name, Subtype::Doctor), 0.9),
            at(
                "Ana Ruiz",
                Label::new(Category::Name, Subtype::Patient),
                0.7,
            ),
            at("Vigo", Label::new(Category::Location, Subtype::City), 0.8),
        ];
        d.meta.insert("lang".into(), "es".into());
        d
    }

    #[test]
    fn offsets_are_code_points_and_text_matches() {
        let t = task(&doc(), "anonlm test", &canonical_name).unwrap();
        assert_eq!(t["data"]["doc_id"], "n1");
        assert_eq!(t["data"]["lang"], "es");
        let text = t["data"]["text"].as_str().unwrap();
        let chars: Vec<char> = text.chars().collect();
        let pred = &t["predictions"][0];
        assert_eq!(pred["model_version"], "anonlm test");
        assert!((pred["score"].as_f64().unwrap() - 0.7).abs() < 1e-6);
        let results = pred["result"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        // "😀 Dra. " is 7 code points (8 UTF-16 units, 10 bytes): Núñez starts at 7.
        assert_eq!(results[0]["value"]["start"], 7);
        assert_eq!(results[0]["value"]["end"], 12);
        for r in results {
            let v = &r["value"];
            let (s, e) = (v["start"].as_u64().unwrap(), v["end"].as_u64().unwrap());
            let slice: String = chars[s as usize..e as usize].iter().collect();
            assert_eq!(slice, v["text"].as_str().unwrap());
            assert_eq!(r["from_name"], FROM_NAME);
            assert_eq!(r["to_name"], TO_NAME);
            assert_eq!(r["type"], "labels");
        }
        assert_eq!(results[1]["value"]["labels"][0], "NAME/PATIENT");
        assert_eq!(results[2]["value"]["labels"][0], "LOCATION/CITY");
    }

    #[test]
    fn scheme_names_and_empty_predictions() {
        let scheme = |l: Label| format!("X_{}", l.category);
        let t = task(&doc(), "v", &scheme).unwrap();
        assert_eq!(
            t["predictions"][0]["result"][0]["value"]["labels"][0],
            "X_NAME"
        );
        let empty = Document::new("e", "nada");
        let t = task(&empty, "v", &canonical_name).unwrap();
        assert_eq!(t["predictions"][0]["result"].as_array().unwrap().len(), 0);
        assert!(t["predictions"][0].get("score").is_none());
    }

    #[test]
    fn bad_entities_and_clashing_metadata_name_the_document_only() {
        let mut d = doc();
        d.entities[0].start = d.text.find('ñ').unwrap() + 1; // inside 'ñ'
        let e = task(&d, "v", &canonical_name).unwrap_err().to_string();
        assert!(e.starts_with("document 'n1': entity 0"), "{e}");
        assert!(!e.contains("Núñez") && !e.contains("ñez"), "{e}");
        let mut d = doc();
        d.meta.insert("text".into(), "x".into());
        let e = task(&d, "v", &canonical_name).unwrap_err().to_string();
        assert!(e.contains("metadata field 'text'"), "{e}");
    }
}
