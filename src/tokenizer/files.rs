//! Small file helpers of the tokenizer module: optional JSON reads and atomic writes.

use super::TokenizerError;
use serde_json::Value;
use std::io::Write;
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

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TokenizerError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".anonlm-tok-")
        .tempfile_in(dir)
        .map_err(|e| TokenizerError::io(dir, e))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.flush())
        .map_err(|e| TokenizerError::io(path, e))?;
    tmp.persist(path)
        .map_err(|e| TokenizerError::io(path, e.error))?;
    Ok(())
}
