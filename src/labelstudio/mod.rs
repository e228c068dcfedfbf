//! Label Studio interchange for the pre-annotation loop: documents out as tasks with
//! predictions (`export`), corrected annotations back in as documents (`import`), and the
//! labeling config that lists the labels (`config`).
//!
//! # Offsets
//!
//! `value.start` / `value.end` of a `labels` result are **Unicode code points** into
//! `data.text`, end exclusive, the way Python slices a `str`. Label Studio's text editor stores
//! code points rather than JavaScript (UTF-16) string indices since its fix for texts with
//! emoji (label-studio-frontend PR #308, label-studio PR #1559; its own test "NER - Emoji -
//! Text" expects code points after an astral-plane character). Inside anonlm offsets are bytes;
//! the conversion happens here. An export from a Label Studio release before that fix counted
//! UTF-16 units: the import detects it through `value.text` and says so.

pub mod config;
pub mod export;
pub mod import;
pub mod stage;

/// `from_name` of every result: the `<Labels name=...>` control of the config.
pub const FROM_NAME: &str = "label";
/// `to_name` of every result: the `<Text name=...>` object of the config.
pub const TO_NAME: &str = "text";
/// The task data field that holds the document text (`$text` in the config).
pub const TEXT_KEY: &str = "text";
/// The task data field that holds the document id.
pub const DOC_ID_KEY: &str = "doc_id";
