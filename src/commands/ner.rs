//! `anonlm ner train`: read annotated train and dev documents, train a tagger, write its
//! model directory and print the dev score.

use super::common;
use super::eval::read_all;
use crate::cli::{NerCommand, NerTrainArgs};
use crate::corpus::Document;
use crate::eval::EvalOptions;
use crate::labels::Label;
use crate::ner::bilstm::model::Dims;
use crate::ner::bilstm::train::{train, TrainOptions};
use crate::ner::config::Arch;
use crate::ner::transformer::tagger::WindowSettings;
use crate::ner::transformer::train::TransformerOptions;
use anyhow::{Context, Result};
use std::process::ExitCode;

pub fn run(cmd: NerCommand) -> Result<ExitCode> {
    match cmd {
        NerCommand::Train(a) => run_train(*a),
    }
}

/// Reads annotated documents and drops the excluded labels' entities.
fn read_annotated(
    path: &std::path::Path,
    args: &NerTrainArgs,
    exclude: &EvalOptions,
    what: &str,
) -> Result<Vec<Document>> {
    let mut docs = read_all(
        path,
        &args.format,
        Some(args.max_doc_bytes),
        args.label_map.as_deref(),
    )
    .with_context(|| format!("reading the {what} documents"))?;
    for d in &mut docs {
        d.entities.retain(|e| !exclude.is_excluded(e.label));
    }
    anyhow::ensure!(!docs.is_empty(), "{}: no {what} documents", path.display());
    Ok(docs)
}

/// `--ema`: a decay in (0, 1), 0 for none, or the architecture's default when not given.
fn ema_decay(given: Option<f64>, default: Option<f64>) -> Result<Option<f64>> {
    match given {
        None => Ok(default),
        Some(0.0) => Ok(None),
        Some(d) if d > 0.0 && d < 1.0 => Ok(Some(d)),
        Some(d) => anyhow::bail!("--ema {d}: the decay must be 0 (off) or between 0 and 1"),
    }
}

fn run_train(args: NerTrainArgs) -> Result<ExitCode> {
    common::init_threads(args.threads);
    let arch: Arch = args.arch.parse().map_err(anyhow::Error::msg)?;
    anyhow::ensure!(
        args.overwrite || !args.out.exists(),
        "{}: exists (give --overwrite to replace it)",
        args.out.display()
    );
    crate::corpus::ensure_not_input(&args.out, &[&args.train, &args.dev])?;
    let exclude = EvalOptions {
        exclude: args
            .exclude
            .iter()
            .map(|s| Label::parse(s).map_err(anyhow::Error::msg))
            .collect::<Result<_>>()?,
    };
    let train_docs = read_annotated(&args.train, &args, &exclude, "training")?;
    let dev_docs = read_annotated(&args.dev, &args, &exclude, "dev")?;
    let quiet = args.quiet;
    let mut progress = |line: &str| {
        if !quiet {
            eprintln!("ner train: {line}");
        }
    };
    let s = match arch {
        Arch::BilstmCrf => {
            let opts = TrainOptions {
                seed: args.seed,
                dims: Dims {
                    word_dim: args.word_dim,
                    hidden: args.hidden,
                    rule_dim: args.rule_dim,
                    ..Dims::default()
                },
                batch_size: args.batch_size,
                learning_rate: args.lr.unwrap_or(2e-3),
                dropout: args.dropout.unwrap_or(0.5),
                max_epochs: args.epochs.unwrap_or(30),
                eval_every: args.eval_every,
                patience: args.patience,
                ema: ema_decay(args.ema, Some(0.999))?,
                max_minutes: args.max_minutes,
                ..TrainOptions::default()
            };
            train(
                &train_docs,
                &dev_docs,
                args.label_map.as_deref(),
                &opts,
                &args.out,
                &mut progress,
            )?
        }
        Arch::Transformer => {
            let base = args
                .base
                .clone()
                .context("--arch transformer needs --base, the masked LM to fine-tune")?;
            let defaults = TransformerOptions::new(base);
            let opts = TransformerOptions {
                seed: args.seed,
                windows: WindowSettings {
                    window: args.window,
                    overlap: args.overlap,
                },
                batch_size: args.batch_size,
                learning_rate: args.lr.unwrap_or(defaults.learning_rate),
                dropout: args.dropout,
                max_epochs: args.epochs.unwrap_or(defaults.max_epochs),
                eval_every: args.eval_every,
                patience: args.patience,
                ema: ema_decay(args.ema, None)?,
                max_minutes: args.max_minutes,
                ..defaults
            };
            crate::ner::transformer::train::train(
                &train_docs,
                &dev_docs,
                args.label_map.as_deref(),
                &opts,
                &args.out,
                &mut progress,
            )?
        }
    };
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
