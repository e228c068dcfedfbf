//! The training loop: micro-batches with gradient accumulation, AdamW steps on a schedule,
//! held-out evaluation with early stopping, atomic checkpoints with exact resume, a JSONL log
//! and a progress callback. Generic over the model: it trains the caller's `VarMap` through the
//! caller's loss closure.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

use candle_core::{Device, Tensor};
use candle_nn::VarMap;
use serde::{Deserialize, Serialize};

use super::blocks::Blocks;
use super::checkpoint::{self, TrainerState};
use super::collate::{mask_batch, MaskKey, MaskedBatch, MaskingParams};
use super::data::{epoch_order, sha256_hex, Block, PreparedData};
use super::error::{Result, TrainError};
use super::log::{LogLine, TrainLog, LOG_FILE};
use super::manifest::Manifest;
use super::seeds::{self, Purpose};
use crate::neural::optim::{AdamW, AdamWParams};
use crate::neural::schedule::{Decay, Schedule, Warmup};

/// Settings of a training run. All but `checkpoint_every` determine the result and must match
/// when a run is resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSettings {
    /// Stop after this many optimizer steps (with `epochs`, whichever comes first).
    pub max_steps: Option<u64>,
    /// Stop after this many passes over the training blocks.
    pub epochs: Option<u64>,
    /// Sequences per micro-batch.
    pub batch_size: usize,
    /// Micro-batches per optimizer step (effective batch = batch_size × grad_accum).
    pub grad_accum: usize,
    /// Peak learning rate.
    pub lr: f64,
    pub warmup: Warmup,
    pub decay: Decay,
    pub adamw: AdamWParams,
    /// Global gradient-norm clip (1.0 in BERT/RoBERTa); `None` for no clipping.
    pub clip_norm: Option<f64>,
    pub masking: MaskingParams,
    /// Evaluate the held-out blocks every N optimizer steps and at the last step (0: never).
    pub eval_every: u64,
    /// Stop when the held-out loss has not improved for this many steps (`None`: never).
    pub patience: Option<u64>,
    /// Write a checkpoint every N optimizer steps (0: only at the end); not part of the
    /// settings hash.
    pub checkpoint_every: u64,
    /// Seed of masks, dropout, shuffles and the evaluation masks.
    pub seed: u64,
}

impl Default for TrainSettings {
    /// Values after the Hungarian seed paper's schedule (evaluation every 200 steps, patience
    /// 1,600, at most 20,000 steps) and the BERT/RoBERTa recipe for the rest.
    fn default() -> Self {
        TrainSettings {
            max_steps: Some(20_000),
            epochs: None,
            batch_size: 32,
            grad_accum: 1,
            lr: 1e-4,
            warmup: Warmup::Ratio(0.06),
            decay: Decay::Linear,
            adamw: AdamWParams::default(),
            clip_norm: Some(1.0),
            masking: MaskingParams::default(),
            eval_every: 200,
            patience: Some(1_600),
            checkpoint_every: 1_000,
            seed: 42,
        }
    }
}

impl TrainSettings {
    /// The settings that determine the result, as a JSON object (without `checkpoint_every`).
    pub fn fingerprint(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("settings serialize");
        if let Some(o) = v.as_object_mut() {
            o.remove("checkpoint_every");
        }
        v
    }

    fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(TrainError::Settings(m.to_string()));
        if self.batch_size == 0 || self.grad_accum == 0 {
            return bad("batch size and gradient accumulation must be at least 1");
        }
        if self.max_steps.is_none() && self.epochs.is_none() {
            return bad("give max_steps or epochs");
        }
        if !(self.lr.is_finite() && self.lr >= 0.0) {
            return bad("the learning rate must be finite and not negative");
        }
        if !(self.masking.mask_prob > 0.0 && self.masking.mask_prob <= 1.0) {
            return bad("mask_prob must be in (0, 1]");
        }
        Ok(())
    }
}

/// Where the run writes and whether it continues a checkpoint.
#[derive(Debug, Clone, Copy)]
pub struct TrainOptions<'a> {
    /// Output directory: `manifest.json`, `train_log.jsonl`, `checkpoint/`.
    pub out_dir: &'a Path,
    /// Continue from `out_dir/checkpoint` if there is one (settings and data must match).
    pub resume: bool,
}

