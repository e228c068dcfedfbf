//! Where the tests find the shared data sets (`../shared/data` beside the crate), and the one
//! rule for their absence: a note and a skip on a developer's machine, a failure when
//! `ANONLM_REQUIRE_DATA` is set (CI sets it), because a check that skips itself on the machine
//! meant to run it proves nothing. Every data-dependent test, unit or integration, asks here.

use std::path::PathBuf;

/// The variable that turns absent test data into a failure.
pub const REQUIRE_DATA_VAR: &str = "ANONLM_REQUIRE_DATA";

/// `../shared/data/<rel>` (relative to the crate root) when it exists; `None` after a note when
/// it is absent, unless [`REQUIRE_DATA_VAR`] is set, where absence panics (fails the test).
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os(REQUIRE_DATA_VAR).is_some() {
        panic!("{} is absent and {REQUIRE_DATA_VAR} is set", path.display());
    }
    eprintln!("note: {} is absent; skipping", path.display());
    None
}

/// A MEDDOCAN split (`train`, `dev`, `test`) under `../shared/data/meddocan/`.
pub fn meddocan_split(split: &str) -> Option<PathBuf> {
    shared_data(&format!("meddocan/{split}"))
}

/// True when tests must not skip for a missing tool or data set (`ANONLM_REQUIRE_DATA` or
/// `CI` is set).
pub fn required() -> bool {
    std::env::var_os(REQUIRE_DATA_VAR).is_some() || std::env::var_os("CI").is_some()
}
