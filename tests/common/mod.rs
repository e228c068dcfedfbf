//! What the MEDDOCAN integration tests share: where the data lives and what to do when it is absent.

use std::path::PathBuf;

/// `../shared/data/meddocan/<split>` when present. Absent data skips the test with a note, unless
/// `ANONLM_REQUIRE_DATA` is set (CI sets it), where absence is a failure: a check that silently
/// skips on the machine that is meant to run it proves nothing.
pub fn meddocan_split(split: &str) -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../shared/data/meddocan/{split}"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os("ANONLM_REQUIRE_DATA").is_some() {
        panic!("{} is absent and ANONLM_REQUIRE_DATA is set", dir.display());
    }
    eprintln!("note: {} is absent; skipping", dir.display());
    None
}
