//! Fine-tuning a masked LM for token classification: windows of whole documents, cross-entropy
//! on the first subword of every word, AdamW with warm-up and linear decay, an optional moving
//! average of the weights, and early stopping on dev F1.

use super::model::TokenClassifier;
use super::tagger::{prepare, tag_document, well_formed, WindowSettings};
use super::windows::MAX_SUBWORDS_PER_WORD;
use crate::corpus::Document;
use crate::error::{StageContext, StageResult as Result};
use crate::mlm::runtime::pad_batch;
use crate::ner::config::Arch;
use crate::ner::data::labels_of;
use crate::ner::tags::TagSet;
use crate::ner::training::{
    self as training, shard_rngs, sharded_gradients, write_model_dir, EarlyStopping, Ema, Meter,
    Progress, TrainSummary,
};
use crate::neural::dropout::DropoutRng;
use crate::neural::init::seeded_var_builder;
use crate::neural::optim::{AdamW, AdamWParams};
use crate::neural::schedule::{Decay, Schedule, Warmup};
use crate::tokenizer::ModelTokenizer;
use candle_core::backprop::GradStore;
use candle_core::{DType, Device, Tensor};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::path::Path;

/// Training settings.
#[derive(Clone, Debug, Serialize)]
pub struct TransformerOptions {
    pub seed: u64,
    /// The masked LM to fine-tune: a model directory or a hub id in the local cache.
    pub base: String,
    pub windows: WindowSettings,
    /// Windows per batch.
    pub batch_size: usize,
    pub learning_rate: f64,
    /// Share of all steps spent warming the learning rate up; it then decays linearly.
    pub warmup_ratio: f64,
    pub weight_decay: f64,
    pub clip: f64,
    /// Dropout before the classifier; `None`: the base model's hidden dropout.
    pub dropout: Option<f32>,
    pub max_epochs: usize,
    pub eval_every: usize,
    pub patience: usize,
    pub ema: Option<f64>,
    pub max_minutes: Option<f64>,
}

impl TransformerOptions {
    pub fn new(base: String) -> Self {
        TransformerOptions {
            seed: 1,
            base,
            windows: WindowSettings {
                window: 256,
                overlap: 64,
            },
            batch_size: 16,
            learning_rate: 5e-5,
            warmup_ratio: 0.1,
            weight_decay: 0.01,
            clip: 1.0,
            dropout: None,
            max_epochs: 10,
            eval_every: 500,
            patience: 4,
            ema: None,
            max_minutes: None,
        }
    }
}

/// One training window: its token ids and, for each word whose first subword it holds, that
/// position and the word's tag.
struct Example {
    row: Vec<u32>,
    labels: Vec<(usize, u32)>,
}

/// Windows of `docs` with their labels; the gold entities that could not be tagged; the words.
fn examples(
    docs: &[Document],
    tok: &ModelTokenizer,
    tagset: &TagSet,
    settings: WindowSettings,
) -> Result<(Vec<Example>, usize, usize)> {
    let mut out = Vec::new();
    let (mut dropped, mut words) = (0, 0);
    for doc in docs {
        let prep = prepare(tok, &doc.text, settings)
            .with_stage_context(|| format!("document {}", crate::corpus::show_id(&doc.id)))?;
        let (tags, d) = tagset.encode(&prep.tokens, &doc.entities);
        dropped += d;
        words += prep.tokens.len();
        for (i, (w, row)) in prep.windows.iter().zip(&prep.rows).enumerate() {
            out.push(Example {
                row: row.clone(),
                labels: w
                    .clone()
                    .map(|word| (prep.position(i, word), tags[word] as u32))
                    .collect(),
            });
        }
    }
    Ok((out, dropped, words))
}

/// The part of a batch's loss one shard holds (its labelled positions' cross-entropy over
/// the batch's labelled positions), its labelled words and its gradients.
fn shard_step(
    model: &TokenClassifier,
    part: &[&Example],
    batch_positions: usize,
    pad: u32,
    rng: &mut DropoutRng,
    device: &Device,
) -> Result<(f64, usize, GradStore)> {
    let rows: Vec<Vec<u32>> = part.iter().map(|e| e.row.clone()).collect();
    let (ids, mask) = pad_batch(&rows, pad, device)?;
    let logits = model.logits(&ids, &mask, Some(rng))?;
    let (b, t, k) = logits.dims3()?;
    let mut at = Vec::new();
    let mut targets = Vec::new();
    for (r, e) in part.iter().enumerate() {
        for &(pos, tag) in &e.labels {
            at.push((r * t + pos) as u32);
            targets.push(tag);
        }
    }
    let n = at.len();
    let picked = logits
        .reshape((b * t, k))?
        .index_select(&Tensor::from_vec(at, n, device)?, 0)?;
    let mean = crate::mlm::cross_entropy(&picked, &Tensor::from_vec(targets, n, device)?)?;
    let loss = (mean * (n as f64 / batch_positions as f64))?;
    let value = f64::from(loss.to_scalar::<f32>()?);
    Ok((value, n, loss.backward()?))
}

/// Strict entity-level P, R and F1 of `model` on `dev`.
fn dev_scores(
    model: &TokenClassifier,
    tok: &ModelTokenizer,
    tagset: &TagSet,
    settings: WindowSettings,
    dev: &[Document],
    device: &Device,
) -> Result<(f64, f64, f64)> {
    let scores = well_formed(tagset);
    training::dev_scores(dev, |text| {
        tag_document(model, tok, tagset, &scores, settings, text, device)
    })
}

