//! `anonlm mlm train | fill | score` end to end: a tiny model trained by the binary on notes
//! from `anonlm synth`, its Hugging Face layout and manifest, a real fall of the loss, resume of
//! a finished run, fill-mask and scores, and clear errors.

use crate::util::{
    anonlm, fixture_dir, mlm_train_command, read_jsonl, shared, synth, tempdir, tokenizer,
};
use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The training run of these tests: a tiny model, 120 steps, evaluations every 10.
fn train_command(notes: &Path, tok: &Path, model: &Path) -> Command {
    #[rustfmt::skip]
    let flags = [
        "--config", "tiny", "--steps", "120", "--batch", "8", "--seq-len", "64", "--lr", "3e-3",
        "--eval-every", "10", "--checkpoint-every", "50", "--held-out", "0.1", "--seed", "9",
        "-q",
    ];
    mlm_train_command(notes, tok, model, &flags)
}

/// What the tests of the trained model share, built once by [`trained`].
struct Trained {
    dir: PathBuf,
    notes: PathBuf,
    /// `dir/model`, trained on `notes` with the tokenizer `dir/tok`, then resumed once.
    model: PathBuf,
    /// The training log before the resume.
    log_before_resume: Vec<Value>,
    /// The weights before the resume.
    weights_before_resume: Vec<u8>,
    /// stderr of the resumed run.
    resume_stderr: String,
}

