//! Packing as a stream: token lists in, full `cls … sep` blocks out, with the running digest
//! and unigram counts of what was packed, so preparation never holds more than one block.

use sha2::{Digest, Sha256};

use super::data::{Block, PackSpec};

/// Packs documents one at a time into blocks of `seq_len` ids: documents are concatenated with
/// `sep` between them, cut into pieces of `seq_len - 2`, each wrapped as `cls … sep`; the last
/// block is padded with `pad`. A separator that would open a block is dropped (the block's CLS
/// already marks the boundary). Only the last block of a stream is ever partial.
#[derive(Debug)]
pub struct Packer {
    cls: u32,
    sep: u32,
    pad: u32,
    seq_len: usize,
    room: usize,
    piece: Vec<u32>,
}

impl Packer {
    pub fn new(spec: &PackSpec, seq_len: usize) -> Self {
        let room = seq_len.saturating_sub(2).max(1);
        Packer {
            cls: spec.cls,
            sep: spec.sep,
            pad: spec.pad,
            seq_len,
            room,
            piece: Vec::with_capacity(room),
        }
    }

    /// Adds one document's ids; `emit` receives every block that fills up.
    pub fn push<E>(
        &mut self,
        doc: &[u32],
        emit: &mut impl FnMut(Block) -> Result<(), E>,
    ) -> Result<(), E> {
        if doc.is_empty() {
            return Ok(());
        }
        if !self.piece.is_empty() {
            self.piece.push(self.sep);
            if self.piece.len() == self.room {
                self.flush(emit)?;
            }
        }
        for &id in doc {
            self.piece.push(id);
            if self.piece.len() == self.room {
                self.flush(emit)?;
            }
        }
        Ok(())
    }

    /// Emits the last, partial block, if any.
    pub fn finish<E>(mut self, emit: &mut impl FnMut(Block) -> Result<(), E>) -> Result<(), E> {
        self.flush(emit)
    }

    fn flush<E>(&mut self, emit: &mut impl FnMut(Block) -> Result<(), E>) -> Result<(), E> {
        if self.piece.is_empty() {
            return Ok(());
        }
        let mut ids = Vec::with_capacity(self.seq_len);
        ids.push(self.cls);
        ids.append(&mut self.piece);
        ids.push(self.sep);
        let len = ids.len();
        ids.resize(self.seq_len, self.pad);
        emit(Block { ids, len })
    }
}

/// SHA-256 of one set's blocks in order (each block's length, then its ids, little-endian),
/// with their count: one half of the data digest.
#[derive(Debug, Clone, Default)]
pub struct BlockDigest {
    hasher: Sha256,
    n_blocks: u64,
}

impl BlockDigest {
    pub fn add(&mut self, block: &Block) {
        self.hasher.update((block.len as u64).to_le_bytes());
        for id in &block.ids {
            self.hasher.update(id.to_le_bytes());
        }
        self.n_blocks += 1;
    }

    pub fn finish(self) -> SetDigest {
        SetDigest {
            sha256: self.hasher.finalize().into(),
            n_blocks: self.n_blocks,
        }
    }
}

/// A finished [`BlockDigest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetDigest {
    pub sha256: [u8; 32],
    pub n_blocks: u64,
}

/// The data digest: SHA-256 over the spec, the settings, the corpus digest, the canary summary
/// (only when there are canaries) and both sets' block digests. Two runs see the same data
/// exactly when their digests agree.
pub fn data_digest(
    spec: &PackSpec,
    settings: &super::data::DataSettings,
    corpus_digest: &str,
    canaries: Option<&super::data::CanarySummary>,
    train: SetDigest,
    held_out: SetDigest,
) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(spec).expect("spec serializes"));
    h.update(serde_json::to_vec(settings).expect("settings serialize"));
    h.update(corpus_digest.as_bytes());
    if let Some(c) = canaries {
        h.update(b"C");
        h.update(serde_json::to_vec(c).expect("canary summary serializes"));
    }
    for (tag, set) in [(b'T', train), (b'H', held_out)] {
        h.update([tag]);
        h.update(set.sha256);
        h.update(set.n_blocks.to_le_bytes());
    }
    let d: [u8; 32] = h.finalize().into();
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Counts of the ordinary ids of one set's blocks, for the unigram baseline.
#[derive(Debug, Clone)]
pub struct UnigramCounts(Vec<u64>);

impl UnigramCounts {
    pub fn new(vocab_size: u32) -> Self {
        UnigramCounts(vec![0; vocab_size as usize])
    }

    pub fn add(&mut self, block: &Block, spec: &PackSpec) {
        for &id in &block.ids[..block.len] {
            if !spec.is_special(id) {
                self.0[id as usize] += 1;
            }
        }
    }

    fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// Cross-entropy (nats) of the held-out tokens under the unigram distribution of the training
/// tokens (add-one smoothed): the loss a model that ignores context would reach. Without
/// held-out tokens the training tokens are scored; NaN when there are none at all.
pub fn unigram_baseline(train: &UnigramCounts, held_out: &UnigramCounts) -> f64 {
    let scored = if held_out.total() == 0 {
        train
    } else {
        held_out
    };
    let n_scored = scored.total();
    if n_scored == 0 {
        return f64::NAN;
    }
    let total = (train.total() + train.0.len() as u64) as f64;
    let nll: f64 = scored
        .0
        .iter()
        .zip(&train.0)
        .filter(|(&n, _)| n > 0)
        .map(|(&n, &c)| n as f64 * -((c + 1) as f64 / total).ln())
        .sum();
    nll / n_scored as f64
}
