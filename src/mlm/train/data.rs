//! Training data: documents → SHA-256 → deduplicated, deterministic held-out split → caller's
//! tokenizer → packed blocks of `seq_len` ids (CLS … SEP, padded) → per-epoch shuffles.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::blocks::Blocks;
use super::error::{Result, TrainError};
use super::pack::Packer;
use super::seeds::{self, Purpose};
use super::stream::{self, MemorySink};
use crate::Document;

/// The special ids packing and masking need (from the model's tokenizer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackSpec {
    /// `[CLS]` or `<s>`: first id of every block.
    pub cls: u32,
    /// `[SEP]` or `</s>`: last id of every block and separator between documents.
    pub sep: u32,
    /// Padding id of the last, partial block.
    pub pad: u32,
    /// `[MASK]` or `<mask>`.
    pub mask: u32,
    /// Size of the model's vocabulary (every id must be below it).
    pub vocab_size: u32,
    /// All special ids (cls, sep, pad and mask are added if missing): never masked, never drawn
    /// as random replacements.
    pub special_ids: Vec<u32>,
}

impl PackSpec {
    /// Checks the ids and returns the spec with `special_ids` sorted, deduplicated and holding
    /// cls, sep, pad and mask.
    pub fn normalized(mut self) -> Result<Self> {
        self.special_ids
            .extend([self.cls, self.sep, self.pad, self.mask]);
        self.special_ids.sort_unstable();
        self.special_ids.dedup();
        if let Some(&bad) = self.special_ids.iter().find(|&&id| id >= self.vocab_size) {
            return Err(TrainError::Settings(format!(
                "special id {bad} is outside the vocabulary of size {}",
                self.vocab_size
            )));
        }
        if self.special_ids.len() as u32 >= self.vocab_size {
            return Err(TrainError::Settings(
                "the vocabulary holds no ordinary (non-special) ids".into(),
            ));
        }
        Ok(self)
    }

    /// Whether `id` is special (expects a normalized spec).
    pub fn is_special(&self, id: u32) -> bool {
        self.special_ids.binary_search(&id).is_ok()
    }

    /// Ordinary ids, the pool random replacements are drawn from.
    pub fn ordinary_ids(&self) -> Vec<u32> {
        (0..self.vocab_size)
            .filter(|&id| !self.is_special(id))
            .collect()
    }
}

/// One packed training sequence: `ids` has exactly `seq_len` entries, the first `len` real.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub ids: Vec<u32>,
    pub len: usize,
}

/// Data preparation settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSettings {
    /// Tokens per block including CLS and SEP (at least 3).
    pub seq_len: usize,
    /// Fraction of distinct documents held out for evaluation (0 for none; otherwise at least
    /// one document when there are two or more).
    pub held_out_fraction: f64,
    /// Seed of the held-out choice.
    pub seed: u64,
}

/// One distinct document of a set: its id, text hash and token count (never its text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocEntry {
    pub doc_id: String,
    pub sha256: String,
    pub n_tokens: u64,
}

/// A document whose text is identical to the one listed under `same_as`; counted once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Duplicate {
    pub doc_id: String,
    pub sha256: String,
    pub same_as: String,
}

/// The documents of one set (training or held-out).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocSet {
    pub n_documents: usize,
    pub n_tokens: u64,
    pub n_blocks: usize,
    pub documents: Vec<DocEntry>,
    pub duplicates: Vec<Duplicate>,
}

/// Tokenized, split and packed data, ready for the loop.
#[derive(Debug)]
pub struct PreparedData {
    pub spec: PackSpec,
    pub settings: DataSettings,
    pub train_blocks: Blocks,
    pub held_out_blocks: Blocks,
    /// With `listing`, counts only: the documents are listed in the data dir.
    pub train: DocSet,
    pub held_out: DocSet,
    /// The data dir whose listing files hold the documents (prepared by `mlm prepare`).
    pub listing: Option<PathBuf>,
    /// SHA-256 over the sorted distinct document hashes (hex, one per line).
    pub corpus_digest: String,
    /// Number of input documents, duplicates included.
    pub n_input_documents: usize,
    /// Distinct texts (each counted once, in one set).
    pub n_distinct_documents: usize,
    /// Canaries inserted into the training blocks, if any (non-secret facts only).
    pub canaries: Option<CanarySummary>,
    /// See [`super::pack::data_digest`].
    pub data_digest: String,
    /// See [`super::pack::unigram_baseline`].
    pub unigram_baseline: f64,
}

