//! Training the BiLSTM-CRF: length-bucketed shuffled batches, AdamW with clipping, dropout and
//! word dropout, an optional moving average of the weights, and early stopping on dev F1.

use super::crf::CrfScores;
use super::model::{Batch, BiLstmCrf, Dims};
use super::tagger::{tag_text, VOCAB_FILE, WEIGHTS_FILE};
use super::vocab::Vocab;
use crate::corpus::Document;
use crate::error::StageResult as Result;
use crate::ner::config::Arch;
use crate::ner::data::{labels_of, tagged_sentences, words_outside_entities, Sentence};
use crate::ner::rules::{RuleFeatures, TokenFeatures};
use crate::ner::tags::TagSet;
use crate::ner::training::{
    self as training, shard_rngs, sharded_gradients, write_model_dir, EarlyStopping, Ema, Meter,
    Progress, TrainSummary,
};
use crate::neural::dropout::DropoutRng;
use crate::neural::init::seeded_var_builder;
use crate::neural::optim::{AdamW, AdamWParams};
use candle_core::backprop::GradStore;
use candle_core::{DType, Device};
use candle_nn::VarMap;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// Training settings.
#[derive(Clone, Debug, Serialize)]
pub struct TrainOptions {
    pub seed: u64,
    pub dims: Dims,
    pub batch_size: usize,
    pub learning_rate: f64,
    pub clip: f64,
    pub dropout: f32,
    /// Probability of hiding a known word from the word embedding (its characters stay).
    pub word_dropout: f64,
    /// Words need this many occurrences outside gold spans to get their own embedding.
    pub min_word_count: usize,
    pub max_epochs: usize,
    /// Evaluate on dev every this many optimizer steps (and at the end of each epoch).
    pub eval_every: usize,
    /// Stop after this many evaluations without a better dev F1.
    pub patience: usize,
    /// Decay of the exponential moving average of the weights; the average is what is
    /// evaluated and saved. `None`: the raw weights.
    pub ema: Option<f64>,
    /// Stop (keeping the best weights so far) once training has run this long.
    pub max_minutes: Option<f64>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            seed: 1,
            dims: Dims::default(),
            batch_size: 16,
            learning_rate: 2e-3,
            clip: 5.0,
            dropout: 0.5,
            word_dropout: 0.1,
            min_word_count: 1,
            max_epochs: 30,
            eval_every: 1000,
            patience: 6,
            ema: Some(0.999),
            max_minutes: None,
        }
    }
}

/// Batches of sentence indices: shuffled, grouped by similar length to limit padding.
fn batches(sentences: &[Sentence], size: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..sentences.len()).collect();
    order.shuffle(rng);
    let mut out = Vec::new();
    for pool in order.chunks(size * 32) {
        let mut pool = pool.to_vec();
        pool.sort_by_key(|&i| sentences[i].words.len());
        out.extend(pool.chunks(size).map(<[usize]>::to_vec));
    }
    out.shuffle(rng);
    out
}

/// Strict entity-level micro precision, recall and F1 (labels must match) of `model` on `dev`.
fn dev_scores(
    model: &BiLstmCrf,
    vocab: &Vocab,
    tagset: &TagSet,
    rules: Option<&RuleFeatures>,
    dev: &[Document],
    device: &Device,
) -> Result<(f64, f64, f64)> {
    let mut scores: CrfScores = model.crf.scores()?;
    scores.constrain(tagset);
    training::dev_scores(dev, |text| {
        tag_text(model, vocab, tagset, &scores, rules, text, device)
    })
}

/// Loss and gradients of one shard of a batch: its NLL summed over its sentences and divided
/// by the size of the whole batch (so the shards' gradients add up to the batch mean's), the
/// tokens it holds, and the gradients.
#[allow(clippy::too_many_arguments)]
fn shard_step(
    model: &BiLstmCrf,
    vocab: &Vocab,
    dims: &Dims,
    sentences: &[Sentence],
    part: &[(usize, &[bool])],
    batch_size: usize,
    dropout: &mut DropoutRng,
    rate: f32,
    device: &Device,
) -> Result<(f64, usize, GradStore)> {
    let words: Vec<&[String]> = part
        .iter()
        .map(|&(i, _)| sentences[i].words.as_slice())
        .collect();
    let hide_fn = |i: usize, j: usize| part[i].1[j];
    let hits: Vec<&[TokenFeatures]> = part
        .iter()
        .map(|&(i, _)| sentences[i].features.as_slice())
        .collect();
    let batch = Batch::new(vocab, dims, &words, Some(&hits), Some(&hide_fn), device)?;
    let mut tags = vec![0usize; words.len() * batch.width];
    for (row, &(i, _)) in part.iter().enumerate() {
        tags[row * batch.width..row * batch.width + sentences[i].tags.len()]
            .copy_from_slice(&sentences[i].tags);
    }
    let emissions = model.emissions(&batch, Some((dropout, rate)))?;
    let mean = model
        .crf
        .neg_log_likelihood(&emissions, &tags, &batch.lengths)?;
    let loss = (mean * (part.len() as f64 / batch_size as f64))?;
    let value = f64::from(loss.to_scalar::<f32>()?);
    let grads = loss.backward()?;
    Ok((value, batch.lengths.iter().sum(), grads))
}

