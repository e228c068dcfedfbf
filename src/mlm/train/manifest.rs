//! `manifest.json`, written next to the model: tool version, seed, settings, and for the
//! training and held-out sets the id, SHA-256 and token count of every document (never text),
//! so an audit knows what the model saw and what it did not.

use std::io::Write;
use std::path::Path;

use serde::ser::{Error as _, SerializeSeq, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};

use super::data::{CanarySummary, DocEntry, DocSet, Duplicate, PackSpec, PreparedData};
use super::error::{Result, TrainError};
use super::shards::{self, ListedDocument, ListedDuplicate};
use super::stream::Set;

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
            n_distinct_documents: data.n_distinct_documents,
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

    /// Writes the manifest of `data` trained with `settings` to `dir/manifest.json`,
    /// atomically; the document lists of a data dir are copied from its listing files one line
    /// at a time, never held in memory.
    pub fn write_for(
        data: &PreparedData,
        seed: u64,
        settings: serde_json::Value,
        dir: &Path,
    ) -> Result<()> {
        let Some(listing) = &data.listing else {
            return Manifest::new(data, seed, settings).write(dir);
        };
        let view = ListedManifest {
            tool: "anonlm",
            version: env!("CARGO_PKG_VERSION"),
            seed,
            settings: &settings,
            pack: &data.spec,
            seq_len: data.settings.seq_len,
            held_out_fraction: data.settings.held_out_fraction,
            n_input_documents: data.n_input_documents,
            n_distinct_documents: data.n_distinct_documents,
            corpus_digest: &data.corpus_digest,
            data_digest: &data.data_digest,
            train: ListedSet {
                counts: &data.train,
                dir: listing,
                set: Set::Train,
            },
            held_out: ListedSet {
                counts: &data.held_out,
                dir: listing,
                set: Set::HeldOut,
            },
            canaries: data.canaries.as_ref(),
        };
        let path = dir.join(MANIFEST_FILE);
        let mut file = crate::fsio::StagedFile::new(&path, true, &crate::fsio::Inputs::new())?;
        serde_json::to_writer_pretty(&mut file, &view)
            .and_then(|()| file.write_all(b"\n").map_err(serde_json::Error::io))
            .map_err(|source| TrainError::Json {
                path: path.clone(),
                source,
            })?;
        Ok(file.publish()?)
    }

    /// Reads `dir/manifest.json`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = std::fs::read(&path).map_err(|e| TrainError::io(&path, e))?;
        serde_json::from_slice(&bytes).map_err(|source| TrainError::Json { path, source })
    }
}

/// The manifest of data prepared in a data dir, serialized with its document lists read from
/// the listing files (the same JSON as [`Manifest`]).
#[derive(Serialize)]
struct ListedManifest<'a> {
    tool: &'a str,
    version: &'a str,
    seed: u64,
    settings: &'a serde_json::Value,
    pack: &'a PackSpec,
    seq_len: usize,
    held_out_fraction: f64,
    n_input_documents: usize,
    n_distinct_documents: usize,
    corpus_digest: &'a str,
    data_digest: &'a str,
    train: ListedSet<'a>,
    held_out: ListedSet<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canaries: Option<&'a CanarySummary>,
}

/// A [`DocSet`] whose lists are in a data dir's listing files.
struct ListedSet<'a> {
    counts: &'a DocSet,
    dir: &'a Path,
    set: Set,
}

/// One of a set's lists, streamed from its file.
struct Listing<'a> {
    dir: &'a Path,
    set: Set,
    duplicates: bool,
}

impl Serialize for ListedSet<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut st = serializer.serialize_struct("DocSet", 5)?;
        st.serialize_field("n_documents", &self.counts.n_documents)?;
        st.serialize_field("n_tokens", &self.counts.n_tokens)?;
        st.serialize_field("n_blocks", &self.counts.n_blocks)?;
        for (name, duplicates) in [("documents", false), ("duplicates", true)] {
            let list = Listing {
                dir: self.dir,
                set: self.set,
                duplicates,
            };
            st.serialize_field(name, &list)?;
        }
        st.end()
    }
}

impl Serialize for Listing<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let name = self.set.name();
        if self.duplicates {
            let lines = shards::read_listing::<ListedDuplicate>(self.dir, shards::DUPLICATES_FILE)
                .map_err(S::Error::custom)?;
            for line in lines {
                let line = line.map_err(S::Error::custom)?;
                if line.set == name {
                    seq.serialize_element::<Duplicate>(&line.duplicate)?;
                }
            }
        } else {
            let lines = shards::read_listing::<ListedDocument>(self.dir, shards::DOCUMENTS_FILE)
                .map_err(S::Error::custom)?;
            for line in lines {
                let line = line.map_err(S::Error::custom)?;
                if line.set == name {
                    seq.serialize_element::<DocEntry>(&line.entry)?;
                }
            }
        }
        seq.end()
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
                assert_eq!(d.same_as, "doc-07", "the first occurrence is listed");
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
            let mut v: Vec<String> = s.documents.iter().map(|e| e.sha256.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(ids(&data2.held_out), ids(&m.held_out));
        assert_eq!(data2.corpus_digest, m.corpus_digest);
    }
}
