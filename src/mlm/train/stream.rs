//! Data preparation as a stream, in two reads of the corpus. The first hashes every document
//! (SHA-256, in parallel) and keeps only the sorted distinct hashes, from which come the corpus
//! digest and which of them are held out. The second hashes again, skips duplicates, tokenizes the
//! rest in parallel chunks and packs them, block by block, into a [`DataSink`] (memory or
//! shards). Memory: 17 bytes per distinct document (48 at the end of the first read) plus one
//! chunk of documents; never the corpus.

use rand::Rng;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::data::{
    Block, CanaryInsert, CanarySummary, DataSettings, DocEntry, DocSet, Duplicate, PackSpec,
};
use super::error::{Result, TrainError};
use super::pack::{self, BlockDigest, Packer, UnigramCounts};
use super::seeds::{self, Purpose};
use crate::Document;

/// Documents read per chunk (each chunk is hashed and tokenized in parallel).
const CHUNK_DOCS: usize = 2048;
/// Text bytes per chunk at most (long documents make smaller chunks).
const CHUNK_BYTES: usize = 16 << 20;

/// One read of the corpus.
pub type DocStream<'a> = Box<dyn Iterator<Item = Result<Document>> + Send + 'a>;

/// A tokenizer that adds no special tokens; its error message must not quote the text.
pub type Tokenize<'a> = dyn Fn(&str) -> std::result::Result<Vec<u32>, String> + Sync + 'a;

/// Which set a document, duplicate or block belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Set {
    Train = 0,
    HeldOut = 1,
}

impl Set {
    pub fn name(self) -> &'static str {
        match self {
            Set::Train => "train",
            Set::HeldOut => "held_out",
        }
    }
}

/// Where prepared data goes.
pub trait DataSink {
    /// The next packed block of `set`.
    fn block(&mut self, set: Set, block: Block) -> Result<()>;
    /// A distinct document, in packing order.
    fn document(&mut self, set: Set, entry: DocEntry) -> Result<()>;
    /// A document whose text was seen before; the sink fills in `same_as` from its listing
    /// (the document with the same hash).
    fn duplicate(&mut self, set: Set, doc_id: String, sha256: String) -> Result<()>;
}

