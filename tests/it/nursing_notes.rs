//! Recall and precision floors of `recognize --lang en` on English ICU nursing notes written
//! for the purpose (`testsets/nursing_notes/en.txt`: mixed case, capitals and lower case;
//! names of patients, relatives and staff, towns, hospitals, dates, phones, ages over 89),
//! the nearest stand-in this project has for the PhysioNet notes of the held-out check. The
//! default (rules, lists and the shipped English tagger) and rules only are both held to a
//! floor, so a change that trades clinical recall for news figures shows here. The figures:
//! `cargo test --release --test it nursing_notes -- --nocapture`.

use crate::util::{anonlm, parse_marked, read_json, tempdir};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testsets/nursing_notes/en.txt");

/// The notes as JSONL documents with their gold entities: `## id` opens a note, `#` lines
/// before the first note are comments, `[[text|LABEL]]` marks an entity. Offsets in code points.
fn gold_documents() -> Vec<Value> {
    let source = fs::read_to_string(NOTES).unwrap();
    let mut notes: Vec<(String, String)> = Vec::new();
    for line in source.lines() {
        if let Some(id) = line.strip_prefix("## ") {
            notes.push((id.trim().to_string(), String::new()));
        } else if let Some((_, body)) = notes.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    notes
        .into_iter()
        .map(|(id, body)| {
            let (text, spans) = parse_marked(&format!("{}\n", body.trim_matches('\n')));
            assert!(!spans.is_empty(), "note {id} marks no entity");
            let at = |byte: usize| text[..byte].chars().count();
            let entities: Vec<Value> = spans
                .iter()
                .map(|(s, e, label)| {
                    json!({"start": at(*s), "end": at(*e), "label": label.to_string()})
                })
                .collect();
            json!({"id": id, "text": text, "entities": entities})
        })
        .collect()
}

/// The eval report of `recognize` with `flags` on the notes in `dir`.
fn scored(dir: &Path, flags: &[&str]) -> Value {
    let mut args = vec![
        "recognize",
        "docs.jsonl",
        "--lang",
        "en",
        "--out",
        "pred.jsonl",
    ];
    args.extend_from_slice(flags);
    args.extend(["-q", "--overwrite"]);
    anonlm().current_dir(dir).args(&args).assert().success();
    anonlm()
        .current_dir(dir)
        .args(["eval", "--gold", "gold.jsonl", "--pred", "pred.jsonl"])
        .args(["--json", "eval.json", "--overwrite"])
        .assert()
        .success();
    read_json(&dir.join("eval.json"))["report"]["spans"].clone()
}

/// Lines naming each figure of `spans` below its floor (token recall, token precision and
/// overlap recall of the NAME entities, in that order).
fn shortfalls(what: &str, spans: &Value, floors: [f64; 3]) -> Vec<String> {
    let name = spans["per_category"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["label"] == "NAME")
        .expect("a NAME row");
    let figures = [
        ("token recall", &spans["token"]["binary"]["recall"]),
        ("token precision", &spans["token"]["binary"]["precision"]),
        ("name overlap recall", &name["overlap"]["recall"]),
    ];
    for (label, got) in &figures {
        eprintln!("{what}: {label} {:.3}", got.as_f64().unwrap());
    }
    figures
        .iter()
        .zip(floors)
        .filter_map(|((label, got), floor)| {
            let got = got.as_f64().unwrap();
            (got < floor).then(|| format!("{what}: {label} {got:.3} < {floor}"))
        })
        .collect()
}

#[test]
fn names_places_and_dates_of_nursing_notes_are_found() {
    let dir = tempdir();
    let gold = gold_documents();
    assert_eq!(gold.len(), 30);
    let lines = |docs: &[Value]| docs.iter().map(|d| format!("{d}\n")).collect::<String>();
    fs::write(dir.path().join("gold.jsonl"), lines(&gold)).unwrap();
    let bare: Vec<Value> = gold
        .iter()
        .map(|d| json!({"id": d["id"], "text": d["text"]}))
        .collect();
    fs::write(dir.path().join("docs.jsonl"), lines(&bare)).unwrap();

    let default = scored(dir.path(), &[]);
    let rules = scored(dir.path(), &["--no-builtin-models"]);
    // About three gold tokens below the figures of 2026-11-28 (default 0.972, 0.910, 0.983;
    // rules only 0.931, 0.957, 0.900).
    let mut short = shortfalls("default", &default, [0.95, 0.89, 0.96]);
    short.extend(shortfalls("rules only", &rules, [0.91, 0.94, 0.88]));
    assert!(short.is_empty(), "{}", short.join("\n"));
}
