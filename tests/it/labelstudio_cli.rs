//! The Label Studio loop through the real binary: export synthetic notes as tasks, correct
//! them by editing the JSON as an annotator would, import, and check the spans exactly; the
//! bad-input contract (exit 2, task and document named, no text, no output). The round trip
//! (export, corrections, import) is built once and shared by one test per behaviour.

use crate::util::{anonlm, fails, fixture_dir, read_json, read_jsonl, shared, tempdir};
use assert_cmd::Command;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Runs a command expected to succeed; returns its stderr.
fn succeeds(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "stderr: {stderr}");
    stderr
}

/// Synthetic Spanish notes plus one note of our own with an astral-plane character before
/// its names (one code point, two UTF-16 units).
fn notes(dir: &Path) -> PathBuf {
    let path = dir.join("notes.jsonl");
    succeeds(
        anonlm()
            .args([
                "synth", "--lang", "es", "--docs", "3", "--seed", "5", "--out",
            ])
            .arg(&path),
    );
    let mine = json!({
        "id": "emoji-1",
        "text": "😀 Paciente: Ana Ruiz Gómez. Remitida por la Dra. Elena Navarro el 03/05/2016.",
        "entities": []
    });
    let mut body = fs::read_to_string(&path).unwrap();
    body.push_str(&mine.to_string());
    body.push('\n');
    fs::write(&path, body).unwrap();
    path
}

