//! End-to-end tests of the loop on a small real model (embeddings of a token and its two
//! neighbours → hidden layer → vocabulary) and a generated, patterned corpus.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{Embedding, Linear, Module, VarBuilder, VarMap};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::collate::IGNORE_INDEX;
use super::data::{pack, prepare, DataSettings, PackSpec, PreparedData};
use super::log::{self, LogLine, LOG_FILE};
use super::*;
use crate::neural::schedule::{Decay, Warmup};
use crate::Document;

const SPECIALS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const NAMES: [&str; 8] = [
    "anna", "bela", "csilla", "dani", "eva", "ferenc", "gabi", "hanna",
];
const WARDS: [&str; 4] = ["cardiology", "neurology", "surgery", "oncology"];
const COMPLAINTS: [&str; 4] = ["chestpain", "headache", "fracture", "tumour"];
const DAYS: [&str; 5] = ["monday", "tuesday", "wednesday", "thursday", "friday"];
const TEMPLATE: [&str; 12] = [
    "patient",
    "NAME",
    "was",
    "seen",
    "at",
    "WARD",
    "for",
    "COMPLAINT",
    "on",
    "DAY",
    "and",
    ".",
];
/// Words only the "cannot improve" held-out set uses.
const UNSEEN: [&str; 6] = ["zeta", "omega", "kappa", "sigma", "theta", "lambda"];

struct Vocab {
    ids: HashMap<String, u32>,
}

impl Vocab {
    fn new() -> Self {
        let mut ids = HashMap::new();
        let words = SPECIALS
            .iter()
            .chain(&NAMES)
            .chain(&WARDS)
            .chain(&COMPLAINTS)
            .chain(&DAYS)
            .chain(
                TEMPLATE
                    .iter()
                    .filter(|w| !w.chars().all(|c| c.is_uppercase())),
            )
            .chain(&UNSEEN);
        for w in words {
            let n = ids.len() as u32;
            ids.entry(w.to_string()).or_insert(n);
        }
        Vocab { ids }
    }

    fn size(&self) -> u32 {
        self.ids.len() as u32
    }

    fn spec(&self) -> PackSpec {
        PackSpec {
            cls: 2,
            sep: 3,
            pad: 0,
            mask: 4,
            vocab_size: self.size(),
            special_ids: vec![1],
        }
    }

    fn tokenize(&self, text: &str) -> Result<Vec<u32>, String> {
        text.split_whitespace()
            .map(|w| {
                self.ids
                    .get(w)
                    .copied()
                    .ok_or_else(|| "unknown word".to_string())
            })
            .collect()
    }
}

/// Patterned notes: the complaint decides the ward; names and days vary.
fn corpus(n_docs: usize, seed: u64) -> Vec<Document> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n_docs)
        .map(|d| {
            let mut words = Vec::new();
            for _ in 0..rng.gen_range(2..5) {
                let c = rng.gen_range(0..COMPLAINTS.len());
                for w in TEMPLATE {
                    words.push(match w {
                        "NAME" => NAMES[rng.gen_range(0..NAMES.len())],
                        "WARD" => WARDS[c],
                        "COMPLAINT" => COMPLAINTS[c],
                        "DAY" => DAYS[rng.gen_range(0..DAYS.len())],
                        _ => w,
                    });
                }
            }
            Document::new(format!("note-{d:03}"), words.join(" "))
        })
        .collect()
}

/// A small real masked LM: each position sees its own embedding and its neighbours'.
struct TinyLm {
    emb: Embedding,
    hidden: Linear,
    out: Linear,
    dropout: f32,
}

impl TinyLm {
    fn new(vb: VarBuilder, vocab: usize, dim: usize, hidden: usize, dropout: f32) -> Self {
        TinyLm {
            emb: candle_nn::embedding(vocab, dim, vb.pp("embeddings")).unwrap(),
            hidden: candle_nn::linear(3 * dim, hidden, vb.pp("hidden")).unwrap(),
            out: candle_nn::linear(hidden, vocab, vb.pp("decoder")).unwrap(),
            dropout,
        }
    }

