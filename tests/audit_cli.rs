//! `anonlm audit` through the binary: sets of different kinds are INVALID by the blind baseline;
//! the report holds no text; bad specs exit 2.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::Path;

fn anonlm() -> Command {
    Command::cargo_bin("anonlm").unwrap()
}

fn ok(args: &[&str], dir: &Path) {
    anonlm().current_dir(dir).args(args).assert().success();
}

/// Runs an audit in `dir`; returns the exit code and audit.json.
fn audit(dir: &Path, spec: &str, out: &str) -> (Option<i32>, Value) {
    fs::write(dir.join("spec.toml"), spec).unwrap();
    let o = anonlm()
        .current_dir(dir)
        .args(["audit", "--spec", "spec.toml", "--out", out])
        .output()
        .unwrap();
    let text = fs::read_to_string(dir.join(out).join("audit.json")).unwrap();
    (o.status.code(), serde_json::from_str(&text).unwrap())
}

fn attack<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["attacks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap()
}

#[test]
fn sets_of_different_kinds_are_invalid_and_bad_specs_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        &[
            "synth", "--lang", "nl", "--docs", "40", "--seed", "21", "--out", "a.jsonl",
        ],
        d,
    );
    ok(
        &[
            "synth", "--lang", "nl", "--docs", "40", "--seed", "22", "--out", "b.jsonl",
        ],
        d,
    );
    ok(
        &[
            "synth", "--lang", "es", "--docs", "40", "--seed", "23", "--out", "es.jsonl",
        ],
        d,
    );
    ok(
        &[
            "synth",
            "--lang",
            "nl",
            "--docs",
            "40",
            "--seed",
            "24",
            "--out",
            "other.jsonl",
        ],
        d,
    );
    anonlm()
        .current_dir(d)
        .args([
            "tokenizer",
            "train",
            "--kind",
            "wordpiece",
            "--vocab-size",
            "300",
            "-q",
        ])
        .args(["--corpus", "other.jsonl", "--out", "tok"])
        .assert()
        .success();
    // A model trained on other notes: it saw neither a.jsonl nor b.jsonl.
    anonlm()
        .current_dir(d)
        .args([
            "mlm", "train", "--config", "tiny", "--steps", "60", "--batch", "16",
        ])
        .args(["--seq-len", "32", "--held-out", "0.1", "-q"])
        .args([
            "--corpus",
            "other.jsonl",
            "--tokenizer",
            "tok",
            "--out",
            "model",
        ])
        .assert()
        .success();

    // Dutch members, Spanish non-members: the blind baseline tells them apart.
    let (code, r) = audit(
        d,
        "[model]\ndir = \"model\"\n[data]\nmembers = \"a.jsonl\"\nnon_members = \"es.jsonl\"\nmax_per_set = 300\n",
        "shifted",
    );
    assert_eq!(r["decision"]["outcome"], "INVALID");
    assert_eq!(code, Some(1));
    assert!(
        attack(&r, "blind_baseline")["metrics"]["auc"]["value"]
            .as_f64()
            .unwrap()
            > 0.9
    );

    // A spec naming an unknown key fails with exit 2, naming the file.
    fs::write(
        d.join("bad.toml"),
        "[model]\ndir = \"model\"\nwieghts = 1\n[data]\ncorpus = \"a.jsonl\"\n",
    )
    .unwrap();
    let o = anonlm()
        .current_dir(d)
        .args(["audit", "--spec", "bad.toml", "--out", "bad"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.toml") && err.contains("wieghts"), "{err}");
}