/// `(start, end, label)` of Label Studio results (code points).
fn result_spans(results: &[Value]) -> BTreeSet<(u64, u64, String)> {
    results
        .iter()
        .map(|r| {
            let v = &r["value"];
            (
                v["start"].as_u64().unwrap(),
                v["end"].as_u64().unwrap(),
                v["labels"][0].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `(start, end, label)` of Document JSONL entities (code points), label as `CAT/SUB`.
fn jsonl_spans(doc: &Value) -> BTreeSet<(u64, u64, String)> {
    doc["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let label = match e["subtype"].as_str() {
                Some(s) => format!("{}/{s}", e["label"].as_str().unwrap()),
                None => e["label"].as_str().unwrap().to_string(),
            };
            (
                e["start"].as_u64().unwrap(),
                e["end"].as_u64().unwrap(),
                label,
            )
        })
        .collect()
}

/// The first word of at least four letters that no span overlaps, in code points.
fn free_word(text: &[char], spans: &BTreeSet<(u64, u64, String)>) -> (u64, u64) {
    let mut i = 0;
    while i < text.len() {
        if !text[i].is_alphabetic() {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < text.len() && text[j].is_alphabetic() {
            j += 1;
        }
        let (s, e) = (i as u64, j as u64);
        if j - i >= 4 && spans.iter().all(|(a, b, _)| *b <= s || *a >= e) {
            return (s, e);
        }
        i = j;
    }
    panic!("no free word");
}

fn export(input: &Path, out: &Path, extra: &[&str]) -> String {
    succeeds(
        anonlm()
            .args(["labelstudio", "export", "--lang", "es", "--out"])
            .arg(out)
            .args(extra)
            .arg(input),
    )
}

/// The round trip the export and import tests share, built once by [`round_trip`].
struct RoundTrip {
    /// The notes exported (synthetic, then the emoji note).
    originals: Vec<Value>,
    /// The tasks as exported, before any correction.
    exported: Vec<Value>,
    /// The labeling config written with the export.
    config: PathBuf,
    /// The export after the annotator's corrections, as Label Studio writes it.
    ls_export: PathBuf,
    /// Task 0's predictions, before the annotator deleted the first.
    results0: Vec<Value>,
    /// The word the annotator added as a profession to task 0 (code points).
    added: (u64, u64),
    /// `labelstudio import` of `ls_export` and its stderr.
    train: PathBuf,
    import_stderr: String,
}

fn round_trip() -> &'static RoundTrip {
    static ROUND_TRIP: OnceLock<Result<RoundTrip, String>> = OnceLock::new();
    shared(&ROUND_TRIP, build_round_trip)
}

/// Exports the notes with a config, corrects the tasks as an annotator would (task 0 edited,
/// task 1 cancelled, task 2 left alone, task 3 accepted) and imports them.
fn build_round_trip() -> RoundTrip {
    let dir = fixture_dir("labelstudio_cli-round_trip");
    let d = dir.as_path();
    let input = notes(d);
    let tasks_path = d.join("tasks.json");
    let config = d.join("config.xml");
    export(
        &input,
        &tasks_path,
        &["--quiet", "--config", config.to_str().unwrap()],
    );
    let mut tasks = read_json(&tasks_path);
    let originals = read_jsonl(&input);
    let exported = tasks.as_array().unwrap().clone();
    let list = tasks.as_array_mut().unwrap();

    // The annotator's corrections, as Label Studio exports them.
    // Task 0: one prediction deleted, one span added (a word no prediction touches, labelled
    // as a profession).
    let results0 = list[0]["predictions"][0]["result"]
        .as_array()
        .unwrap()
        .clone();
    let mut corrected: Vec<Value> = results0[1..].to_vec();
    let text0: Vec<char> = list[0]["data"]["text"].as_str().unwrap().chars().collect();
    let (at, end) = free_word(&text0, &result_spans(&results0));
    let word: String = text0[at as usize..end as usize].iter().collect();
    corrected.push(json!({
        "id": "added1", "from_name": "label", "to_name": "text", "type": "labels",
        "value": {"start": at, "end": end, "text": word, "labels": ["PROFESSION/PROFESSION"]}
    }));
    corrected.push(json!({"id": "rel", "type": "relation", "from_id": "added1", "to_id": "p1"}));
    list[0]["id"] = json!(101);
    list[0]["annotations"] = json!([
        {"id": 1, "result": [], "was_cancelled": false, "updated_at": "2024-05-01T08:00:00Z"},
        {"id": 2, "result": corrected, "was_cancelled": false, "updated_at": "2024-05-01T09:00:00Z"}
    ]);
    // Task 1: the annotator skipped it.
    list[1]["id"] = json!(102);
    list[1]["annotations"] = json!([{"id": 3, "result": [], "was_cancelled": true}]);
    // Task 2: nobody annotated it. Task 3: accepted as predicted.
    list[2]["id"] = json!(103);
    list[3]["id"] = json!(104);
    let accepted = list[3]["predictions"][0]["result"].clone();
    list[3]["annotations"] = json!([{"id": 4, "result": accepted}]);
    let ls_export = d.join("export.json");
    fs::write(&ls_export, serde_json::to_vec(&tasks).unwrap()).unwrap();

    let train = d.join("train.jsonl");
    let import_stderr = succeeds(
        anonlm()
            .args(["labelstudio", "import", "--out"])
            .arg(&train)
            .arg(&ls_export),
    );
    RoundTrip {
        originals,
        exported,
        config,
        ls_export,
        results0,
        added: (at, end),
        train,
        import_stderr,
    }
}

impl RoundTrip {
    /// Task 0's spans after the correction: the predictions minus the first, plus the added
    /// word.
    fn corrected_spans(&self) -> BTreeSet<(u64, u64, String)> {
        let mut want = result_spans(&self.results0[1..]);
        let (at, end) = self.added;
        want.insert((at, end, "PROFESSION/PROFESSION".to_string()));
        want
    }
}

#[test]
fn export_writes_one_task_per_note_with_its_text_id_and_language() {
    let rt = round_trip();
    assert_eq!(rt.exported.len(), rt.originals.len());
    for (t, o) in rt.exported.iter().zip(&rt.originals) {
        assert_eq!(t["data"]["text"], o["text"]);
        assert_eq!(t["data"]["doc_id"], o["id"]);
        assert_eq!(t["data"]["lang"], "es");
    }
}

#[test]
fn export_predicts_spans_in_every_note_whose_text_matches_their_code_point_offsets() {
    let rt = round_trip();
    for (t, o) in rt.exported.iter().zip(&rt.originals) {
        let text: Vec<char> = o["text"].as_str().unwrap().chars().collect();
        let results = t["predictions"][0]["result"].as_array().unwrap();
        assert!(
            !results.is_empty(),
            "the recognizers find names in every note"
        );
        for r in results {
            let v = &r["value"];
            let (s, e) = (v["start"].as_u64().unwrap(), v["end"].as_u64().unwrap());
            let covered: String = text[s as usize..e as usize].iter().collect();
            assert_eq!(covered, v["text"].as_str().unwrap(), "code point offsets");
        }
    }
}

#[test]
fn export_counts_an_astral_character_as_one_code_point() {
    let rt = round_trip();
    // The emoji note: "😀 Paciente: " is 12 code points, so the name starts at 12 (13 in
    // UTF-16 units).
    let emoji = &rt.exported[3];
    let name = emoji["predictions"][0]["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["value"]["text"] == "Ana Ruiz Gómez")
        .expect("the patient name is predicted");
    assert_eq!(name["value"]["start"], 12);
}

#[test]
fn import_summary_counts_tasks_by_outcome_and_shows_no_text() {
    let rt = round_trip();
    let stderr = &rt.import_stderr;
    assert!(
        stderr.contains("4 tasks: 2 imported from annotations, 0 from predictions")
            && stderr.contains("1 without annotation, 1 with every annotation cancelled")
            && stderr.contains("relation 1"),
        "{stderr}"
    );
    for o in &rt.originals {
        let text = o["text"].as_str().unwrap();
        for line in text.lines().filter(|l| l.len() > 8) {
            assert!(!stderr.contains(line), "summary shows text");
        }
    }
}

#[test]
fn import_writes_one_document_per_annotated_task() {
    let docs = read_jsonl(&round_trip().train);
    assert_eq!(docs.len(), 2);
}

#[test]
fn import_takes_the_latest_annotation_with_its_deletion_and_addition() {
    let rt = round_trip();
    let docs = read_jsonl(&rt.train);
    // Document 0: exactly the predictions minus the first, plus the added span.
    assert_eq!(docs[0]["id"], rt.originals[0]["id"]);
    assert_eq!(docs[0]["text"], rt.originals[0]["text"]);
    assert_eq!(docs[0]["meta"]["labelstudio_task"], 101);
    let want = rt.corrected_spans();
    assert_eq!(jsonl_spans(&docs[0]), want);
    assert_eq!(want.len(), rt.results0.len(), "one deleted, one added");
}

#[test]
fn import_keeps_accepted_predictions_at_their_offsets_after_an_astral_character() {
    let rt = round_trip();
    let docs = read_jsonl(&rt.train);
    let tasks = read_json(&rt.ls_export);
    // Document 1 (the emoji note): the accepted predictions, offsets unchanged.
    assert_eq!(docs[1]["id"], "emoji-1");
    assert_eq!(
        jsonl_spans(&docs[1]),
        result_spans(tasks[3]["predictions"][0]["result"].as_array().unwrap())
    );
}

#[test]
fn the_import_is_gold_that_eval_reads() {
    let rt = round_trip();
    // The import is Document JSONL that eval reads as gold.
    let dir = tempdir();
    let pred = dir.path().join("pred.jsonl");
    succeeds(
        anonlm()
            .args(["recognize", "--quiet", "--lang", "es", "--out"])
            .arg(&pred)
            .arg(&rt.train),
    );
    succeeds(
        anonlm()
            .args(["eval", "--gold"])
            .arg(&rt.train)
            .arg("--pred")
            .arg(&pred),
    );
}

#[test]
fn include_predictions_imports_the_unannotated_task_from_its_prediction() {
    let rt = round_trip();
    let dir = tempdir();
    let train2 = dir.path().join("train2.jsonl");
    let stderr = succeeds(
        anonlm()
            .args(["ls", "import", "--include-predictions", "--out"])
            .arg(&train2)
            .arg(&rt.ls_export),
    );
    assert!(stderr.contains("1 from predictions"), "{stderr}");
    let tasks = read_json(&rt.ls_export);
    let docs2 = read_jsonl(&train2);
    assert_eq!(docs2.len(), 3);
    assert_eq!(docs2[1]["id"], rt.originals[2]["id"]);
    assert_eq!(
        jsonl_spans(&docs2[1]),
        result_spans(tasks[2]["predictions"][0]["result"].as_array().unwrap())
    );
}

#[test]
fn the_labeling_config_lists_the_project_labels() {
    let rt = round_trip();
    let xml = fs::read_to_string(&rt.config).unwrap();
    assert!(
        xml.contains("<Labels name=\"label\" toName=\"text\">"),
        "{xml}"
    );
    assert!(
        xml.contains("<Text name=\"text\" value=\"$text\"/>"),
        "{xml}"
    );
    for (_, _, label) in &rt.corrected_spans() {
        assert!(
            xml.contains(&format!("<Label value=\"{label}\"")),
            "{label}"
        );
    }
}

#[test]
fn input_spans_export_in_a_scheme_and_come_back_unchanged() {
    let dir = tempdir();
    let d = dir.path();
    let input = notes(d);
    let gold = read_jsonl(&input);
    // Canonical labels: accept every prediction as the annotation; the gold comes back.
    let tasks_path = d.join("tasks.json");
    export(&input, &tasks_path, &["--quiet", "--use-input-spans"]);
    let mut tasks = read_json(&tasks_path);
    for t in tasks.as_array_mut().unwrap() {
        assert_eq!(t["predictions"][0]["model_version"], "input");
        t["annotations"] = json!([{"result": t["predictions"][0]["result"].clone()}]);
    }
    let ls_export = d.join("export.json");
    fs::write(&ls_export, serde_json::to_vec(&tasks).unwrap()).unwrap();
    let back = d.join("back.jsonl");
    succeeds(
        anonlm()
            .args(["labelstudio", "import", "--out"])
            .arg(&back)
            .arg(&ls_export),
    );
    let back = read_jsonl(&back);
    assert_eq!(back.len(), gold.len());
    for (b, g) in back.iter().zip(&gold) {
        assert_eq!(b["id"], g["id"]);
        assert_eq!(b["text"], g["text"]);
        assert_eq!(jsonl_spans(b), jsonl_spans(g));
    }
    assert!(gold.iter().map(|g| jsonl_spans(g).len()).sum::<usize>() > 20);
    // A scheme: labels are MEDDOCAN's, listed in the config.
    let scheme_tasks = d.join("scheme.json");
    let config = d.join("scheme.xml");
    export(
        &input,
        &scheme_tasks,
        &[
            "--quiet",
            "--use-input-spans",
            "--out-label-map",
            "meddocan",
            "--config",
            config.to_str().unwrap(),
        ],
    );
    let xml = fs::read_to_string(&config).unwrap();
    let tasks = read_json(&scheme_tasks);
    let mut labels = BTreeSet::new();
    for t in tasks.as_array().unwrap() {
        for (_, _, l) in result_spans(t["predictions"][0]["result"].as_array().unwrap()) {
            labels.insert(l);
        }
    }
    assert!(labels.contains("NOMBRE_SUJETO_ASISTENCIA"), "{labels:?}");
    assert!(labels.iter().all(|l| !l.contains('/')), "{labels:?}");
    for l in &labels {
        assert!(xml.contains(&format!("<Label value=\"{l}\"")), "{l}");
    }
}

/// A one-task export whose only annotation has `result`.
fn one_task(result: Value) -> Value {
    json!([{
        "id": 42,
        "data": {"text": "Paciente: Ana Ruiz Gómez, Vigo.", "doc_id": "nota-7"},
        "annotations": [{"id": 1, "result": [result]}]
    }])
}

#[test]
fn bad_offsets_fail_with_task_and_document_and_leave_no_output() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("train.jsonl");
    let cases = [
        (
            json!({"id": "r1", "type": "labels",
                   "value": {"start": 10, "end": 99, "labels": ["NAME/PATIENT"]}}),
            "offsets 10-99",
        ),
        (
            json!({"id": "r1", "type": "labels",
                   "value": {"start": 10, "end": 13, "text": "Ana Ruiz", "labels": ["NAME/PATIENT"]}}),
            "do not cover",
        ),
        (
            json!({"id": "r1", "type": "labels",
                   "value": {"start": 10, "end": 13, "labels": ["NOMBRE"]}}),
            "unknown label (expected",
        ),
    ];
    for (result, want) in cases {
        let export = d.join("export.json");
        fs::write(&export, serde_json::to_vec(&one_task(result)).unwrap()).unwrap();
        let err = fails(
            anonlm()
                .args(["labelstudio", "import", "--out"])
                .arg(&out)
                .arg(&export),
        );
        assert!(
            err.contains("export.json: task '42' (document 'nota-7'), result 'r1'"),
            "{err}"
        );
        assert!(err.contains(want), "{want}: {err}");
        // The text and the label as written are input: neither is quoted.
        for word in ["Paciente", "Ana", "Ruiz", "Gómez", "Vigo", "NOMBRE"] {
            assert!(!err.contains(word), "error shows document text: {err}");
        }
        assert!(!out.exists(), "a failed import must leave no output");
    }
    // An existing output stays as it was after a failed import with --overwrite.
    fs::write(&out, "earlier\n").unwrap();
    fails(
        anonlm()
            .args(["labelstudio", "import", "--overwrite", "--out"])
            .arg(&out)
            .arg(d.join("export.json")),
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), "earlier\n");
    let names: Vec<String> = fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "staging files left behind: {names:?}");
    // Malformed JSON: the position and the kind of error, not the text.
    let broken = d.join("broken.json");
    fs::write(&broken, "[{\"data\": {\"text\": \"Ana Ruiz\"}").unwrap();
    let err = fails(
        anonlm()
            .args(["labelstudio", "import", "--out"])
            .arg(d.join("x.jsonl"))
            .arg(&broken),
    );
    assert!(
        err.contains("broken.json:1: truncated JSON (column ") && !err.contains("Ana"),
        "{err}"
    );
}

#[test]
fn never_overwrites_its_input() {
    let dir = tempdir();
    let export = dir.path().join("export.json");
    let body = serde_json::to_vec(&json!([{"data": {"text": "x"}, "annotations": []}])).unwrap();
    fs::write(&export, &body).unwrap();
    let err = fails(
        anonlm()
            .args(["labelstudio", "import", "--overwrite", "--out"])
            .arg(&export)
            .arg(&export),
    );
    assert!(err.contains("export.json"), "{err}");
    assert_eq!(fs::read(&export).unwrap(), body);
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, "Paciente: Ana Ruiz.\n").unwrap();
    let err = fails(
        anonlm()
            .args([
                "labelstudio",
                "export",
                "--overwrite",
                "--out",
                "tasks.json",
                "--config",
            ])
            .arg(&notes)
            .arg(&notes)
            .current_dir(dir.path()),
    );
    assert!(err.contains("notes.txt"), "{err}");
    assert_eq!(fs::read_to_string(&notes).unwrap(), "Paciente: Ana Ruiz.\n");
}
