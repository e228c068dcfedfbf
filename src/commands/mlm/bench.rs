//! `anonlm mlm bench`: throughput of a RoBERTa preset (small by default) on CPU or GPU —
//! training tokens/s, fill-mask sentences/s, pseudo-log-likelihood sentences/s — on the same
//! shapes as `scripts/bench_transformers.py`, so the two can be compared.

use crate::cli::{BenchSection, MlmBenchArgs};
use crate::mlm::config::{Arch, MlmConfig};
use crate::mlm::device::select_device;
use crate::mlm::model::MaskedLm;
use crate::mlm::runtime::visit_log_probs;
use crate::neural::init::seeded_var_builder;
use anyhow::Result;
use candle_core::{DType, Device};
use candle_nn::VarMap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

/// Token rows and the (row, position) of each mask.
type RowsAndMasks = (Vec<Vec<u32>>, Vec<(usize, usize)>);

const BOS: u32 = 0;
const PAD: u32 = 1;
const EOS: u32 = 2;
const MASK: u32 = 4;
const FIRST_ORDINARY: u32 = 5;

pub fn run(args: MlmBenchArgs) -> Result<ExitCode> {
    if let Some(threads) = args.threads.count {
        // candle's CPU kernels size their pools from this variable (read once, on first use).
        std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
    }
    let device = select_device(&args.device.spec)?;
    let mut config = MlmConfig::preset(&args.preset, Arch::Roberta, args.vocab, PAD)?;
    config.max_position_embeddings = args.seq + 2;
    let varmap = VarMap::new();
    let model = MaskedLm::new(
        &config,
        seeded_var_builder(&varmap, args.seed, DType::F32, &device),
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let mut result = json!({
        "bench": "anonlm-mlm",
        "version": env!("CARGO_PKG_VERSION"),
        "device": args.device.spec,
        "threads": candle_core::utils::get_num_threads(),
        "model": {"arch": "roberta", "preset": args.preset, "hidden": config.hidden_size, "layers": config.num_hidden_layers,
                  "heads": config.num_attention_heads, "intermediate": config.intermediate_size,
                  "vocab": args.vocab, "max_seq": args.seq,
                  "parameters": varmap.all_vars().iter().map(|v| v.elem_count()).sum::<usize>()},
    });
    if !args.skip.contains(&BenchSection::Train) {
        result["train"] = super::train::bench_training(&config, &varmap, &model, &args, &mut rng)?;
        eprintln!(
            "train: {:.0} tokens/s",
            result["train"]["tokens_per_s"].as_f64().unwrap_or(0.0)
        );
    }
    if !args.skip.contains(&BenchSection::FillMask) {
        result["fill_mask"] = bench_fill(&model, &args, &mut rng, &device)?;
        eprintln!(
            "fill_mask: {:.1} sentences/s",
            result["fill_mask"]["sentences_per_s"]
                .as_f64()
                .unwrap_or(0.0)
        );
    }
    if !args.skip.contains(&BenchSection::Pll) {
        result["pll"] = bench_pll(&model, &args, &mut rng, &device)?;
        eprintln!(
            "pll: {:.1} sentences/s",
            result["pll"]["sentences_per_s"].as_f64().unwrap_or(0.0)
        );
    }
    let text = serde_json::to_string_pretty(&result)?;
    println!("{text}");
    if let Some(out) = &args.out {
        crate::commands::common::write_bytes_atomic(
            out,
            format!("{text}\n").as_bytes(),
            true,
            &[],
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `n` rows of BOS + `words` random ordinary ids + EOS.
pub(super) fn random_sentences(
    rng: &mut ChaCha8Rng,
    n: usize,
    words: usize,
    vocab: usize,
) -> Vec<Vec<u32>> {
    (0..n)
        .map(|_| {
            let mut row = vec![BOS];
            row.extend((0..words).map(|_| rng.gen_range(FIRST_ORDINARY..vocab as u32)));
            row.push(EOS);
            row
        })
        .collect()
}

fn bench_fill(
    model: &MaskedLm,
    args: &MlmBenchArgs,
    rng: &mut ChaCha8Rng,
    _device: &Device,
) -> Result<serde_json::Value> {
    let batches: Vec<RowsAndMasks> = (0..args.warmup + args.fill_batches)
        .map(|_| {
            let mut rows = random_sentences(rng, args.fill_batch, args.words, args.vocab);
            let wanted: Vec<(usize, usize)> = rows
                .iter_mut()
                .enumerate()
                .map(|(r, row)| {
                    let p = rng.gen_range(1..=args.words);
                    row[p] = MASK;
                    (r, p)
                })
                .collect();
            (rows, wanted)
        })
        .collect();
    let run = |(rows, wanted): &RowsAndMasks| -> Result<()> {
        let mut tops = 0usize;
        visit_log_probs(model, PAD, args.fill_batch, rows, wanted, |_, lp| {
            tops += crate::mlm::fill::top_k_of(lp, 5).len();
        })?;
        Ok(())
    };
    for b in &batches[..args.warmup] {
        run(b)?;
    }
    let t0 = Instant::now();
    for b in &batches[args.warmup..] {
        run(b)?;
    }
    let secs = t0.elapsed().as_secs_f64();
    let n = args.fill_batch * args.fill_batches;
    Ok(
        json!({"sentences": n, "batch": args.fill_batch, "seconds": secs, "sentences_per_s": n as f64 / secs}),
    )
}

fn bench_pll(
    model: &MaskedLm,
    args: &MlmBenchArgs,
    rng: &mut ChaCha8Rng,
    _device: &Device,
) -> Result<serde_json::Value> {
    let sentences = random_sentences(rng, args.pll_sentences, args.words, args.vocab);
    let mut rows = Vec::new();
    let mut wanted = Vec::new();
    let mut targets = Vec::new();
    let mut owner = Vec::new();
    for (s, sentence) in sentences.iter().enumerate() {
        for p in 1..=args.words {
            let mut copy = sentence.clone();
            targets.push(copy[p]);
            copy[p] = MASK;
            wanted.push((rows.len(), p));
            owner.push(s);
            rows.push(copy);
        }
    }
    let warm_rows = (args.warmup * args.pll_batch).min(rows.len());
    let warm_wanted: Vec<(usize, usize)> =
        wanted.iter().copied().filter(|w| w.0 < warm_rows).collect();
    visit_log_probs(
        model,
        PAD,
        args.pll_batch,
        &rows[..warm_rows],
        &warm_wanted,
        |_, _| {},
    )?;
    let mut pll = vec![0f64; sentences.len()];
    let t0 = Instant::now();
    visit_log_probs(model, PAD, args.pll_batch, &rows, &wanted, |k, lp| {
        pll[owner[k]] += f64::from(lp[targets[k] as usize]);
    })?;
    let secs = t0.elapsed().as_secs_f64();
    let n = sentences.len();
    Ok(
        json!({"sentences": n, "words_per_sentence": args.words, "copies_per_batch": args.pll_batch,
              "seconds": secs, "sentences_per_s": n as f64 / secs,
              "mean_pll": pll.iter().sum::<f64>() / n as f64}),
    )
}
