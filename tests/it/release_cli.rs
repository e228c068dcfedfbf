//! `anonlm release` through the binary on a small synthetic corpus: every stage runs, the
//! report (JSON, Markdown, HTML) is written without document text, a second run skips every
//! stage, an edited review file reruns the stages after it, and a release spec that names a
//! produced path is refused with exit 2.

use crate::util::{anonlm, holds_value, synth, tempdir};
use serde_json::Value;
use std::fs;
use std::path::Path;

const SPEC: &str = r#"
[release]
corpus = "notes.jsonl"
lang = "nl"
policy = "medroberta"
gold = true
reference_corpus = "reference.jsonl"
[release.tokenizer]
kind = "wordpiece"
vocab_size = 400
[release.train]
config = "tiny"
steps = 40
batch = 16
seq_len = 32
lr = 3e-3
held_out = 0.3
canaries = 1
canary_repeats = [1, 8]
[release.probe]
max_per_set = 10
[data]
examples = "blocks"
max_per_set = 120
min_per_set = 10
[attacks]
canary_candidates = 200
[evidence]
names = ["builtin:nl"]
"#;

/// Runs the release; returns the exit code and stderr.
fn release(d: &Path) -> (Option<i32>, String) {
    let o = anonlm()
        .current_dir(d)
        .args(["release", "--spec", "spec.toml", "--out", "rel", "-q"])
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_chain_runs_resumes_and_reports() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("notes.jsonl"), "nl", 40, 3);
    synth(&d.join("reference.jsonl"), "nl", 20, 4);
    fs::write(d.join("spec.toml"), SPEC).unwrap();

    let (code, err) = release(d);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    for stage in [
        "deid",
        "tokenizer",
        "train",
        "reference",
        "rewrite",
        "probe-metrics",
    ] {
        assert!(
            err.contains(&format!("release: {stage} done")),
            "{stage}: {err}"
        );
    }
    let report_dir = d.join("rel/report");
    let json = fs::read_to_string(report_dir.join("report.json")).unwrap();
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["schema"], "anonlm.report/1");
    // The report validates against its published schema.
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/anonlm.report-1.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let problems: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let outcome = report["decision"]["outcome"].as_str().unwrap().to_string();
    assert_eq!(code == Some(0), outcome == "PASS", "{outcome}");
    let names: Vec<&str> = report["attacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "blind_baseline",
            "masked_token_loss",
            "pseudo_log_likelihood",
            "reference_likelihood_ratio"
        ]
    );
    assert!(report["deid"]["recall"]["trials"].as_u64().unwrap() > 0);
    assert!(report["probe"]["sets"].as_array().unwrap().len() >= 2);
    assert!(report["utility"]["loss_before_rewrite"].is_number());
    let groups = report["canaries"]["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(report["canaries"]["candidates"], 200);
    // The canaries' secrets stay in the protected file, outside the released model.
    let canaries = d.join("rel/private/model.canaries.json");
    assert!(canaries.is_file() && !d.join("rel/released/model.canaries.json").exists());
    let md = fs::read_to_string(report_dir.join("report.md")).unwrap();
    let html = fs::read_to_string(report_dir.join("report.html")).unwrap();
    assert!(html.contains("<svg") && !html.contains("<script"));

    // No gold PHI string of the corpus appears in any rendering of the report.
    let notes = fs::read_to_string(d.join("notes.jsonl")).unwrap();
    for line in notes.lines() {
        let doc: Value = serde_json::from_str(line).unwrap();
        let text: Vec<char> = doc["text"].as_str().unwrap().chars().collect();
        for e in doc["entities"].as_array().unwrap() {
            let (s, t) = (e["start"].as_u64().unwrap(), e["end"].as_u64().unwrap());
            let value: String = text[s as usize..t as usize].iter().collect();
            if value.chars().count() >= 6 {
                for (name, body) in [("json", &json), ("md", &md), ("html", &html)] {
                    assert!(
                        !holds_value(body, &value),
                        "report.{name} holds a PHI string"
                    );
                }
            }
        }
    }

    // Nothing changed: every stage is skipped and the report is the same.
    let (code2, err2) = release(d);
    assert_eq!(code2, code, "{err2}");
    assert!(!err2.contains(" done in "), "{err2}");
    assert!(err2.contains("release: train: up to date"), "{err2}");
    let again: Value =
        serde_json::from_str(&fs::read_to_string(report_dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(again["attacks"], report["attacks"]);

    // A person edits the review file: the rewrite and everything after it run again.
    let review = d.join("rel/review.tsv");
    let mut text = fs::read_to_string(&review).unwrap();
    text.push_str("# reviewed by hand\n");
    fs::write(&review, text).unwrap();
    let (_, err3) = release(d);
    assert!(err3.contains("release: train: up to date"), "{err3}");
    assert!(err3.contains("release: rewrite done"), "{err3}");
    assert!(err3.contains("release: probe-metrics done"), "{err3}");

    // The chain's products may not be named in a release spec.
    fs::write(
        d.join("bad.toml"),
        format!("{SPEC}\n[model]\ndir = \"elsewhere\"\n"),
    )
    .unwrap();
    let o = anonlm()
        .current_dir(d)
        .args(["release", "--spec", "bad.toml", "--out", "rel2"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("[model] dir"),
        "{err}"
    );
}

/// `release --demo` PASSes for the right reasons: its model learned (held-out loss well below
/// the unigram baseline, so the membership figures mean something), the rewrite renamed no
/// piece ordinary words need (no single character; the reference corpus encodes with as many
/// `[UNK]` as before; the held-out de-identified text encodes exactly as before) and kept the
/// model's utility.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_demo_passes_for_the_right_reasons() {
    let dir = tempdir();
    let d = dir.path();
    let o = anonlm()
        .current_dir(d)
        .args(["release", "--demo", "--out", "rel", "-q"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let report: Value =
        serde_json::from_str(&fs::read_to_string(d.join("rel/report/report.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["decision"]["outcome"], "PASS",
        "{:#}",
        report["decision"]
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    let u = &report["utility"];
    let (before, after, baseline) = (
        u["loss_before_rewrite"].as_f64().unwrap(),
        u["loss_after_rewrite"].as_f64().unwrap(),
        u["unigram_baseline"].as_f64().unwrap(),
    );
    assert!(after < 0.8 * baseline, "{u:#}");
    assert!(after <= 1.05 * before, "{u:#}");

    // No single-character piece was renamed.
    let map: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(d.join("rel/private/vocab_map.json")).unwrap())
            .unwrap();
    assert!(!map.is_empty());
    for e in &map {
        let old = e["old"].as_str().unwrap().trim_start_matches("##");
        assert!(
            old.chars().count() > 1,
            "id {} is a single character",
            e["id"]
        );
    }
    // The reference corpus (other patients, names left in: their e-mail addresses and headings
    // change with the renamed names) encodes with as many [UNK] as with the original tokenizer.
    let o = anonlm()
        .current_dir(d)
        .args(["vocab", "check", "--model", "rel/released", "--json"])
        .args([
            "--original",
            "rel/model",
            "--reference",
            "rel/input/reference.jsonl",
        ])
        .output()
        .unwrap();
    let check: Value = serde_json::from_slice(&o.stdout).unwrap();
    let enc = &check["encoding"];
    assert!(enc["unk_before"].as_u64().unwrap() > 0, "{enc:#}");
    assert_eq!(enc["unk_after"], enc["unk_before"], "{enc:#}");
    // The held-out de-identified text, which has no names, encodes exactly as before.
    let checks = report["vocabulary"]["checks"].as_array().unwrap();
    let held_out = checks
        .iter()
        .find(|c| c["name"] == "held-out text without names encodes as before")
        .unwrap();
    assert_eq!(held_out["passed"], true, "{held_out:#}");
    assert!(held_out["detail"]
        .as_str()
        .unwrap()
        .contains(": 0 ordinary words encode differently"));
}
