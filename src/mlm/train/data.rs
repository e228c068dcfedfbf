//! Training data: documents → SHA-256 → deduplicated, deterministic held-out split → caller's
//! tokenizer → packed blocks of `seq_len` ids (CLS … SEP, padded) → per-epoch shuffles.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::{Result, TrainError};
use super::seeds::{self, Purpose};
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
#[derive(Debug, Clone)]
pub struct PreparedData {
    pub spec: PackSpec,
    pub settings: DataSettings,
    pub train_blocks: Vec<Block>,
    pub held_out_blocks: Vec<Block>,
    pub train: DocSet,
    pub held_out: DocSet,
    /// SHA-256 over the sorted distinct document hashes (hex, one per line).
    pub corpus_digest: String,
    /// Number of input documents, duplicates included.
    pub n_input_documents: usize,
    /// Canaries inserted into the training blocks, if any (non-secret facts only).
    pub canaries: Option<CanarySummary>,
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
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Which of the distinct text hashes are held out: rank every hash by SHA-256(seed, hash) and
/// hold out the first `k`, so the choice depends on the texts and the seed, not on the order.
pub fn held_out_hashes(hashes: &[&str], fraction: f64, seed: u64) -> Vec<bool> {
    let n = hashes.len();
    let k = if fraction <= 0.0 || n < 2 {
        0
    } else {
        ((fraction * n as f64).round() as usize).clamp(1, n - 1)
    };
    let key = seeds::key(Purpose::HeldOut, &[seed]);
    let mut ranked: Vec<([u8; 32], &str, usize)> = hashes
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let mut hasher = Sha256::new();
            hasher.update(key);
            hasher.update(h.as_bytes());
            let rank: [u8; 32] = hasher.finalize().into();
            (rank, *h, i)
        })
        .collect();
    ranked.sort();
    let mut out = vec![false; n];
    for (_, _, i) in ranked.into_iter().take(k) {
        out[i] = true;
    }
    out
}

/// Packs documents (token lists without special tokens) into blocks: documents are
/// concatenated with `sep` between them, cut into pieces of `seq_len - 2`, each wrapped as
/// `cls … sep`; the last block is padded with `pad`. A separator that would open a block is
/// dropped (the block's CLS already marks the boundary).
pub fn pack(docs: &[Vec<u32>], spec: &PackSpec, seq_len: usize) -> Vec<Block> {
    let room = seq_len.saturating_sub(2).max(1);
    let mut blocks = Vec::new();
    let mut piece: Vec<u32> = Vec::with_capacity(room);
    let flush = |piece: &mut Vec<u32>, blocks: &mut Vec<Block>| {
        if piece.is_empty() {
            return;
        }
        let mut ids = Vec::with_capacity(seq_len);
        ids.push(spec.cls);
        ids.append(piece);
        ids.push(spec.sep);
        let len = ids.len();
        ids.resize(seq_len, spec.pad);
        blocks.push(Block { ids, len });
    };
    for doc in docs.iter().filter(|d| !d.is_empty()) {
        if !piece.is_empty() {
            piece.push(spec.sep);
            if piece.len() == room {
                flush(&mut piece, &mut blocks);
            }
        }
        for &id in doc {
            piece.push(id);
            if piece.len() == room {
                flush(&mut piece, &mut blocks);
            }
        }
    }
    flush(&mut piece, &mut blocks);
    blocks
}

