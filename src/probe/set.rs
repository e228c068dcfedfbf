//! Probe-set files: `probes.jsonl` (one [`ProbeSlot`] a line, de-identified text only), the
//! protected `originals.jsonl` ([`SlotOriginal`], mode 0600) and reading a `--set` argument
//! (a probe-set directory, its probes.jsonl, or a user file of sentences).

use super::error::{json_kind, ProbeError};
use super::run::ProbeResult;
use crate::labels::{Category, Subtype};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

/// File names inside a probe-set directory.
pub const PROBES_FILE: &str = "probes.jsonl";
pub const SUMMARY_FILE: &str = "summary.json";
pub const ORIGINALS_FILE: &str = "originals.jsonl";

/// Which sentences a slot comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SetKind {
    /// A training document of the model (manifest `train`).
    Seen,
    /// A held-out document (manifest `held_out`).
    Unseen,
    /// A sentence from a user file.
    User,
}

impl SetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SetKind::Seen => "seen",
            SetKind::Unseen => "unseen",
            SetKind::User => "user",
        }
    }
}

/// One slot to probe: a sentence with exactly one mask where a replaced entity stood.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeSlot {
    /// `<doc_id>#<k>` (k: the op's index in its ops-log line), or `line N` / `row N` for user
    /// files.
    pub slot_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_id: Option<String>,
    pub set: SetKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<Subtype>,
    /// Language code of the document (from the ops log), or `--lang` for user files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The sentence with `<mask>` at the slot (de-identified text, or the user's sentence
    /// byte-exact).
    pub text: String,
}

/// One line of the protected originals file: the raw value that stood at a slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotOriginal {
    pub slot_id: String,
    pub original: String,
}

/// Reads JSONL values of type `T`, one a line (blank lines skipped); errors name the line and
/// the kind of problem, never the content.
fn read_jsonl<T: DeserializeOwned>(path: &Path, what: &str) -> Result<Vec<T>, ProbeError> {
    let file = std::fs::File::open(path).map_err(|e| ProbeError::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| ProbeError::line(path, i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str(&line).map_err(|e| {
            ProbeError::line(path, i + 1, format!("not {what} ({})", json_kind(&e)))
        })?;
        out.push(value);
    }
    Ok(out)
}

/// Reads `probes.jsonl`; slot ids must be unique.
pub fn read_probe_slots(path: &Path) -> Result<Vec<ProbeSlot>, ProbeError> {
    let slots: Vec<ProbeSlot> = read_jsonl(path, "a probe slot")?;
    let mut ids = HashSet::new();
    for s in &slots {
        if !ids.insert(s.slot_id.as_str()) {
            return Err(ProbeError::file(
                path.to_path_buf(),
                format!(
                    "slot id {} occurs more than once",
                    crate::corpus::show_id(&s.slot_id)
                ),
            ));
        }
    }
    Ok(slots)
}

/// Reads the protected originals file into slot id → original. Never prints a value.
pub fn read_originals(path: &Path) -> Result<HashMap<String, String>, ProbeError> {
    let lines: Vec<SlotOriginal> = read_jsonl(path, "an originals line (slot_id, original)")?;
    let mut out = HashMap::with_capacity(lines.len());
    for l in lines {
        if out.contains_key(&l.slot_id) {
            return Err(ProbeError::file(
                path.to_path_buf(),
                format!(
                    "slot id {} occurs more than once",
                    crate::corpus::show_id(&l.slot_id)
                ),
            ));
        }
        out.insert(l.slot_id, l.original);
    }
    Ok(out)
}

/// Reads the output of `probe run` (one [`ProbeResult`] a line).
pub fn read_probe_results(path: &Path) -> Result<Vec<ProbeResult>, ProbeError> {
    read_jsonl(path, "a probe result")
}

/// The slots of a `--set` argument: a probe-set directory or a `.jsonl` probe file; a `.csv`
/// with a `sentences` column; any other file holds one sentence a line. `lang` is given to
/// user-file slots.
pub fn read_set(path: &Path, lang: Option<&str>) -> Result<Vec<ProbeSlot>, ProbeError> {
    if path.is_dir() {
        return read_probe_slots(&path.join(PROBES_FILE));
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("jsonl") => read_probe_slots(path),
        Some("csv") => super::user_file::read_csv(path, lang),
        _ => super::user_file::read_lines(path, lang),
    }
}

/// Serializes `items` as JSONL.
pub(crate) fn to_jsonl<T: Serialize>(items: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    for item in items {
        serde_json::to_writer(&mut out, item).expect("probe types serialize");
        out.push(b'\n');
    }
    out
}

/// Writes `bytes` to `path` as one staged file (mode 0600: probe sets hold document text),
/// replacing an existing one (callers check `--overwrite` for the whole set first).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ProbeError> {
    Ok(crate::fsio::replace_file(path, bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(id: &str) -> ProbeSlot {
        ProbeSlot {
            slot_id: id.into(),
            doc_id: Some("d1".into()),
            set: SetKind::Seen,
            label: Some(Category::Name),
            subtype: Some(Subtype::Patient),
            lang: Some("nl".into()),
            text: "Mevrouw <mask> kwam.".into(),
        }
    }

    #[test]
    fn slots_round_trip_and_duplicates_fail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(PROBES_FILE);
        write_atomic(&p, &to_jsonl(&[slot("d1#1"), slot("d1#4")])).unwrap();
        let raw = std::fs::read_to_string(&p).unwrap();
        assert!(raw.starts_with(
            r#"{"slot_id":"d1#1","doc_id":"d1","set":"seen","label":"NAME","subtype":"PATIENT","lang":"nl","text":"#
        ));
        let back = read_set(dir.path(), None).unwrap();
        assert_eq!(back, vec![slot("d1#1"), slot("d1#4")]);
        write_atomic(&p, &to_jsonl(&[slot("d1#1"), slot("d1#1")])).unwrap();
        let err = read_probe_slots(&p).unwrap_err().to_string();
        assert!(
            err.contains("d1#1") && err.contains("more than once"),
            "{err}"
        );
    }

    #[test]
    fn bad_lines_name_the_line_not_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("originals.jsonl");
        std::fs::write(
            &p,
            "{\"slot_id\":\"a#1\",\"original\":\"Jansen\"}\n\n{\"slot_id\":\"a#2\",\"origin\":\"Bakker\"}\n",
        )
        .unwrap();
        let err = read_originals(&p).unwrap_err().to_string();
        assert!(err.contains(":3:"), "{err}");
        assert!(!err.contains("Bakker"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn atomic_write_sets_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(PROBES_FILE);
        write_atomic(&p, b"x\n").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
