//! Tagging with a BiLSTM-CRF: sentences batched by length, emissions, constrained Viterbi,
//! spans; and loading a saved model directory.

use super::crf::CrfScores;
use super::model::{Batch, BiLstmCrf, Dims};
use super::vocab::Vocab;
use crate::error::{StageContext, StageResult as Result};
use crate::labels::Label;
use crate::ner::config::NerConfig;
use crate::ner::data::segment;
use crate::ner::rules::{RuleFeatures, TokenFeatures};
use crate::ner::tags::TagSet;
use crate::ner::Tagger;
use candle_core::{DType, Device};
use std::path::Path;

pub const VOCAB_FILE: &str = "vocab.json";
pub const WEIGHTS_FILE: &str = "model.safetensors";

/// Sentences per forward pass when tagging.
const TAG_BATCH: usize = 64;

/// Entity spans (byte offsets, sorted) of `text` under `model`; `rules` must be given exactly
/// when the model reads rule hits.
pub fn tag_text(
    model: &BiLstmCrf,
    vocab: &Vocab,
    tagset: &TagSet,
    scores: &CrfScores,
    rules: Option<&RuleFeatures>,
    text: &str,
    device: &Device,
) -> Result<Vec<(usize, usize, Label)>> {
    let seg = segment(text);
    let hits = rules
        .map(|r| r.token_features(text, &seg.tokens))
        .transpose()?;
    let words: Vec<Vec<String>> = seg
        .sentences
        .iter()
        .map(|r| {
            seg.tokens[r.clone()]
                .iter()
                .map(|&(s, e)| text[s..e].to_string())
                .collect()
        })
        .collect();
    let mut order: Vec<usize> = (0..words.len()).collect();
    order.sort_by_key(|&i| words[i].len());
    let k = tagset.len();
    let mut spans = Vec::new();
    for chunk in length_buckets(&order, |i| words[i].len()) {
        let sentences: Vec<&[String]> = chunk.iter().map(|&i| words[i].as_slice()).collect();
        let chunk_hits: Option<Vec<&[TokenFeatures]>> = hits.as_ref().map(|h| {
            chunk
                .iter()
                .map(|&i| &h[seg.sentences[i].clone()])
                .collect()
        });
        let batch = Batch::new(
            vocab,
            &model.dims,
            &sentences,
            chunk_hits.as_deref(),
            None,
            device,
        )?;
        let emissions: Vec<f32> = model.emissions(&batch, None)?.flatten_all()?.to_vec1()?;
        let row_size = batch.width * k;
        for (row, &i) in chunk.iter().enumerate() {
            let len = words[i].len();
            let e = &emissions[row * row_size..row * row_size + len * k];
            let path = scores.viterbi(e, len);
            spans.extend(tagset.spans(&seg.tokens[seg.sentences[i].clone()], &path));
        }
    }
    spans.sort_by_key(|s| (s.0, s.1));
    Ok(spans)
}

/// Cuts `order` (sorted by length) into batches of at most `TAG_BATCH` sentences whose
/// lengths differ little, so padding costs little: a batch closes when the next sentence is
/// more than a quarter (and two tokens) longer than its first.
fn length_buckets(order: &[usize], len: impl Fn(usize) -> usize) -> Vec<&[usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=order.len() {
        let close = i == order.len()
            || i - start == TAG_BATCH
            || len(order[i]) > len(order[start]) + len(order[start]) / 4 + 2;
        if close {
            out.push(&order[start..i]);
            start = i;
        }
    }
    out
}

/// A saved BiLSTM-CRF, ready to tag.
pub struct BiLstmTagger {
    model: BiLstmCrf,
    vocab: Vocab,
    tagset: TagSet,
    scores: CrfScores,
    rules: Option<RuleFeatures>,
    device: Device,
}

#[derive(serde::Deserialize)]
struct SavedVocab {
    words: Vec<String>,
    chars: Vec<char>,
}

impl BiLstmTagger {
    pub fn load(dir: &Path, config: &NerConfig) -> Result<Self> {
        let vocab_path = dir.join(VOCAB_FILE);
        let vocab = std::fs::read_to_string(&vocab_path)
            .with_stage_context(|| vocab_path.display().to_string())?;
        let weights = dir.join(WEIGHTS_FILE);
        let tensors = candle_core::safetensors::load(&weights, &Device::Cpu)
            .with_stage_context(|| weights.display().to_string())?;
        Self::from_parts(dir, config, &vocab, tensors)
    }

    /// A tagger from the contents of a model directory's files (`dir` names them in errors):
    /// the vocabulary JSON and the weight tensors.
    pub fn from_parts(
        dir: &Path,
        config: &NerConfig,
        vocab: &str,
        tensors: std::collections::HashMap<String, candle_core::Tensor>,
    ) -> Result<Self> {
        let device = Device::Cpu;
        let dims: Dims =
            serde_json::from_value(config.model["dims"].clone()).with_stage_context(|| {
                format!(
                    "{}: model.dims",
                    dir.join(crate::ner::config::CONFIG_FILE).display()
                )
            })?;
        let vocab_path = dir.join(VOCAB_FILE);
        let saved: SavedVocab = serde_json::from_str(vocab)
            .with_stage_context(|| format!("{}: bad vocabulary", vocab_path.display()))?;
        let vocab = Vocab::from_parts(saved.words, saved.chars);
        let tagset = TagSet::new(config.parsed_labels()?);
        let weights = dir.join(WEIGHTS_FILE);
        crate::mlm::weights::check_finite(&weights, &tensors)?;
        let vb = candle_nn::VarBuilder::from_tensors(tensors, DType::F32, &device);
        let mut model =
            BiLstmCrf::new(vb, dims, &vocab, tagset.len()).with_stage_context(|| {
                format!("{}: weights do not fit the config", weights.display())
            })?;
        model.keep_transposed()?;
        let mut scores = model.crf.scores()?;
        scores.constrain(&tagset);
        let rules = if dims.reads_recognizers() {
            Some(RuleFeatures)
        } else {
            None
        };
        Ok(BiLstmTagger {
            rules,
            model,
            vocab,
            tagset,
            scores,
            device,
        })
    }
}

impl Tagger for BiLstmTagger {
    fn tag(&self, text: &str) -> Result<Vec<(usize, usize, Label)>> {
        tag_text(
            &self.model,
            &self.vocab,
            &self.tagset,
            &self.scores,
            self.rules.as_ref(),
            text,
            &self.device,
        )
    }

    fn source(&self) -> &str {
        "ner:bilstm-crf"
    }
}
