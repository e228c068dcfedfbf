//! `anonlm mlm score`: per-sentence masked-token loss or pseudo-log-likelihood (JSONL out).

use crate::cli::{MlmScoreArgs, ScoreMethod};
use crate::commands::mlm::{open_runtime, JsonlSink};
use crate::mlm::score::{masked_token_loss, pseudo_log_likelihood};
use crate::mlm::sentences::read_sentences;
use anyhow::Result;
use serde::Serialize;
use std::process::ExitCode;

const CHUNK: usize = 256;

#[derive(Serialize)]
struct ScoreLine<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    loss: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    n_masked: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pll: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    n_tokens: Option<usize>,
}

pub fn run(args: MlmScoreArgs) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.mask_prob) || args.mask_prob == 0.0 {
        anyhow::bail!("--mask-prob must lie in (0, 1]");
    }
    let mut rt = open_runtime(&args.model, &args.device.spec)?;
    rt.batch_rows = args.batch.max(1);
    let sentences = read_sentences(&args.input)?;
    let mut sink = JsonlSink::file(&args.out, Some(&args.input), args.overwrite.allowed)?;
    for chunk in sentences.chunks(CHUNK) {
        let texts: Vec<&str> = chunk.iter().map(|s| s.text.as_str()).collect();
        match args.method {
            ScoreMethod::Loss => {
                let scores = masked_token_loss(&rt, &texts, args.seed, args.mask_prob)
                    .map_err(|e| super::name_sentence(e, chunk))?;
                for (s, score) in chunk.iter().zip(scores) {
                    sink.write(&ScoreLine {
                        id: &s.id,
                        loss: Some(score.loss),
                        n_masked: Some(score.n_masked),
                        pll: None,
                        n_tokens: None,
                    })?;
                }
            }
            ScoreMethod::Pll => {
                let scores = pseudo_log_likelihood(&rt, &texts)
                    .map_err(|e| super::name_sentence(e, chunk))?;
                for (s, score) in chunk.iter().zip(scores) {
                    sink.write(&ScoreLine {
                        id: &s.id,
                        loss: None,
                        n_masked: None,
                        pll: Some(score.pll),
                        n_tokens: Some(score.n_tokens),
                    })?;
                }
            }
        }
    }
    let n = sink.finish()?;
    eprintln!("{n} sentences scored, scores in {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