/// The order in which epoch `epoch` visits `n` blocks: a Fisher–Yates shuffle seeded by
/// (seed, epoch).
pub fn epoch_order(n: usize, seed: u64, epoch: u64) -> Vec<usize> {
    use rand::seq::SliceRandom;
    let mut order: Vec<usize> = (0..n).collect();
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
    F: FnMut(&str) -> std::result::Result<Vec<u32>, E>,
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
    mut tokenize: F,
) -> Result<PreparedData>
where
    F: FnMut(&str) -> std::result::Result<Vec<u32>, E>,
    E: std::fmt::Display,
{
    let spec = spec.normalized()?;
    if settings.seq_len < 3 {
        return Err(TrainError::Settings(format!(
            "seq_len {} leaves no room between CLS and SEP",
            settings.seq_len
        )));
    }
    if !(0.0..1.0).contains(&settings.held_out_fraction) {
        return Err(TrainError::Settings(format!(
            "held-out fraction {} is not in [0, 1)",
            settings.held_out_fraction
        )));
    }
    // Distinct texts, in order of first appearance; the canonical id of a text is its
    // smallest id, so the listing does not depend on the input order.
    let hashes: Vec<String> = docs.iter().map(|d| sha256_hex(d.text.as_bytes())).collect();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut first_seen: Vec<&str> = Vec::new();
    for (i, h) in hashes.iter().enumerate() {
        let g = groups.entry(h.as_str()).or_default();
        if g.is_empty() {
            first_seen.push(h.as_str());
        }
        g.push(i);
    }
    let held = held_out_hashes(&first_seen, settings.held_out_fraction, settings.seed);
    let mut corpus = String::new();
    for h in groups.keys() {
        corpus.push_str(h);
        corpus.push('\n');
    }
    let corpus_digest = sha256_hex(corpus.as_bytes());

    let mut sets = [DocSet::default(), DocSet::default()];
    let mut tokens: [Vec<Vec<u32>>; 2] = [Vec::new(), Vec::new()];
    for (h, &is_held) in first_seen.iter().zip(&held) {
        let members = &groups[h];
        let canon = *members
            .iter()
            .min_by(|&&a, &&b| docs[a].id.cmp(&docs[b].id).then(a.cmp(&b)))
            .expect("non-empty group");
        let doc = &docs[canon];
        let ids = tokenize(&doc.text).map_err(|e| TrainError::Tokenize {
            doc_id: doc.id.clone(),
            message: e.to_string(),
        })?;
        if let Some(&id) = ids.iter().find(|&&id| id >= spec.vocab_size) {
            return Err(TrainError::TokenOutOfRange {
                doc_id: doc.id.clone(),
                id,
                vocab_size: spec.vocab_size,
            });
        }
        let set = &mut sets[is_held as usize];
        set.n_documents += members.len();
        set.n_tokens += ids.len() as u64;
        set.documents.push(DocEntry {
            doc_id: doc.id.clone(),
            sha256: h.to_string(),
            n_tokens: ids.len() as u64,
        });
        for &m in members.iter().filter(|&&m| m != canon) {
            set.duplicates.push(Duplicate {
                doc_id: docs[m].id.clone(),
                sha256: h.to_string(),
                same_as: doc.id.clone(),
            });
        }
        tokens[is_held as usize].push(ids);
    }
    let canaries = match canaries {
        Some(insert) => Some(insert_canaries(
            &mut tokens[0],
            insert,
            &spec,
            settings.seed,
            &mut tokenize,
        )?),
        None => None,
    };
    let train_blocks = pack(&tokens[0], &spec, settings.seq_len);
    let held_out_blocks = pack(&tokens[1], &spec, settings.seq_len);
    let [mut train, mut held_out] = sets;
    train.n_blocks = train_blocks.len();
    held_out.n_blocks = held_out_blocks.len();
    if train_blocks.is_empty() {
        return Err(TrainError::NoData(format!(
            "{} documents yield no training tokens",
            docs.len()
        )));
    }
    Ok(PreparedData {
        spec,
        settings,
        train_blocks,
        held_out_blocks,
        train,
        held_out,
        corpus_digest,
        n_input_documents: docs.len(),
        canaries,
    })
}

