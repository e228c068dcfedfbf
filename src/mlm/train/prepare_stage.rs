//! The `mlm prepare` stage: a corpus, read twice as a stream, tokenized in parallel and packed
//! into a data dir of token-id shards ([`super::shards`]) that `mlm train --data` and
//! `scripts/train_ddp.py` read. `mlm train --corpus` runs the same preparation into a scratch
//! dir first, so both paths train on the same blocks with bounded memory.

use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::data::{DataSettings, PackSpec};
use super::shards::{self, DataIndex, ShardSink};
use super::stream::{self, hex, DocStream};
use super::TrainError;
use crate::canary::setup::{self as canary_setup, CanarySettings};
use crate::corpus::source::{CorpusInput, InputSpans};
use crate::error::{StageContext, StageResult, ValueError};
use crate::fsio::{self, Inputs, StagedDir};
use crate::tokenizer::{self, ModelTokenizer};

/// The flags of `mlm prepare`.
#[derive(Clone, Debug)]
pub struct MlmPrepareSettings {
    pub corpus: PathBuf,
    pub format: String,
    pub tokenizer: PathBuf,
    pub seq_len: usize,
    pub held_out: f64,
    pub seed: u64,
    pub max_doc_bytes: usize,
    pub out: PathBuf,
    pub overwrite: bool,
    pub quiet: bool,
    /// Canaries inserted into the training set; their protected file goes beside `out`.
    pub canary: CanarySettings,
}

/// Canaries to generate, write to their protected file and insert.
#[derive(Clone, Copy, Debug)]
pub struct CanaryOut<'a> {
    pub settings: &'a CanarySettings,
    pub path: &'a std::path::Path,
    /// Whether an existing canary file with other canaries may be replaced.
    pub overwrite: bool,
}

/// Runs `mlm prepare`: the data dir appears complete at `--out` or not at all.
pub fn run(s: &MlmPrepareSettings) -> StageResult<DataIndex> {
    let tok = tokenizer::load_dir(&s.tokenizer)
        .with_stage_context(|| format!("tokenizer {}", s.tokenizer.display()))?;
    let spec = super::stage::pack_spec(&tok, tok.vocab_size())?;
    let canary_path = canary_setup::canary_path(&s.canary, &s.out, Some(&s.corpus))?;
    fsio::refuse_special(&s.out)?;
    fsio::create_private_dir(&fsio::parent_of(&s.out))?;
    let _lock = fsio::RunLock::acquire(&s.out)?;
    fsio::clean_stale(&s.out)?;
    let stage = StagedDir::new(&s.out, s.overwrite, &Inputs::of([&s.corpus, &s.tokenizer]))?;
    let input = CorpusInput {
        path: s.corpus.clone(),
        format: s.format.clone(),
        label_map: None,
        max_doc_bytes: s.max_doc_bytes,
    };
    let settings = DataSettings {
        seq_len: s.seq_len,
        held_out_fraction: s.held_out,
        seed: s.seed,
    };
    let canaries = canary_path.as_deref().map(|path| CanaryOut {
        settings: &s.canary,
        path,
        overwrite: s.overwrite,
    });
    let index = write_data(&stage, &input, &tok, spec, settings, canaries, s.quiet)?;
    stage.publish()?;
    if let (Some(c), Some(path)) = (&index.canaries, &canary_path) {
        eprintln!(
            "canaries: {} copies of {} canaries in the training set; secrets in {} (mode 0600: \
             keep it out of any release)",
            c.n_copies,
            c.n_canaries,
            path.display()
        );
    }
    Ok(index)
}

/// SHA-256 of a tokenizer's compact `tokenizer.json`: what a data dir and a model must share.
pub fn tokenizer_sha256(tok: &ModelTokenizer) -> StageResult<String> {
    let json = tok
        .inner
        .to_string(false)
        .map_err(|e| ValueError::new(format!("the tokenizer does not serialize: {e}")))?;
    Ok(hex(&Sha256::digest(json.as_bytes())))
}

/// Prepares the corpus into the open `stage` (shards, listings, tokenizer, `data.json`).
pub fn write_data(
    stage: &StagedDir,
    input: &CorpusInput,
    tok: &ModelTokenizer,
    spec: PackSpec,
    settings: DataSettings,
    canaries: Option<CanaryOut<'_>>,
    quiet: bool,
) -> StageResult<DataIndex> {
    if fsio::is_stdio(&input.path) {
        return Err(ValueError::new(
            "--corpus: preparation reads the corpus twice; give a file or a directory, not \
             standard input",
        )
        .into());
    }
    let spec = spec.normalized()?;
    let canary_file = match canaries {
        Some(c) => Some(canary_setup::write_canaries(
            c.settings,
            c.path,
            input,
            c.overwrite,
        )?),
        None => None,
    };
    let insert = canary_file.as_ref().map(canary_setup::insert);
    let format = input.resolved_format()?;
    let mut open = || -> Result<DocStream<'static>, TrainError> {
        let docs = input
            .documents(format, InputSpans::Ignore)
            .map_err(|e| TrainError::Data {
                path: input.path.clone(),
                message: e.to_string(),
            })?;
        Ok(Box::new(docs.map(|d| d.map_err(TrainError::from))))
    };
    let tokenize = |text: &str| {
        tok.inner
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| e.to_string())
    };
    let bar = crate::progress::bar(None, quiet);
    let mut sink = ShardSink::new(stage, settings.seq_len)?;
    let summary = stream::prepare_streaming(
        &mut open,
        insert.as_ref(),
        &spec,
        &settings,
        &tokenize,
        &mut sink,
        &mut |n| bar.set_position(n as u64),
    )?;
    bar.finish_and_clear();
    let shard_files = sink.finish()?;
    tokenizer::save_dir(tok, &stage.path().join(shards::TOKENIZER_DIR))?;
    let index = shards::index(
        &spec,
        &settings,
        tokenizer_sha256(tok)?,
        &summary,
        shard_files,
    );
    let mut json = serde_json::to_vec_pretty(&index)?;
    json.push(b'\n');
    stage.write(shards::DATA_FILE, &json)?;
    Ok(index)
}