/// Everything about the prepared data except its blocks and listings (which went to the sink).
#[derive(Debug, Clone)]
pub struct StreamSummary {
    /// Counts only: the listings went to the sink.
    pub sets: [DocSet; 2],
    /// Real tokens of each set's last block (0 for an empty set).
    pub last_block_len: [usize; 2],
    pub corpus_digest: String,
    pub n_input_documents: usize,
    pub n_distinct_documents: usize,
    pub canaries: Option<CanarySummary>,
    pub data_digest: String,
    pub unigram_baseline: f64,
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// The held-out rank of a text hash: SHA-256(held-out key, hex hash), its first 16 bytes as a
/// number. The lowest ranks are held out, so the choice depends on the texts and the seed, not
/// on their order.
pub fn held_out_rank(key: &[u8; 32], hash_hex: &str) -> u128 {
    let mut h = Sha256::new();
    h.update(key);
    h.update(hash_hex.as_bytes());
    let d: [u8; 32] = h.finalize().into();
    u128::from_be_bytes(d[..16].try_into().expect("16 bytes"))
}

/// Which documents are held out, given each distinct document's [`held_out_rank`]: the
/// [`held_out_count`] lowest ranks.
pub fn held_out_flags(ranks: &[u128], fraction: f64) -> Vec<bool> {
    let k = held_out_count(ranks.len(), fraction);
    if k == 0 {
        return vec![false; ranks.len()];
    }
    let mut sorted = ranks.to_vec();
    let (_, &mut kth, _) = sorted.select_nth_unstable(k - 1);
    ranks.iter().map(|r| *r <= kth).collect()
}

/// How many of `n` distinct documents are held out: none for a fraction of 0 or fewer than two
/// documents, otherwise the rounded share, at least one and at most `n - 1`.
pub fn held_out_count(n: usize, fraction: f64) -> usize {
    if fraction <= 0.0 || n < 2 {
        0
    } else {
        ((fraction * n as f64).round() as usize).clamp(1, n - 1)
    }
}

fn prefix(hash: &[u8; 32]) -> u128 {
    u128::from_be_bytes(hash[..16].try_into().expect("16 bytes"))
}

/// Reads the next chunk of documents into `chunk` (emptied first); false at the end.
fn next_chunk(docs: &mut DocStream<'_>, chunk: &mut Vec<Document>) -> Result<bool> {
    chunk.clear();
    let mut bytes = 0;
    while chunk.len() < CHUNK_DOCS && bytes < CHUNK_BYTES {
        match docs.next() {
            Some(doc) => {
                let doc = doc?;
                bytes += doc.text.len();
                chunk.push(doc);
            }
            None => break,
        }
    }
    Ok(!chunk.is_empty())
}

/// What the first read learns: the distinct hashes (16-byte prefixes, sorted), whether each is
/// held out, and the corpus digest.
struct FirstRead {
    n_input: usize,
    distinct: Vec<u128>,
    held_out: Vec<bool>,
    corpus_digest: String,
}

fn first_read(docs: &mut DocStream<'_>, settings: &DataSettings) -> Result<FirstRead> {
    let mut hashes: Vec<[u8; 32]> = Vec::new();
    let mut chunk = Vec::new();
    let mut n_input = 0;
    while next_chunk(docs, &mut chunk)? {
        n_input += chunk.len();
        hashes.par_extend(
            chunk
                .par_iter()
                .map(|d| -> [u8; 32] { Sha256::digest(d.text.as_bytes()).into() }),
        );
    }
    if n_input == 0 {
        return Err(TrainError::NoData("the corpus holds no documents".into()));
    }
    hashes.par_sort_unstable();
    hashes.dedup();
    let mut digest = Sha256::new();
    for h in &hashes {
        digest.update(hex(h).as_bytes());
        digest.update(b"\n");
    }
    let key = seeds::key(Purpose::HeldOut, &[settings.seed]);
    let ranks: Vec<u128> = hashes
        .par_iter()
        .map(|h| held_out_rank(&key, &hex(h)))
        .collect();
    let distinct = hashes.iter().map(prefix).collect();
    // The full hashes go before the flags sort a copy of the ranks: 48 bytes a document at most.
    drop(hashes);
    Ok(FirstRead {
        n_input,
        distinct,
        held_out: held_out_flags(&ranks, settings.held_out_fraction),
        corpus_digest: hex(&digest.finalize()),
    })
}

/// A canary copy's place (the training ordinal it goes before) and its ids.
type PlacedCopy = (usize, Vec<u32>);

/// Tokenizes the canaries and draws where their copies go: before the training document of
/// each drawn ordinal (`n_train` means after the last). Returns the copies' token lists in
/// placement order with their ordinals, and the summary.
fn place_canaries(
    insert: &CanaryInsert<'_>,
    spec: &PackSpec,
    seed: u64,
    n_train: usize,
    tokenize: &Tokenize<'_>,
) -> Result<(Vec<PlacedCopy>, CanarySummary)> {
    let mut rng = seeds::rng(Purpose::Canary, &[seed]);
    let mut summary = CanarySummary {
        n_canaries: insert.canaries.len(),
        repeats: Vec::new(),
        n_copies: 0,
        n_tokens: 0,
        file_sha256: insert.file_sha256.clone(),
    };
    let mut copies = Vec::new();
    for &(id, text, repeats) in &insert.canaries {
        let ids = tokenize(text).map_err(|message| TrainError::Tokenize {
            doc_id: id.to_string(),
            message,
        })?;
        check_range(&ids, spec, id)?;
        if ids.is_empty() {
            return Err(TrainError::NoData(format!("canary {id} has no tokens")));
        }
        for _ in 0..repeats {
            copies.push((rng.gen_range(0..=n_train), ids.clone()));
        }
        summary.repeats.push(repeats);
        summary.n_copies += repeats;
        summary.n_tokens += repeats * ids.len() as u64;
    }
    // Stable: copies drawn for one place keep their drawing order.
    copies.sort_by_key(|c| c.0);
    summary.repeats.sort_unstable();
    summary.repeats.dedup();
    Ok((copies, summary))
}

fn check_range(ids: &[u32], spec: &PackSpec, doc_id: &str) -> Result<()> {
    match ids.iter().find(|&&id| id >= spec.vocab_size) {
        Some(&id) => Err(TrainError::TokenOutOfRange {
            doc_id: doc_id.to_string(),
            id,
            vocab_size: spec.vocab_size,
        }),
        None => Ok(()),
    }
}

/// The running state of the second read: packers, digests, counts and the sink.
struct Output<'s> {
    spec: PackSpec,
    sink: &'s mut dyn DataSink,
    digests: [BlockDigest; 2],
    counts: [UnigramCounts; 2],
    last_len: [usize; 2],
    sets: [DocSet; 2],
}