/// Canaries to insert into the training set (see [`prepare_with_canaries`]).
#[derive(Debug, Clone)]
pub struct CanaryInsert<'a> {
    /// Each canary's id, text and number of copies.
    pub canaries: Vec<(&'a str, &'a str, u64)>,
    /// SHA-256 of the protected canary file they come from.
    pub file_sha256: String,
}

/// What the manifest and the resume check record about inserted canaries: counts, repeats and
/// the canary file's hash, never a canary's text, secret or per-canary hash (a hash of a short
/// sentence with a low-entropy secret can be brute-forced from the template).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanarySummary {
    /// Distinct canaries.
    pub n_canaries: usize,
    /// The distinct repeat values, ascending.
    pub repeats: Vec<u64>,
    /// Copies inserted in all (each canary's repeats, summed).
    pub n_copies: u64,
    /// Tokens of all inserted copies.
    pub n_tokens: u64,
    /// SHA-256 of the protected canary file.
    pub file_sha256: String,
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    stream::hex(&Sha256::digest(bytes))
}

/// Which of the distinct text hashes (hex) are held out: the lowest held-out ranks (see
/// [`stream::held_out_flags`]), so the choice depends on the texts and the seed, not the order.
pub fn held_out_hashes(hashes: &[&str], fraction: f64, seed: u64) -> Vec<bool> {
    let key = seeds::key(Purpose::HeldOut, &[seed]);
    let ranks: Vec<u128> = hashes
        .iter()
        .map(|h| stream::held_out_rank(&key, h))
        .collect();
    stream::held_out_flags(&ranks, fraction)
}

/// Packs documents (token lists without special tokens) into blocks: documents are
/// concatenated with `sep` between them, cut into pieces of `seq_len - 2`, each wrapped as
/// `cls … sep`; the last block is padded with `pad`. A separator that would open a block is
/// dropped (the block's CLS already marks the boundary).
pub fn pack(docs: &[Vec<u32>], spec: &PackSpec, seq_len: usize) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut emit = |b: Block| -> std::result::Result<(), std::convert::Infallible> {
        blocks.push(b);
        Ok(())
    };
    let mut packer = Packer::new(spec, seq_len);
    for doc in docs {
        let Ok(()) = packer.push(doc, &mut emit);
    }
    let Ok(()) = packer.finish(&mut emit);
    blocks
}

/// The order in which epoch `epoch` visits `n` blocks (fewer than 2^32): a Fisher–Yates shuffle
/// seeded by (seed, epoch). Four bytes a block: the order of a 13 GB corpus is some 25 MB.
pub fn epoch_order(n: usize, seed: u64, epoch: u64) -> Vec<u32> {
    use rand::seq::SliceRandom;
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(&mut seeds::rng(Purpose::Shuffle, &[seed, epoch]));
    order
}

/// Hashes, deduplicates, splits, tokenizes (through `tokenize`, which must add no special
/// tokens) and packs `docs`.
pub fn prepare<F, E>(
    docs: &[Document],
    spec: PackSpec,
    settings: DataSettings,
    tokenize: F,
) -> Result<PreparedData>
where
    F: Fn(&str) -> std::result::Result<Vec<u32>, E> + Sync,
    E: std::fmt::Display,
{
    prepare_with_canaries(docs, None, spec, settings, tokenize)
}

