//! `manifest.json`, written next to the model: tool version, seed, settings, and for the
//! training and held-out sets the id, SHA-256 and token count of every document (never text),
//! so an audit knows what the model saw and what it did not.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::data::{CanarySummary, DocSet, PackSpec, PreparedData};
use super::error::{Result, TrainError};

/// File name of the manifest inside the model directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// What a trained model saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// "anonlm".
    pub tool: String,
    /// Crate version of the tool that trained the model.
    pub version: String,
    pub seed: u64,
    /// The training settings as given (JSON object).
    pub settings: serde_json::Value,
    pub pack: PackSpec,
    pub seq_len: usize,
    pub held_out_fraction: f64,
    /// Input documents, duplicates included.
    pub n_input_documents: usize,
    /// Distinct texts (each counted once, in one set).
    pub n_distinct_documents: usize,
    /// SHA-256 over the sorted distinct document hashes (hex, one per line).
    pub corpus_digest: String,
    /// SHA-256 over the packed ids and data settings (what the loop actually consumed).
    pub data_digest: String,
    pub train: DocSet,
    pub held_out: DocSet,
    /// Canaries inserted into the training set (`mlm train --canaries`): counts, repeats and
    /// the protected canary file's SHA-256 only. Canary copies are not listed among the
    /// training documents: a hash of a short sentence whose only unknown is a low-entropy
    /// secret can be brute-forced from the template. Absent in older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canaries: Option<CanarySummary>,
}

impl Manifest {
    /// The manifest of `data` trained with `settings` (any serializable settings value).
    pub fn new(data: &PreparedData, seed: u64, settings: serde_json::Value) -> Self {
        Manifest {
            tool: "anonlm".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            seed,
            settings,
            pack: data.spec.clone(),
            seq_len: data.settings.seq_len,
            held_out_fraction: data.settings.held_out_fraction,
            n_input_documents: data.n_input_documents,
            n_distinct_documents: data.train.documents.len() + data.held_out.documents.len(),
            corpus_digest: data.corpus_digest.clone(),
            data_digest: data.digest(),
            train: data.train.clone(),
            held_out: data.held_out.clone(),
            canaries: data.canaries.clone(),
        }
    }

    /// Writes the manifest as pretty JSON to `dir/manifest.json`, atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("manifest serializes");
        bytes.push(b'\n');
        Ok(crate::fsio::replace_file(&dir.join(MANIFEST_FILE), &bytes)?)
    }

    /// Reads `dir/manifest.json`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = std::fs::read(&path).map_err(|e| TrainError::io(&path, e))?;
        serde_json::from_slice(&bytes).map_err(|source| TrainError::Json { path, source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mlm::train::data::{prepare, sha256_hex, DataSettings};
    use crate::Document;
    use std::collections::HashMap;

    #[test]
    fn every_document_listed_once_with_correct_hash_and_no_text() {
        let mut docs: Vec<Document> = (0..60)
            .map(|i| {
                Document::new(
                    format!("doc-{i:02}"),
                    format!("secret words number w{i} here"),
                )
            })
            .collect();
        // Two duplicates of doc-07's text under other ids.
        docs.push(Document::new("copy-a", docs[7].text.clone()));
        docs.push(Document::new("copy-b", docs[7].text.clone()));
        let spec = PackSpec {
            cls: 0,
            sep: 1,
            pad: 2,
            mask: 3,
            vocab_size: 100,
            special_ids: vec![],
        };
        let tokenize = |t: &str| -> std::result::Result<Vec<u32>, String> {
            Ok(t.split_whitespace()
                .map(|w| 4 + (w.len() as u32 % 90))
                .collect())
        };
        let settings = DataSettings {
            seq_len: 16,
            held_out_fraction: 0.1,
            seed: 5,
        };
        let data = prepare(&docs, spec, settings, tokenize).unwrap();
        let m = Manifest::new(&data, 5, serde_json::json!({"lr": 1e-3}));
        let dir = tempfile::tempdir().unwrap();
        m.write(dir.path()).unwrap();
        let back = Manifest::read(dir.path()).unwrap();
        assert_eq!(back, m);
        let raw = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).unwrap();
        assert!(!raw.contains("secret"), "no text in the manifest");

        let mut seen: HashMap<String, String> = HashMap::new();
        for set in [&m.train, &m.held_out] {
            for e in &set.documents {
                assert!(seen.insert(e.doc_id.clone(), e.sha256.clone()).is_none());
                assert_eq!(e.n_tokens, 5);
            }
            for d in &set.duplicates {
                assert!(seen.insert(d.doc_id.clone(), d.sha256.clone()).is_none());
                assert_eq!(d.same_as, "copy-a", "the smallest id of the group is kept");
            }
        }
        assert_eq!(seen.len(), docs.len(), "every input id exactly once");
        for d in &docs {
            assert_eq!(seen[&d.id], sha256_hex(d.text.as_bytes()), "{}", d.id);
        }
        assert_eq!(m.n_input_documents, 62);
        assert_eq!(m.n_distinct_documents, 60);
        assert_eq!(m.held_out.documents.len(), 6);
        assert_eq!(m.train.n_documents + m.held_out.n_documents, 62);
        // The held-out choice does not depend on the input order.
        let mut rev = docs.clone();
        rev.reverse();
        let spec2 = data.spec.clone();
        let data2 = prepare(&rev, spec2, data.settings.clone(), tokenize).unwrap();
        let ids = |s: &DocSet| {
            let mut v: Vec<String> = s.documents.iter().map(|e| e.doc_id.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(ids(&data2.held_out), ids(&m.held_out));
        assert_eq!(data2.corpus_digest, m.corpus_digest);
    }
}
