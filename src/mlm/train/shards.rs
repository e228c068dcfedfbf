//! The data dir of `mlm prepare`: token-id shards (raw little-endian u32, `[n_blocks, seq_len]`,
//! readable with `numpy.memmap`), the document listings (JSONL) and `data.json`, the index that
//! ties them to the packing spec, the settings, the tokenizer and the digests. Writing it (a
//! [`DataSink`] into a staged dir) and opening it for training.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::blocks::{Blocks, ShardSet};
use super::data::PreparedData;
use super::data::{Block, CanarySummary, DataSettings, DocEntry, DocSet, Duplicate, PackSpec};
use super::error::{Result, TrainError};
use super::stream::{hex, DataSink, Set, StreamSummary};
use crate::fsio::{FsError, StagedDir};

/// The index file of a data dir.
pub const DATA_FILE: &str = "data.json";
/// One line per distinct document: [`ListedDocument`].
pub const DOCUMENTS_FILE: &str = "documents.jsonl";
/// One line per duplicate document: [`ListedDuplicate`].
pub const DUPLICATES_FILE: &str = "duplicates.jsonl";
/// The tokenizer the ids come from, in the Hugging Face layout.
pub const TOKENIZER_DIR: &str = "tokenizer";
/// `format` of `data.json`.
pub const FORMAT: &str = "anonlm-mlm-data";
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of ids per shard file (rounded down to whole blocks).
const SHARD_BYTES: usize = 64 << 20;

/// One shard file of a set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardEntry {
    pub file: String,
    pub n_blocks: usize,
    /// SHA-256 of the file.
    pub sha256: String,
}

/// One set (training or held-out) of a data dir.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetIndex {
    /// Documents, duplicates included.
    pub n_documents: usize,
    pub n_tokens: u64,
    pub n_blocks: usize,
    /// Real positions of the last block; every other block is full.
    pub last_block_len: usize,
    pub shards: Vec<ShardEntry>,
}

/// `data.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataIndex {
    pub format: String,
    pub format_version: u32,
    /// Version of the anonlm that prepared the data.
    pub tool_version: String,
    pub pack: PackSpec,
    pub settings: DataSettings,
    /// SHA-256 of the tokenizer's `tokenizer.json` as the tokenizers crate writes it compactly.
    pub tokenizer_sha256: String,
    pub n_input_documents: usize,
    pub n_distinct_documents: usize,
    pub corpus_digest: String,
    pub data_digest: String,
    pub canaries: Option<CanarySummary>,
    /// Null when no token could be scored.
    pub unigram_baseline: Option<f64>,
    pub train: SetIndex,
    pub held_out: SetIndex,
}

/// A line of `documents.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedDocument {
    pub set: String,
    #[serde(flatten)]
    pub entry: DocEntry,
}

/// A line of `duplicates.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedDuplicate {
    pub set: String,
    #[serde(flatten)]
    pub duplicate: Duplicate,
}

/// The shard being filled for one set.
struct OpenShard {
    name: String,
    out: BufWriter<File>,
    hasher: Sha256,
    n_blocks: usize,
}

/// Writes blocks into rolling shard files and the listings into a staged data dir.
pub struct ShardSink<'d> {
    stage: &'d StagedDir,
    blocks_per_shard: usize,
    open: [Option<OpenShard>; 2],
    shards: [Vec<ShardEntry>; 2],
    documents: BufWriter<File>,
    /// Duplicates wait for the end, when `same_as` is looked up in the listing.
    duplicates: Vec<(Set, String, String)>,
}

impl<'d> ShardSink<'d> {
    pub fn new(stage: &'d StagedDir, seq_len: usize) -> Result<Self> {
        Ok(ShardSink {
            stage,
            blocks_per_shard: (SHARD_BYTES / (seq_len * 4)).max(1),
            open: [None, None],
            shards: [Vec::new(), Vec::new()],
            documents: stage.create(DOCUMENTS_FILE)?,
            duplicates: Vec::new(),
        })
    }