/// Tokenizes each canary and inserts its copies into `train` (token lists of the training
/// documents) at uniformly drawn places, from a stream keyed by the data seed.
fn insert_canaries<F, E>(
    train: &mut Vec<Vec<u32>>,
    insert: &CanaryInsert<'_>,
    spec: &PackSpec,
    seed: u64,
    tokenize: &mut F,
) -> Result<CanarySummary>
where
    F: FnMut(&str) -> std::result::Result<Vec<u32>, E>,
    E: std::fmt::Display,
{
    use rand::Rng;
    let mut rng = seeds::rng(Purpose::Canary, &[seed]);
    let mut summary = CanarySummary {
        n_canaries: insert.canaries.len(),
        repeats: Vec::new(),
        n_copies: 0,
        n_tokens: 0,
        file_sha256: insert.file_sha256.clone(),
    };
    for &(id, text, repeats) in &insert.canaries {
        let ids = tokenize(text).map_err(|e| TrainError::Tokenize {
            doc_id: id.to_string(),
            message: e.to_string(),
        })?;
        if let Some(&bad) = ids.iter().find(|&&t| t >= spec.vocab_size) {
            return Err(TrainError::TokenOutOfRange {
                doc_id: id.to_string(),
                id: bad,
                vocab_size: spec.vocab_size,
            });
        }
        if ids.is_empty() {
            return Err(TrainError::NoData(format!("canary {id} has no tokens")));
        }
        for _ in 0..repeats {
            let at = rng.gen_range(0..=train.len());
            train.insert(at, ids.clone());
        }
        summary.repeats.push(repeats);
        summary.n_copies += repeats;
        summary.n_tokens += repeats * ids.len() as u64;
    }
    summary.repeats.sort_unstable();
    summary.repeats.dedup();
    Ok(summary)
}

impl PreparedData {
    /// Cross-entropy (nats) of the held-out tokens under the unigram distribution of the
    /// training tokens (add-one smoothed): the loss a model that ignores context would reach.
    pub fn unigram_baseline(&self) -> f64 {
        let spec = &self.spec;
        let mut counts = vec![1u64; spec.vocab_size as usize];
        let tokens = |blocks: &[Block]| -> Vec<u32> {
            blocks
                .iter()
                .flat_map(|b| b.ids[..b.len].iter().copied())
                .filter(|&id| !spec.is_special(id))
                .collect()
        };
        for id in tokens(&self.train_blocks) {
            counts[id as usize] += 1;
        }
        let total: u64 = counts.iter().sum();
        let held = tokens(if self.held_out_blocks.is_empty() {
            &self.train_blocks
        } else {
            &self.held_out_blocks
        });
        if held.is_empty() {
            return f64::NAN;
        }
        let nll: f64 = held
            .iter()
            .map(|&id| -((counts[id as usize] as f64) / total as f64).ln())
            .sum();
        nll / held.len() as f64
    }

    /// SHA-256 over the spec, the settings and every packed id: two runs see the same data
    /// exactly when their digests agree.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update(serde_json::to_vec(&self.spec).expect("spec serializes"));
        h.update(serde_json::to_vec(&self.settings).expect("settings serialize"));
        h.update(self.corpus_digest.as_bytes());
        // Only with canaries, so the digests of runs without them are unchanged.
        if let Some(c) = &self.canaries {
            h.update(b"C");
            h.update(serde_json::to_vec(c).expect("canary summary serializes"));
        }
        for (tag, blocks) in [(b'T', &self.train_blocks), (b'H', &self.held_out_blocks)] {
            h.update([tag]);
            h.update((blocks.len() as u64).to_le_bytes());
            for b in blocks.iter() {
                h.update((b.len as u64).to_le_bytes());
                for id in &b.ids {
                    h.update(id.to_le_bytes());
                }
            }
        }
        let d: [u8; 32] = h.finalize().into();
        d.iter().map(|b| format!("{b:02x}")).collect()
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
        assert_eq!(s, (0..100).collect::<Vec<_>>());
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
        let count = |blocks: &[Block]| {
            blocks
                .iter()
                .flat_map(|b| &b.ids[..b.len])
                .filter(|&&id| id == 45)
                .count()
        };
        assert_eq!(count(&with.train_blocks), 12);
        assert_eq!(count(&with.held_out_blocks), 0);
        assert_eq!(with.held_out_blocks, plain.held_out_blocks);
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
