//! The `ner train` stage as a library call: read annotated train and dev documents, train a
//! BiLSTM-CRF or transformer tagger, and write its model directory.

use std::path::PathBuf;

use super::bilstm::model::Dims;
use super::bilstm::train::TrainOptions;
use super::config::Arch;
use super::training::TrainSummary;
use super::transformer::tagger::WindowSettings;
use super::transformer::train::TransformerOptions;
use crate::corpus::Document;
use crate::error::{StageContext, StageResult, ValueError};
use crate::eval::job::read_all;
use crate::eval::EvalOptions;
use crate::labels::Label;

/// The flags of `ner train`.
#[derive(Clone, Debug)]
pub struct NerTrainSettings {
    pub arch: Arch,
    pub format: String,
    pub train: PathBuf,
    pub dev: PathBuf,
    pub out: PathBuf,
    pub overwrite: bool,
    pub label_map: Option<String>,
    pub exclude: Vec<String>,
    pub seed: u64,
    pub epochs: Option<usize>,
    pub batch_size: usize,
    pub lr: Option<f64>,
    pub dropout: Option<f32>,
    pub eval_every: usize,
    pub patience: usize,
    pub ema: Option<f64>,
    pub max_minutes: Option<f64>,
    pub word_dim: usize,
    pub hidden: usize,
    pub rule_dim: usize,
    pub list_dim: usize,
    /// The masked LM a transformer tagger fine-tunes.
    pub base: Option<String>,
    pub window: usize,
    pub overlap: usize,
    pub max_doc_bytes: usize,
    pub quiet: bool,
}

/// Reads annotated documents and drops the excluded labels' entities.
fn read_annotated(
    path: &std::path::Path,
    args: &NerTrainSettings,
    exclude: &EvalOptions,
    what: &str,
) -> StageResult<Vec<Document>> {
    let mut docs = read_all(
        path,
        &args.format,
        Some(args.max_doc_bytes),
        args.label_map.as_deref(),
    )
    .with_stage_context(|| format!("reading the {what} documents"))?;
    for d in &mut docs {
        d.entities.retain(|e| !exclude.is_excluded(e.label));
    }
    if docs.is_empty() {
        return Err(ValueError::new(format!("{}: no {what} documents", path.display())).into());
    }
    Ok(docs)
}

/// `--ema`: a decay in (0, 1), 0 for none, or the architecture's default when not given.
fn ema_decay(given: Option<f64>, default: Option<f64>) -> StageResult<Option<f64>> {
    match given {
        None => Ok(default),
        Some(0.0) => Ok(None),
        Some(d) if d > 0.0 && d < 1.0 => Ok(Some(d)),
        Some(d) => Err(ValueError::new(format!(
            "--ema {d}: the decay must be 0 (off) or between 0 and 1"
        ))
        .into()),
    }
}

/// Trains a tagger on the annotated train documents, choosing the step by the dev score, and
/// writes its model directory.
pub fn run(args: &NerTrainSettings) -> StageResult<TrainSummary> {
    let arch = args.arch;
    if !args.overwrite && args.out.exists() {
        return Err(ValueError::new(format!(
            "{}: exists (give --overwrite to replace it)",
            args.out.display()
        ))
        .into());
    }
    crate::corpus::ensure_not_input(&args.out, &[&args.train, &args.dev])?;
    let exclude = EvalOptions {
        exclude: args
            .exclude
            .iter()
            .map(|s| Label::parse(s))
            .collect::<Result<_, _>>()?,
    };
    let train_docs = read_annotated(&args.train, args, &exclude, "training")?;
    let dev_docs = read_annotated(&args.dev, args, &exclude, "dev")?;
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
                    list_dim: args.list_dim,
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
            crate::ner::bilstm::train::train(
                &train_docs,
                &dev_docs,
                args.label_map.as_deref(),
                &opts,
                &args.out,
                &mut progress,
            )?
        }
        Arch::Transformer => {
            let base = args.base.clone().ok_or_else(|| {
                ValueError::new("--arch transformer needs --base, the masked LM to fine-tune")
            })?;
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
    Ok(s)
}
