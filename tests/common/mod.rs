//! What the data-dependent integration tests share: the library's one helper for the shared
//! data sets (absent data skips with a note, or fails when `ANONLM_REQUIRE_DATA` is set).

#[allow(unused_imports)]
pub use anonlm::testdata::{meddocan_split, shared_data};