/// Trains on `train`, early-stopping on `dev`, and writes the model directory `out` (replaced
/// as a whole at the end, so an interrupted run leaves no half model).
pub fn train(
    train_docs: &[Document],
    dev_docs: &[Document],
    label_map: Option<&str>,
    opts: &TrainOptions,
    out: &Path,
    progress: Progress,
) -> Result<TrainSummary> {
    let started = Instant::now();
    let device = Device::Cpu;
    let labels = labels_of(train_docs);
    if labels.is_empty() {
        return Err(
            crate::error::ValueError::new("the training documents have no entities").into(),
        );
    };
    let tagset = TagSet::new(labels);
    let rules = if opts.dims.reads_recognizers() {
        Some(RuleFeatures)
    } else {
        None
    };
    let (sentences, untaggable) = tagged_sentences(train_docs, &tagset, rules.as_ref())?;
    if sentences.is_empty() {
        return Err(crate::error::ValueError::new("the training documents have no tokens").into());
    };
    let outside = words_outside_entities(train_docs);
    let vocab = Vocab::build(
        outside.iter().map(String::as_str),
        sentences
            .iter()
            .flat_map(|s| s.words.iter().map(String::as_str)),
        opts.min_word_count,
    );
    let train_tokens: usize = sentences.iter().map(|s| s.words.len()).sum();
    progress(&format!(
        "{} sentences, {train_tokens} tokens, {} tags, {} words, {} characters; {untaggable} gold entities could not be tagged",
        sentences.len(),
        tagset.len(),
        vocab.word_count(),
        vocab.char_count()
    ));

    let varmap = VarMap::new();
    let vb = seeded_var_builder(&varmap, opts.seed, DType::F32, &device);
    let model = BiLstmCrf::new(vb, opts.dims, &vocab, tagset.len())?;
    let mut optim = AdamW::new(
        &varmap,
        AdamWParams {
            weight_decay: 0.0,
            ..AdamWParams::default()
        },
    )?;
    let mut ema = opts.ema.map(|d| Ema::new(&varmap, d)).transpose()?;
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed ^ 0x6e65_725f_7472_6169);
    let mut dropout = shard_rngs(opts.seed);

    let mut stopping = EarlyStopping::new(opts.patience, opts.max_minutes);
    let mut meter = Meter::default();
    let mut epochs = 0;
    let stopped_by: &str;
    'training: loop {
        if epochs == opts.max_epochs {
            stopped_by = "max_epochs";
            break;
        }
        epochs += 1;
        let plan = batches(&sentences, opts.batch_size, &mut rng);
        let n_batches = plan.len();
        for (bi, batch_ids) in plan.into_iter().enumerate() {
            let hide: Vec<Vec<bool>> = batch_ids
                .iter()
                .map(|&i| {
                    (0..sentences[i].words.len())
                        .map(|_| rng.gen::<f64>() < opts.word_dropout)
                        .collect()
                })
                .collect();
            let items: Vec<(usize, &[bool])> = batch_ids
                .iter()
                .zip(&hide)
                .map(|(&i, h)| (i, h.as_slice()))
                .collect();
            let total = items.len();
            let (sum, value, batch_tokens) =
                sharded_gradients(&items, &mut dropout, &optim, |part, rng| {
                    shard_step(
                        &model,
                        &vocab,
                        &opts.dims,
                        &sentences,
                        part,
                        total,
                        rng,
                        opts.dropout,
                        &device,
                    )
                })?;
            optim.step(sum, opts.learning_rate, Some(opts.clip))?;
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
                    || dev_scores(&model, &vocab, &tagset, rules.as_ref(), dev_docs, &device),
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
    let seconds = started.elapsed().as_secs_f64();
    let summary = TrainSummary {
        train_documents: train_docs.len(),
        train_sentences: sentences.len(),
        train_tokens,
        dev_documents: dev_docs.len(),
        untaggable_entities: untaggable,
        vocabulary_words: vocab.word_count(),
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
        Arch::BilstmCrf,
        &tagset,
        label_map,
        serde_json::json!({ "dims": opts.dims }),
        &summary,
        &stopping.log,
        |dir| {
            varmap.save(dir.path().join(WEIGHTS_FILE))?;
            dir.write(VOCAB_FILE, &serde_json::to_vec(&vocab)?)?;
            Ok(())
        },
    )?;
    Ok(summary)
}
