//! What the integration tests share: the binary under test, the check of a usage error, and
//! the library's one helper for the shared data sets (absent data skips with a note, or fails
//! when `ANONLM_REQUIRE_DATA` is set). Each test binary uses a part of it.
#![allow(dead_code, unused_imports)]

pub use anonlm::testdata::{meddocan_split, shared_data};
use assert_cmd::Command;

/// The `anonlm` binary of this build.
pub fn anonlm() -> Command {
    Command::cargo_bin("anonlm").unwrap()
}

/// Runs a command expected to stop with a clear error (exit 2, no panic); returns what it
/// printed (stdout, then stderr).
pub fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    text
}
