//! What every tagger's training shares: dev scoring, the evaluation log, early stopping with
//! the best weights kept, the summary, and writing the model directory in one piece.

use super::config::{Arch, NerConfig, CONFIG_FILE, FORMAT};
use super::tags::TagSet;
use crate::corpus::Document;
use crate::error::{StageResult as Result, ValueError};
use crate::eval::{evaluate, EvalOptions, Level};
use crate::labels::Label;
use crate::mlm::train::checkpoint::snapshot;
use crate::neural::dropout::DropoutRng;
use crate::neural::optim::{AdamW, GradSum};
use crate::span::Entity;
use candle_core::backprop::GradStore;
use candle_core::{Tensor, Var};
use candle_nn::VarMap;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// Progress lines go through this (numbers only).
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Strict entity-level micro precision, recall and F1 (subcategories must match) of a tagger
/// on `dev`; `tag` gives a text's spans, and runs on the documents in parallel.
pub fn dev_scores(
    dev: &[Document],
    tag: impl Fn(&str) -> Result<Vec<(usize, usize, Label)>> + Sync,
) -> Result<(f64, f64, f64)> {
    let pred: Vec<Document> = dev
        .par_iter()
        .map(|d| -> Result<Document> {
            let mut p = Document::new(d.id.clone(), d.text.clone());
            p.entities = tag(&d.text)?
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
    /// Training examples: sentences (BiLSTM-CRF) or windows (transformer).
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
    pub options: serde_json::Value,
}

/// Exponential moving average of the weights.
pub struct Ema {
    decay: f64,
    updates: u64,
    vars: Vec<(Var, Tensor)>,
}

impl Ema {
    pub fn new(varmap: &VarMap, decay: f64) -> Result<Self> {
        let data = varmap.data().lock().expect("var map lock");
        let mut named: Vec<(&String, &Var)> = data.iter().collect();
        named.sort_by(|a, b| a.0.cmp(b.0));
        let vars = named
            .into_iter()
            .map(|(_, v)| Ok((v.clone(), v.as_tensor().copy()?)))
            .collect::<Result<_>>()?;
        Ok(Ema {
            decay,
            updates: 0,
            vars,
        })
    }

    /// The decay of update `n` (from 1): min(decay, (1 + n) / (10 + n)), so early averages
    /// are not held at the random initial weights (the schedule of TensorFlow's
    /// `ExponentialMovingAverage` with `num_updates`).
    pub fn decay_at(&self, n: u64) -> f64 {
        self.decay.min((1.0 + n as f64) / (10.0 + n as f64))
    }

    pub fn update(&mut self) -> Result<()> {
        self.updates += 1;
        let decay = self.decay_at(self.updates);
        for (var, avg) in &mut self.vars {
            // Detached: a result of a variable records its inputs for backprop, and the
            // average would chain every earlier average (the whole history stays in memory).
            let raw = var.as_tensor().detach();
            *avg = ((avg.detach() * decay)? + (raw * (1.0 - decay))?)?;
        }
        Ok(())
    }

    /// Runs `f` with the averaged weights in place, then puts the raw ones back.
    pub fn with_average<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
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

/// Early stopping on dev F1: the log, the best weights so far, patience and a time limit.
pub struct EarlyStopping {
    patience: usize,
    max_minutes: Option<f64>,
    started: Instant,
    waited: usize,
    pub log: Vec<Evaluation>,
    best: Option<(f64, u64, HashMap<String, Tensor>)>,
}

/// What [`EarlyStopping::record`] decided.
pub struct Verdict {
    pub better: bool,
    /// Why training must stop now, if it must.
    pub stop: Option<&'static str>,
}

impl EarlyStopping {
    pub fn new(patience: usize, max_minutes: Option<f64>) -> Self {
        EarlyStopping {
            patience,
            max_minutes,
            started: Instant::now(),
            waited: 0,
            log: Vec::new(),
            best: None,
        }
    }

    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Logs `entry`; when its F1 is the best so far, keeps the weights `weights()` returns.
    pub fn record(
        &mut self,
        entry: Evaluation,
        weights: impl FnOnce() -> Result<HashMap<String, Tensor>>,
    ) -> Result<Verdict> {
        let f1 = entry.dev_f1;
        let step = entry.step;
        let seconds = entry.seconds;
        self.log.push(entry);
        let better = self.best.as_ref().is_none_or(|b| f1 > b.0);
        let mut stop = None;
        if better {
            self.best = Some((f1, step, weights()?));
            self.waited = 0;
        } else {
            self.waited += 1;
            if self.waited >= self.patience {
                stop = Some("patience");
            }
        }
        if stop.is_none() && self.max_minutes.is_some_and(|m| seconds >= m * 60.0) {
            stop = Some("max_minutes");
        }
        Ok(Verdict { better, stop })
    }

    /// Restores the best weights into `varmap`; returns their dev F1 and step.
    pub fn restore_best(&self, varmap: &VarMap) -> Result<(f64, u64)> {
        let (f1, step, weights) = self
            .best
            .as_ref()
            .ok_or_else(|| ValueError::new("training ended before the first evaluation"))?;
        let data = varmap.data().lock().expect("var map lock");
        for (k, v) in data.iter() {
            v.set(&weights[k])?;
        }
        Ok((*f1, *step))
    }
}

/// The mean training loss between evaluations, and the tokens trained on so far.
#[derive(Default)]
pub struct Meter {
    loss_sum: f64,
    batches: usize,
    pub tokens: usize,
}

impl Meter {
    pub fn add(&mut self, loss: f64, tokens: usize) {
        self.loss_sum += loss;
        self.batches += 1;
        self.tokens += tokens;
    }

    /// The mean loss since the last call.
    fn take_loss(&mut self) -> f64 {
        let mean = self.loss_sum / self.batches.max(1) as f64;
        (self.loss_sum, self.batches) = (0.0, 0);
        mean
    }
}

impl EarlyStopping {
    /// One evaluation: `score` gives dev P, R and F1 (run under the moving average, when
    /// there is one); the result is logged and reported, and the weights kept if best.
    /// Returns why training must stop now, if it must.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        step: u64,
        epoch: usize,
        meter: &mut Meter,
        varmap: &VarMap,
        ema: Option<&Ema>,
        score: impl Fn() -> Result<(f64, f64, f64)>,
        progress: Progress,
    ) -> Result<Option<&'static str>> {
        let (p, r, f1) = match ema {
            Some(e) => e.with_average(&score)?,
            None => score()?,
        };
        let seconds = self.seconds();
        let entry = Evaluation {
            step,
            epoch,
            train_loss: meter.take_loss(),
            dev_f1: f1,
            dev_precision: p,
            dev_recall: r,
            seconds,
        };
        let line_entry = entry.clone();
        let verdict = self.record(entry, || match ema {
            Some(e) => e.with_average(|| Ok(snapshot(varmap)?)),
            None => Ok(snapshot(varmap)?),
        })?;
        progress(&evaluation_line(
            &line_entry,
            verdict.better,
            meter.tokens as f64 / seconds,
        ));
        Ok(verdict.stop)
    }
}

/// The progress line of one evaluation.
pub fn evaluation_line(e: &Evaluation, better: bool, tokens_per_second: f64) -> String {
    format!(
        "epoch {} step {}: loss {:.3}, dev strict F1 {:.4} (P {:.4} R {:.4}){}, {:.0} tokens/s",
        e.epoch,
        e.step,
        e.train_loss,
        e.dev_f1,
        e.dev_precision,
        e.dev_recall,
        if better { ", best" } else { "" },
        tokens_per_second
    )
}

/// Writes a model directory: the architecture's own files (`write_files` fills the
/// directory it is given), `ner.json` and `training.jsonl`. Everything goes to a temporary
/// directory beside `out` that then replaces `out` whole, so an interruption leaves no half
/// model.
#[allow(clippy::too_many_arguments)]
pub fn write_model_dir(
    out: &Path,
    arch: Arch,
    tagset: &TagSet,
    label_map: Option<&str>,
    model: serde_json::Value,
    summary: &TrainSummary,
    log: &[Evaluation],
    write_files: impl FnOnce(&crate::fsio::StagedDir) -> Result<()>,
) -> Result<()> {
    let tmp = crate::fsio::StagedDir::new(out, true, &crate::fsio::Inputs::new())?;
    write_files(&tmp)?;
    let config = NerConfig {
        format: FORMAT.to_string(),
        arch,
        labels: tagset.labels().iter().map(ToString::to_string).collect(),
        tagging: "BIOES".to_string(),
        label_map: label_map.map(str::to_string),
        model,
        training: serde_json::to_value(summary)?,
    };
    tmp.write(CONFIG_FILE, &serde_json::to_vec_pretty(&config)?)?;
    let mut lines = String::new();
    for e in log {
        lines.push_str(&serde_json::to_string(e)?);
        lines.push('\n');
    }
    tmp.write("training.jsonl", lines.as_bytes())?;
    tmp.publish()?;
    Ok(())
}

/// Batches are split in this many shards, whose gradients are computed in parallel.
pub const SHARDS: usize = 2;

/// One dropout stream per shard, from the seed.
pub fn shard_rngs(seed: u64) -> Vec<DropoutRng> {
    (0..SHARDS as u64)
        .map(|s| DropoutRng::new(seed.wrapping_add(1).wrapping_add(s << 32)))
        .collect()
}

/// Runs `shard_loss` on each of the [`SHARDS`] parts of a batch in parallel, each part with
/// its own dropout stream (so results do not depend on the thread count), and sums their
/// gradients for one optimizer step. `shard_loss` returns the part's share of the batch loss,
/// its token count and its gradients. Returns the sum, the batch loss and its tokens.
pub fn sharded_gradients<T: Sync>(
    batch: &[T],
    rngs: &mut [DropoutRng],
    optim: &AdamW,
    shard_loss: impl Fn(&[T], &mut DropoutRng) -> Result<(f64, usize, GradStore)> + Sync,
) -> Result<(GradSum, f64, usize)> {
    let per_shard = batch.len().div_ceil(SHARDS).max(1);
    let results: Vec<Result<(f64, usize, GradStore)>> = batch
        .par_chunks(per_shard)
        .zip(rngs.par_iter_mut())
        .map(|(part, rng)| shard_loss(part, rng))
        .collect();
    let mut sum = optim.grad_sum();
    let (mut loss, mut tokens) = (0.0, 0);
    for r in results {
        let (l, n, grads) = r?;
        loss += l;
        tokens += n;
        optim.accumulate(&mut sum, &grads, 1.0)?;
    }
    if !loss.is_finite() {
        return Err(crate::error::ValueError::new(format!(
            "the training loss is not finite (step {})",
            optim.step_count() + 1
        ))
        .into());
    };
    Ok((sum, loss, tokens))
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};

    #[test]
    fn the_moving_average_follows_its_warm_up_schedule_and_puts_raw_weights_back() -> Result<()> {
        let varmap = VarMap::new();
        let v = varmap.get(
            2,
            "w",
            candle_nn::Init::Const(0.0),
            DType::F32,
            &Device::Cpu,
        )?;
        let var = varmap.data().lock().unwrap()["w"].clone();
        let mut ema = Ema::new(&varmap, 0.99)?;
        assert_eq!(ema.decay_at(1), 2.0 / 11.0);
        assert_eq!(ema.decay_at(100_000), 0.99);
        let mut expect = 0.0f64;
        for step in 1..=5u64 {
            var.set(&Tensor::new(
                &[step as f32, 2.0 * step as f32],
                &Device::Cpu,
            )?)?;
            ema.update()?;
            let d = ema.decay_at(step);
            expect = d * expect + (1.0 - d) * step as f64;
        }
        let seen: Vec<f32> = ema.with_average(|| Ok(var.as_tensor().to_vec1::<f32>()?))?;
        assert!(
            (seen[0] as f64 - expect).abs() < 1e-5,
            "{seen:?} vs {expect}"
        );
        assert!((seen[1] as f64 - 2.0 * expect).abs() < 1e-5);
        assert_eq!(v.dims(), [2]);
        assert_eq!(var.as_tensor().to_vec1::<f32>()?, [5.0, 10.0]);
        Ok(())
    }
}