    fn forward(&self, ids: &Tensor, dropout_seed: Option<u64>) -> candle_core::Result<Tensor> {
        let e = self.emb.forward(ids)?;
        let (b, t, d) = e.dims3()?;
        let zero = Tensor::zeros((b, 1, d), DType::F32, e.device())?;
        let left = Tensor::cat(&[&zero, &e.narrow(1, 0, t - 1)?], 1)?;
        let right = Tensor::cat(&[&e.narrow(1, 1, t - 1)?, &zero], 1)?;
        let x = Tensor::cat(&[&left, &e, &right], D::Minus1)?;
        let mut h = self.hidden.forward(&x)?.relu()?;
        if let (Some(seed), true) = (dropout_seed, self.dropout > 0.0) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let keep = 1.0 - self.dropout;
            let mask: Vec<f32> = (0..h.elem_count())
                .map(|_| {
                    if rng.gen::<f32>() < keep {
                        1.0 / keep
                    } else {
                        0.0
                    }
                })
                .collect();
            let mask = Tensor::from_vec(mask, h.shape(), h.device())?;
            h = (h * mask)?;
        }
        self.out.forward(&h)
    }

    fn loss(&self, batch: &MaskedBatch, training: bool, seed: u64) -> candle_core::Result<Tensor> {
        let logits = self.forward(&batch.input_ids, training.then_some(seed))?;
        let v = logits.dim(D::Minus1)?;
        let logits = logits.reshape(((), v))?;
        let labels = batch.labels.flatten_all()?.to_vec1::<i64>()?;
        let (pos, tgt): (Vec<u32>, Vec<u32>) = labels
            .iter()
            .enumerate()
            .filter(|(_, l)| **l != IGNORE_INDEX)
            .map(|(i, &l)| (i as u32, l as u32))
            .unzip();
        let n = pos.len();
        let pos = Tensor::from_vec(pos, n, logits.device())?;
        let tgt = Tensor::from_vec(tgt, n, logits.device())?;
        candle_nn::loss::cross_entropy(&logits.index_select(&pos, 0)?, &tgt)
    }
}

/// A model whose variables are set from a seeded stream (candle's CPU init cannot be seeded).
fn model(vocab: &Vocab, init_seed: u64, dropout: f32) -> (VarMap, TinyLm) {
    let vm = VarMap::new();
    let vb = VarBuilder::from_varmap(&vm, DType::F32, &Device::Cpu);
    let m = TinyLm::new(vb, vocab.size() as usize, 16, 64, dropout);
    let data = vm.data().lock().unwrap();
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    let mut rng = ChaCha8Rng::seed_from_u64(init_seed);
    for name in names {
        let var = &data[name];
        let scale = if name.ends_with("bias") { 0.0 } else { 0.3 };
        let values: Vec<f32> = (0..var.elem_count())
            .map(|_| (rng.gen::<f32>() - 0.5) * scale)
            .collect();
        var.set(&Tensor::from_vec(values, var.shape(), &Device::Cpu).unwrap())
            .unwrap();
    }
    drop(data);
    (vm, m)
}

fn data(vocab: &Vocab, n_docs: usize, held_out: f64) -> PreparedData {
    let settings = DataSettings {
        seq_len: 32,
        held_out_fraction: held_out,
        seed: 11,
    };
    prepare(&corpus(n_docs, 3), vocab.spec(), settings, |t| {
        vocab.tokenize(t)
    })
    .unwrap()
}

fn settings(max_steps: u64) -> TrainSettings {
    TrainSettings {
        max_steps: Some(max_steps),
        batch_size: 8,
        lr: 1e-2,
        warmup: Warmup::Steps(5),
        eval_every: 4,
        patience: None,
        checkpoint_every: 5,
        seed: 7,
        ..Default::default()
    }
}

fn run(
    vm: &VarMap,
    m: &TinyLm,
    data: &PreparedData,
    s: &TrainSettings,
    out: &Path,
    resume: bool,
    stop_at: Option<u64>,
) -> Result<TrainOutcome, TrainError> {
    let mut progress = |p: &Progress| match stop_at {
        Some(k) if p.step == k => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    };
    train(
        vm,
        data,
        s,
        TrainOptions {
            out_dir: out,
            resume,
        },
        |b: &MaskedBatch, training: bool, seed: u64| m.loss(b, training, seed),
        &mut progress,
    )
}

