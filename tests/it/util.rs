//! What the integration tests share: the binary under test, the check of a usage error, temp
//! dirs, JSON readers, the synthetic notes and tokenizers several modules build, and the
//! library's one helper for the shared data sets (absent data skips with a note, or fails when
//! `ANONLM_REQUIRE_DATA` is set).

pub use anonlm::testdata::meddocan_split;
use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The `anonlm` binary of this build.
pub fn anonlm() -> Command {
    Command::cargo_bin("anonlm").unwrap()
}

/// A fresh temporary directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// What a run printed: stdout, then stderr.
pub fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs a command expected to stop with a clear error (exit 2, no panic); returns what it
/// printed (stdout, then stderr).
pub fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let text = printed(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    text
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// One JSON value per line.
pub fn read_jsonl(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `anonlm synth` into `out`: `docs` notes in `lang` (or `all`) from `seed`, gold spans
/// included; returns `out`.
pub fn synth(out: &Path, lang: &str, docs: usize, seed: u64) -> PathBuf {
    anonlm()
        .args(["synth", "--lang", lang, "--docs", &docs.to_string()])
        .args(["--seed", &seed.to_string(), "--out"])
        .arg(out)
        .assert()
        .success();
    out.to_path_buf()
}

/// `anonlm tokenizer train` of a `kind` tokenizer (wordpiece, bpe, unigram) of `vocab`
/// entries on `corpus` into `out`; returns `out`.
pub fn tokenizer(corpus: &Path, kind: &str, vocab: usize, out: &Path) -> PathBuf {
    anonlm()
        .args(["tokenizer", "train", "--kind", kind, "-q"])
        .args(["--vocab-size", &vocab.to_string(), "--corpus"])
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    out.to_path_buf()
}

/// Writes `v` as pretty-printed JSON (a test's input file).
pub fn write_json(path: &std::path::Path, v: &impl serde::Serialize) {
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}
