//! `mlm train --canaries` end to end: the protected canary file (mode 0600, beside the model
//! dir, its secrets nowhere else), refusals and resume through the binary; then exposure through
//! the library: canaries inserted 32 times are exposed, and the same canaries under a model
//! trained without them (same corpus, same seed) stay at chance. (Release build: about a minute
//! and a half on two shared cores.) Everything runs on one CPU thread (`RAYON_NUM_THREADS=1`):
//! for a tiny model, thread hand-offs cost more than they gain, tenfold on a busy machine.

use crate::util::{synth, tempdir};
use anonlm::audit::run::Outcome;
use anonlm::canary::exposure::canary_exposure;
use anonlm::mlm::runtime::MlmRuntime;
use anonlm::mlm::train::data::sha256_hex;
use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The binary on one thread, so training repeats exactly.
fn anonlm() -> Command {
    let mut cmd = crate::util::anonlm();
    cmd.env("RAYON_NUM_THREADS", "1");
    cmd
}

/// Notes from `anonlm synth` and a small WordPiece tokenizer, in `dir`.
fn corpus_and_tokenizer(dir: &Path) -> (PathBuf, PathBuf) {
    let notes = dir.join("notes.jsonl");
    synth(&notes, "nl", 30, 1);
    let tok = dir.join("tok");
    anonlm()
        .args([
            "tokenizer",
            "train",
            "--kind",
            "wordpiece",
            "--vocab-size",
            "300",
        ])
        .arg("-q")
        .arg("--corpus")
        .arg(&notes)
        .arg("--out")
        .arg(&tok)
        .assert()
        .success();
    (notes, tok)
}

/// The training command of these tests (a tiny BERT); `extra` adds the canary flags.
fn train(notes: &Path, tok: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = anonlm();
    cmd.args(["mlm", "train", "--config", "tiny", "--steps", "400"])
        .args(["--batch", "16", "--seq-len", "64", "--lr", "3e-3"])
        .args(["--held-out", "0.1", "--eval-every", "0", "--patience", "0"])
        .args(["--checkpoint-every", "0", "--seed", "5", "-q"])
        .args(extra)
        .arg("--corpus")
        .arg(notes)
        .arg("--tokenizer")
        .arg(tok)
        .arg("--out")
        .arg(out);
    cmd
}

