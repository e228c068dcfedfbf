//! `anonlm eval --names`: name and place token recall of the recognizers on news NER gold.

use super::common;
use crate::cli::EvalArgs;
use crate::eval::names::{NameCounter, NameReport};
use crate::eval::ner_gold::{read_gold, GoldFormat};
use anyhow::{Context, Result};
use rayon::prelude::*;

/// Reads the gold, runs the pipeline of `eval --risk`'s recognizer flags on every document
/// (in parallel) and counts; nothing of the text leaves this function.
pub fn run(args: &EvalArgs) -> Result<NameReport> {
    let format = match args.format.as_str() {
        "auto" => GoldFormat::detect(&args.gold),
        f => f.parse::<GoldFormat>().map_err(anyhow::Error::msg)?,
    };
    let docs = read_gold(&args.gold, format).context("reading NER gold")?;
    let pipeline = common::pipeline(&super::eval_risk::input_args(args))?;
    let preds: Vec<_> = docs
        .par_iter()
        .map(|d| pipeline.recognize(&d.text).1)
        .collect();
    let mut counter = NameCounter::default();
    for (d, p) in docs.iter().zip(&preds) {
        counter.add(d, p);
    }
    Ok(counter.finish())
}