fn step_lines(out: &Path) -> Vec<(u64, f64, f64)> {
    log::read(&out.join(LOG_FILE))
        .unwrap()
        .into_iter()
        .filter_map(|l| match l {
            LogLine::Step {
                step,
                loss,
                grad_norm,
                ..
            } => Some((step, loss, grad_norm)),
            _ => None,
        })
        .collect()
}

fn eval_lines(out: &Path) -> Vec<(u64, f64)> {
    log::read(&out.join(LOG_FILE))
        .unwrap()
        .into_iter()
        .filter_map(|l| match l {
            LogLine::Eval {
                step,
                held_out_loss,
                ..
            } => Some((step, held_out_loss)),
            _ => None,
        })
        .collect()
}

/// Entropy (nats) of the unigram distribution of the maskable training tokens: the loss of
/// the best context-free predictor.
fn unigram_entropy(data: &PreparedData) -> f64 {
    let mut counts: HashMap<u32, f64> = HashMap::new();
    for b in data.train_blocks.in_memory().unwrap() {
        for &id in &b.ids[..b.len] {
            if !data.spec.is_special(id) {
                *counts.entry(id).or_default() += 1.0;
            }
        }
    }
    let total: f64 = counts.values().sum();
    counts
        .values()
        .map(|c| -(c / total) * (c / total).ln())
        .sum()
}

