//! The packed blocks the loop reads: held in memory (small corpora, tests, benchmarks) or read
//! block by block from the token-id shards of a data dir, so training memory does not grow with
//! the corpus.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use super::data::Block;
use super::error::{Result, TrainError};

/// One set's blocks (training or held-out).
#[derive(Debug)]
pub enum Blocks {
    Memory(Vec<Block>),
    Shards(ShardSet),
}

impl Default for Blocks {
    fn default() -> Self {
        Blocks::Memory(Vec::new())
    }
}

impl From<Vec<Block>> for Blocks {
    fn from(blocks: Vec<Block>) -> Self {
        Blocks::Memory(blocks)
    }
}

impl Blocks {
    pub fn len(&self) -> usize {
        match self {
            Blocks::Memory(v) => v.len(),
            Blocks::Shards(s) => s.n_blocks,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Block `i` (below [`Blocks::len`]).
    pub fn get(&self, i: usize) -> Result<Block> {
        match self {
            Blocks::Memory(v) => Ok(v[i].clone()),
            Blocks::Shards(s) => s.read(i),
        }
    }

    /// The blocks of an in-memory set (`None` for shards).
    pub fn in_memory(&self) -> Option<&[Block]> {
        match self {
            Blocks::Memory(v) => Some(v),
            Blocks::Shards(_) => None,
        }
    }
}

/// Open shard files of one set: block `i` is read with one positioned read, so only the
/// blocks of the current batch are in memory (the page cache holds the rest, outside the
/// process).
#[derive(Debug)]
pub struct ShardSet {
    seq_len: usize,
    n_blocks: usize,
    last_block_len: usize,
    /// Each shard's path, open file and first global block index, in order.
    shards: Vec<(PathBuf, File, usize)>,
}

impl ShardSet {
    /// `shards`: each file with its number of blocks, in order. The files' sizes must have been
    /// checked by the caller.
    pub fn new(
        seq_len: usize,
        last_block_len: usize,
        shards: Vec<(PathBuf, File, usize)>,
    ) -> Result<Self> {
        let mut first = 0;
        let mut out = Vec::with_capacity(shards.len());
        for (path, file, n) in shards {
            out.push((path, file, first));
            first += n;
        }
        if first > 0 && !(3..=seq_len).contains(&last_block_len) {
            return Err(TrainError::Settings(format!(
                "the last block's length {last_block_len} does not fit blocks of {seq_len}"
            )));
        }
        Ok(ShardSet {
            seq_len,
            n_blocks: first,
            last_block_len,
            shards: out,
        })
    }

    fn read(&self, i: usize) -> Result<Block> {
        assert!(i < self.n_blocks, "block {i} of {}", self.n_blocks);
        let at = self.shards.partition_point(|(_, _, first)| *first <= i) - 1;
        let (path, file, first) = &self.shards[at];
        let mut bytes = vec![0u8; self.seq_len * 4];
        let offset = ((i - first) * self.seq_len * 4) as u64;
        file.read_exact_at(&mut bytes, offset)
            .map_err(|e| TrainError::io(path, e))?;
        let ids = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        let len = if i + 1 == self.n_blocks {
            self.last_block_len
        } else {
            self.seq_len
        };
        Ok(Block { ids, len })
    }
}
