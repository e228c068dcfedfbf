//! `anonlm ner train` and `recognize --model` through the binary on synthetic Spanish notes:
//! a small BiLSTM-CRF learns (training loss falls, dev F1 well above zero), the same seed gives
//! the same weights, the model joins the rules without losing what they found, and a broken
//! model directory stops the run (fail closed) without writing output.

use crate::util::{anonlm, mlm_train, synth, tempdir, tokenizer};
use serde_json::Value;
use std::fs;
use std::path::Path;

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

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_bilstm_crf_learns_joins_the_rules_and_fails_closed() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("train.jsonl"), "es", 60, 1);
    synth(&d.join("dev.jsonl"), "es", 20, 2);
    let err = train(d, "model", "6");
    assert!(err.contains("best dev strict entity F1"), "{err}");

    let config: Value =
        serde_json::from_str(&fs::read_to_string(d.join("model/ner.json")).unwrap()).unwrap();
    assert_eq!(config["format"], "anonlm.ner/1");
    assert_eq!(config["arch"], "bilstm-crf");
    let best = config["training"]["best_dev_f1"].as_f64().unwrap();
    // Six epochs on 60 notes reach about 0.89; an untrained tagger scores near 0.
    assert!(best > 0.6, "dev F1 {best}");
    let log: Vec<Value> = fs::read_to_string(d.join("model/training.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(log.len(), 6);
    let first = log[0]["train_loss"].as_f64().unwrap();
    let last = log.last().unwrap()["train_loss"].as_f64().unwrap();
    assert!(last < first / 2.0, "loss {first} -> {last}");

    // No word that occurs only inside a gold entity is in the saved vocabulary.
    let vocab: Value =
        serde_json::from_str(&fs::read_to_string(d.join("model/vocab.json")).unwrap()).unwrap();
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

    // The same seed gives the same weights.
    train(d, "model2", "1");
    train(d, "model3", "1");
    assert_eq!(
        fs::read(d.join("model2/model.safetensors")).unwrap(),
        fs::read(d.join("model3/model.safetensors")).unwrap()
    );

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

    // A model directory without weights: exit 2, no output, no document text in the message.
    fs::remove_file(d.join("model2/model.safetensors")).unwrap();
    let o = anonlm()
        .current_dir(d)
        .args([
            "recognize",
            "dev.jsonl",
            "--lang",
            "es",
            "--model",
            "model2",
            "--out",
            "broken.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("model2"));
    assert!(!d.join("broken.jsonl").exists());

    // Training refuses to replace an existing model without --overwrite.
    let o = anonlm()
        .current_dir(d)
        .args([
            "ner",
            "train",
            "--train",
            "train.jsonl",
            "--dev",
            "dev.jsonl",
            "--out",
            "model",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
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

/// A tiny BERT trained by anonlm, fine-tuned as a token classifier on windows of the notes.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_transformer_tagger_fine_tunes_an_anonlm_mlm_and_tags_long_notes() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("train.jsonl"), "es", 60, 1);
    synth(&d.join("dev.jsonl"), "es", 15, 2);
    let tok = tokenizer(&d.join("train.jsonl"), "wordpiece", 700, &d.join("tok"));
    #[rustfmt::skip]
    mlm_train(&d.join("train.jsonl"), &tok, &d.join("mlm"), &[
        "--config", "tiny", "--steps", "100", "--batch", "8", "--seq-len", "64", "--lr", "3e-3",
        "--eval-every", "50", "--held-out", "0.1", "--seed", "9", "-q",
    ]);
    let tune = |out: &str, epochs: &str| -> String {
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
    };
    tune("tner", "6");
    let config: Value =
        serde_json::from_str(&fs::read_to_string(d.join("tner/ner.json")).unwrap()).unwrap();
    assert_eq!(config["arch"], "transformer");
    assert_eq!(config["model"]["windows"]["window"], 64);
    // Notes are longer than one window: windows outnumber documents.
    assert!(config["training"]["train_sentences"].as_u64().unwrap() > 120);
    let best = config["training"]["best_dev_f1"].as_f64().unwrap();
    // About 0.6 after six epochs on a barely trained base; an untrained classifier scores 0.
    assert!(best > 0.3, "dev F1 {best}");
    let log: Vec<Value> = fs::read_to_string(d.join("tner/training.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first = log[0]["train_loss"].as_f64().unwrap();
    let last = log.last().unwrap()["train_loss"].as_f64().unwrap();
    assert!(last < first / 2.0, "loss {first} -> {last}");
    // The saved directory is a model directory with its tokenizer (Hugging Face layout).
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        assert!(d.join("tner").join(f).is_file(), "{f}");
    }

    // Tagging through `recognize` scores what training measured on dev.
    recognize(d, "tm.jsonl", &["--model", "tner", "--no-rules"]);
    let report = eval_json(d, "tm.jsonl");
    let f1 = report["report"]["spans"]["entity_strict"]["subcategory"]["f1"]
        .as_f64()
        .unwrap();
    assert!(
        (f1 - best).abs() < 1e-9,
        "recognize {f1} vs training {best}"
    );

    // Seeded: the same run twice gives the same weights.
    tune("t1", "1");
    tune("t2", "1");
    assert_eq!(
        fs::read(d.join("t1/model.safetensors")).unwrap(),
        fs::read(d.join("t2/model.safetensors")).unwrap()
    );

    // Without a base model there is nothing to fine-tune.
    let o = anonlm()
        .current_dir(d)
        .args([
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
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--base"));
    assert!(!d.join("none").exists());
}
