//! Training the BiLSTM-CRF: length-bucketed shuffled batches, AdamW with clipping, dropout and
//! word dropout, an optional moving average of the weights, and early stopping on dev F1.

use super::crf::CrfScores;
use super::model::{Batch, BiLstmCrf, Dims};
use super::tagger::{tag_text, VOCAB_FILE, WEIGHTS_FILE};
use super::vocab::Vocab;
use crate::corpus::Document;
use crate::eval::{evaluate, EvalOptions, Level};
use crate::mlm::dropout::DropoutRng;
use crate::mlm::init::seeded_var_builder;
use crate::mlm::train::optim::{AdamW, AdamWParams};
use crate::ner::config::{Arch, NerConfig, CONFIG_FILE, FORMAT};
use crate::ner::data::{labels_of, tagged_sentences, words_outside_entities, Sentence};
use crate::ner::tags::TagSet;
use crate::span::Entity;
use anyhow::{Context, Result};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::VarMap;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Write;
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
            eval_every: 500,
            patience: 4,
            ema: None,
            max_minutes: None,
        }
    }
}

/// One evaluation in the training log.
#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    pub step: u64,
    pub epoch: usize,
    /// Mean training loss since the previous evaluation.
    pub train_loss: f64,
    pub dev_f1: f64,
    pub dev_precision: f64,
    pub dev_recall: f64,
    pub seconds: f64,
}

/// What training did, for `ner.json` and the command's summary.
#[derive(Clone, Debug, Serialize)]
pub struct TrainSummary {
    pub train_documents: usize,
    pub train_sentences: usize,
    pub train_tokens: usize,
    pub dev_documents: usize,
    pub untaggable_entities: usize,
    pub vocabulary_words: usize,
    pub steps: u64,
    pub epochs: usize,
    pub best_step: u64,
    pub best_dev_f1: f64,
    pub seconds: f64,
    pub tokens_per_second: f64,
    pub stopped_by: String,
    pub options: TrainOptions,
}

/// Progress lines go through this (numbers only).
pub type Progress<'a> = &'a mut dyn FnMut(&str);

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
    dev: &[Document],
    device: &Device,
) -> Result<(f64, f64, f64)> {
    let mut scores: CrfScores = model.crf.scores()?;
    scores.constrain(tagset);
    let pred: Vec<Document> = dev
        .iter()
        .map(|d| -> Result<Document> {
            let mut p = Document::new(d.id.clone(), d.text.clone());
            p.entities = tag_text(model, vocab, tagset, &scores, &d.text, device)?
                .into_iter()
                .map(|(s, e, l)| Entity::new(s, e, l, "ner", 1.0))
                .collect();
            Ok(p)
        })
        .collect::<Result<_>>()?;
    let report = evaluate(dev, &pred, &EvalOptions::default())?;
    let s = report.entity_strict.get(Level::Subcategory);
    Ok((s.precision, s.recall, s.f1))
}

/// Copies of every variable's current value, by name.
fn snapshot(varmap: &VarMap) -> Result<HashMap<String, Tensor>> {
    let data = varmap.data().lock().expect("var map lock");
    data.iter()
        .map(|(k, v)| Ok((k.clone(), v.as_tensor().copy()?)))
        .collect()
}

fn restore(varmap: &VarMap, values: &HashMap<String, Tensor>) -> Result<()> {
    let data = varmap.data().lock().expect("var map lock");
    for (k, v) in data.iter() {
        v.set(&values[k])?;
    }
    Ok(())
}

/// Exponential moving average of the weights.
struct Ema {
    decay: f64,
    vars: Vec<(Var, Tensor)>,
}

impl Ema {
    fn new(varmap: &VarMap, decay: f64) -> Result<Self> {
        let data = varmap.data().lock().expect("var map lock");
        let mut named: Vec<(&String, &Var)> = data.iter().collect();
        named.sort_by(|a, b| a.0.cmp(b.0));
        let vars = named
            .into_iter()
            .map(|(_, v)| Ok((v.clone(), v.as_tensor().copy()?)))
            .collect::<Result<_>>()?;
        Ok(Ema { decay, vars })
    }

    fn update(&mut self) -> Result<()> {
        for (var, avg) in &mut self.vars {
            *avg = ((&*avg * self.decay)? + (var.as_tensor() * (1.0 - self.decay))?)?;
        }
        Ok(())
    }

