//! `anonlm ner train` and `recognize --model` through the binary on synthetic Spanish notes:
//! a small BiLSTM-CRF learns (training loss falls, dev F1 well above zero), the same seed gives
//! the same weights, the model joins the rules without losing what they found, and a broken
//! model directory stops the run (fail closed) without writing output. The BiLSTM-CRF and the
//! transformer tagger are each trained once and shared by one test per behaviour.

use crate::util::{anonlm, fails, fixture_dir, mlm_train, shared, synth, tempdir, tokenizer};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn train(d: &Path, out: &str, epochs: &str) -> String {
    #[rustfmt::skip]
    let args = [
        "ner", "train", "--arch", "bilstm-crf", "--format", "jsonl",
        "--train", "train.jsonl", "--dev", "dev.jsonl", "--out", out, "--seed", "5",
        "--epochs", epochs, "--word-dim", "24", "--hidden", "24", "--lr", "0.01",
        "--batch-size", "8", "--eval-every", "1000", "--patience", "10", "--threads", "1",
    ];
    let o = anonlm().current_dir(d).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

/// Token-level binary recall of `pred` against the gold entities of `gold` (JSONL files).
fn eval_json(d: &Path, pred: &str) -> Value {
    anonlm()
        .current_dir(d)
        .args([
            "eval",
            "--gold",
            "dev.jsonl",
            "--pred",
            pred,
            "--json",
            "eval.json",
            // Each call replaces the last call's report.
            "--overwrite",
        ])
        .assert()
        .success();
    serde_json::from_str(&fs::read_to_string(d.join("eval.json")).unwrap()).unwrap()
}

fn recognize(d: &Path, out: &str, extra: &[&str]) {
    let mut args = vec!["recognize", "dev.jsonl", "--lang", "es", "--out", out, "-q"];
    args.extend_from_slice(extra);
    anonlm().current_dir(d).args(&args).assert().success();
}

/// The BiLSTM-CRF the tests share: notes in `dir` (`train.jsonl`, `dev.jsonl`) and a model
/// trained six epochs in `dir/model`.
struct Bilstm {
    dir: PathBuf,
    /// stderr of the training run.
    train_stderr: String,
}

fn bilstm() -> &'static Bilstm {
    static BILSTM: OnceLock<Result<Bilstm, String>> = OnceLock::new();
    shared(&BILSTM, || {
        let dir = fixture_dir("ner_cli-bilstm");
        synth(&dir.join("train.jsonl"), "es", 60, 1);
        synth(&dir.join("dev.jsonl"), "es", 20, 2);
        let train_stderr = train(&dir, "model", "6");
        Bilstm { dir, train_stderr }
    })
}

