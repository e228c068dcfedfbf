//! `release.state.json`: the fingerprint of every stage of a release run, whether it finished,
//! and the SHA-256 of each of its outputs. A stage runs again when its fingerprint (its settings,
//! the fingerprints of the stages it reads and the hashes of files a person may edit between
//! runs) changed, when it was interrupted, or when one of its outputs is gone or was changed.

use crate::error::InputError;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// File name of the state inside the release dir.
pub const STATE_FILE: &str = "release.state.json";

/// The finished stages of one release dir.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub schema: String,
    pub stages: BTreeMap<String, StageRecord>,
}

/// One stage, started or finished.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    pub fingerprint: String,
    /// Outputs relative to the release dir.
    pub outputs: Vec<PathBuf>,
    /// The stage's exit: 0, or 1 for a gate that did not pass; [`RUNNING`] while it runs (a
    /// record left so was interrupted).
    pub exit: u8,
    /// SHA-256 of each output when the stage finished (a directory: over its files' relative
    /// paths and hashes), in the order of `outputs`.
    #[serde(default)]
    pub hashes: Vec<String>,
}

/// The exit recorded for a stage that started and has not finished.
pub const RUNNING: u8 = u8::MAX;

impl StageRecord {
    /// A record for a stage that starts now.
    pub fn started(fingerprint: &str, outputs: &[&str]) -> Self {
        StageRecord {
            fingerprint: fingerprint.into(),
            outputs: outputs.iter().map(PathBuf::from).collect(),
            exit: RUNNING,
            hashes: Vec::new(),
        }
    }

    /// The record of a finished stage, with the hashes of its outputs under `dir`. Outputs in
    /// `editable` (a review file a person edits between runs) are only required to exist:
    /// their hash is recorded empty.
    pub fn finished(mut self, dir: &Path, exit: u8, editable: &[&str]) -> Result<Self, InputError> {
        self.hashes = self
            .outputs
            .iter()
            .map(|o| {
                let p = dir.join(o);
                let hash = output_hash(&p)
                    .map_err(|e| InputError::io(&p, e))?
                    .ok_or_else(|| InputError::file(&p, "the stage did not write it"))?;
                Ok(if editable.iter().any(|e| Path::new(e) == o) {
                    String::new()
                } else {
                    hash
                })
            })
            .collect::<Result<_, InputError>>()?;
        self.exit = exit;
        Ok(self)
    }

    /// Whether the stage finished and each output is still there with the recorded hash.
    pub fn intact(&self, dir: &Path) -> bool {
        self.exit != RUNNING
            && self.hashes.len() == self.outputs.len()
            && self
                .outputs
                .iter()
                .zip(&self.hashes)
                .all(|(o, h)| match output_hash(&dir.join(o)) {
                    Ok(Some(now)) => h.is_empty() || now == *h,
                    _ => false,
                })
    }
}

/// SHA-256 of a file, or of a directory (sorted relative paths and their files' hashes);
/// `None` when `path` does not exist.
pub fn output_hash(path: &Path) -> std::io::Result<Option<String>> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut h = Sha256::new();
    if meta.is_dir() {
        let mut files = Vec::new();
        list_files(path, path, &mut files)?;
        files.sort();
        for rel in files {
            let name = rel.to_string_lossy();
            h.update((name.len() as u64).to_le_bytes());
            h.update(name.as_bytes());
            h.update(file_sha256(&path.join(&rel))?);
        }
    } else {
        h.update(file_sha256(path)?);
    }
    Ok(Some(format!("{:x}", h.finalize())))
}

fn file_sha256(path: &Path) -> std::io::Result<[u8; 32]> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h)?;
    Ok(h.finalize().into())
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let p = entry.path();
        if entry.file_type()?.is_dir() {
            list_files(root, &p, out)?;
        } else {
            out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
        }
    }
    Ok(())
}

impl crate::artifact::Artifact for State {
    const SCHEMA: &'static str = "anonlm.release-state/1";
    fn schema(&self) -> &str {
        &self.schema
    }
}

impl State {
    /// The state of `dir`, empty when there is none yet.
    pub fn load(dir: &Path) -> Result<Self, InputError> {
        let path = dir.join(STATE_FILE);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State {
                schema: <Self as crate::artifact::Artifact>::SCHEMA.into(),
                stages: BTreeMap::new(),
            }),
            _ => crate::artifact::read(&path),
        }
    }

    /// The record of `stage` when it finished with this fingerprint and its outputs are
    /// still as it left them.
    pub fn done(&self, dir: &Path, stage: &str, fingerprint: &str) -> Option<&StageRecord> {
        self.stages
            .get(stage)
            .filter(|r| r.fingerprint == fingerprint && r.intact(dir))
    }

    /// Records a stage (started or finished) and writes the state atomically (mode 0600).
    pub fn finish(
        &mut self,
        dir: &Path,
        stage: &str,
        record: StageRecord,
    ) -> Result<(), crate::fsio::FsError> {
        self.stages.insert(stage.into(), record);
        let path = dir.join(STATE_FILE);
        crate::fsio::replace_file(&path, &crate::artifact::to_bytes(self))
    }
}

/// SHA-256 (hex) over the parts, each length-prefixed so that no two lists collide.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    format!("{:x}", h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_is_done_only_with_its_fingerprint_and_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut s = State::load(d).unwrap();
        assert!(s.stages.is_empty());
        std::fs::write(d.join("a.txt"), "x").unwrap();
        std::fs::create_dir(d.join("m")).unwrap();
        std::fs::write(d.join("m/w.bin"), "weights").unwrap();
        let fp = fingerprint(&["deid", "{}"]);
        let started = StageRecord::started(&fp, &["a.txt", "m"]);
        s.finish(d, "deid", started.clone()).unwrap();
        assert!(
            s.done(d, "deid", &fp).is_none(),
            "a started stage is not done"
        );
        s.finish(d, "deid", started.finished(d, 0, &[]).unwrap())
            .unwrap();
        let s = State::load(d).unwrap();
        assert!(s.done(d, "deid", &fp).is_some());
        assert!(s
            .done(d, "deid", &fingerprint(&["deid", "{\"x\":1}"]))
            .is_none());
        // A changed file inside an output directory, then a deleted output, undo the stage.
        std::fs::write(d.join("m/w.bin"), "").unwrap();
        assert!(s.done(d, "deid", &fp).is_none());
        std::fs::write(d.join("m/w.bin"), "weights").unwrap();
        assert!(s.done(d, "deid", &fp).is_some());
        std::fs::remove_file(d.join("a.txt")).unwrap();
        assert!(s.done(d, "deid", &fp).is_none());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.join(STATE_FILE)).unwrap().permissions();
        assert_eq!(mode.mode() & 0o777, 0o600);
    }

    #[test]
    fn fingerprints_separate_their_parts() {
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