    /// Runs `f` with the averaged weights in place, then puts the raw ones back.
    fn with_average<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let raw: Vec<Tensor> = self
            .vars
            .iter()
            .map(|(v, _)| v.as_tensor().copy())
            .collect::<candle_core::Result<_>>()?;
        for (var, avg) in &self.vars {
            var.set(avg)?;
        }
        let out = f();
        for ((var, _), r) in self.vars.iter().zip(&raw) {
            var.set(r)?;
        }
        out
    }
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
    anyhow::ensure!(
        !labels.is_empty(),
        "the training documents have no entities"
    );
    let tagset = TagSet::new(labels);
    let (sentences, untaggable) = tagged_sentences(train_docs, &tagset);
    anyhow::ensure!(
        !sentences.is_empty(),
        "the training documents have no tokens"
    );
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
    let mut dropout = DropoutRng::new(opts.seed.wrapping_add(1));

    let mut log: Vec<Evaluation> = Vec::new();
    let mut best: Option<(f64, u64, HashMap<String, Tensor>)> = None;
    let mut waited = 0;
    let (mut loss_sum, mut loss_n) = (0.0f64, 0usize);
    let mut tokens_seen = 0usize;
    let mut epochs = 0;
    let stopped_by;
    let evaluate_now = |model: &BiLstmCrf, ema: &Option<Ema>| -> Result<(f64, f64, f64)> {
        match ema {
            Some(e) => e.with_average(|| dev_scores(model, &vocab, &tagset, dev_docs, &device)),
            None => dev_scores(model, &vocab, &tagset, dev_docs, &device),
        }
    };
    'training: loop {
        if epochs == opts.max_epochs {
            stopped_by = "max_epochs".to_string();
            break;
        }
        epochs += 1;
        let plan = batches(&sentences, opts.batch_size, &mut rng);
        let n_batches = plan.len();
        for (bi, batch_ids) in plan.into_iter().enumerate() {
            let words: Vec<&[String]> = batch_ids
                .iter()
                .map(|&i| sentences[i].words.as_slice())
                .collect();
            let hide: Vec<Vec<bool>> = words
                .iter()
                .map(|s| {
                    s.iter()
                        .map(|_| rng.gen::<f64>() < opts.word_dropout)
                        .collect()
                })
                .collect();
            let hide_fn = |i: usize, j: usize| hide[i][j];
            let batch = Batch::new(&vocab, &opts.dims, &words, Some(&hide_fn), &device)?;
            let mut tags = vec![0usize; words.len() * batch.width];
            for (row, &i) in batch_ids.iter().enumerate() {
                tags[row * batch.width..row * batch.width + sentences[i].tags.len()]
                    .copy_from_slice(&sentences[i].tags);
            }
            let emissions = model.emissions(&batch, Some((&mut dropout, opts.dropout)))?;
            let loss = model
                .crf
                .neg_log_likelihood(&emissions, &tags, &batch.lengths)?;
            let value = f64::from(loss.to_scalar::<f32>()?);
            anyhow::ensure!(
                value.is_finite(),
                "the training loss is not finite (step {})",
                optim.step_count() + 1
            );
            let grads = loss.backward()?;
            let mut sum = optim.grad_sum();
            optim.accumulate(&mut sum, &grads, 1.0)?;
            optim.step(sum, opts.learning_rate, Some(opts.clip))?;
            if let Some(e) = &mut ema {
                e.update()?;
            }
            loss_sum += value;
            loss_n += 1;
            tokens_seen += batch.lengths.iter().sum::<usize>();
            let step = optim.step_count();
            let end_of_epoch = bi + 1 == n_batches;
            if step % opts.eval_every as u64 == 0 || end_of_epoch {
                let (p, r, f1) = evaluate_now(&model, &ema)?;
                let seconds = started.elapsed().as_secs_f64();
                let entry = Evaluation {
                    step,
                    epoch: epochs,
                    train_loss: loss_sum / loss_n.max(1) as f64,
                    dev_f1: f1,
                    dev_precision: p,
                    dev_recall: r,
                    seconds,
                };
                (loss_sum, loss_n) = (0.0, 0);
                let better = best.as_ref().is_none_or(|b| f1 > b.0);
                progress(&format!(
                    "epoch {epochs} step {step}: loss {:.3}, dev strict F1 {f1:.4} (P {p:.4} R {r:.4}){}, {:.0} tokens/s",
                    entry.train_loss,
                    if better { ", best" } else { "" },
                    tokens_seen as f64 / seconds
                ));
                log.push(entry);
                if better {
                    let weights = match &ema {
                        Some(e) => e.with_average(|| snapshot(&varmap))?,
                        None => snapshot(&varmap)?,
                    };
                    best = Some((f1, step, weights));
                    waited = 0;
                } else {
                    waited += 1;
                    if waited >= opts.patience {
                        stopped_by = "patience".to_string();
                        break 'training;
                    }
                }
                if opts.max_minutes.is_some_and(|m| seconds >= m * 60.0) {
                    stopped_by = "max_minutes".to_string();
                    break 'training;
                }
            }
        }
    }
    let (best_f1, best_step, weights) =
        best.context("training ended before the first evaluation")?;
    restore(&varmap, &weights)?;
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
        tokens_per_second: tokens_seen as f64 / seconds,
        stopped_by,
        options: opts.clone(),
    };
    save(&varmap, &vocab, &tagset, label_map, &summary, &log, out)?;
    Ok(summary)
}

fn save(
    varmap: &VarMap,
    vocab: &Vocab,
    tagset: &TagSet,
    label_map: Option<&str>,
    summary: &TrainSummary,
    log: &[Evaluation],
    out: &Path,
) -> Result<()> {
    use crate::mlm::train::atomic::{replace_dir, temp_dir_for};
    let tmp = temp_dir_for(out)?;
    let dir = tmp.path();
    varmap.save(dir.join(WEIGHTS_FILE))?;
    std::fs::write(dir.join(VOCAB_FILE), serde_json::to_vec(vocab)?)?;
    let config = NerConfig {
        format: FORMAT.to_string(),
        arch: Arch::BilstmCrf,
        labels: tagset.labels().iter().map(ToString::to_string).collect(),
        tagging: "BIOES".to_string(),
        label_map: label_map.map(str::to_string),
        model: serde_json::json!({ "dims": summary.options.dims }),
        training: serde_json::to_value(summary)?,
    };
    std::fs::write(dir.join(CONFIG_FILE), serde_json::to_vec_pretty(&config)?)?;
    let mut f = std::fs::File::create(dir.join("training.jsonl"))?;
    for e in log {
        writeln!(f, "{}", serde_json::to_string(e)?)?;
    }
    drop(f);
    replace_dir(tmp, out)?;
    Ok(())
}