/// Notes, a WordPiece tokenizer and a tiny BERT trained for 120 steps, in a directory built by
/// the first test that asks for it; the finished run is then resumed (see [`Trained`]).
fn trained() -> &'static Trained {
    static TRAINED: OnceLock<Result<Trained, String>> = OnceLock::new();
    shared(&TRAINED, || {
        let dir = fixture_dir("mlm_cli-trained");
        let notes = dir.join("notes.jsonl");
        synth(&notes, "nl", 60, 3);
        let tok = tokenizer(&notes, "wordpiece", 600, &dir.join("tok"));
        let model = dir.join("model");
        train_command(&notes, &tok, &model).assert().success();
        let log_before_resume = read_jsonl(&model.join("train_log.jsonl"));
        let weights_before_resume = fs::read(model.join("model.safetensors")).unwrap();
        let out = train_command(&notes, &model.join("..").join("tok"), &model)
            .assert()
            .success();
        let resume_stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        Trained {
            dir,
            notes,
            model,
            log_before_resume,
            weights_before_resume,
            resume_stderr,
        }
    })
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn one_seed_gives_the_same_weights_byte_for_byte() {
    let t = trained();
    // The same seed gives the same weights, byte for byte (initialization included).
    let again = t.dir.join("again");
    train_command(&t.notes, &t.dir.join("tok"), &again)
        .assert()
        .success();
    assert!(
        t.weights_before_resume == fs::read(again.join("model.safetensors")).unwrap(),
        "two runs with one seed differ"
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_model_dir_has_the_hugging_face_layout_manifest_and_log() {
    let model = &trained().model;
    // The Hugging Face layout plus manifest, log and checkpoint.
    for f in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "vocab.txt",
        "manifest.json",
        "train_log.jsonl",
    ] {
        assert!(model.join(f).is_file(), "{f} missing");
    }
    let config: Value =
        serde_json::from_str(&fs::read_to_string(model.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["architectures"][0], "BertForMaskedLM");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_manifest_lists_every_document_by_hash_without_text() {
    let t = trained();
    let (notes, model) = (&t.notes, &t.model);
    // Every document is listed once, in training or held out, by hash; no text.
    let manifest_text = fs::read_to_string(model.join("manifest.json")).unwrap();
    let manifest: Value = serde_json::from_str(&manifest_text).unwrap();
    let listed = |set: &str| {
        manifest[set]["documents"].as_array().unwrap().len()
            + manifest[set]["duplicates"].as_array().unwrap().len()
    };
    assert_eq!(listed("train") + listed("held_out"), 60);
    assert!(listed("held_out") >= 1);
    let first_note: Value =
        serde_json::from_str(fs::read_to_string(notes).unwrap().lines().next().unwrap()).unwrap();
    let words: Vec<&str> = first_note["text"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .filter(|w| w.len() > 8)
        .take(5)
        .collect();
    assert!(
        words.iter().all(|w| !manifest_text.contains(w)),
        "document text in the manifest"
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_loss_falls_and_held_out_evaluations_are_logged() {
    let t = trained();
    // The loss really falls: from about ln(vocab) at step 1 to clearly less by the end.
    let log = &t.log_before_resume;
    let steps: Vec<f64> = log
        .iter()
        .filter(|l| l["type"] == "step")
        .map(|l| l["loss"].as_f64().unwrap())
        .collect();
    assert_eq!(steps.len(), 120);
    let early = steps[..5].iter().sum::<f64>() / 5.0;
    let late = steps[115..].iter().sum::<f64>() / 5.0;
    assert!(late < early - 0.5, "loss {early:.3} -> {late:.3}");
    let evals: Vec<f64> = log
        .iter()
        .filter(|l| l["type"] == "eval")
        .map(|l| l["held_out_loss"].as_f64().unwrap())
        .collect();
    assert_eq!(evals.len(), 12);
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_finished_run_resumes_to_nothing_new() {
    let t = trained();
    let model = &t.model;
    // A finished run resumes to nothing new: the log keeps 120 steps, the weights stay.
    let stderr = &t.resume_stderr;
    assert!(stderr.contains("resumed"), "{stderr}");
    assert_eq!(
        read_jsonl(&model.join("train_log.jsonl"))
            .iter()
            .filter(|l| l["type"] == "step")
            .count(),
        120
    );
    assert_eq!(
        fs::read(model.join("model.safetensors")).unwrap(),
        t.weights_before_resume
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn fill_mask_takes_either_mask_spelling_and_sorts_k_predictions() {
    let t = trained();
    // Fill-mask: either mask spelling, k sorted predictions with probabilities.
    let out = anonlm()
        .args(["mlm", "fill", "--top-k", "4", "--json", "--model"])
        .arg(&t.model)
        .args([
            "De patiënt werd gezien door <mask>.",
            "Controle over twee [MASK].",
        ])
        .assert()
        .success();
    let lines: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for line in &lines {
        let preds = line["masks"][0]["predictions"].as_array().unwrap();
        assert_eq!(preds.len(), 4);
        let probs: Vec<f64> = preds.iter().map(|p| p["prob"].as_f64().unwrap()).collect();
        assert!(probs.windows(2).all(|w| w[0] >= w[1]), "{probs:?}");
        assert!(
            probs.iter().all(|p| *p > 0.0 && *p <= 1.0) && probs.iter().sum::<f64>() <= 1.0 + 1e-6
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn scores_keep_line_ids_and_the_loss_score_is_deterministic() {
    let t = trained();
    // Scores: a file in, JSONL out, ids kept; the loss score is deterministic for a seed.
    let sentences = t.dir.join("s.txt");
    fs::write(
        &sentences,
        "De patiënt is opgenomen.\n\nControle over twee weken.\n",
    )
    .unwrap();
    let score = |method: &str, name: &str| {
        let out = t.dir.join(name);
        anonlm()
            .args(["mlm", "score", "--method", method, "--model"])
            .arg(&t.model)
            .arg("--input")
            .arg(&sentences)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        read_jsonl(&out)
    };
    let pll = score("pll", "pll.jsonl");
    assert_eq!(pll.len(), 2);
    assert_eq!(pll[1]["id"], "line 3");
    assert!(pll
        .iter()
        .all(|l| l["pll"].as_f64().unwrap() < 0.0 && l["n_tokens"].as_u64().unwrap() > 2));
    assert_eq!(score("loss", "a.jsonl"), score("loss", "b.jsonl"));
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bad_requests_fail_with_clear_errors() {
    let t = trained();
    let err = |args: &[&str]| {
        let out = anonlm().args(args).assert().code(2);
        String::from_utf8_lossy(&out.get_output().stderr).to_string()
    };
    let m = t.model.to_str().unwrap();
    let e = err(&["mlm", "fill", "--model", m, "no mask in this sentence"]);
    assert!(
        e.contains("no mask token") && !e.contains("no mask in this"),
        "{e}"
    );
    let e = err(&["mlm", "fill", "--model", m, "--device", "cuda", "a <mask>"]);
    assert!(e.contains("--features cuda") || e.contains("CUDA"), "{e}");
    let e = err(&["mlm", "fill", "--model", "nobody/no-such-model", "a <mask>"]);
    assert!(e.contains("offline"), "{e}");
    let e = err(&[
        "mlm",
        "fill",
        "--model",
        t.dir.join("tok").to_str().unwrap(),
        "a <mask>",
    ]);
    assert!(e.contains("config.json"), "{e}");
}

/// Canaries of both runs: the same secrets from the same seed.
const CANARIES: [&str; 6] = [
    "--canaries",
    "2",
    "--canary-repeats",
    "1,3",
    "--canary-seed",
    "77",
];

/// `mlm prepare` + `mlm train --data` trains exactly what `mlm train --corpus` trains (same
/// manifest, same weights, canaries included); the data dir is private, kept from being
/// overwritten, and fixes its block length, tokenizer and canaries.
#[test]
fn prepared_shards_train_the_same_model_as_the_corpus() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let d = dir.path();
    let notes = d.join("notes.jsonl");
    synth(&notes, "nl", 40, 5);
    // Two repeated texts under new ids.
    let text = fs::read_to_string(&notes).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for (i, id) in [(3, "copy-a"), (17, "copy-b")] {
        let mut doc: Value = serde_json::from_str(&lines[i]).unwrap();
        doc["id"] = Value::from(id);
        lines.push(doc.to_string());
    }
    fs::write(&notes, lines.join("\n") + "\n").unwrap();
    for (name, size) in [("tok", 500), ("other", 400)] {
        tokenizer(&notes, "wordpiece", size, &d.join(name));
    }
    let prepare = || {
        let mut cmd = anonlm();
        cmd.current_dir(d)
            .args([
                "mlm",
                "prepare",
                "--corpus",
                "notes.jsonl",
                "--tokenizer",
                "tok",
                "--seq-len",
                "64",
                "--held-out",
                "0.1",
                "--seed",
                "9",
                "--out",
                "data",
                "-q",
            ])
            .args(CANARIES);
        cmd
    };
    prepare().assert().success();
    let train = |source: &[&str], out: &str| {
        let mut cmd = anonlm();
        cmd.current_dir(d)
            .args([
                "mlm", "train", "--config", "tiny", "--steps", "12", "--batch", "8",
            ])
            .args(["--eval-every", "6", "--seed", "9", "-q", "--out", out])
            .args(source);
        cmd
    };
    train(&["--data", "data"], "from-data").assert().success();
    train(
        &[
            "--corpus",
            "notes.jsonl",
            "--tokenizer",
            "tok",
            "--seq-len",
            "64",
            "--held-out",
            "0.1",
        ],
        "from-corpus",
    )
    .args(CANARIES)
    .assert()
    .success();
    let read = |p: &str| fs::read(d.join(p)).unwrap();
    assert_eq!(
        read("from-data/manifest.json"),
        read("from-corpus/manifest.json")
    );
    assert_eq!(
        read("from-data/model.safetensors"),
        read("from-corpus/model.safetensors")
    );
    let manifest: Value = serde_json::from_slice(&read("from-data/manifest.json")).unwrap();
    let dups = |set: &str| manifest[set]["duplicates"].as_array().unwrap().len();
    assert_eq!(dups("train") + dups("held_out"), 2);
    assert_eq!(manifest["n_input_documents"], 42);
    // The canaries went in with the data, and their secrets beside the data dir.
    assert_eq!(manifest["canaries"]["n_copies"], 8);
    let secrets = fs::metadata(d.join("data.canaries.json")).unwrap();
    assert_eq!(secrets.permissions().mode() & 0o777, 0o600);
    let err = crate::util::fails(train(&["--data", "data"], "m5").args(["--canaries", "1"]));
    assert!(err.contains("--canaries"), "{err}");
    // The scratch data of --corpus is gone; the data dir is private.
    let leftovers: Vec<_> = fs::read_dir(d.join("from-corpus"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    for entry in fs::read_dir(d.join("data")).unwrap() {
        let entry = entry.unwrap();
        let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
        let want = if entry.path().is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{:?}", entry.file_name());
    }

    let err = crate::util::fails(&mut prepare());
    assert!(err.contains("data") && err.contains("--overwrite"), "{err}");
    let err = crate::util::fails(&mut train(&["--data", "data", "--seq-len", "32"], "m3"));
    assert!(err.contains("--seq-len"), "{err}");
    let err = crate::util::fails(&mut train(
        &["--data", "data", "--tokenizer", "other"],
        "m4",
    ));
    assert!(
        err.contains("other") && err.contains("not the one"),
        "{err}"
    );
    let err = crate::util::fails(anonlm().current_dir(d).args([
        "mlm",
        "prepare",
        "--corpus",
        "-",
        "--tokenizer",
        "tok",
        "--out",
        "x",
    ]));
    assert!(err.contains("standard input"), "{err}");
}
