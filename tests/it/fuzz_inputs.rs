//! The input fuzz of `scripts/fuzz_inputs.py` on a small count: mutated document JSONL, brat
//! dirs, CoNLL, review TSV, audit and release specs and Label Studio exports through every
//! command that reads them; no run may crash, hang, exit with a code other than 0, 1 or 2, or
//! print a value planted in its input. Needs `python3` (3.11, standard library only):
//!
//! ```text
//! cargo test --release --test it fuzz_inputs:: -- --ignored
//! ANONLM_FUZZ_COUNT=3000 ANONLM_FUZZ_SEED=7 cargo test --release --test it fuzz_inputs:: -- --ignored
//! ```
//!
//! Failing cases are kept under `target/fuzz-cases/` (inputs, commands, outputs and why).

use std::path::Path;
use std::process::Command;

#[test]
#[ignore]
fn mutated_inputs_neither_crash_hang_nor_leak() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let count = std::env::var("ANONLM_FUZZ_COUNT").unwrap_or_else(|_| "150".into());
    let seed = std::env::var("ANONLM_FUZZ_SEED").unwrap_or_else(|_| "1".into());
    let cases = root.join("target/fuzz-cases");
    let out = Command::new("python3")
        .arg(root.join("scripts/fuzz_inputs.py"))
        .arg("--bin")
        .arg(assert_cmd::cargo::cargo_bin("anonlm"))
        .args(["--seed", &seed, "--count", &count, "--cases"])
        .arg(&cases)
        .output()
        .expect("python3");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    // The harness ran what it was asked to, and some runs got past the parsers.
    assert!(text.contains(&format!("{count} cases")), "{text}");
    assert!(text.contains("0 failing"), "{text}");
    assert!(text.contains("deid -> 0"), "{text}");
}
