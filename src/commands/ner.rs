//! `anonlm ner train`: flags to [`crate::ner::stage::NerTrainSettings`], the stage, and the dev
//! score.

use super::common;
use crate::cli::{NerCommand, NerTrainArgs};
use crate::ner::stage::{self, NerTrainSettings};
use anyhow::Result;
use std::process::ExitCode;

pub fn run(cmd: NerCommand) -> Result<ExitCode> {
    match cmd {
        NerCommand::Train(a) => run_train(*a),
    }
}

fn run_train(args: NerTrainArgs) -> Result<ExitCode> {
    common::init_threads(args.threads.count);
    let s = stage::run(&NerTrainSettings {
        arch: args.arch,
        format: args.format.clone(),
        train: args.train.clone(),
        dev: args.dev.clone(),
        out: args.out.clone(),
        overwrite: args.overwrite.allowed,
        label_map: args.label_map.clone(),
        exclude: args.exclude.clone(),
        seed: args.seed,
        epochs: args.epochs,
        batch_size: args.batch_size,
        lr: args.lr,
        dropout: args.dropout,
        eval_every: args.eval_every,
        patience: args.patience,
        ema: args.ema,
        max_minutes: args.max_minutes,
        word_dim: args.word_dim,
        hidden: args.hidden,
        rule_dim: args.rule_dim,
        list_dim: args.list_dim,
        base: args.base.clone(),
        window: args.window,
        overlap: args.overlap,
        max_doc_bytes: args.max_doc_bytes.bytes,
        quiet: args.quiet.on,
    })?;
    eprintln!(
        "ner train: best dev strict entity F1 {:.4} at step {} of {} ({} epochs, stopped by {}); {:.0} s, {:.0} training tokens/s; model in {}",
        s.best_dev_f1,
        s.best_step,
        s.steps,
        s.epochs,
        s.stopped_by,
        s.seconds,
        s.tokens_per_second,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
