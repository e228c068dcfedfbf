//! `anonlm mlm train`: flags to [`crate::mlm::train::stage::MlmTrainSettings`], the stage, and
//! its closing line; also the training part of `mlm bench`.

use crate::cli::{MlmBenchArgs, MlmTrainArgs};
use crate::mlm::config::MlmConfig;
use crate::mlm::model::MaskedLm;
use crate::mlm::train::stage::{self, batch_loss, MlmTrainSettings};
use crate::mlm::train::{
    self, Block, DataSettings, MaskedBatch, PackSpec, PreparedData, Progress, TrainOptions,
    TrainSettings,
};
use anyhow::Result;
use candle_nn::VarMap;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::ops::ControlFlow;
use std::process::ExitCode;

/// The stage's settings from the flags.
pub fn settings(a: &MlmTrainArgs) -> MlmTrainSettings {
    MlmTrainSettings {
        corpus: a.corpus.clone(),
        data: a.data.clone(),
        format: a.format.clone(),
        tokenizer: a.tokenizer.clone(),
        config: a.config.clone(),
        arch: a.arch,
        init: a.init.clone(),
        out: a.out.clone(),
        overwrite: a.overwrite.allowed,
        device: a.device.spec.clone(),
        steps: a.steps,
        epochs: a.epochs,
        batch: a.batch,
        grad_accum: a.grad_accum,
        seq_len: a.seq_len,
        lr: a.lr,
        warmup: a.warmup,
        weight_decay: a.weight_decay,
        clip_norm: a.clip_norm,
        held_out: a.held_out,
        eval_every: a.eval_every,
        patience: a.patience,
        checkpoint_every: a.checkpoint_every,
        seed: a.seed,
        max_doc_bytes: a.max_doc_bytes.bytes,
        canary: a.canary.settings(),
        quiet: a.quiet.on,
    }
}

pub fn run(args: MlmTrainArgs) -> Result<ExitCode> {
    let done = stage::run(&settings(&args))?;
    let outcome = &done.outcome;
    eprintln!(
        "{} steps{}; held-out loss {} (best {} at step {}; unigram baseline {:.3}); model in {}",
        outcome.steps,
        if outcome.stopped_early {
            " (stopped early: no held-out improvement)"
        } else {
            ""
        },
        fmt_loss(outcome.last_eval_loss),
        fmt_loss(outcome.best_loss),
        outcome
            .best_step
            .map(|s| s.to_string())
            .unwrap_or_else(|| "-".into()),
        done.unigram_baseline,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn fmt_loss(loss: Option<f64>) -> String {
    loss.map(|l| format!("{l:.3}"))
        .unwrap_or_else(|| "-".into())
}

/// Training throughput for `anonlm mlm bench`: the real training loop (masking, forward,
/// backward, AdamW) on random blocks, timed after `warmup` steps.
pub(super) fn bench_training(
    config: &MlmConfig,
    varmap: &VarMap,
    model: &MaskedLm,
    args: &MlmBenchArgs,
    rng: &mut ChaCha8Rng,
) -> Result<serde_json::Value> {
    let spec = PackSpec {
        cls: 0,
        sep: 2,
        pad: 1,
        mask: 4,
        vocab_size: config.vocab_size as u32,
        special_ids: vec![0, 1, 2, 3, 4],
    };
    let n_blocks = args.train_batch * (args.warmup + args.train_steps);
    let blocks: Vec<Block> = (0..n_blocks)
        .map(|_| {
            let mut ids = vec![0u32];
            ids.extend((0..args.seq - 2).map(|_| rng.gen_range(5..config.vocab_size as u32)));
            ids.push(2);
            Block {
                len: ids.len(),
                ids,
            }
        })
        .collect();
    let data = PreparedData {
        spec: spec.normalized()?,
        settings: DataSettings {
            seq_len: args.seq,
            held_out_fraction: 0.0,
            seed: args.seed,
        },
        train_blocks: blocks.into(),
        held_out_blocks: Default::default(),
        train: Default::default(),
        held_out: Default::default(),
        listing: None,
        corpus_digest: "bench".into(),
        n_input_documents: 0,
        n_distinct_documents: 0,
        canaries: None,
        data_digest: "bench".into(),
        unigram_baseline: f64::NAN,
    };
    let settings = TrainSettings {
        max_steps: Some((args.warmup + args.train_steps) as u64),
        batch_size: args.train_batch,
        eval_every: 0,
        patience: None,
        checkpoint_every: 0,
        seed: args.seed,
        ..TrainSettings::default()
    };
    let out = tempfile::tempdir()?;
    let mut started: Option<std::time::Instant> = None;
    let mut first_loss = f64::NAN;
    let mut last_loss = f64::NAN;
    let mut on_step = |p: &Progress| {
        if p.step == 1 {
            first_loss = p.loss;
        }
        last_loss = p.loss;
        if p.step == args.warmup as u64 {
            started = Some(std::time::Instant::now());
        }
        ControlFlow::Continue(())
    };
    let loss_fn =
        |batch: &MaskedBatch, training: bool, seed: u64| batch_loss(model, batch, training, seed);
    let t_all = std::time::Instant::now();
    train::train(
        varmap,
        &data,
        &settings,
        TrainOptions {
            out_dir: out.path(),
            resume: false,
        },
        loss_fn,
        &mut on_step,
    )?;
    let t0 = started.unwrap_or(t_all);
    let secs = t0.elapsed().as_secs_f64();
    let tokens = (args.train_batch * args.seq * args.train_steps) as f64;
    Ok(
        serde_json::json!({"batch": args.train_batch, "seq": args.seq, "steps": args.train_steps,
        "warmup_steps": args.warmup, "mlm_probability": 0.15, "seconds": secs,
        "tokens_per_s": tokens / secs, "first_loss": first_loss, "last_loss": last_loss}),
    )
}
