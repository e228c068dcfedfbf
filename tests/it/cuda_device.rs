//! The CUDA backend against the CPU: a model trained here gives the same logits (within 1e-3) and
//! the same fill-mask top-5 on the GPU, `mlm fill` and `mlm score` agree across devices, and
//! `mlm train --device cuda` lowers a real loss. Needs a build with `--features cuda` and an NVIDIA
//! GPU, so every test is opt-in:
//! `scripts/build_cuda.sh && CARGO_TARGET_DIR=target/cuda cargo test --release --features cuda \
//!  --test it cuda_device:: -- --ignored` (see the README's GPU section for running it on another machine).
use crate::util::{anonlm, synth, tempdir, tokenizer};
use anonlm::mlm::device::select_device;
use anonlm::mlm::runtime::pad_batch;
use anonlm::mlm::weights::load_model_dir;
use candle_core::{DType, Device};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// Synthetic notes, a WordPiece tokenizer and a tiny BERT trained on `device` for `steps`.
fn trained(dir: &Path, device: &str, steps: u32) -> (PathBuf, PathBuf) {
    let notes = dir.join("notes.jsonl");
    if !notes.exists() {
        synth(&notes, "nl", 60, 3);
        tokenizer(&notes, "wordpiece", 600, &dir.join("tok"));
    }
    let model = dir.join(format!("model-{device}"));
    anonlm()
        .args([
            "mlm",
            "train",
            "--config",
            "tiny",
            "--batch",
            "8",
            "--seq-len",
            "64",
        ])
        .args([
            "--steps",
            &steps.to_string(),
            "--lr",
            "3e-3",
            "--eval-every",
            "20",
        ])
        .args(["--held-out", "0.1", "--seed", "9", "-q", "--device", device])
        .arg("--corpus")
        .arg(&notes)
        .arg("--tokenizer")
        .arg(dir.join("tok"))
        .arg("--out")
        .arg(&model)
        .assert()
        .success();
    (notes, model)
}