/// Fine-tunes `opts.base` on `train`, early-stopping on `dev`, and writes the model directory
/// `out` (the encoder and classifier in the Hugging Face layout, the tokenizer, `ner.json`).
pub fn train(
    train_docs: &[Document],
    dev_docs: &[Document],
    label_map: Option<&str>,
    opts: &TransformerOptions,
    out: &Path,
    progress: Progress,
) -> Result<TrainSummary> {
    let device = Device::Cpu;
    let files = crate::mlm::resolve_model(&opts.base)
        .with_stage_context(|| format!("base model {}", opts.base))?;
    let loaded = crate::mlm::load_model_dir(&files.dir, &device)?;
    let tok = crate::tokenizer::load_dir(&files.dir)?;
    crate::mlm::check_vocab(loaded.config.vocab_size, tok.vocab_size())?;
    let settings = WindowSettings {
        window: opts.windows.window.min(loaded.config.max_sequence_len()),
        overlap: opts.windows.overlap,
    };
    if settings.capacity() < MAX_SUBWORDS_PER_WORD {
        return Err(crate::error::ValueError::new(format!(
            "windows of {} tokens are too short (the base model allows {}; at least {} are needed)",
            settings.window,
            loaded.config.max_sequence_len(),
            MAX_SUBWORDS_PER_WORD + 2
        ))
        .into());
    };
    if 2 * settings.overlap >= settings.capacity() {
        return Err(crate::error::ValueError::new(format!(
            "--overlap {} must be under half the window's {} subwords",
            settings.overlap,
            settings.capacity()
        ))
        .into());
    };
    let labels = labels_of(train_docs);
    if labels.is_empty() {
        return Err(
            crate::error::ValueError::new("the training documents have no entities").into(),
        );
    };
    let tagset = TagSet::new(labels);
    let (examples, untaggable, train_tokens) = examples(train_docs, &tok, &tagset, settings)?;
    if examples.iter().all(|e| e.labels.is_empty()) {
        return Err(crate::error::ValueError::new("the training documents have no tokens").into());
    };
    progress(&format!(
        "{} windows of at most {} tokens, {train_tokens} words, {} tags; {untaggable} gold entities could not be tagged",
        examples.len(),
        settings.window,
        tagset.len()
    ));

    let varmap = loaded.varmap;
    let config = loaded.config;
    let dropout = opts.dropout.unwrap_or(config.hidden_dropout_prob as f32);
    let vb = seeded_var_builder(&varmap, opts.seed, DType::F32, &device);
    let model = TokenClassifier::new(loaded.model, vb, tagset.len(), dropout)?;
    let mut optim = AdamW::new(
        &varmap,
        AdamWParams {
            weight_decay: opts.weight_decay,
            ..AdamWParams::default()
        },
    )?;
    let steps_per_epoch = examples.len().div_ceil(opts.batch_size) as u64;
    let schedule = Schedule::new(
        opts.learning_rate,
        Warmup::Ratio(opts.warmup_ratio),
        steps_per_epoch * opts.max_epochs as u64,
        Decay::Linear,
    );
    let mut ema = opts.ema.map(|d| Ema::new(&varmap, d)).transpose()?;
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed ^ 0x6e65_725f_7472_6166);
    let mut dropout_rngs = shard_rngs(opts.seed);
    let mut stopping = EarlyStopping::new(opts.patience, opts.max_minutes);
    let mut meter = Meter::default();
    let mut epochs = 0;
    let stopped_by: &str;
    let pad = tok.specials.pad;
    'training: loop {
        if epochs == opts.max_epochs {
            stopped_by = "max_epochs";
            break;
        }
        epochs += 1;
        let mut order: Vec<&Example> = examples.iter().filter(|e| !e.labels.is_empty()).collect();
        order.shuffle(&mut rng);
        let n_batches = order.len().div_ceil(opts.batch_size);
        for (bi, batch) in order.chunks(opts.batch_size).enumerate() {
            let positions: usize = batch.iter().map(|e| e.labels.len()).sum();
            let (sum, value, batch_tokens) =
                sharded_gradients(batch, &mut dropout_rngs, &optim, |part, r| {
                    shard_step(&model, part, positions, pad, r, &device)
                })?;
            let lr = schedule.lr(optim.step_count() + 1);
            optim.step(sum, lr, Some(opts.clip))?;
            if let Some(e) = &mut ema {
                e.update()?;
            }
            meter.add(value, batch_tokens);
            let step = optim.step_count();
            if step % opts.eval_every as u64 == 0 || bi + 1 == n_batches {
                let stop = stopping.evaluate(
                    step,
                    epochs,
                    &mut meter,
                    &varmap,
                    ema.as_ref(),
                    || dev_scores(&model, &tok, &tagset, settings, dev_docs, &device),
                    progress,
                )?;
                if let Some(why) = stop {
                    stopped_by = why;
                    break 'training;
                }
            }
        }
    }
    let (best_f1, best_step) = stopping.restore_best(&varmap)?;
    let seconds = stopping.seconds();
    let summary = TrainSummary {
        train_documents: train_docs.len(),
        train_sentences: examples.len(),
        train_tokens,
        dev_documents: dev_docs.len(),
        untaggable_entities: untaggable,
        vocabulary_words: tok.vocab_size(),
        steps: optim.step_count(),
        epochs,
        best_step,
        best_dev_f1: best_f1,
        seconds,
        tokens_per_second: meter.tokens as f64 / seconds,
        stopped_by: stopped_by.to_string(),
        options: serde_json::to_value(opts)?,
    };
    write_model_dir(
        out,
        Arch::Transformer,
        &tagset,
        label_map,
        serde_json::json!({ "base": opts.base, "windows": settings, "dropout": dropout }),
        &summary,
        &stopping.log,
        |dir| {
            crate::mlm::save_model_dir(&config, &varmap, dir.path(), true)?;
            crate::tokenizer::save_dir(&tok, dir.path())?;
            Ok(())
        },
    )?;
    Ok(summary)
}