fn var_values(vm: &VarMap) -> Vec<(String, Vec<f32>)> {
    let data = vm.data().lock().unwrap();
    let mut out: Vec<(String, Vec<f32>)> = data
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_tensor().flatten_all().unwrap().to_vec1().unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn held_out_loss_falls_well_below_the_unigram_baseline() {
    let vocab = Vocab::new();
    let data = data(&vocab, 240, 0.1);
    assert!(!data.held_out_blocks.is_empty());
    let baseline = unigram_entropy(&data);
    let (vm, m) = model(&vocab, 1, 0.1);
    let dir = tempfile::tempdir().unwrap();
    let s = TrainSettings {
        max_steps: Some(200),
        batch_size: 16,
        lr: 1e-2,
        warmup: Warmup::Ratio(0.05),
        eval_every: 25,
        patience: Some(100),
        checkpoint_every: 100,
        ..settings(200)
    };
    let outcome = run(&vm, &m, &data, &s, dir.path(), false, None).unwrap();
    let evals = eval_lines(dir.path());
    let steps = step_lines(dir.path());
    let best = outcome.best_loss.unwrap();
    eprintln!(
        "unigram baseline {baseline:.3} nats; first step loss {:.3}; held-out {evals:?}; best {best:.3} at {:?}",
        steps[0].1, outcome.best_step
    );
    assert!(
        steps[0].1 > baseline,
        "an untrained model is worse than unigram"
    );
    assert!(
        best < 0.5 * baseline,
        "best held-out {best} vs unigram {baseline}"
    );
    assert!(steps.last().unwrap().1 < 0.6 * baseline);
    // The best weights are back in the VarMap: evaluating them gives the best loss.
    let again = trainer::evaluate(
        &data.held_out_blocks,
        &data,
        &s,
        &data.spec.ordinary_ids(),
        &Device::Cpu,
        &mut |b: &MaskedBatch, t: bool, seed: u64| m.loss(b, t, seed),
    )
    .unwrap();
    assert!((again - best).abs() < 1e-6, "{again} vs {best}");
    assert!(outcome.restored_best && !outcome.interrupted);
    // The log ends with a summary that carries the baseline.
    match log::read(&dir.path().join(LOG_FILE))
        .unwrap()
        .last()
        .unwrap()
    {
        LogLine::Summary {
            step,
            best_loss,
            unigram_baseline,
            ..
        } => {
            assert_eq!(*step, outcome.steps);
            assert_eq!(*best_loss, Some(best));
            assert_eq!(*unigram_baseline, outcome.unigram_baseline);
            assert!(unigram_baseline.is_finite() && *unigram_baseline > 0.0);
        }
        other => panic!("last line {other:?}"),
    }
    let manifest = Manifest::read(dir.path()).unwrap();
    assert_eq!(manifest.seed, 7);
    assert_eq!(manifest.data_digest, data.digest());
}

#[test]
fn interrupted_and_resumed_run_repeats_the_uninterrupted_curve() {
    let vocab = Vocab::new();
    let data = data(&vocab, 60, 0.1);
    let s = settings(12);
    let whole = tempfile::tempdir().unwrap();
    let (vm_a, m_a) = model(&vocab, 1, 0.1);
    let a = run(&vm_a, &m_a, &data, &s, whole.path(), false, None).unwrap();
    assert_eq!(a.steps, 12);

    let parts = tempfile::tempdir().unwrap();
    let (vm_b, m_b) = model(&vocab, 1, 0.1);
    let b1 = run(&vm_b, &m_b, &data, &s, parts.path(), false, Some(7)).unwrap();
    assert!(b1.interrupted && b1.steps == 7);
    // A new process: other initial weights, all overwritten by the checkpoint (step 5).
    let (vm_c, m_c) = model(&vocab, 99, 0.1);
    let b2 = run(&vm_c, &m_c, &data, &s, parts.path(), true, None).unwrap();
    assert_eq!(b2.resumed_from, Some(5));
    assert_eq!(b2.steps, 12);

    let (la, lb) = (step_lines(whole.path()), step_lines(parts.path()));
    assert_eq!(
        lb.iter().map(|l| l.0).collect::<Vec<_>>(),
        (1..=12).collect::<Vec<_>>()
    );
    for (x, y) in la.iter().zip(&lb) {
        assert_eq!(x.0, y.0);
        assert!(
            (x.1 - y.1).abs() < 1e-6,
            "step {}: loss {} vs {}",
            x.0,
            x.1,
            y.1
        );
        assert!(
            (x.2 - y.2).abs() < 1e-6,
            "step {}: grad norm {} vs {}",
            x.0,
            x.2,
            y.2
        );
    }
    let (ea, eb) = (eval_lines(whole.path()), eval_lines(parts.path()));
    assert_eq!(ea.len(), 3);
    assert_eq!(ea.len(), eb.len());
    for (x, y) in ea.iter().zip(&eb) {
        assert!(x.0 == y.0 && (x.1 - y.1).abs() < 1e-6, "{x:?} vs {y:?}");
    }
    for ((na, va), (nb, vb)) in var_values(&vm_a).iter().zip(var_values(&vm_c)) {
        assert_eq!(na, &nb);
        let diff = va
            .iter()
            .zip(&vb)
            .map(|(p, q)| (p - q).abs())
            .fold(0f32, f32::max);
        assert!(diff < 1e-6, "{na}: {diff}");
    }
    // The losses did change over the run (the comparison is not of constants).
    assert!(la[0].1 != la[11].1);
    // One summary each, at the end; none from the interrupted part.
    let summaries = |dir: &Path| {
        log::read(&dir.join(LOG_FILE))
            .unwrap()
            .iter()
            .filter(|l| matches!(l, LogLine::Summary { .. }))
            .count()
    };
    assert_eq!((summaries(whole.path()), summaries(parts.path())), (1, 1));
    // Resuming the finished run adds nothing.
    let (vm_d, m_d) = model(&vocab, 5, 0.1);
    run(&vm_d, &m_d, &data, &s, parts.path(), true, None).unwrap();
    assert_eq!(summaries(parts.path()), 1);
}

#[test]
fn two_half_micro_batches_equal_one_full_batch() {
    let vocab = Vocab::new();
    let mut data = data(&vocab, 60, 0.1);
    // One block per note (2-4 sentences in 64 slots): sequences, hence micro-batches, differ in
    // their numbers of masked positions, so unequal micro-batch weights matter.
    data.train_blocks = corpus(60, 3)
        .iter()
        .flat_map(|d| pack(&[vocab.tokenize(&d.text).unwrap()], &data.spec, 64))
        .collect::<Vec<_>>()
        .into();
    let full = TrainSettings {
        eval_every: 0,
        ..settings(3)
    };
    let halves = TrainSettings {
        batch_size: 4,
        grad_accum: 2,
        ..full.clone()
    };
    let mut curves = Vec::new();
    for s in [&full, &halves] {
        let dir = tempfile::tempdir().unwrap();
        // No dropout: its seed is per micro-batch, so it would differ between the two layouts.
        let (vm, m) = model(&vocab, 1, 0.0);
        run(&vm, &m, &data, s, dir.path(), false, None).unwrap();
        curves.push((step_lines(dir.path()), var_values(&vm)));
    }
    let (a, b) = (&curves[0], &curves[1]);
    assert_eq!(a.0.len(), 3);
    for (x, y) in a.0.iter().zip(&b.0) {
        assert!((x.1 - y.1).abs() < 1e-5, "loss {} vs {}", x.1, y.1);
        assert!(
            (x.2 - y.2).abs() < 1e-5 * x.2.max(1.0),
            "grad norm {} vs {}",
            x.2,
            y.2
        );
    }
    for ((n, va), (_, vb)) in a.1.iter().zip(&b.1) {
        let diff = va
            .iter()
            .zip(vb)
            .map(|(p, q)| (p - q).abs())
            .fold(0f32, f32::max);
        assert!(diff < 1e-4, "{n}: {diff}");
    }
}

#[test]
fn early_stopping_triggers_when_held_out_cannot_improve() {
    let vocab = Vocab::new();
    let mut data = data(&vocab, 60, 0.0);
    assert!(data.held_out_blocks.is_empty());
    // Held-out notes in words the training data never has: training only pushes them down.
    let unseen: Vec<Vec<u32>> = (0..6)
        .map(|i| {
            (0..20)
                .map(|j| vocab.ids[UNSEEN[(i + j) % UNSEEN.len()]])
                .collect()
        })
        .collect();
    data.held_out_blocks = pack(&unseen, &data.spec, 32).into();
    let s = TrainSettings {
        max_steps: Some(200),
        warmup: Warmup::Steps(0),
        decay: Decay::Constant,
        eval_every: 3,
        patience: Some(9),
        checkpoint_every: 0,
        ..settings(200)
    };
    let dir = tempfile::tempdir().unwrap();
    let (vm, m) = model(&vocab, 1, 0.1);
    let out = run(&vm, &m, &data, &s, dir.path(), false, None).unwrap();
    let evals = eval_lines(dir.path());
    eprintln!("held-out losses on unseen words: {evals:?}");
    assert!(out.stopped_early);
    assert_eq!(out.best_step, Some(3));
    assert_eq!(out.steps, 12, "first evaluation at 3, patience 9");
    assert!(evals.iter().skip(1).all(|e| e.1 > evals[0].1));
    // The weights of step 3 are back: the held-out loss is the best one again.
    let again = trainer::evaluate(
        &data.held_out_blocks,
        &data,
        &s,
        &data.spec.ordinary_ids(),
        &Device::Cpu,
        &mut |b: &MaskedBatch, t: bool, seed: u64| m.loss(b, t, seed),
    )
    .unwrap();
    assert!((again - evals[0].1).abs() < 1e-6, "{again} vs {evals:?}");
    // A finished run resumed does nothing more.
    let (vm2, m2) = model(&vocab, 5, 0.1);
    let again = run(&vm2, &m2, &data, &s, dir.path(), true, None).unwrap();
    assert_eq!((again.steps, again.resumed_from), (12, Some(12)));
}

#[test]
fn resume_with_other_settings_or_data_is_an_error() {
    let vocab = Vocab::new();
    let data = data(&vocab, 40, 0.1);
    let s = settings(5);
    let dir = tempfile::tempdir().unwrap();
    let (vm, m) = model(&vocab, 1, 0.1);
    run(&vm, &m, &data, &s, dir.path(), false, None).unwrap();
    // Without resume an existing checkpoint is never overwritten.
    let err = run(&vm, &m, &data, &s, dir.path(), false, None).unwrap_err();
    assert!(matches!(err, TrainError::CheckpointExists { .. }), "{err}");
    let other = TrainSettings {
        lr: 2e-2,
        ..s.clone()
    };
    let err = run(&vm, &m, &data, &other, dir.path(), true, None).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, TrainError::SettingsMismatch { .. }), "{msg}");
    assert!(msg.contains("lr: 0.01 → 0.02"), "{msg}");
    let other_data = self::data(&vocab, 41, 0.1);
    let msg = run(&vm, &m, &other_data, &s, dir.path(), true, None)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("training data"), "{msg}");
    // checkpoint_every does not change the result and may differ.
    let relaxed = TrainSettings {
        checkpoint_every: 2,
        ..s
    };
    run(&vm, &m, &data, &relaxed, dir.path(), true, None).unwrap();
}