/// Rows of token ids from the notes' first words, each with one position set to the mask id.
fn masked_rows(model: &Path, notes: &Path) -> (Vec<Vec<u32>>, Vec<usize>, u32) {
    let tokenizer = anonlm::tokenizer::load_dir(model).unwrap();
    let mask = tokenizer.specials.mask;
    let mut rows = Vec::new();
    let mut positions = Vec::new();
    for line in fs::read_to_string(notes).unwrap().lines().take(16) {
        let doc: Value = serde_json::from_str(line).unwrap();
        let text: String = doc["text"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .take(30)
            .collect::<Vec<_>>()
            .join(" ");
        let mut ids = tokenizer
            .inner
            .encode(text, true)
            .unwrap()
            .get_ids()
            .to_vec();
        ids.truncate(60);
        let at = ids.len() / 2;
        ids[at] = mask;
        rows.push(ids);
        positions.push(at);
    }
    (rows, positions, tokenizer.specials.pad)
}

fn logits_on(model_dir: &Path, device: &Device, rows: &[Vec<u32>], pad: u32) -> Vec<Vec<Vec<f32>>> {
    let loaded = load_model_dir(model_dir, device).unwrap();
    let (ids, mask) = pad_batch(rows, pad, device).unwrap();
    let logits = loaded.model.forward(&ids, &mask, None).unwrap();
    logits
        .to_dtype(DType::F32)
        .unwrap()
        .to_device(&Device::Cpu)
        .unwrap()
        .to_vec3()
        .unwrap()
}

fn top5(row: &[f32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..row.len()).collect();
    order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
    order.truncate(5);
    order
}

#[test]
#[ignore = "needs an NVIDIA GPU and --features cuda"]
fn cuda_logits_and_top5_match_the_cpu() {
    let dir = tempdir();
    let (notes, model) = trained(dir.path(), "cpu", 120);
    let (rows, positions, pad) = masked_rows(&model, &notes);
    let cpu = logits_on(&model, &Device::Cpu, &rows, pad);
    let gpu = logits_on(&model, &select_device("cuda").unwrap(), &rows, pad);
    let mut max_diff = 0f32;
    for (row, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        for (pos, (cv, gv)) in c.iter().zip(g).enumerate().take(rows[row].len()) {
            for (a, b) in cv.iter().zip(gv) {
                max_diff = max_diff.max((a - b).abs());
            }
            if pos == positions[row] {
                assert_eq!(top5(cv), top5(gv), "top-5 differ at row {row}");
            }
        }
    }
    eprintln!("max |logit cpu - logit cuda| = {max_diff:.2e}");
    assert!(max_diff <= 1e-3, "logits differ by {max_diff}");
    // The outputs depend on the input, so agreeing logits are not agreeing constants.
    let spread = (1..rows[0].len())
        .map(|p| {
            let (a, b) = (&cpu[0][0], &cpu[0][p]);
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0f32, f32::max)
        })
        .fold(0f32, f32::max);
    assert!(
        spread > 0.1,
        "the logits hardly depend on the input ({spread})"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU and --features cuda"]
fn fill_and_score_agree_across_devices() {
    let dir = tempdir();
    let (_, model) = trained(dir.path(), "cpu", 120);
    let sentences = [
        "De patiënt werd gezien door [MASK].",
        "Controle over twee [MASK] op de polikliniek.",
        "Zij is opgenomen op de afdeling [MASK].",
    ];
    let fill = |device: &str| -> Vec<Value> {
        let out = anonlm()
            .args([
                "mlm", "fill", "--top-k", "5", "--json", "--device", device, "--model",
            ])
            .arg(&model)
            .args(sentences)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (cpu, gpu) = (fill("cpu"), fill("cuda"));
    assert_eq!(cpu.len(), sentences.len());
    for (c, g) in cpu.iter().zip(&gpu) {
        let c = c["masks"][0]["predictions"].as_array().unwrap();
        let g = g["masks"][0]["predictions"].as_array().unwrap();
        for (pc, pg) in c.iter().zip(g) {
            assert_eq!(pc["token"], pg["token"]);
            let (a, b) = (pc["prob"].as_f64().unwrap(), pg["prob"].as_f64().unwrap());
            assert!((a - b).abs() <= 1e-4, "probability {a} vs {b}");
        }
    }

    let input = dir.path().join("s.txt");
    fs::write(&input, sentences.join("\n").replace("[MASK]", "morgen")).unwrap();
    let score = |device: &str| -> Vec<f64> {
        let out = dir.path().join(format!("scores-{device}.jsonl"));
        anonlm()
            .args([
                "mlm", "score", "--method", "pll", "--device", device, "--model",
            ])
            .arg(&model)
            .arg("--input")
            .arg(&input)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["pll"]
                    .as_f64()
                    .unwrap()
            })
            .collect()
    };
    let (cpu, gpu) = (score("cpu"), score("cuda"));
    assert_eq!(cpu.len(), 3);
    for (a, b) in cpu.iter().zip(&gpu) {
        assert!((a - b).abs() <= 1e-3 * a.abs().max(1.0), "PLL {a} vs {b}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU and --features cuda"]
fn training_on_the_gpu_lowers_the_loss() {
    let dir = tempdir();
    let (_, model) = trained(dir.path(), "cuda", 120);
    let steps: Vec<f64> = fs::read_to_string(model.join("train_log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "step")
        .map(|l| l["loss"].as_f64().unwrap())
        .collect();
    assert_eq!(steps.len(), 120);
    let early = steps[..5].iter().sum::<f64>() / 5.0;
    let late = steps[115..].iter().sum::<f64>() / 5.0;
    eprintln!("cuda training loss {early:.3} -> {late:.3}");
    assert!(late < early - 0.5, "loss {early:.3} -> {late:.3}");
    // The GPU-trained model loads and runs on the CPU (the saved layout is device-free).
    anonlm()
        .args(["mlm", "fill", "--json", "--model"])
        .arg(&model)
        .arg("Controle over twee [MASK].")
        .assert()
        .success();
}
