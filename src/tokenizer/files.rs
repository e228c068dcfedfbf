//! Small file helpers of the tokenizer module: optional JSON reads and atomic writes.

use super::TokenizerError;
use serde_json::Value;
use std::path::Path;

/// The JSON in `path`, or `None` when the file does not exist.
pub fn read_json_opt(path: &Path) -> Result<Option<Value>, TokenizerError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(TokenizerError::io(path, e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| TokenizerError::file(path, format!("invalid JSON: {e}")))
}

/// Writes `bytes` to `path` as one staged file (mode 0600: vocabularies hold corpus words),
/// so a reader never sees a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TokenizerError> {
    Ok(crate::fsio::replace_file(path, bytes)?)
}