/// [`prepare`], and with `canaries` each canary's copies inserted among the training documents
/// (never the held-out ones) at places drawn from the data seed, before packing: every copy is
/// packed and masked like an ordinary document. Copies are not deduplicated, and canaries are
/// not listed in the training [`DocSet`] (see [`CanarySummary`]).
pub fn prepare_with_canaries<F, E>(
    docs: &[Document],
    canaries: Option<&CanaryInsert<'_>>,
    spec: PackSpec,
    settings: DataSettings,
    tokenize: F,
) -> Result<PreparedData>
where
    F: Fn(&str) -> std::result::Result<Vec<u32>, E> + Sync,
    E: std::fmt::Display,
{
    let spec = spec.normalized()?;
    let tokenize = |t: &str| tokenize(t).map_err(|e| e.to_string());
    let mut open =
        || -> Result<stream::DocStream<'_>> { Ok(Box::new(docs.iter().cloned().map(Ok))) };
    let mut sink = MemorySink::default();
    let summary = stream::prepare_streaming(
        &mut open,
        canaries,
        &spec,
        &settings,
        &tokenize,
        &mut sink,
        &mut |_| {},
    )?;
    sink.resolve_duplicates();
    let [train_blocks, held_out_blocks] = sink.blocks;
    let [train_docs, held_docs] = sink.documents;
    let [train_dups, held_dups] = sink.duplicates;
    let [mut train, mut held_out] = summary.sets;
    (train.documents, train.duplicates) = (train_docs, train_dups);
    (held_out.documents, held_out.duplicates) = (held_docs, held_dups);
    Ok(PreparedData {
        spec,
        settings,
        train_blocks: train_blocks.into(),
        held_out_blocks: held_out_blocks.into(),
        train,
        held_out,
        listing: None,
        corpus_digest: summary.corpus_digest,
        n_input_documents: summary.n_input_documents,
        n_distinct_documents: summary.n_distinct_documents,
        canaries: summary.canaries,
        data_digest: summary.data_digest,
        unigram_baseline: summary.unigram_baseline,
    })
}

impl DataSettings {
    /// Checks the block length and the held-out fraction.
    pub fn validate(&self) -> Result<()> {
        if self.seq_len < 3 {
            return Err(TrainError::Settings(format!(
                "seq_len {} leaves no room between CLS and SEP",
                self.seq_len
            )));
        }
        if !(0.0..1.0).contains(&self.held_out_fraction) {
            return Err(TrainError::Settings(format!(
                "held-out fraction {} is not in [0, 1)",
                self.held_out_fraction
            )));
        }
        Ok(())
    }
}

impl PreparedData {
    /// The unigram baseline (see [`super::pack::unigram_baseline`]).
    pub fn unigram_baseline(&self) -> f64 {
        self.unigram_baseline
    }