impl Output<'_> {
    fn emit(&mut self, set: Set, block: Block) -> Result<()> {
        let s = set as usize;
        self.digests[s].add(&block);
        self.counts[s].add(&block, &self.spec);
        self.last_len[s] = block.len;
        self.sink.block(set, block)
    }
}

/// Prepares the corpus that `open` reads (it is called twice and must give the same
/// documents both times) into `sink`. `spec` must be normalized. `progress` is called with the
/// number of documents of the second read done so far.
pub fn prepare_streaming<'a>(
    open: &mut dyn FnMut() -> Result<DocStream<'a>>,
    canaries: Option<&CanaryInsert<'_>>,
    spec: &PackSpec,
    settings: &DataSettings,
    tokenize: &Tokenize<'_>,
    sink: &mut dyn DataSink,
    progress: &mut dyn FnMut(usize),
) -> Result<StreamSummary> {
    settings.validate()?;
    let first = first_read(&mut open()?, settings)?;
    let n_train = first.held_out.iter().filter(|&&h| !h).count();
    let (copies, canary_summary) = match canaries {
        Some(insert) => {
            let (c, s) = place_canaries(insert, spec, settings.seed, n_train, tokenize)?;
            (c, Some(s))
        }
        None => (Vec::new(), None),
    };
    let mut copies = copies.into_iter().peekable();
    let mut out = Output {
        spec: spec.clone(),
        sink,
        digests: Default::default(),
        counts: [
            UnigramCounts::new(spec.vocab_size),
            UnigramCounts::new(spec.vocab_size),
        ],
        last_len: [0; 2],
        sets: Default::default(),
    };
    let mut packers = [
        Packer::new(spec, settings.seq_len),
        Packer::new(spec, settings.seq_len),
    ];
    let mut seen = vec![false; first.distinct.len()];
    let mut train_ordinal = 0usize;
    let mut n_read = 0usize;
    let changed = || {
        TrainError::NoData(
            "the corpus changed between its two reads (preparation reads it twice)".into(),
        )
    };
    let mut docs = open()?;
    let mut chunk = Vec::new();
    while next_chunk(&mut docs, &mut chunk)? {
        n_read += chunk.len();
        if n_read > first.n_input {
            return Err(changed());
        }
        let hashed: Vec<(usize, String, Set)> = chunk
            .par_iter()
            .map(|d| {
                let raw: [u8; 32] = Sha256::digest(d.text.as_bytes()).into();
                let at = first.distinct.binary_search(&prefix(&raw)).ok()?;
                let set = if first.held_out[at] {
                    Set::HeldOut
                } else {
                    Set::Train
                };
                Some((at, hex(&raw), set))
            })
            .collect::<Option<_>>()
            .ok_or_else(changed)?;
        let mut fresh = Vec::new();
        for (i, (at, h, set)) in hashed.iter().enumerate() {
            out.sets[*set as usize].n_documents += 1;
            if seen[*at] {
                out.sink.duplicate(*set, chunk[i].id.clone(), h.clone())?;
            } else {
                seen[*at] = true;
                fresh.push(i);
            }
        }
        let tokenized: Vec<std::result::Result<Vec<u32>, String>> = fresh
            .par_iter()
            .map(|&i| tokenize(&chunk[i].text))
            .collect();
        for (&i, ids) in fresh.iter().zip(tokenized) {
            let doc = &chunk[i];
            let ids = ids.map_err(|message| TrainError::Tokenize {
                doc_id: doc.id.clone(),
                message,
            })?;
            check_range(&ids, spec, &doc.id)?;
            let (_, sha256, set) = &hashed[i];
            let s = *set as usize;
            out.sets[s].n_tokens += ids.len() as u64;
            out.sink.document(
                *set,
                DocEntry {
                    doc_id: doc.id.clone(),
                    sha256: sha256.clone(),
                    n_tokens: ids.len() as u64,
                },
            )?;
            if *set == Set::Train {
                while let Some((_, copy)) = copies.next_if(|c| c.0 == train_ordinal) {
                    packers[0].push(&copy, &mut |b| out.emit(Set::Train, b))?;
                }
                train_ordinal += 1;
            }
            packers[s].push(&ids, &mut |b| out.emit(*set, b))?;
        }
        progress(n_read);
    }
    if n_read != first.n_input || seen.iter().any(|s| !s) {
        return Err(changed());
    }
    for (_, copy) in copies {
        packers[0].push(&copy, &mut |b| out.emit(Set::Train, b))?;
    }
    let [train_packer, held_packer] = packers;
    train_packer.finish(&mut |b| out.emit(Set::Train, b))?;
    held_packer.finish(&mut |b| out.emit(Set::HeldOut, b))?;
    let [train_digest, held_digest] = out.digests.map(BlockDigest::finish);
    if train_digest.n_blocks == 0 {
        return Err(TrainError::NoData(format!(
            "{} documents yield no training tokens",
            first.n_input
        )));
    }
    for (set, digest) in out.sets.iter_mut().zip([train_digest, held_digest]) {
        set.n_blocks = digest.n_blocks as usize;
    }
    let data_digest = pack::data_digest(
        spec,
        settings,
        &first.corpus_digest,
        canary_summary.as_ref(),
        train_digest,
        held_digest,
    );
    Ok(StreamSummary {
        unigram_baseline: pack::unigram_baseline(&out.counts[0], &out.counts[1]),
        sets: out.sets,
        last_block_len: out.last_len,
        corpus_digest: first.corpus_digest,
        n_input_documents: first.n_input,
        n_distinct_documents: first.distinct.len(),
        canaries: canary_summary,
        data_digest,
    })
}

