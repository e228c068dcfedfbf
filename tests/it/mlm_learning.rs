//! The masked LM really learns, through the `anonlm` binary: on a repetitive corpus fill-mask
//! finds the planted word, and on generated clinical notes the held-out loss falls well below
//! the unigram baseline. (Release build recommended: the two trainings take one to two minutes.)

use crate::util::{anonlm, mlm_train, synth, tempdir, tokenizer};
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Sentences written for this test; the planted word is the doctor's name.
const SENTENCES: [&str; 5] = [
    "De behandelend arts is dokter Vermeulen.",
    "Bloeddruk was normaal.",
    "Medicatie werd niet gewijzigd.",
    "De patiënt klaagt over hoofdpijn.",
    "Controle over twee weken.",
];

/// `lines` documents, each the five sentences in a seeded order (a small LCG: the order only
/// has to vary, not to be good randomness).
fn repetitive_corpus(lines: usize) -> String {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut out = String::new();
    for _ in 0..lines {
        let mut order: Vec<usize> = (0..SENTENCES.len()).collect();
        for i in (1..order.len()).rev() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            order.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
        }
        let doc: Vec<&str> = order.iter().map(|&i| SENTENCES[i]).collect();
        out.push_str(&doc.join(" "));
        out.push('\n');
    }
    out
}

fn train(corpus: &Path, tok: &Path, out: &Path, args: &[&str]) {
    let base = ["--config", "tiny", "-q", "--patience", "0"];
    mlm_train(corpus, tok, out, &[&base[..], args].concat());
}

/// The summary line that ends the training log.
fn summary(model: &Path) -> Value {
    let log = fs::read_to_string(model.join("train_log.jsonl")).unwrap();
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "summary", "{last}");
    last
}

fn top_prediction(model: &Path, text: &str) -> (String, f64) {
    let out = anonlm()
        .args(["mlm", "fill", "--json", "--top-k", "3", "--model"])
        .arg(model)
        .arg(text)
        .assert()
        .success();
    let line: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let best = &line["masks"][0]["predictions"][0];
    (
        best["token"].as_str().unwrap().to_string(),
        best["prob"].as_f64().unwrap(),
    )
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn fill_mask_predicts_the_planted_word_after_a_repetitive_corpus() {
    let dir = tempdir();
    let corpus = dir.path().join("corpus.txt");
    fs::write(&corpus, repetitive_corpus(300)).unwrap();
    let tok = dir.path().join("tok");
    // 20 of the entries are the digits and their ## forms, always present.
    tokenizer(&corpus, "wordpiece", 170, &tok);
    let model = dir.path().join("model");
    train(
        &corpus,
        &tok,
        &model,
        &[
            "--steps",
            "400",
            "--batch",
            "32",
            "--seq-len",
            "16",
            "--lr",
            "3e-3",
            "--eval-every",
            "100",
        ],
    );
    let s = summary(&model);
    let (best, baseline) = (
        s["best_loss"].as_f64().unwrap(),
        s["unigram_baseline"].as_f64().unwrap(),
    );
    assert!(
        best < 0.5 * baseline,
        "held-out {best} vs unigram {baseline}"
    );

    let (word, p) = top_prediction(&model, "De behandelend arts is dokter <mask>.");
    assert_eq!(word, "Vermeulen", "p {p}");
    assert!(p > 0.5, "Vermeulen at p {p}");
    let (word, p) = top_prediction(&model, "Controle over twee [MASK].");
    assert_eq!(word, "weken", "p {p}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn held_out_loss_on_generated_notes_falls_well_below_the_unigram_baseline() {
    // The pipeline's order: generated notes, de-identified with tags, a tokenizer, a tiny model.
    let dir = tempdir();
    let notes = dir.path().join("notes.jsonl");
    synth(&notes, "nl", 120, 3);
    let deid = dir.path().join("deid.jsonl");
    anonlm()
        .args([
            "deid",
            "--lang",
            "nl",
            "--operator",
            "tag",
            "--use-input-spans",
            "-q",
        ])
        .arg("--out")
        .arg(&deid)
        .arg(&notes)
        .assert()
        .success();
    let tok = dir.path().join("tok");
    tokenizer(&deid, "wordpiece", 400, &tok);
    let model = dir.path().join("model");
    train(
        &deid,
        &tok,
        &model,
        &[
            "--steps",
            "800",
            "--batch",
            "64",
            "--seq-len",
            "16",
            "--lr",
            "3e-3",
            "--eval-every",
            "200",
            "--held-out",
            "0.1",
        ],
    );
    let s = summary(&model);
    let (best, baseline) = (
        s["best_loss"].as_f64().unwrap(),
        s["unigram_baseline"].as_f64().unwrap(),
    );
    // Measured: 2.74 against 4.77 (seed 42); an untrained model sits above the baseline.
    assert!(
        best < 0.75 * baseline,
        "held-out {best} vs unigram {baseline}"
    );
    let log = fs::read_to_string(model.join("train_log.jsonl")).unwrap();
    let first: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert!(first["loss"].as_f64().unwrap() > baseline);
}
