//! `release.state.json`: the fingerprint of every finished stage of a release run. A stage runs
//! again only when its fingerprint (its settings, the fingerprints of the stages it reads and the
//! hashes of files a person may edit between runs) changed or one of its outputs is gone.

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

/// One finished stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    pub fingerprint: String,
    /// Outputs relative to the release dir.
    pub outputs: Vec<PathBuf>,
    /// The stage's exit: 0, or 1 for a gate that did not pass.
    pub exit: u8,
}

impl State {
    const SCHEMA: &'static str = "anonlm.release-state/1";

    /// The state of `dir`, empty when there is none yet.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let path = dir.join(STATE_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let s: State = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if s.schema != Self::SCHEMA {
                    return Err(format!(
                        "{}: schema {:?}, expected {}",
                        path.display(),
                        s.schema,
                        Self::SCHEMA
                    ));
                }
                Ok(s)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(State {
                schema: Self::SCHEMA.into(),
                stages: BTreeMap::new(),
            }),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// The record of `stage` when it finished with this fingerprint and its outputs exist.
    pub fn done(&self, dir: &Path, stage: &str, fingerprint: &str) -> Option<&StageRecord> {
        self.stages.get(stage).filter(|r| {
            r.fingerprint == fingerprint && r.outputs.iter().all(|o| dir.join(o).exists())
        })
    }

    /// Records a finished stage and writes the state atomically.
    pub fn finish(&mut self, dir: &Path, stage: &str, record: StageRecord) -> Result<(), String> {
        self.stages.insert(stage.into(), record);
        let mut bytes = serde_json::to_vec_pretty(self).expect("state serializes");
        bytes.push(b'\n');
        let path = dir.join(STATE_FILE);
        let tmp = dir.join(format!("{STATE_FILE}.tmp"));
        std::fs::write(&tmp, &bytes)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("{}: {e}", path.display()))
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
        let fp = fingerprint(&["deid", "{}"]);
        s.finish(
            d,
            "deid",
            StageRecord {
                fingerprint: fp.clone(),
                outputs: vec!["a.txt".into()],
                exit: 0,
            },
        )
        .unwrap();
        let s = State::load(d).unwrap();
        assert!(s.done(d, "deid", &fp).is_some());
        assert!(s
            .done(d, "deid", &fingerprint(&["deid", "{\"x\":1}"]))
            .is_none());
        std::fs::remove_file(d.join("a.txt")).unwrap();
        assert!(s.done(d, "deid", &fp).is_none());
    }

    #[test]
    fn fingerprints_separate_their_parts() {
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