fn read_json_file(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn training_log(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_training_reports_the_best_dev_f1() {
    let err = &bilstm().train_stderr;
    assert!(err.contains("best dev strict entity F1"), "{err}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_model_config_names_its_format_and_architecture() {
    let config = read_json_file(&bilstm().dir.join("model/ner.json"));
    assert_eq!(config["format"], "anonlm.ner/1");
    assert_eq!(config["arch"], "bilstm-crf");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_learns_to_a_dev_f1_above_0_6() {
    let config = read_json_file(&bilstm().dir.join("model/ner.json"));
    let best = config["training"]["best_dev_f1"].as_f64().unwrap();
    // Six epochs on 60 notes reach about 0.89; an untrained tagger scores near 0.
    assert!(best > 0.6, "dev F1 {best}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_training_loss_halves_over_six_logged_epochs() {
    let log = training_log(&bilstm().dir.join("model/training.jsonl"));
    assert_eq!(log.len(), 6);
    let first = log[0]["train_loss"].as_f64().unwrap();
    let last = log.last().unwrap()["train_loss"].as_f64().unwrap();
    assert!(last < first / 2.0, "loss {first} -> {last}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_vocabulary_has_no_word_found_only_inside_gold_entities() {
    let d = bilstm().dir.as_path();
    // No word that occurs only inside a gold entity is in the saved vocabulary.
    let vocab = read_json_file(&d.join("model/vocab.json"));
    let words: std::collections::HashSet<&str> = vocab["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let train_text = fs::read_to_string(d.join("train.jsonl")).unwrap();
    let mut inside = std::collections::HashSet::new();
    let mut outside = String::new();
    for line in train_text.lines() {
        let doc: Value = serde_json::from_str(line).unwrap();
        let chars: Vec<char> = doc["text"].as_str().unwrap().chars().collect();
        let mut covered = vec![false; chars.len()];
        for e in doc["entities"].as_array().unwrap() {
            let (s, t) = (
                e["start"].as_u64().unwrap() as usize,
                e["end"].as_u64().unwrap() as usize,
            );
            covered[s..t].iter_mut().for_each(|c| *c = true);
            let value: String = chars[s..t].iter().collect();
            inside.extend(
                value
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| w.len() > 3)
                    .map(str::to_lowercase),
            );
        }
        outside.extend(
            chars
                .iter()
                .zip(&covered)
                .map(|(c, &cov)| if cov { ' ' } else { *c }),
        );
        outside.push(' ');
    }
    let outside_words: std::collections::HashSet<String> = outside
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    let only_inside: Vec<&String> = inside
        .iter()
        .filter(|w| !outside_words.contains(*w))
        .collect();
    assert!(!only_inside.is_empty());
    for w in only_inside {
        assert!(
            !words.contains(w.as_str()),
            "a PHI-only word is in the vocabulary"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_the_same_seed_gives_the_same_weights() {
    let d = bilstm().dir.as_path();
    train(d, "model2", "1");
    train(d, "model3", "1");
    assert_eq!(
        fs::read(d.join("model2/model.safetensors")).unwrap(),
        fs::read(d.join("model3/model.safetensors")).unwrap()
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bilstm_joined_with_the_rules_recalls_at_least_as_much_as_either_alone() {
    let d = bilstm().dir.as_path();
    // The model alone, the rules alone, and both.
    recognize(d, "model.jsonl", &["--model", "model", "--no-rules"]);
    recognize(d, "rules.jsonl", &[]);
    recognize(d, "both.jsonl", &["--model", "model"]);
    let recall = |f: &str| {
        eval_json(d, f)["report"]["spans"]["token"]["binary"]["recall"]
            .as_f64()
            .unwrap()
    };
    let (m, r, b) = (
        recall("model.jsonl"),
        recall("rules.jsonl"),
        recall("both.jsonl"),
    );
    assert!(m > 0.5, "model token recall {m}");
    assert!(b >= r && b >= m, "union {b} below rules {r} or model {m}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn recognize_with_a_model_dir_without_weights_fails_closed_without_output() {
    let d = bilstm().dir.as_path();
    // A copy of the trained model directory without its weights.
    let tmp = tempdir();
    let broken_model = tmp.path().join("model2");
    fs::create_dir(&broken_model).unwrap();
    for entry in fs::read_dir(d.join("model")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() && entry.file_name() != "model.safetensors" {
            fs::copy(entry.path(), broken_model.join(entry.file_name())).unwrap();
        }
    }
    assert!(broken_model.join("ner.json").is_file());
    let broken = tmp.path().join("broken.jsonl");
    // Exit 2, no output, no document text in the message.
    let err = fails(
        anonlm()
            .current_dir(d)
            .args(["recognize", "dev.jsonl", "--lang", "es", "--model"])
            .arg(&broken_model)
            .arg("--out")
            .arg(&broken),
    );
    assert!(err.contains("model2"), "{err}");
    assert!(!broken.exists());
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn ner_train_refuses_to_replace_a_model_without_overwrite() {
    let d = bilstm().dir.as_path();
    fails(anonlm().current_dir(d).args([
        "ner",
        "train",
        "--train",
        "train.jsonl",
        "--dev",
        "dev.jsonl",
        "--out",
        "model",
    ]));
    assert!(d.join("model/model.safetensors").exists());
}

/// Every span `recognize --model` found in a dev note is gone from `deid --model`'s output.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn deid_with_a_model_removes_what_the_model_and_rules_found() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("train.jsonl"), "es", 40, 3);
    synth(&d.join("dev.jsonl"), "es", 10, 4);
    train(d, "model", "3");
    recognize(d, "both.jsonl", &["--model", "model"]);
    anonlm()
        .current_dir(d)
        .args([
            "deid",
            "dev.jsonl",
            "--lang",
            "es",
            "--model",
            "model",
            "--out",
            "deid.jsonl",
            "-q",
        ])
        .assert()
        .success();
    let lines = |f: &str| -> Vec<Value> {
        fs::read_to_string(d.join(f))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (found, deid, gold) = (lines("both.jsonl"), lines("deid.jsonl"), lines("dev.jsonl"));
    assert_eq!(found.len(), deid.len());
    let mut checked = 0;
    for ((f, out), g) in found.iter().zip(&deid).zip(&gold) {
        let text: Vec<char> = g["text"].as_str().unwrap().chars().collect();
        let clean = out["text"].as_str().unwrap();
        for e in f["entities"].as_array().unwrap() {
            let (s, t) = (
                e["start"].as_u64().unwrap() as usize,
                e["end"].as_u64().unwrap() as usize,
            );
            let value: String = text[s..t].iter().collect();
            if value.chars().filter(|c| c.is_alphanumeric()).count() >= 6 {
                assert!(!clean.contains(&value), "a recognized span survived deid");
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} spans checked");
}

/// A tiny BERT trained by anonlm, fine-tuned as a token classifier on windows of the notes:
/// notes, the base model `dir/mlm`, and the tagger tuned six epochs in `dir/tner`.
struct Tagger {
    dir: PathBuf,
}

fn tagger() -> &'static Tagger {
    static TAGGER: OnceLock<Result<Tagger, String>> = OnceLock::new();
    shared(&TAGGER, || {
        let dir = fixture_dir("ner_cli-transformer");
        let d = dir.as_path();
        synth(&d.join("train.jsonl"), "es", 60, 1);
        synth(&d.join("dev.jsonl"), "es", 15, 2);
        let tok = tokenizer(&d.join("train.jsonl"), "wordpiece", 700, &d.join("tok"));
        #[rustfmt::skip]
        mlm_train(&d.join("train.jsonl"), &tok, &d.join("mlm"), &[
            "--config", "tiny", "--steps", "100", "--batch", "8", "--seq-len", "64", "--lr", "3e-3",
            "--eval-every", "50", "--held-out", "0.1", "--seed", "9", "-q",
        ]);
        tune(d, "tner", "6");
        Tagger { dir }
    })
}

/// Fine-tunes the transformer tagger on the base model `mlm` in `d` into `out`; returns stderr.
fn tune(d: &Path, out: &str, epochs: &str) -> String {
    #[rustfmt::skip]
    let args = [
        "ner", "train", "--arch", "transformer", "--base", "mlm", "--format", "jsonl",
        "--train", "train.jsonl", "--dev", "dev.jsonl", "--out", out, "--seed", "4",
        "--epochs", epochs, "--lr", "2e-3", "--batch-size", "8", "--window", "64",
        "--overlap", "16", "--eval-every", "1000", "--patience", "10",
    ];
    let o = anonlm().current_dir(d).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

fn tagger_best_dev_f1() -> f64 {
    let config = read_json_file(&tagger().dir.join("tner/ner.json"));
    config["training"]["best_dev_f1"].as_f64().unwrap()
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_config_records_windows_that_outnumber_the_notes() {
    let config = read_json_file(&tagger().dir.join("tner/ner.json"));
    assert_eq!(config["arch"], "transformer");
    assert_eq!(config["model"]["windows"]["window"], 64);
    // Notes are longer than one window: windows outnumber documents.
    assert!(config["training"]["train_sentences"].as_u64().unwrap() > 120);
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_learns_to_a_dev_f1_above_0_3() {
    let best = tagger_best_dev_f1();
    // About 0.6 after six epochs on a barely trained base; an untrained classifier scores 0.
    assert!(best > 0.3, "dev F1 {best}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_training_loss_halves() {
    let log = training_log(&tagger().dir.join("tner/training.jsonl"));
    let first = log[0]["train_loss"].as_f64().unwrap();
    let last = log.last().unwrap()["train_loss"].as_f64().unwrap();
    assert!(last < first / 2.0, "loss {first} -> {last}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_saves_a_model_dir_with_its_tokenizer() {
    // The saved directory is a model directory with its tokenizer (Hugging Face layout).
    let d = tagger().dir.as_path();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        assert!(d.join("tner").join(f).is_file(), "{f}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_tagging_through_recognize_scores_what_training_measured() {
    let d = tagger().dir.as_path();
    let best = tagger_best_dev_f1();
    recognize(d, "tm.jsonl", &["--model", "tner", "--no-rules"]);
    let report = eval_json(d, "tm.jsonl");
    let f1 = report["report"]["spans"]["entity_strict"]["subcategory"]["f1"]
        .as_f64()
        .unwrap();
    assert!(
        (f1 - best).abs() < 1e-9,
        "recognize {f1} vs training {best}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_the_same_seed_gives_the_same_weights() {
    let d = tagger().dir.as_path();
    tune(d, "t1", "1");
    tune(d, "t2", "1");
    assert_eq!(
        fs::read(d.join("t1/model.safetensors")).unwrap(),
        fs::read(d.join("t2/model.safetensors")).unwrap()
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformer_training_without_a_base_model_is_refused() {
    let d = tagger().dir.as_path();
    // Without a base model there is nothing to fine-tune.
    let err = fails(anonlm().current_dir(d).args([
        "ner",
        "train",
        "--arch",
        "transformer",
        "--train",
        "train.jsonl",
        "--dev",
        "dev.jsonl",
        "--out",
        "none",
    ]));
    assert!(err.contains("--base"), "{err}");
    assert!(!d.join("none").exists());
}