    /// The data digest: two runs see the same data exactly when their digests agree.
    pub fn digest(&self) -> String {
        self.data_digest.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PackSpec {
        PackSpec {
            cls: 1,
            sep: 2,
            pad: 0,
            mask: 3,
            vocab_size: 50,
            special_ids: vec![4],
        }
        .normalized()
        .unwrap()
    }

    #[test]
    fn spec_normalizes_specials() {
        let s = spec();
        assert_eq!(s.special_ids, vec![0, 1, 2, 3, 4]);
        assert!(s.is_special(3) && !s.is_special(5));
        assert_eq!(s.ordinary_ids().len(), 45);
        let bad = PackSpec {
            vocab_size: 3,
            ..spec()
        };
        assert!(bad.normalized().is_err());
    }

    #[test]
    fn packing_wraps_separates_and_pads() {
        let docs = vec![vec![10, 11, 12], vec![], vec![13, 14], vec![15]];
        let blocks = pack(&docs, &spec(), 6);
        // stream: 10 11 12 SEP 13 14 SEP 15; room 4 per block.
        assert_eq!(
            blocks,
            vec![
                Block {
                    ids: vec![1, 10, 11, 12, 2, 2],
                    len: 6
                },
                Block {
                    ids: vec![1, 13, 14, 2, 15, 2],
                    len: 6
                },
            ]
        );
        let blocks = pack(&[vec![10, 11, 12, 13], vec![14]], &spec(), 6);
        // The separator after a full block is dropped; the last block is padded.
        assert_eq!(
            blocks[1],
            Block {
                ids: vec![1, 14, 2, 0, 0, 0],
                len: 3
            }
        );
    }

    #[test]
    fn held_out_split_is_order_independent_and_seeded() {
        let hashes: Vec<String> = (0..40)
            .map(|i| sha256_hex(format!("d{i}").as_bytes()))
            .collect();
        let refs: Vec<&str> = hashes.iter().map(|s| s.as_str()).collect();
        let a = held_out_hashes(&refs, 0.1, 7);
        assert_eq!(a.iter().filter(|&&x| x).count(), 4);
        let mut rev = refs.clone();
        rev.reverse();
        let mut b = held_out_hashes(&rev, 0.1, 7);
        b.reverse();
        assert_eq!(a, b);
        assert_ne!(a, held_out_hashes(&refs, 0.1, 8));
        assert_eq!(
            held_out_hashes(&refs[..2], 0.01, 7)
                .iter()
                .filter(|&&x| x)
                .count(),
            1
        );
        assert_eq!(held_out_hashes(&refs[..1], 0.5, 7), vec![false]);
    }

    #[test]
    fn shuffles_are_per_epoch_and_reproducible() {
        let a = epoch_order(100, 3, 0);
        assert_eq!(a, epoch_order(100, 3, 0));
        assert_ne!(a, epoch_order(100, 3, 1));
        let mut s = a.clone();
        s.sort();
        assert_eq!(s, (0..100u32).collect::<Vec<_>>());
    }

    #[test]
    fn canary_copies_go_to_training_blocks_only_and_change_the_digest() {
        let docs: Vec<Document> = (0..30)
            .map(|i| Document::new(format!("d{i}"), format!("w{i} some words here {i}")))
            .collect();
        let tokenize = |t: &str| -> std::result::Result<Vec<u32>, String> {
            Ok(t.split_whitespace()
                .map(|w| {
                    if w == "CANARY" {
                        45
                    } else {
                        10 + w.len() as u32 % 30
                    }
                })
                .collect())
        };
        let settings = DataSettings {
            seq_len: 8,
            held_out_fraction: 0.2,
            seed: 3,
        };
        let plain = prepare(&docs, spec(), settings.clone(), tokenize).unwrap();
        let insert = CanaryInsert {
            canaries: vec![
                ("canary-000", "CANARY CANARY", 5),
                ("canary-001", "CANARY", 2),
            ],
            file_sha256: "ab".repeat(32),
        };
        let with = prepare_with_canaries(&docs, Some(&insert), spec(), settings.clone(), tokenize)
            .unwrap();
        let count = |blocks: &Blocks| {
            blocks
                .in_memory()
                .unwrap()
                .iter()
                .flat_map(|b| &b.ids[..b.len])
                .filter(|&&id| id == 45)
                .count()
        };
        assert_eq!(count(&with.train_blocks), 12);
        assert_eq!(count(&with.held_out_blocks), 0);
        assert_eq!(
            with.held_out_blocks.in_memory(),
            plain.held_out_blocks.in_memory()
        );
        assert_eq!(
            (
                &with.train.documents,
                with.train.n_documents,
                with.train.n_tokens
            ),
            (
                &plain.train.documents,
                plain.train.n_documents,
                plain.train.n_tokens
            ),
            "canaries are not listed as documents"
        );
        let c = with.canaries.as_ref().unwrap();
        assert_eq!((c.n_canaries, c.n_copies, c.n_tokens), (2, 7, 12));
        assert_eq!(c.repeats, vec![2, 5]);
        assert_ne!(with.digest(), plain.digest());
        let again =
            prepare_with_canaries(&docs, Some(&insert), spec(), settings, tokenize).unwrap();
        assert_eq!(again.digest(), with.digest(), "placement is seeded");
    }

    #[test]
    fn prepare_reports_tokenizer_errors_by_id_and_range() {
        let docs = vec![Document::new("a", "x y"), Document::new("b", "zz")];
        let err = prepare(
            &docs,
            spec(),
            DataSettings {
                seq_len: 8,
                held_out_fraction: 0.0,
                seed: 1,
            },
            |t: &str| {
                if t == "zz" {
                    Err("unknown word")
                } else {
                    Ok(vec![10, 11])
                }
            },
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("document b") && !err.contains("zz"), "{err}");
        let err = prepare(
            &docs,
            spec(),
            DataSettings {
                seq_len: 8,
                held_out_fraction: 0.0,
                seed: 1,
            },
            |_: &str| Ok::<_, String>(vec![99]),
        )
        .unwrap_err();
        assert!(matches!(err, TrainError::TokenOutOfRange { id: 99, .. }));
    }
}
