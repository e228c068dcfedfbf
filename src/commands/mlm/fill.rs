//! `anonlm mlm fill`: fill-mask on sentences from the command line or a file (JSONL out).

use crate::cli::MlmFillArgs;
use crate::commands::mlm::{name_sentence, open_runtime, JsonlSink};
use crate::mlm::fill::{fill_mask, MaskFill};
use crate::mlm::sentences::{read_sentences, Sentence};
use anyhow::Result;
use serde::Serialize;
use std::process::ExitCode;

/// Sentences per chunk read, predicted and written (bounds memory on large files).
const CHUNK: usize = 256;

#[derive(Serialize)]
struct FillLine<'a> {
    id: &'a str,
    masks: &'a [MaskFill],
}

pub fn run(args: MlmFillArgs) -> Result<ExitCode> {
    if args.top_k == 0 {
        anyhow::bail!("--top-k must be at least 1");
    }
    let mut rt = open_runtime(&args.model, &args.device.spec)?;
    rt.batch_rows = args.batch.max(1);
    let sentences: Vec<Sentence> = match &args.input {
        Some(path) => read_sentences(path)?,
        None if args.text.is_empty() => {
            anyhow::bail!("give a sentence with <mask>, or --input FILE")
        }
        None => args
            .text
            .iter()
            .enumerate()
            .map(|(i, t)| Sentence {
                id: format!("arg {}", i + 1),
                text: t.clone(),
            })
            .collect(),
    };
    let readable = args.out.is_none() && args.input.is_none() && !args.json;
    let mut sink = match (&args.out, readable) {
        (_, true) => None,
        (Some(out), false) => Some(JsonlSink::file(
            out,
            args.input.as_deref(),
            args.overwrite.allowed,
        )?),
        (None, false) => Some(JsonlSink::stdout()),
    };
    for chunk in sentences.chunks(CHUNK) {
        let texts: Vec<String> = chunk.iter().map(|s| s.text.clone()).collect();
        let fills = fill_mask(&rt, &texts, args.top_k).map_err(|e| name_sentence(e, chunk))?;
        for (sentence, masks) in chunk.iter().zip(&fills) {
            match sink.as_mut() {
                Some(sink) => sink.write(&FillLine {
                    id: &sentence.id,
                    masks,
                })?,
                None => print_readable(masks),
            }
        }
    }
    if let Some(sink) = sink {
        let n = sink.finish()?;
        if let Some(out) = &args.out {
            eprintln!("{n} sentences filled, predictions in {}", out.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_readable(masks: &[MaskFill]) {
    for (n, mask) in masks.iter().enumerate() {
        println!("mask {} (token {}):", n + 1, mask.position);
        for (rank, p) in mask.predictions.iter().enumerate() {
            println!("  {:>3}  {:.4}  {}", rank + 1, p.prob, p.text.trim());
        }
    }
}