    fn io(&self, name: &str, e: std::io::Error) -> TrainError {
        TrainError::Fs(FsError::io(self.stage.dest().join(name), e))
    }

    fn close(&mut self, s: usize) -> Result<()> {
        if let Some(mut shard) = self.open[s].take() {
            shard.out.flush().map_err(|e| self.io(&shard.name, e))?;
            self.shards[s].push(ShardEntry {
                file: shard.name,
                n_blocks: shard.n_blocks,
                sha256: hex(&shard.hasher.finalize()),
            });
        }
        Ok(())
    }

    /// Closes the shards, writes `duplicates.jsonl` and returns each set's shards.
    pub fn finish(mut self) -> Result<[Vec<ShardEntry>; 2]> {
        self.close(0)?;
        self.close(1)?;
        self.documents
            .flush()
            .map_err(|e| TrainError::Fs(FsError::io(self.stage.dest().join(DOCUMENTS_FILE), e)))?;
        // The first document of each duplicated hash, from the listing just written.
        let mut wanted: HashMap<String, Option<String>> = self
            .duplicates
            .iter()
            .map(|(_, _, sha)| (sha.clone(), None))
            .collect();
        if !wanted.is_empty() {
            for line in read_listing::<ListedDocument>(self.stage.path(), DOCUMENTS_FILE)? {
                let doc = line?;
                if let Some(slot) = wanted.get_mut(&doc.entry.sha256) {
                    slot.get_or_insert(doc.entry.doc_id);
                }
            }
        }
        let mut out = self.stage.create(DUPLICATES_FILE)?;
        for (set, doc_id, sha256) in self.duplicates {
            let same_as = wanted[&sha256]
                .clone()
                .expect("a duplicate follows its first document");
            let line = ListedDuplicate {
                set: set.name().into(),
                duplicate: Duplicate {
                    doc_id,
                    sha256,
                    same_as,
                },
            };
            write_line(&mut out, &line).map_err(|e| {
                TrainError::Fs(FsError::io(self.stage.dest().join(DUPLICATES_FILE), e))
            })?;
        }
        out.flush()
            .map_err(|e| TrainError::Fs(FsError::io(self.stage.dest().join(DUPLICATES_FILE), e)))?;
        let [train, held_out] = self.shards;
        Ok([train, held_out])
    }
}

fn write_line<T: Serialize>(out: &mut impl Write, value: &T) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

impl DataSink for ShardSink<'_> {
    fn block(&mut self, set: Set, block: Block) -> Result<()> {
        let s = set as usize;
        if self.open[s]
            .as_ref()
            .is_some_and(|o| o.n_blocks == self.blocks_per_shard)
        {
            self.close(s)?;
        }
        if self.open[s].is_none() {
            let name = format!("{}-{:05}.ids", set.name(), self.shards[s].len());
            self.open[s] = Some(OpenShard {
                out: self.stage.create(&name)?,
                name,
                hasher: Sha256::new(),
                n_blocks: 0,
            });
        }
        let shard = self.open[s].as_mut().expect("opened above");
        let bytes: Vec<u8> = block.ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        shard.hasher.update(&bytes);
        shard.n_blocks += 1;
        if let Err(e) = shard.out.write_all(&bytes) {
            let name = shard.name.clone();
            return Err(self.io(&name, e));
        }
        Ok(())
    }

    fn document(&mut self, set: Set, entry: DocEntry) -> Result<()> {
        let line = ListedDocument {
            set: set.name().into(),
            entry,
        };
        write_line(&mut self.documents, &line).map_err(|e| self.io(DOCUMENTS_FILE, e))
    }

    fn duplicate(&mut self, set: Set, doc_id: String, sha256: String) -> Result<()> {
        self.duplicates.push((set, doc_id, sha256));
        Ok(())
    }
}