/// A sink that keeps everything in memory (small corpora and tests).
#[derive(Debug, Default)]
pub struct MemorySink {
    pub blocks: [Vec<Block>; 2],
    pub documents: [Vec<DocEntry>; 2],
    pub duplicates: [Vec<Duplicate>; 2],
}

impl DataSink for MemorySink {
    fn block(&mut self, set: Set, block: Block) -> Result<()> {
        self.blocks[set as usize].push(block);
        Ok(())
    }

    fn document(&mut self, set: Set, entry: DocEntry) -> Result<()> {
        self.documents[set as usize].push(entry);
        Ok(())
    }

    fn duplicate(&mut self, set: Set, doc_id: String, sha256: String) -> Result<()> {
        self.duplicates[set as usize].push(Duplicate {
            doc_id,
            sha256,
            same_as: String::new(),
        });
        Ok(())
    }
}

impl MemorySink {
    /// Fills in each duplicate's `same_as` from the listing.
    pub fn resolve_duplicates(&mut self) {
        for s in 0..2 {
            let first: std::collections::HashMap<&str, &str> = self.documents[s]
                .iter()
                .map(|d| (d.sha256.as_str(), d.doc_id.as_str()))
                .collect();
            for dup in &mut self.duplicates[s] {
                dup.same_as = first
                    .get(dup.sha256.as_str())
                    .expect("a duplicate follows its first document")
                    .to_string();
            }
        }
    }
}
