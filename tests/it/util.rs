//! What the integration tests share: the binary under test, the check of a usage error, temp
//! dirs (and the directories of fixtures a module builds once), JSON readers, the synthetic
//! notes, tokenizers and tiny models several modules build, the report render, and the
//! library's one helper for the shared data sets (absent data skips with a note, or fails when
//! `ANONLM_REQUIRE_DATA` is set).

pub use anonlm::testdata::meddocan_split;
use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Whether `value` (a document's PHI string) appears in `body` as itself: a match glued to a
/// digit on a side where `value` has a digit is part of a longer number (a float's digits in a
/// report, a hash), not the value.
pub fn holds_value(body: &str, value: &str) -> bool {
    let digit_at = |s: &str, first: bool| {
        let c = if first {
            s.chars().next()
        } else {
            s.chars().last()
        };
        c.is_some_and(|c| c.is_ascii_digit())
    };
    body.match_indices(value).any(|(at, _)| {
        let (before, after) = (&body[..at], &body[at + value.len()..]);
        let glued_before = digit_at(value, true) && digit_at(before, false);
        let glued_after = digit_at(value, false) && digit_at(after, true);
        !glued_before && !glued_after
    })
}

/// `line` without its `[[surface|LABEL]]` marks (the gold of `testsets/`), and the marked spans
/// as byte ranges with their labels.
pub fn parse_marked(line: &str) -> (String, Vec<(usize, usize, anonlm::Label)>) {
    let mut text = String::new();
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find("[[") {
        text.push_str(&rest[..open]);
        let close = rest[open..].find("]]").expect("unclosed [[") + open;
        let (surface, label) = rest[open + 2..close]
            .rsplit_once('|')
            .expect("missing |label");
        let start = text.len();
        text.push_str(surface);
        let label = anonlm::Label::parse(label).expect("valid label");
        spans.push((start, text.len(), label));
        rest = &rest[close + 2..];
    }
    text.push_str(rest);
    (text, spans)
}

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
    tokenizer_command(corpus, kind, vocab, out)
        .assert()
        .success();
    out.to_path_buf()
}

/// The command [`tokenizer`] runs, not yet run (for a test that sets its environment).
pub fn tokenizer_command(corpus: &Path, kind: &str, vocab: usize, out: &Path) -> Command {
    let mut cmd = anonlm();
    cmd.args(["tokenizer", "train", "--kind", kind, "-q"])
        .args(["--vocab-size", &vocab.to_string(), "--corpus"])
        .arg(corpus)
        .arg("--out")
        .arg(out);
    cmd
}

/// `anonlm mlm train` with `flags` (config, steps, batch, ...) on `corpus` and the tokenizer
/// `tok` into `out`, not yet run; see [`mlm_train`].
pub fn mlm_train_command(corpus: &Path, tok: &Path, out: &Path, flags: &[&str]) -> Command {
    let mut cmd = anonlm();
    cmd.args(["mlm", "train"])
        .args(flags)
        .arg("--corpus")
        .arg(corpus)
        .arg("--tokenizer")
        .arg(tok)
        .arg("--out")
        .arg(out);
    cmd
}

/// Trains a model as [`mlm_train_command`] says and expects success; returns `out`.
pub fn mlm_train(corpus: &Path, tok: &Path, out: &Path, flags: &[&str]) -> PathBuf {
    mlm_train_command(corpus, tok, out, flags)
        .assert()
        .success();
    out.to_path_buf()
}

/// Writes `v` as pretty-printed JSON (a test's input file).
pub fn write_json(path: &std::path::Path, v: &impl serde::Serialize) {
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// `anonlm report render` of `dir/report.json` into `dir/out`, run in `dir`, not yet run.
pub fn report_render(dir: &Path) -> Command {
    let mut cmd = anonlm();
    cmd.current_dir(dir).args([
        "report",
        "render",
        "--report",
        "report.json",
        "--out",
        "out",
    ]);
    cmd
}

/// A directory for a fixture that a module builds once and shares between its tests through a
/// `static` (statics are never dropped, so a `TempDir` there would never be removed): a fresh
/// directory named after `name` under the build's `CARGO_TARGET_TMPDIR`, left for `cargo
/// clean`.
pub fn fixture_dir(name: &str) -> PathBuf {
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
        .keep()
}

/// The fixture in `cell`, built by `build` for the first test that asks for it. A build that
/// panics is not tried again: every test that asks fails with its message, so a broken fixture
/// costs one build, not one per test.
pub fn shared<T: Send + Sync>(
    cell: &'static std::sync::OnceLock<Result<T, String>>,
    build: impl FnOnce() -> T,
) -> &'static T {
    let built = cell.get_or_init(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(build)).map_err(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
    });
    match built {
        Ok(fixture) => fixture,
        Err(message) => panic!("the shared fixture failed to build: {message}"),
    }
}

#[test]
fn a_value_inside_a_longer_number_is_not_the_value() {
    assert!(holds_value("\"id\": \"747389\"", "747389"));
    assert!(!holds_value(
        "\"threshold\": -0.20747389793396032",
        "747389"
    ));
    assert!(holds_value("0.2 747389", "747389"));
    assert!(holds_value("Jansens", "Jansen"));
    assert!(holds_value("tel 06-12345678.", "06-12345678"));
    assert!(!holds_value("106-123456789", "06-12345678"));
}
