//! Tagging with a transformer token classifier: a document's words as subwords, overlapping
//! windows, per-word tag scores from the window where the word has most context, and a
//! Viterbi pass that keeps the BIOES tags well formed; and loading a saved model directory.

use super::model::TokenClassifier;
use super::windows::{best_window, subwords, windows, Subwords};
use crate::error::{StageContext, StageResult as Result};
use crate::labels::Label;
use crate::mlm::runtime::pad_batch;
use crate::ner::bilstm::crf::CrfScores;
use crate::ner::config::NerConfig;
use crate::ner::tags::TagSet;
use crate::ner::Tagger;
use crate::text::{tokenize, Tok};
use crate::tokenizer::ModelTokenizer;
use candle_core::{DType, Device, D};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::Path;

/// Windows per forward pass when tagging.
const TAG_BATCH: usize = 16;

/// How documents are cut: subwords per window (special tokens included) and the overlap.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct WindowSettings {
    pub window: usize,
    pub overlap: usize,
}

impl WindowSettings {
    /// Subwords of text a window holds, besides its two special tokens.
    pub fn capacity(&self) -> usize {
        self.window.saturating_sub(2)
    }
}

/// A document as the classifier reads it.
pub struct Prepared {
    pub tokens: Vec<Tok>,
    pub sub: Subwords,
    pub windows: Vec<Range<usize>>,
    /// Token ids of each window, with the special tokens around it.
    pub rows: Vec<Vec<u32>>,
}

impl Prepared {
    /// Position in its window's row of the first subword of word `w` (which the window holds).
    pub fn position(&self, window: usize, w: usize) -> usize {
        1 + self.sub.starts[w] - self.sub.starts[self.windows[window].start]
    }
}

pub fn prepare(tok: &ModelTokenizer, text: &str, settings: WindowSettings) -> Result<Prepared> {
    let tokens = tokenize(text);
    let words: Vec<&str> = tokens.iter().map(|&(s, e)| &text[s..e]).collect();
    let sub = subwords(tok, &words)?;
    let windows = windows(&sub, settings.capacity(), settings.overlap);
    let rows = windows
        .iter()
        .map(|w| {
            let mut row = vec![tok.specials.cls];
            row.extend_from_slice(&sub.ids[sub.span(w)]);
            row.push(tok.specials.sep);
            row
        })
        .collect();
    Ok(Prepared {
        tokens,
        sub,
        windows,
        rows,
    })
}

/// Entity spans (byte offsets, sorted) of `text`.
pub fn tag_document(
    model: &TokenClassifier,
    tok: &ModelTokenizer,
    tagset: &TagSet,
    scores: &CrfScores,
    settings: WindowSettings,
    text: &str,
    device: &Device,
) -> Result<Vec<(usize, usize, Label)>> {
    let doc = prepare(tok, text, settings)?;
    let n = doc.tokens.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let k = tagset.len();
    let mut log_probs: Vec<Vec<Vec<f32>>> = Vec::with_capacity(doc.rows.len());
    for chunk in doc.rows.chunks(TAG_BATCH) {
        let (ids, mask) = pad_batch(chunk, tok.specials.pad, device)?;
        let logits = model.logits(&ids, &mask, None)?;
        let lp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
        log_probs.extend(lp.to_dtype(DType::F32)?.to_vec3::<f32>()?);
    }
    let best = best_window(&doc.windows, n);
    let mut emissions = Vec::with_capacity(n * k);
    for (w, &win) in best.iter().enumerate() {
        emissions.extend_from_slice(&log_probs[win][doc.position(win, w)]);
    }
    let path = scores.viterbi(&emissions, n);
    let mut spans = tagset.spans(&doc.tokens, &path);
    spans.sort_by_key(|s| (s.0, s.1));
    Ok(spans)
}

/// The decoder's scores: no learned transitions, only the ill-formed BIOES moves forbidden.
pub fn well_formed(tagset: &TagSet) -> CrfScores {
    let mut scores = CrfScores::neutral(tagset.len());
    scores.constrain(tagset);
    scores
}

/// A saved transformer tagger, ready to tag.
pub struct TransformerTagger {
    model: TokenClassifier,
    tokenizer: ModelTokenizer,
    tagset: TagSet,
    scores: CrfScores,
    settings: WindowSettings,
    device: Device,
}

impl TransformerTagger {
    pub fn load(dir: &Path, config: &NerConfig) -> Result<Self> {
        let device = Device::Cpu;
        let settings: WindowSettings = serde_json::from_value(config.model["windows"].clone())
            .with_stage_context(|| {
                format!(
                    "{}: model.windows",
                    dir.join(crate::ner::config::CONFIG_FILE).display()
                )
            })?;
        let loaded = crate::mlm::load_model_dir(dir, &device)?;
        let tokenizer = crate::tokenizer::load_dir(dir)?;
        crate::mlm::check_vocab(loaded.config.vocab_size, tokenizer.vocab_size())?;
        let weights = crate::mlm::weights::weights_file(dir)?;
        let tensors = candle_core::safetensors::load(&weights, &device)
            .with_stage_context(|| weights.display().to_string())?;
        crate::mlm::weights::check_finite(&weights, &tensors)?;
        let vb = candle_nn::VarBuilder::from_tensors(tensors, DType::F32, &device);
        let tagset = TagSet::new(config.parsed_labels()?);
        let model =
            TokenClassifier::new(loaded.model, vb, tagset.len(), 0.0).with_stage_context(|| {
                format!("{}: no classifier for these labels", weights.display())
            })?;
        Ok(TransformerTagger {
            model,
            tokenizer,
            scores: well_formed(&tagset),
            tagset,
            settings,
            device,
        })
    }
}

impl Tagger for TransformerTagger {
    fn tag(&self, text: &str) -> Result<Vec<(usize, usize, Label)>> {
        tag_document(
            &self.model,
            &self.tokenizer,
            &self.tagset,
            &self.scores,
            self.settings,
            text,
            &self.device,
        )
    }

    fn source(&self) -> &str {
        "ner:transformer"
    }
}
