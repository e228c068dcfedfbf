//! `anonlm release` killed with SIGKILL during training resumes from the training checkpoint on
//! the rerun and reaches the decision of an uninterrupted run; a stage whose outputs changed
//! after it finished runs again, with the stages after it.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

fn anonlm() -> Command {
    Command::cargo_bin("anonlm").unwrap()
}

/// A small chain whose training is long enough to be caught between checkpoints (one every
/// 50 steps).
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
steps = 200
batch = 16
seq_len = 32
lr = 3e-3
held_out = 0.3
canaries = 0
[release.probe]
max_per_set = 10
[data]
examples = "blocks"
max_per_set = 120
min_per_set = 10
[attacks]
canaries = false
[evidence]
names = ["builtin:nl"]
"#;

const ARGS: [&str; 6] = ["release", "--spec", "spec.toml", "--out", "rel", "-q"];

fn setup(d: &Path) {
    for (name, docs, seed) in [("notes.jsonl", "40", "3"), ("reference.jsonl", "20", "4")] {
        anonlm()
            .current_dir(d)
            .args(["synth", "--lang", "nl", "--docs", docs, "--seed", seed])
            .args(["--out", name])
            .assert()
            .success();
    }
    fs::write(d.join("spec.toml"), SPEC).unwrap();
}

/// Runs the release to its end; returns the exit code, stderr and the decision.
fn release(d: &Path) -> (Option<i32>, String, String) {
    let o = anonlm().current_dir(d).args(ARGS).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let report = fs::read_to_string(d.join("rel/report/report.json"))
        .unwrap_or_else(|e| panic!("{e}: {err}"));
    let report: Value = serde_json::from_str(&report).unwrap();
    let outcome = report["decision"]["outcome"].as_str().unwrap().to_string();
    (o.status.code(), err, outcome)
}

fn train_exit(d: &Path) -> u64 {
    let state: Value =
        serde_json::from_str(&fs::read_to_string(d.join("rel/release.state.json")).unwrap())
            .unwrap();
    state["stages"]["train"]["exit"].as_u64().unwrap()
}

#[test]
fn a_killed_release_resumes_from_the_checkpoint_and_changed_outputs_rerun() {
    let base = tempfile::tempdir().unwrap();
    setup(base.path());
    let (code, err, outcome) = release(base.path());
    assert!(matches!(code, Some(0 | 1)), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let bin = assert_cmd::cargo::cargo_bin("anonlm");
    let mut child = std::process::Command::new(bin)
        .current_dir(d)
        .args(ARGS)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once training has written its first checkpoint.
    let checkpoint = d.join("rel/model/checkpoint/trainer_state.json");
    let started = Instant::now();
    while !checkpoint.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the release ended before its first checkpoint"
        );
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no checkpoint"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(train_exit(d), 255, "training was not caught running");

    let (code2, err2, outcome2) = release(d);
    assert_eq!(code2, code, "{err2}");
    assert_eq!(outcome2, outcome);
    assert!(err2.contains("release: deid: up to date"), "{err2}");
    assert!(
        err2.contains("resumed from the checkpoint at step"),
        "{err2}"
    );
    assert!(err2.contains("release: train done"), "{err2}");

    // The released weights cut short after the run: the rewrite and what follows run again.
    let weights = d.join("rel/released/model.safetensors");
    fs::OpenOptions::new()
        .write(true)
        .open(&weights)
        .unwrap()
        .set_len(10)
        .unwrap();
    let (code3, err3, outcome3) = release(d);
    assert_eq!(code3, code, "{err3}");
    assert_eq!(outcome3, outcome);
    assert!(err3.contains("release: train: up to date"), "{err3}");
    assert!(err3.contains("release: rewrite done"), "{err3}");
    assert!(err3.contains("release: probe-metrics done"), "{err3}");
    assert!(fs::metadata(&weights).unwrap().len() > 10);

    // Nothing changed since: every stage is up to date.
    let (_, err4, _) = release(d);
    assert!(!err4.contains(" done in "), "{err4}");
}