const CANARY_FLAGS: [&str; 6] = [
    "--canaries",
    "3",
    "--canary-repeats",
    "1,32",
    "--canary-seed",
    "5",
];

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn canaries_are_protected_refused_in_the_model_dir_and_exposed_when_repeated() {
    // candle reads the thread count from this variable when it runs an operation.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let started = Instant::now();
    let dir = tempdir();
    let (notes, tok) = corpus_and_tokenizer(dir.path());

    // (b) Refusals come before any work: a canary file inside --out, canary flags without
    // --canaries, a bad template file (named with its line).
    let out = train(
        &notes,
        &tok,
        &dir.path().join("refused"),
        &[&CANARY_FLAGS[..], &["--canary-file", "refused/sub/c.json"]].concat(),
    )
    .current_dir(dir.path())
    .assert()
    .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("inside --out"), "{stderr}");
    assert!(!dir.path().join("refused/sub/c.json").exists());
    let out = train(
        &notes,
        &tok,
        &dir.path().join("r2"),
        &["--canary-seed", "3"],
    )
    .assert()
    .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("needs --canaries"));
    let bad = dir.path().join("bad.txt");
    fs::write(&bad, "# mine\nHet nummer is {digits:3}.\n").unwrap();
    let out = train(
        &notes,
        &tok,
        &dir.path().join("r3"),
        &[
            &CANARY_FLAGS[..],
            &["--canary-templates", bad.to_str().unwrap()],
        ]
        .concat(),
    )
    .assert()
    .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("bad.txt:2:"), "{stderr}");

    // The model with canaries, and the same run without them.
    let with = dir.path().join("model");
    let t0 = Instant::now();
    let run = train(&notes, &tok, &with, &CANARY_FLAGS).assert().success();
    eprintln!(
        "training with canaries: {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let without = dir.path().join("plain");
    train(&notes, &tok, &without, &[]).assert().success();

    // (a) The protected file: beside the model dir, mode 0600, six canaries.
    let file = dir.path().join("model.canaries.json");
    assert!(file.is_file() && !file.starts_with(&with));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let bytes = fs::read(&file).unwrap();
    let canaries: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(canaries["schema"], "anonlm.canaries/1");
    assert_eq!(canaries["seed"], 5, "the canary seed defaults to --seed");
    let list = canaries["canaries"].as_array().unwrap();
    assert_eq!(list.len(), 6);
    let secrets: Vec<&str> = list.iter().map(|c| c["secret"].as_str().unwrap()).collect();
    for c in list {
        let (t, s) = (
            c["template"].as_str().unwrap(),
            c["secret"].as_str().unwrap(),
        );
        let at = t.find('{').unwrap();
        let close = t.find('}').unwrap();
        assert_eq!(
            c["text"].as_str().unwrap(),
            format!("{}{s}{}", &t[..at], &t[close + 1..])
        );
    }

    // The manifest records counts, repeats and the file's hash, and no secret; no file of the
    // model dir, nor stdout or stderr, holds one.
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(with.join("manifest.json")).unwrap()).unwrap();
    let m = &manifest["canaries"];
    assert_eq!(m["n_canaries"], 6);
    assert_eq!(m["repeats"], serde_json::json!([1, 32]));
    assert_eq!(m["n_copies"], 99);
    assert_eq!(m["file_sha256"], sha256_hex(&bytes));
    let output = run.get_output();
    for f in files_under(&with) {
        let content = fs::read(&f).unwrap();
        for s in &secrets {
            assert!(!contains(&content, s), "a secret in {}", f.display());
        }
    }
    for s in &secrets {
        assert!(!contains(&output.stdout, s) && !contains(&output.stderr, s));
    }
    let plain: Value =
        serde_json::from_str(&fs::read_to_string(without.join("manifest.json")).unwrap()).unwrap();
    assert!(plain.get("canaries").is_none());
    assert_eq!(
        plain["train"]["documents"], manifest["train"]["documents"],
        "canaries are not listed as documents"
    );

    // Resume: the same command resumes the finished run; other canary settings are refused
    // (another seed into the existing file: refused before training; into another file: the
    // checkpoint's settings differ), and the manifest is left as it was.
    let out = train(&notes, &tok, &with, &CANARY_FLAGS).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("resumed"));
    let seed9 = [&CANARY_FLAGS[..4], &["--canary-seed", "9"]].concat();
    let out = train(&notes, &tok, &with, &seed9).assert().code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("other canaries"));
    let other = dir.path().join("other.canaries.json");
    let seed9_other = [&seed9[..], &["--canary-file", other.to_str().unwrap()]].concat();
    let out = train(&notes, &tok, &with, &seed9_other).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("differs in: canaries"), "{stderr}");
    assert_eq!(fs::read(&file).unwrap(), bytes);
    let after: Value =
        serde_json::from_str(&fs::read_to_string(with.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(after, manifest, "a refused resume keeps the manifest");

    // (c) Exposure with 1,000 candidates: the 32-times canaries are memorized, and under the
    // model that never saw them the same canaries rank like random candidates.
    let device = candle_core::Device::Cpu;
    let t0 = Instant::now();
    let rt = MlmRuntime::open(with.to_str().unwrap(), &device).unwrap();
    let exposed = canary_exposure(&rt, &file, 1_000, 17, 4.0).unwrap();
    let secs_with = t0.elapsed().as_secs_f64();
    let rt = MlmRuntime::open(without.to_str().unwrap(), &device).unwrap();
    let calm = canary_exposure(&rt, &file, 1_000, 17, 4.0).unwrap();
    for (name, ev) in [("with canaries", &exposed), ("without", &calm)] {
        for g in &ev.groups {
            eprintln!(
                "{name}: repeats {:>2}: exposures {:.2?} (mean {:.2} bits)",
                g.repeats, g.exposures, g.mean_exposure
            );
        }
    }
    eprintln!("exposure of 6 canaries x 1,000 candidates: {secs_with:.1} s");
    assert_eq!(exposed.candidates, 1_000);
    assert_eq!(exposed.groups.len(), 2);
    let g32 = &exposed.groups[1];
    assert_eq!((g32.repeats, g32.exposures.len()), (32, 3));
    assert!(g32.mean_exposure > 6.0, "{:?}", g32.exposures);
    assert_eq!(exposed.outcome, Outcome::Fail);
    assert!(!exposed.reasons.is_empty());
    for g in &calm.groups {
        assert!(g.mean_exposure < 4.32, "{:?}", g.exposures);
    }
    assert_eq!(calm.outcome, Outcome::Pass);
    let json = serde_json::to_string(&exposed).unwrap();
    assert!(
        secrets.iter().all(|s| !json.contains(s)),
        "no secret in the evidence"
    );
    eprintln!("whole test: {:.1} s", started.elapsed().as_secs_f64());
}

/// The default audit size on the tiny model: 12 canaries (4 per repeat value 1, 4, 16), each
/// among 10,000 candidates. Prints the time; run with `--ignored --nocapture` (the scoring uses
/// the caller's `RAYON_NUM_THREADS`; training runs on one thread).
#[test]
#[ignore]
fn time_exposure_of_12_canaries_with_10000_candidates() {
    let dir = tempdir();
    let (notes, tok) = corpus_and_tokenizer(dir.path());
    let model = dir.path().join("model");
    train(
        &notes,
        &tok,
        &model,
        &["--canaries", "4", "--canary-repeats", "1,4,16"],
    )
    .assert()
    .success();
    let rt = MlmRuntime::open(model.to_str().unwrap(), &candle_core::Device::Cpu).unwrap();
    let t0 = Instant::now();
    let ev = canary_exposure(&rt, &dir.path().join("model.canaries.json"), 10_000, 1, 4.0).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    for g in &ev.groups {
        eprintln!(
            "repeats {:>2}: exposures {:.2?} (mean {:.2} bits)",
            g.repeats, g.exposures, g.mean_exposure
        );
    }
    eprintln!("exposure of 12 canaries x 10,000 candidates: {secs:.1} s");
    assert_eq!(
        ev.groups.iter().map(|g| g.exposures.len()).sum::<usize>(),
        12
    );
}
