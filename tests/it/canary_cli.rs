//! `mlm train --canaries` end to end: the protected canary file (mode 0600, beside the model
//! dir, its secrets nowhere else), refusals and resume through the binary; then exposure through
//! the library: canaries inserted 32 times are exposed, and the same canaries under a model
//! trained without them (same corpus, same seed) stay at chance. (Release build: about a minute
//! and a half on two shared cores.) Everything runs on one CPU thread (`RAYON_NUM_THREADS=1`):
//! for a tiny model, thread hand-offs cost more than they gain, tenfold on a busy machine.

use crate::util::{fixture_dir, mlm_train_command, shared, synth, tempdir, tokenizer_command};
use anonlm::audit::run::Outcome;
use anonlm::canary::exposure::canary_exposure;
use anonlm::mlm::runtime::MlmRuntime;
use anonlm::mlm::train::data::sha256_hex;
use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;
use std::time::Instant;

/// Notes from `anonlm synth` and a small WordPiece tokenizer, in `dir`.
fn corpus_and_tokenizer(dir: &Path) -> (PathBuf, PathBuf) {
    let notes = dir.join("notes.jsonl");
    synth(&notes, "nl", 30, 1);
    let tok = dir.join("tok");
    // The binary runs on one thread, so training repeats exactly.
    tokenizer_command(&notes, "wordpiece", 300, &tok)
        .env("RAYON_NUM_THREADS", "1")
        .assert()
        .success();
    (notes, tok)
}