/// The index of prepared data (the summary of the stream and each set's shards).
pub fn index(
    spec: &PackSpec,
    settings: &DataSettings,
    tokenizer_sha256: String,
    summary: &StreamSummary,
    shards: [Vec<ShardEntry>; 2],
) -> DataIndex {
    let [train_shards, held_shards] = shards;
    let set = |s: usize, shards: Vec<ShardEntry>| SetIndex {
        n_documents: summary.sets[s].n_documents,
        n_tokens: summary.sets[s].n_tokens,
        n_blocks: summary.sets[s].n_blocks,
        last_block_len: summary.last_block_len[s],
        shards,
    };
    DataIndex {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        pack: spec.clone(),
        settings: settings.clone(),
        tokenizer_sha256,
        n_input_documents: summary.n_input_documents,
        n_distinct_documents: summary.n_distinct_documents,
        corpus_digest: summary.corpus_digest.clone(),
        data_digest: summary.data_digest.clone(),
        canaries: summary.canaries.clone(),
        unigram_baseline: summary
            .unigram_baseline
            .is_finite()
            .then_some(summary.unigram_baseline),
        train: set(0, train_shards),
        held_out: set(1, held_shards),
    }
}

/// Reads `dir/data.json` and checks its format.
pub fn read_index(dir: &Path) -> Result<DataIndex> {
    let path = dir.join(DATA_FILE);
    let bytes = std::fs::read(&path).map_err(|e| TrainError::io(&path, e))?;
    let index: DataIndex = serde_json::from_slice(&bytes).map_err(|source| TrainError::Json {
        path: path.clone(),
        source,
    })?;
    if index.format != FORMAT || index.format_version != FORMAT_VERSION {
        return Err(TrainError::Data {
            path,
            message: format!(
                "not a data dir of this anonlm (format {} version {}; expected {FORMAT} \
                 version {FORMAT_VERSION})",
                index.format, index.format_version
            ),
        });
    }
    Ok(index)
}

/// Opens a data dir for training: checks every shard's size and SHA-256 against the index
/// (a shard that changed would feed the model other data than the digest says) and returns
/// the data, its blocks read from the shards and its documents left in the listing.
pub fn open(dir: &Path) -> Result<(DataIndex, PreparedData)> {
    let index = read_index(dir)?;
    let spec = index.pack.clone().normalized()?;
    index.settings.validate()?;
    let seq_len = index.settings.seq_len;
    let open_set = |set: &SetIndex| -> Result<Blocks> {
        let mut files = Vec::with_capacity(set.shards.len());
        for shard in &set.shards {
            let path = dir.join(&shard.file);
            if shard.file.contains('/') || shard.file.starts_with('.') {
                return Err(bad(&path, "is not a shard name"));
            }
            let mut file = File::open(&path).map_err(|e| TrainError::io(&path, e))?;
            let want = (shard.n_blocks * seq_len * 4) as u64;
            let len = file.metadata().map_err(|e| TrainError::io(&path, e))?.len();
            if len != want {
                return Err(bad(
                    &path,
                    &format!("holds {len} bytes; the index says {want}"),
                ));
            }
            if file_sha256(&mut file, &path)? != shard.sha256 {
                return Err(bad(&path, "differs from the index (SHA-256)"));
            }
            files.push((path, file, shard.n_blocks));
        }
        let n: usize = files.iter().map(|f| f.2).sum();
        if n != set.n_blocks {
            return Err(bad(
                &dir.join(DATA_FILE),
                &format!(
                    "a set's shards hold {n} blocks; the index says {}",
                    set.n_blocks
                ),
            ));
        }
        Ok(Blocks::Shards(ShardSet::new(
            seq_len,
            set.last_block_len,
            files,
        )?))
    };
    let counts = |set: &SetIndex| DocSet {
        n_documents: set.n_documents,
        n_tokens: set.n_tokens,
        n_blocks: set.n_blocks,
        documents: Vec::new(),
        duplicates: Vec::new(),
    };
    let data = PreparedData {
        spec,
        settings: index.settings.clone(),
        train_blocks: open_set(&index.train)?,
        held_out_blocks: open_set(&index.held_out)?,
        train: counts(&index.train),
        held_out: counts(&index.held_out),
        listing: Some(dir.to_path_buf()),
        n_distinct_documents: index.n_distinct_documents,
        corpus_digest: index.corpus_digest.clone(),
        n_input_documents: index.n_input_documents,
        canaries: index.canaries.clone(),
        data_digest: index.data_digest.clone(),
        unigram_baseline: index.unigram_baseline.unwrap_or(f64::NAN),
    };
    if data.train_blocks.is_empty() {
        return Err(TrainError::NoData(format!(
            "{} holds no training blocks",
            dir.display()
        )));
    }
    Ok((index, data))
}

