//! The protected canary file (schema `anonlm.canaries/1`, JSON): the seed and, per canary, its
//! template, secret kind, secret, repeats and text. It holds the secrets, so it is written with
//! mode 0600, atomically, next to (never inside) the model dir that gets released.

use crate::error::ValueError;

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::secret::{keyed_rng, SecretKind};
use super::template::Template;
use super::CanaryError;
use crate::mlm::train::data::sha256_hex;

/// Version of the canary file.
pub const CANARY_SCHEMA: &str = "anonlm.canaries/1";

/// All canaries of one training run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanaryFile {
    /// Always [`CANARY_SCHEMA`].
    pub schema: String,
    /// Seed of the secrets' RNG.
    pub seed: u64,
    pub canaries: Vec<CanaryRecord>,
}

/// One canary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanaryRecord {
    /// `canary-000`, `canary-001`, …
    pub id: String,
    /// The template with its placeholder.
    pub template: String,
    pub kind: SecretKind,
    pub secret: String,
    /// Copies inserted into the training set.
    pub repeats: u64,
    /// The template filled with the secret: what the model was trained on.
    pub text: String,
}

impl CanaryFile {
    /// `per_repeat` canaries for each value of `repeats`; canary `i` of every group uses
    /// template `i` (cycling), so groups differ only in their repeats and secrets. Secrets are
    /// distinct and drawn from a ChaCha8 stream keyed by `seed`.
    pub fn generate(
        templates: &[Template],
        per_repeat: usize,
        repeats: &[u64],
        seed: u64,
    ) -> Result<Self, CanaryError> {
        if templates.is_empty() || per_repeat == 0 || repeats.is_empty() {
            return Err(CanaryError::Settings(
                "canaries need templates, at least one canary and a repeats value".into(),
            ));
        }
        let mut sorted = repeats.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != repeats.len() || sorted[0] == 0 {
            return Err(CanaryError::Settings(
                "canary repeats must be distinct and at least 1".into(),
            ));
        }
        let mut rng = keyed_rng(b"anonlm.canary.secret", &[seed]);
        let mut used: HashSet<String> = HashSet::new();
        let mut canaries = Vec::with_capacity(per_repeat * repeats.len());
        for &r in repeats {
            for i in 0..per_repeat {
                let t = &templates[i % templates.len()];
                let secret = loop {
                    let s = t.kind().draw(&mut rng);
                    if used.insert(s.clone()) {
                        break s;
                    }
                };
                canaries.push(CanaryRecord {
                    id: format!("canary-{:03}", canaries.len()),
                    template: t.text().to_string(),
                    kind: t.kind(),
                    text: t.fill(&secret),
                    secret,
                    repeats: r,
                });
            }
        }
        Ok(CanaryFile {
            schema: CANARY_SCHEMA.into(),
            seed,
            canaries,
        })
    }

    /// The file's bytes (pretty JSON and a newline): the same canaries give the same bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("canary file serializes");
        bytes.push(b'\n');
        bytes
    }

    /// SHA-256 of [`CanaryFile::to_bytes`] (hex).
    pub fn sha256(&self) -> String {
        sha256_hex(&self.to_bytes())
    }

    /// Every inserted secret.
    pub fn secrets(&self) -> HashSet<&str> {
        self.canaries.iter().map(|c| c.secret.as_str()).collect()
    }

    /// Writes the file atomically with mode 0600 (set before any byte is written).
    pub fn write(&self, path: &Path) -> Result<(), CanaryError> {
        write_private(path, &self.to_bytes())
    }

    /// Reads and checks a canary file.
    pub fn read(path: &Path) -> Result<Self, CanaryError> {
        let bytes = std::fs::read(path).map_err(|e| CanaryError::io(path, e))?;
        let invalid = |message: String| CanaryError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let file: CanaryFile =
            serde_json::from_slice(&bytes).map_err(|e| invalid(format!("JSON: {e}")))?;
        file.check().map_err(|e| invalid(e.0))?;
        Ok(file)
    }

    /// Schema, and for every canary: its template parses, its kind and secret agree with it,
    /// its text is the template filled with the secret; secrets are distinct.
    pub fn check(&self) -> Result<(), ValueError> {
        if self.schema != CANARY_SCHEMA {
            return Err(ValueError::from(format!(
                "schema '{}' (expected {CANARY_SCHEMA})",
                self.schema
            )));
        }
        if self.canaries.is_empty() {
            return Err("no canaries".into());
        }
        for c in &self.canaries {
            let t = Template::parse(&c.template)
                .map_err(|e| ValueError::from(format!("{}: template: {e}", c.id)))?;
            if t.kind() != c.kind || !c.kind.matches(&c.secret) {
                return Err(ValueError::from(format!(
                    "{}: the secret is not of the template's kind",
                    c.id
                )));
            }
            if t.fill(&c.secret) != c.text {
                return Err(ValueError::from(format!(
                    "{}: the text is not the filled template",
                    c.id
                )));
            }
            if c.repeats == 0 {
                return Err(ValueError::from(format!(
                    "{}: repeats must be at least 1",
                    c.id
                )));
            }
        }
        if self.secrets().len() != self.canaries.len() {
            return Err("two canaries share a secret".into());
        }
        Ok(())
    }
}

/// Writes `bytes` to `path` as one staged file (mode 0600 from creation), replacing it.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), CanaryError> {
    Ok(crate::fsio::replace_file(path, bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canary::template::builtin;
    use crate::Lang;

    #[test]
    fn canary_generation_is_seeded_grouped_and_round_trips() {
        let templates = builtin(Lang::Nl);
        let f = CanaryFile::generate(&templates, 3, &[1, 4, 16], 42).unwrap();
        assert_eq!(f.canaries.len(), 9);
        assert_eq!(
            f,
            CanaryFile::generate(&templates, 3, &[1, 4, 16], 42).unwrap()
        );
        assert_ne!(
            f,
            CanaryFile::generate(&templates, 3, &[1, 4, 16], 43).unwrap()
        );
        let reps: Vec<u64> = f.canaries.iter().map(|c| c.repeats).collect();
        assert_eq!(reps, [1, 1, 1, 4, 4, 4, 16, 16, 16]);
        assert_eq!(f.canaries[0].template, f.canaries[3].template);
        assert_eq!(f.secrets().len(), 9);
        f.check().unwrap();

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.canaries.json");
        f.write(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        assert_eq!(CanaryFile::read(&path).unwrap(), f);
        assert_eq!(sha256_hex(&std::fs::read(&path).unwrap()), f.sha256());

        let mut bad = f.clone();
        bad.canaries[1].text.push('!');
        bad.write(&path).unwrap();
        let err = CanaryFile::read(&path).unwrap_err().to_string();
        assert!(
            err.contains("model.canaries.json") && err.contains("canary-001"),
            "{err}"
        );
        assert!(!err.contains(&f.canaries[1].secret), "no secret in errors");
        assert!(CanaryFile::generate(&templates, 3, &[1, 1], 42).is_err());
        assert!(CanaryFile::generate(&templates, 3, &[0, 2], 42).is_err());
    }
}