/// The training command of these tests (a tiny BERT, on one thread); `extra` adds the canary
/// flags.
fn train(notes: &Path, tok: &Path, out: &Path, extra: &[&str]) -> Command {
    #[rustfmt::skip]
    let flags = [
        "--config", "tiny", "--steps", "400", "--batch", "16", "--seq-len", "64", "--lr", "3e-3",
        "--held-out", "0.1", "--eval-every", "0", "--patience", "0", "--checkpoint-every", "0",
        "--seed", "5", "-q",
    ];
    let mut cmd = mlm_train_command(notes, tok, out, &[&flags[..], extra].concat());
    cmd.env("RAYON_NUM_THREADS", "1");
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

/// What the canary tests share, built once by [`canary_models`]: notes, a tokenizer, a model
/// trained with canaries and one without, and what the runs with canaries printed and wrote.
struct Canaries {
    dir: PathBuf,
    notes: PathBuf,
    tok: PathBuf,
    /// The model trained with [`CANARY_FLAGS`], then resumed (see [`Resumed`]).
    with: PathBuf,
    /// The same run without canaries.
    without: PathBuf,
    /// The canary file beside `with`.
    file: PathBuf,
    /// The canary file and the manifest of `with` as the training wrote them.
    bytes: Vec<u8>,
    manifest: Value,
    secrets: Vec<String>,
    /// What the training with canaries printed.
    run: Output,
    resumed: Resumed,
}

/// The runs after training with canaries: the same command again, and two with other canary
/// settings; then the canary file and the manifest.
struct Resumed {
    same_stderr: String,
    other_seed: Output,
    other_file: Output,
    bytes: Vec<u8>,
    manifest: Value,
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The models of [`Canaries`], trained by the first test that asks for them; the resumes run
/// here too, as they touch the model dir the other tests read.
fn canary_models() -> &'static Canaries {
    static MODELS: OnceLock<Result<Canaries, String>> = OnceLock::new();
    shared(&MODELS, || {
        // candle reads the thread count from this variable when it runs an operation.
        std::env::set_var("RAYON_NUM_THREADS", "1");
        let dir = fixture_dir("canary_cli-models");
        let (notes, tok) = corpus_and_tokenizer(&dir);
        // The model with canaries, and the same run without them.
        let with = dir.join("model");
        let t0 = Instant::now();
        let run = train(&notes, &tok, &with, &CANARY_FLAGS)
            .assert()
            .success()
            .get_output()
            .clone();
        eprintln!(
            "training with canaries: {:.1} s",
            t0.elapsed().as_secs_f64()
        );
        let without = dir.join("plain");
        train(&notes, &tok, &without, &[]).assert().success();
        let file = dir.join("model.canaries.json");
        let bytes = fs::read(&file).unwrap();
        let canaries: Value = serde_json::from_slice(&bytes).unwrap();
        let secrets = canaries["canaries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["secret"].as_str().unwrap().to_string())
            .collect();
        let read_manifest = || -> Value {
            serde_json::from_str(&fs::read_to_string(with.join("manifest.json")).unwrap()).unwrap()
        };
        let manifest = read_manifest();
        // Resume: the same command, then another seed into the existing file, then into another
        // file.
        let out = train(&notes, &tok, &with, &CANARY_FLAGS).assert().success();
        let same_stderr = stderr_of(out.get_output());
        let seed9 = [&CANARY_FLAGS[..4], &["--canary-seed", "9"]].concat();
        let other_seed = train(&notes, &tok, &with, &seed9).output().unwrap();
        let other = dir.join("other.canaries.json");
        let seed9_other = [&seed9[..], &["--canary-file", other.to_str().unwrap()]].concat();
        let other_file = train(&notes, &tok, &with, &seed9_other).output().unwrap();
        let resumed = Resumed {
            same_stderr,
            other_seed,
            other_file,
            bytes: fs::read(&file).unwrap(),
            manifest: read_manifest(),
        };
        Canaries {
            dir,
            notes,
            tok,
            with,
            without,
            file,
            bytes,
            manifest,
            secrets,
            run,
            resumed,
        }
    })
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn canary_refusals_come_before_any_work() {
    let c = canary_models();
    let dir = c.dir.as_path();
    // (b) Refusals come before any work: a canary file inside --out, canary flags without
    // --canaries, a bad template file (named with its line).
    let out = train(
        &c.notes,
        &c.tok,
        &dir.join("refused"),
        &[&CANARY_FLAGS[..], &["--canary-file", "refused/sub/c.json"]].concat(),
    )
    .current_dir(dir)
    .assert()
    .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("inside --out"), "{stderr}");
    assert!(!dir.join("refused/sub/c.json").exists());
    let out = train(&c.notes, &c.tok, &dir.join("r2"), &["--canary-seed", "3"])
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("needs --canaries"));
    let bad = dir.join("bad.txt");
    fs::write(&bad, "# mine\nHet nummer is {digits:3}.\n").unwrap();
    let out = train(
        &c.notes,
        &c.tok,
        &dir.join("r3"),
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
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_canary_file_is_private_beside_the_model_dir_and_holds_six_canaries() {
    let c = canary_models();
    // (a) The protected file: beside the model dir, mode 0600, six canaries.
    let (file, with) = (&c.file, &c.with);
    assert!(file.is_file() && !file.starts_with(with));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let canaries: Value = serde_json::from_slice(&c.bytes).unwrap();
    assert_eq!(canaries["schema"], "anonlm.canaries/1");
    assert_eq!(canaries["seed"], 5, "the canary seed defaults to --seed");
    let list = canaries["canaries"].as_array().unwrap();
    assert_eq!(list.len(), 6);
    for canary in list {
        let (t, s) = (
            canary["template"].as_str().unwrap(),
            canary["secret"].as_str().unwrap(),
        );
        let at = t.find('{').unwrap();
        let close = t.find('}').unwrap();
        assert_eq!(
            canary["text"].as_str().unwrap(),
            format!("{}{s}{}", &t[..at], &t[close + 1..])
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_manifest_counts_canaries_and_no_file_or_output_holds_a_secret() {
    let c = canary_models();
    // The manifest records counts, repeats and the file's hash, and no secret; no file of the
    // model dir, nor stdout or stderr, holds one.
    let (manifest, with) = (&c.manifest, &c.with);
    let m = &manifest["canaries"];
    assert_eq!(m["n_canaries"], 6);
    assert_eq!(m["repeats"], serde_json::json!([1, 32]));
    assert_eq!(m["n_copies"], 99);
    assert_eq!(m["file_sha256"], sha256_hex(&c.bytes));
    let output = &c.run;
    for f in files_under(with) {
        let content = fs::read(&f).unwrap();
        for s in &c.secrets {
            assert!(!contains(&content, s), "a secret in {}", f.display());
        }
    }
    for s in &c.secrets {
        assert!(!contains(&output.stdout, s) && !contains(&output.stderr, s));
    }
    let plain: Value =
        serde_json::from_str(&fs::read_to_string(c.without.join("manifest.json")).unwrap())
            .unwrap();
    assert!(plain.get("canaries").is_none());
    assert_eq!(
        plain["train"]["documents"], manifest["train"]["documents"],
        "canaries are not listed as documents"
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_same_command_resumes_and_other_canary_settings_are_refused() {
    let c = canary_models();
    let r = &c.resumed;
    // Resume: the same command resumes the finished run; other canary settings are refused
    // (another seed into the existing file: refused before training; into another file: the
    // checkpoint's settings differ), and the manifest is left as it was.
    assert!(r.same_stderr.contains("resumed"));
    assert_eq!(r.other_seed.status.code(), Some(2));
    assert!(stderr_of(&r.other_seed).contains("other canaries"));
    assert_eq!(r.other_file.status.code(), Some(2));
    let stderr = stderr_of(&r.other_file);
    assert!(stderr.contains("differs in: canaries"), "{stderr}");
    assert_eq!(r.bytes, c.bytes);
    assert_eq!(
        r.manifest, c.manifest,
        "a refused resume keeps the manifest"
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn canaries_repeated_32_times_are_exposed_and_unseen_ones_stay_at_chance() {
    let c = canary_models();
    let (with, without, file) = (&c.with, &c.without, &c.file);
    // (c) Exposure with 1,000 candidates: the 32-times canaries are memorized, and under the
    // model that never saw them the same canaries rank like random candidates.
    let device = candle_core::Device::Cpu;
    let t0 = Instant::now();
    let rt = MlmRuntime::open(with.to_str().unwrap(), &device).unwrap();
    let exposed = canary_exposure(&rt, file, 1_000, 17, 4.0).unwrap();
    let secs_with = t0.elapsed().as_secs_f64();
    let rt = MlmRuntime::open(without.to_str().unwrap(), &device).unwrap();
    let calm = canary_exposure(&rt, file, 1_000, 17, 4.0).unwrap();
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
        c.secrets.iter().all(|s| !json.contains(s.as_str())),
        "no secret in the evidence"
    );
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