fn bad(path: &Path, message: &str) -> TrainError {
    TrainError::Data {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn file_sha256(file: &mut File, path: &Path) -> Result<String> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| TrainError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// The lines of a listing file of `dir`, parsed one at a time (errors name the file and line,
/// never the content).
pub fn read_listing<T: serde::de::DeserializeOwned>(
    dir: &Path,
    name: &str,
) -> Result<impl Iterator<Item = Result<T>>> {
    let path = dir.join(name);
    let file = File::open(&path).map_err(|e| TrainError::io(&path, e))?;
    Ok(BufReader::new(file)
        .lines()
        .enumerate()
        .map(move |(i, line)| {
            let line = line.map_err(|e| TrainError::io(&path, e))?;
            serde_json::from_str(&line).map_err(|e| TrainError::Data {
                path: path.clone(),
                message: format!("line {}: {}", i + 1, crate::error::json_kind(&e)),
            })
        }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsio::Inputs;
    use crate::mlm::train::data::{prepare_with_canaries, CanaryInsert};
    use crate::mlm::train::manifest::Manifest;
    use crate::mlm::train::stream::{self, DocStream};
    use crate::Document;

    fn spec() -> PackSpec {
        PackSpec {
            cls: 0,
            sep: 1,
            pad: 2,
            mask: 3,
            vocab_size: 64,
            special_ids: vec![],
        }
        .normalized()
        .unwrap()
    }

    fn tokenize(t: &str) -> std::result::Result<Vec<u32>, String> {
        Ok(t.split_whitespace()
            .map(|w| 4 + w.bytes().map(u32::from).sum::<u32>() % 60)
            .collect())
    }

    fn corpus() -> Vec<Document> {
        let mut docs: Vec<Document> = (0..90)
            .map(|i| {
                let words: Vec<String> = (0..(3 + i % 17)).map(|j| format!("w{}", i * j)).collect();
                Document::new(format!("n{i:03}"), words.join(" "))
            })
            .collect();
        docs.push(Document::new("again-1", docs[4].text.clone()));
        docs.push(Document::new("again-2", docs[61].text.clone()));
        docs
    }

    /// Prepares `docs` into a data dir under `root` with `blocks_per_shard`.
    fn prepare_dir(
        root: &Path,
        docs: &[Document],
        settings: &DataSettings,
        canaries: Option<&CanaryInsert<'_>>,
        blocks_per_shard: usize,
    ) -> std::path::PathBuf {
        let dest = root.join("data");
        let stage = StagedDir::new(&dest, false, &Inputs::new()).unwrap();
        let mut sink = ShardSink::new(&stage, settings.seq_len).unwrap();
        sink.blocks_per_shard = blocks_per_shard;
        let mut open = || -> Result<DocStream<'_>> { Ok(Box::new(docs.iter().cloned().map(Ok))) };
        let summary = stream::prepare_streaming(
            &mut open,
            canaries,
            &spec(),
            settings,
            &tokenize,
            &mut sink,
            &mut |_| {},
        )
        .unwrap();
        let files = sink.finish().unwrap();
        let index = index(&spec(), settings, "t".repeat(64), &summary, files);
        stage
            .write(DATA_FILE, &serde_json::to_vec(&index).unwrap())
            .unwrap();
        stage.publish().unwrap();
        dest
    }

    #[test]
    fn a_data_dir_holds_what_memory_preparation_holds() {
        let docs = corpus();
        let settings = DataSettings {
            seq_len: 12,
            held_out_fraction: 0.1,
            seed: 9,
        };
        let insert = CanaryInsert {
            canaries: vec![("canary-000", "w1 w2 w3", 3)],
            file_sha256: "cd".repeat(32),
        };
        let memory =
            prepare_with_canaries(&docs, Some(&insert), spec(), settings.clone(), tokenize)
                .unwrap();
        let root = tempfile::tempdir().unwrap();
        let dir = prepare_dir(root.path(), &docs, &settings, Some(&insert), 7);
        let (index, shards) = open(&dir).unwrap();
        assert!(index.train.shards.len() > 2, "several shards of 7 blocks");
        assert_eq!(shards.digest(), memory.digest());
        assert_eq!(shards.unigram_baseline(), memory.unigram_baseline());
        for (a, b) in [
            (&shards.train_blocks, &memory.train_blocks),
            (&shards.held_out_blocks, &memory.held_out_blocks),
        ] {
            let b = b.in_memory().unwrap();
            assert!(!b.is_empty());
            assert_eq!(a.len(), b.len());
            for (i, block) in b.iter().enumerate() {
                assert_eq!(&a.get(i).unwrap(), block, "block {i}");
            }
        }
        // The manifest written from the listing files is the one written from memory.
        let (m1, m2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let settings_json = serde_json::json!({"lr": 0.1});
        Manifest::write_for(&memory, 5, settings_json.clone(), m1.path()).unwrap();
        Manifest::write_for(&shards, 5, settings_json, m2.path()).unwrap();
        let (a, b) = (
            Manifest::read(m1.path()).unwrap(),
            Manifest::read(m2.path()).unwrap(),
        );
        assert_eq!(a, b);
        assert_eq!(a.train.duplicates.len() + a.held_out.duplicates.len(), 2);
        assert_eq!(a.n_distinct_documents, 90);
    }

    #[test]
    fn a_changed_shard_or_index_is_refused_by_name() {
        let docs = corpus();
        let settings = DataSettings {
            seq_len: 16,
            held_out_fraction: 0.05,
            seed: 1,
        };
        let root = tempfile::tempdir().unwrap();
        let dir = prepare_dir(root.path(), &docs, &settings, None, 5);
        let shard = dir.join("train-00001.ids");
        let mut bytes = std::fs::read(&shard).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&shard, &bytes).unwrap();
        let err = open(&dir).unwrap_err().to_string();
        assert!(
            err.contains("train-00001.ids") && err.contains("SHA-256"),
            "{err}"
        );
        bytes.truncate(bytes.len() - 4);
        std::fs::write(&shard, &bytes).unwrap();
        let err = open(&dir).unwrap_err().to_string();
        assert!(
            err.contains("train-00001.ids") && err.contains("bytes"),
            "{err}"
        );
        std::fs::write(dir.join(DATA_FILE), b"{\"format\": \"other\"}").unwrap();
        assert!(open(&dir).is_err());
    }

    #[test]
    fn a_corpus_that_changes_between_reads_is_refused() {
        let docs = corpus();
        let settings = DataSettings {
            seq_len: 16,
            held_out_fraction: 0.05,
            seed: 1,
        };
        let mut reads = 0;
        let mut open = || -> Result<DocStream<'_>> {
            reads += 1;
            let n = if reads == 1 {
                docs.len()
            } else {
                docs.len() - 1
            };
            Ok(Box::new(docs[..n].iter().cloned().map(Ok)))
        };
        let mut sink = stream::MemorySink::default();
        let err = stream::prepare_streaming(
            &mut open,
            None,
            &spec(),
            &settings,
            &tokenize,
            &mut sink,
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("changed"), "{err}");
    }
}