/// What the progress callback sees after every optimizer step.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub step: u64,
    pub total_steps: u64,
    /// Fractional epochs done.
    pub epoch: f64,
    pub loss: f64,
    pub lr: f64,
    pub grad_norm: f64,
    pub tokens_seen: u64,
    pub tokens_per_s: f64,
    /// Held-out loss, when this step evaluated.
    pub eval_loss: Option<f64>,
    pub best_loss: Option<f64>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOutcome {
    /// Optimizer steps done in total (including those before a resume).
    pub steps: u64,
    pub total_steps: u64,
    /// Step the run resumed from, if it did.
    pub resumed_from: Option<u64>,
    pub best_step: Option<u64>,
    pub best_loss: Option<f64>,
    pub last_eval_loss: Option<f64>,
    pub stopped_early: bool,
    /// The progress callback asked to stop: no checkpoint was written for the steps since the
    /// last one (as after a kill); resume continues from that checkpoint.
    pub interrupted: bool,
    /// Whether the best weights were put back into the `VarMap` at the end.
    pub restored_best: bool,
    /// See [`PreparedData::unigram_baseline`].
    pub unigram_baseline: f64,
}

/// Trains the variables of `varmap` on `data`.
///
/// `loss_fn(batch, training, dropout_seed)` returns the scalar mean loss over the batch's
/// masked positions (`training` is false during evaluation). Micro-batch `i` of a step is
/// weighted by its share of the step's masked positions, so the step's gradient is that of one
/// batch of all its sequences. At the end the best weights (lowest held-out loss) are restored
/// into `varmap`; the caller saves the model. `progress` runs after every optimizer step and
/// may return `ControlFlow::Break(())` to stop (treated as an interruption).
pub fn train<L>(
    varmap: &VarMap,
    data: &PreparedData,
    settings: &TrainSettings,
    options: TrainOptions<'_>,
    mut loss_fn: L,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<TrainOutcome>
where
    L: FnMut(&MaskedBatch, bool, u64) -> candle_core::Result<Tensor>,
{
    settings.validate()?;
    let out = options.out_dir;
    crate::fsio::create_private_dir(out)?;
    let device = varmap
        .all_vars()
        .first()
        .map(|v| v.device().clone())
        .ok_or_else(|| TrainError::Settings("the VarMap holds no variables".into()))?;
    let n_blocks = data.train_blocks.len() as u64;
    let b = settings.batch_size as u64;
    let a = settings.grad_accum as u64;
    // Sequences are drawn from one endless stream: the epochs' shuffles one after another.
    // Every micro-batch is full; one may straddle two epochs.
    let mut total_steps = u64::MAX;
    if let Some(s) = settings.max_steps {
        total_steps = s;
    }
    if let Some(e) = settings.epochs {
        total_steps = total_steps.min((e * n_blocks).div_ceil(a * b));
    }
    if total_steps == 0 {
        return Err(TrainError::Settings("the run has zero steps".into()));
    }
    let schedule = Schedule::new(settings.lr, settings.warmup, total_steps, settings.decay);
    // Canary settings (counts, repeats, file hash) are compared on resume like the others.
    let mut fingerprint = settings.fingerprint();
    if let (Some(c), Some(o)) = (&data.canaries, fingerprint.as_object_mut()) {
        o.insert(
            "canaries".into(),
            serde_json::to_value(c).expect("canary summary serializes"),
        );
    }
    let data_digest = data.digest();
    let settings_hash = sha256_hex(
        format!(
            "{}\n{data_digest}\n{total_steps}",
            serde_json::to_string(&fingerprint).expect("json")
        )
        .as_bytes(),
    );

    let mut opt = AdamW::new(varmap, settings.adamw)?;
    let mut best: Option<HashMap<String, Tensor>> = None;
    let log_path = out.join(LOG_FILE);
    let found = checkpoint::find(out);
    let (mut state, mut log, resumed_from) = match found {
        Some(_) if !options.resume => {
            return Err(TrainError::CheckpointExists {
                path: out.to_path_buf(),
            })
        }
        Some(dir) => {
            let state = checkpoint::read_state(&dir)?;
            if state.settings_hash != settings_hash {
                return Err(TrainError::SettingsMismatch {
                    path: dir.clone(),
                    fields: differing_fields(&state, &fingerprint, &data_digest, total_steps),
                });
            }
            let model = checkpoint::load_tensors(varmap, &dir.join(checkpoint::MODEL_FILE))?;
            checkpoint::restore(varmap, &model, &dir.join(checkpoint::MODEL_FILE))?;
            opt.load(&dir.join(checkpoint::OPTIMIZER_FILE))?;
            let best_path = dir.join(checkpoint::BEST_FILE);
            if best_path.is_file() {
                best = Some(checkpoint::load_tensors(varmap, &best_path)?);
            }
            let log = TrainLog::resume(&log_path, state.step)?;
            let from = state.step;
            (state, log, Some(from))
        }
        None => {
            let state = TrainerState {
                step: 0,
                total_steps,
                epoch: 0,
                micro_batches_done: 0,
                tokens_seen: 0,
                best_loss: None,
                best_step: None,
                steps_since_best: 0,
                last_eval_loss: None,
                stopped_early: false,
                finished: false,
                seed: settings.seed,
                rng: "ChaCha8 streams keyed by (seed, step, slot) and (seed, epoch)".into(),
                settings_hash: settings_hash.clone(),
                settings: fingerprint.clone(),
                data_digest: data_digest.clone(),
            };
            (state, TrainLog::create(&log_path)?, None)
        }
    };

    // Written once the checkpoint (if any) is known to match: a refused resume must not
    // replace the manifest of the model already in `out`.
    Manifest::write_for(
        data,
        settings.seed,
        serde_json::to_value(settings).expect("json"),
        out,
    )?;

    let ordinary = data.spec.ordinary_ids();
    let mut stream = BlockStream::new(n_blocks as usize, settings.seed);
    let mut interrupted = false;
    while !state.finished && state.step < total_steps {
        let step = state.step + 1;
        let started = Instant::now();
        let lr = schedule.lr(step);
        // Build the step's micro-batches first: weights need the step's masked count.
        let mut batches = Vec::with_capacity(a as usize);
        for i in 0..a {
            let first = (state.micro_batches_done + i) * b;
            let blocks = (first..first + b)
                .map(|slot| data.train_blocks.get(stream.block(slot)))
                .collect::<Result<Vec<Block>>>()?;
            let blocks: Vec<&Block> = blocks.iter().collect();
            let key = MaskKey {
                purpose: Purpose::Mask,
                seed: settings.seed,
                step,
                first_slot: i * b,
            };
            batches.push(mask_batch(
                &blocks,
                &data.spec,
                &ordinary,
                &settings.masking,
                key,
                &device,
            )?);
        }
        let masked: usize = batches.iter().map(|x| x.n_masked).sum();
        let tokens: usize = batches.iter().map(|x| x.n_tokens).sum();
        let mut sum = opt.grad_sum();
        let mut step_loss = 0f64;
        for (i, batch) in batches.iter().enumerate() {
            if batch.n_masked == 0 {
                continue;
            }
            let w = batch.n_masked as f64 / masked as f64;
            let dropout_seed = seeds::seed_u64(Purpose::Dropout, &[settings.seed, step, i as u64]);
            let loss = loss_fn(batch, true, dropout_seed)?;
            let value = loss.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
            if !value.is_finite() {
                return Err(TrainError::Settings(format!(
                    "the loss is not finite at step {step} (micro-batch {i}); lower the learning rate"
                )));
            }
            step_loss += w * value;
            let grads = loss.backward()?;
            opt.accumulate(&mut sum, &grads, w)?;
        }
        let grad_norm = opt.step(sum, lr, settings.clip_norm)?;
        state.step = step;
        state.micro_batches_done += a;
        state.epoch = state.micro_batches_done * b / n_blocks;
        state.tokens_seen += tokens as u64;
        state.steps_since_best += 1;
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let epoch_frac = (state.micro_batches_done * b) as f64 / n_blocks as f64;
        log.write(&LogLine::Step {
            step,
            epoch: epoch_frac,
            loss: step_loss,
            lr,
            grad_norm,
            tokens: tokens as u64,
            masked: masked as u64,
            tokens_per_s: tokens as f64 / secs,
        })?;

        let last = step == total_steps;
        let mut eval_loss = None;
        if settings.eval_every > 0
            && !data.held_out_blocks.is_empty()
            && (step % settings.eval_every == 0 || last)
        {
            let l = evaluate(
                &data.held_out_blocks,
                data,
                settings,
                &ordinary,
                &device,
                &mut loss_fn,
            )?;
            eval_loss = Some(l);
            state.last_eval_loss = Some(l);
            if state.best_loss.is_none_or(|b| l < b) {
                state.best_loss = Some(l);
                state.best_step = Some(step);
                state.steps_since_best = 0;
                best = Some(checkpoint::snapshot(varmap)?);
            } else if settings
                .patience
                .is_some_and(|p| state.steps_since_best >= p)
            {
                state.stopped_early = true;
            }
            log.write(&LogLine::Eval {
                step,
                held_out_loss: l,
                best_loss: state.best_loss.unwrap_or(l),
                best_step: state.best_step.unwrap_or(step),
                held_out_blocks: data.held_out_blocks.len(),
            })?;
        }
        state.finished = last || state.stopped_early;
        if state.finished
            || (settings.checkpoint_every > 0 && step % settings.checkpoint_every == 0)
        {
            checkpoint::save(out, &state, varmap, &opt, best.as_ref())?;
        }
        let p = Progress {
            step,
            total_steps,
            epoch: epoch_frac,
            loss: step_loss,
            lr,
            grad_norm,
            tokens_seen: state.tokens_seen,
            tokens_per_s: tokens as f64 / secs,
            eval_loss,
            best_loss: state.best_loss,
        };
        if progress(&p).is_break() && !state.finished {
            interrupted = true;
            break;
        }
    }

    let mut restored_best = false;
    let unigram_baseline = data.unigram_baseline();
    // A finished run that is resumed already ends with its summary (unless it was killed
    // between its last checkpoint and the summary line).
    let has_summary = resumed_from == Some(state.step)
        && super::log::read(&log_path)?
            .iter()
            .any(|l| matches!(l, LogLine::Summary { .. }));
    if !interrupted && state.finished && !has_summary {
        log.write(&LogLine::Summary {
            step: state.step,
            best_step: state.best_step,
            best_loss: state.best_loss,
            last_eval_loss: state.last_eval_loss,
            unigram_baseline,
            stopped_early: state.stopped_early,
        })?;
    }
    if !interrupted {
        if let (Some(best), Some(bs)) = (&best, state.best_step) {
            if bs != state.step {
                checkpoint::restore(varmap, best, &out.join(checkpoint::CHECKPOINT_DIR))?;
            }
            restored_best = true;
        }
    }
    Ok(TrainOutcome {
        steps: state.step,
        total_steps,
        resumed_from,
        best_step: state.best_step,
        best_loss: state.best_loss,
        last_eval_loss: state.last_eval_loss,
        stopped_early: state.stopped_early,
        interrupted,
        restored_best,
        unigram_baseline,
    })
}

/// Mean masked loss over `blocks` with the fixed evaluation masks (the same at every
/// evaluation, so losses are comparable), weighting batches by their masked positions.
pub fn evaluate<L>(
    blocks: &Blocks,
    data: &PreparedData,
    settings: &TrainSettings,
    ordinary: &[u32],
    device: &Device,
    loss_fn: &mut L,
) -> Result<f64>
where
    L: FnMut(&MaskedBatch, bool, u64) -> candle_core::Result<Tensor>,
{
    let (mut total, mut count) = (0f64, 0usize);
    let n = blocks.len();
    for (i, first) in (0..n).step_by(settings.batch_size).enumerate() {
        let chunk = (first..n.min(first + settings.batch_size))
            .map(|j| blocks.get(j))
            .collect::<Result<Vec<Block>>>()?;
        let refs: Vec<&Block> = chunk.iter().collect();
        let key = MaskKey {
            purpose: Purpose::EvalMask,
            seed: settings.seed,
            step: 0,
            first_slot: (i * settings.batch_size) as u64,
        };
        let batch = mask_batch(&refs, &data.spec, ordinary, &settings.masking, key, device)?;
        if batch.n_masked == 0 {
            continue;
        }
        let loss = loss_fn(&batch, false, 0)?
            .detach()
            .to_dtype(candle_core::DType::F64)?
            .to_scalar::<f64>()?;
        total += loss * batch.n_masked as f64;
        count += batch.n_masked;
    }
    if count == 0 {
        return Err(TrainError::NoData(
            "the held-out blocks have no maskable tokens".into(),
        ));
    }
    Ok(total / count as f64)
}

/// Names what differs between a checkpoint and the current run.
fn differing_fields(
    state: &TrainerState,
    fingerprint: &serde_json::Value,
    data_digest: &str,
    total_steps: u64,
) -> String {
    let mut fields = Vec::new();
    if let (Some(old), Some(new)) = (state.settings.as_object(), fingerprint.as_object()) {
        let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            if old.get(k) != new.get(k) {
                fields.push(format!(
                    "{k}: {} → {}",
                    old.get(k)
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "-".into()),
                    new.get(k)
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "-".into())
                ));
            }
        }
    }
    if state.data_digest != data_digest {
        fields.push("training data (tokenized corpus, split, packing or canaries)".into());
    }
    if state.total_steps != total_steps {
        fields.push(format!(
            "total steps: {} → {total_steps}",
            state.total_steps
        ));
    }
    if fields.is_empty() {
        fields.push("settings hash".into());
    }
    fields.join("; ")
}

/// The endless sequence of training blocks: epoch 0's shuffle, then epoch 1's, and so on.
struct BlockStream {
    n: usize,
    seed: u64,
    /// The most recent epochs' orders (a micro-batch spans at most a few).
    cache: Vec<(u64, Vec<u32>)>,
}

impl BlockStream {
    fn new(n: usize, seed: u64) -> Self {
        BlockStream {
            n,
            seed,
            cache: Vec::new(),
        }
    }

    /// Index of the block at position `slot` of the stream.
    fn block(&mut self, slot: u64) -> usize {
        let epoch = slot / self.n as u64;
        let within = (slot % self.n as u64) as usize;
        if let Some((_, order)) = self.cache.iter().find(|(e, _)| *e == epoch) {
            return order[within] as usize;
        }
        if self.cache.len() >= 2 {
            self.cache.remove(0);
        }
        let order = epoch_order(self.n, self.seed, epoch);
        let j = order[within] as usize;
        self.cache.push((epoch, order));
        j
    }
}
