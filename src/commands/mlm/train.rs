//! `anonlm mlm train`: pretraining from scratch or continued pretraining of a BERT/RoBERTa
//! masked LM on a corpus, writing a Hugging Face model dir with a manifest and a training log.

use crate::cli::{MlmBenchArgs, MlmTrainArgs};
use crate::commands::common::{open_documents, resolve_format, InputSpans};
use crate::mlm::config::{Arch, MlmConfig};
use crate::mlm::device::select_device;
use crate::mlm::dropout::DropoutRng;
use crate::mlm::init::seeded_var_builder;
use crate::mlm::loss::{cross_entropy, labelled_positions};
use crate::mlm::model::MaskedLm;
use crate::mlm::train::{
    self, AdamWParams, Block, CanaryInsert, DataSettings, Decay, MaskedBatch, PackSpec,
    PreparedData, Progress, TrainOptions, TrainSettings, Warmup,
};
use crate::mlm::{hub, weights};
use crate::tokenizer::{self, ModelTokenizer, SpecialStyle};
use crate::Document;
use anyhow::{bail, Context, Result};
use candle_core::DType;
use candle_nn::VarMap;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: MlmTrainArgs) -> Result<ExitCode> {
    let device = select_device(&args.device)?;
    let init_dir = match &args.init {
        Some(spec) => Some(
            hub::resolve_model(spec)
                .with_context(|| format!("--init '{spec}'"))?
                .dir,
        ),
        None => None,
    };
    let tokenizer_dir = match (&args.tokenizer, &init_dir) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => bail!("give --tokenizer DIR (or --init MODEL, whose tokenizer is used)"),
    };
    let tok = tokenizer::load_dir(&tokenizer_dir)
        .with_context(|| format!("tokenizer {}", tokenizer_dir.display()))?;
    guard_output(&args.out, &args, init_dir.as_deref())?;
    // One run per output dir; staging leftovers of a killed run are removed under the lock.
    crate::fsio::refuse_special(&args.out)?;
    crate::fsio::create_private_dir(&crate::fsio::parent_of(&args.out))?;
    let _lock = crate::fsio::RunLock::acquire(&args.out)?;
    crate::fsio::clean_stale_in(&args.out)?;
    let canary_path = super::canaries::canary_path(&args)?;

    // The model: loaded (continued pretraining) or new from a preset / config file.
    let (config, varmap, model) = match &init_dir {
        Some(dir) => {
            let loaded = weights::load_model_dir(dir, &device)?;
            weights::check_vocab(loaded.config.vocab_size, tok.vocab_size())?;
            (loaded.config, loaded.varmap, loaded.model)
        }
        None => {
            let config = new_config(&args.config, &tok, args.arch.as_deref())?;
            let varmap = VarMap::new();
            let model = MaskedLm::new(
                &config,
                seeded_var_builder(&varmap, args.seed, DType::F32, &device),
            )?;
            (config, varmap, model)
        }
    };
    if args.seq_len > config.max_sequence_len() {
        bail!(
            "--seq-len {} exceeds the {} positions of the model",
            args.seq_len,
            config.max_sequence_len()
        );
    }

    // Data: read, hash, split, tokenize and pack.
    let format = resolve_format(&args.format, &args.corpus)?;
    let docs = open_documents(
        &args.corpus,
        format,
        args.max_doc_bytes,
        None,
        InputSpans::Ignore,
    )?
    .collect::<Result<Vec<Document>, _>>()?;
    if docs.is_empty() {
        bail!("{}: no documents", args.corpus.display());
    }
    let canaries = match &canary_path {
        Some(path) => Some(super::canaries::write_canaries(&args, path, &docs)?),
        None => None,
    };
    let insert = canaries.as_ref().map(|file| CanaryInsert {
        canaries: file
            .canaries
            .iter()
            .map(|c| (c.id.as_str(), c.text.as_str(), c.repeats))
            .collect(),
        file_sha256: file.sha256(),
    });
    let spec = pack_spec(&tok, config.vocab_size)?;
    let data = train::prepare_with_canaries(
        &docs,
        insert.as_ref(),
        spec,
        DataSettings {
            seq_len: args.seq_len,
            held_out_fraction: args.held_out,
            seed: args.seed,
        },
        |text: &str| tok.inner.encode(text, false).map(|e| e.get_ids().to_vec()),
    )?;
    drop(docs);
    eprintln!(
        "corpus: {} training documents ({} tokens, {} blocks of {}), {} held out ({} blocks)",
        data.train.n_documents,
        data.train.n_tokens,
        data.train_blocks.len(),
        args.seq_len,
        data.held_out.n_documents,
        data.held_out_blocks.len()
    );
    if let (Some(c), Some(path)) = (&data.canaries, &canary_path) {
        eprintln!(
            "canaries: {} ({} per repeat value {:?}), {} copies in the training set; secrets in \
             {} (mode 0600: keep it out of the release)",
            c.n_canaries,
            args.canaries,
            c.repeats,
            c.n_copies,
            path.display()
        );
    }

    let settings = TrainSettings {
        max_steps: args.steps,
        epochs: args.epochs,
        batch_size: args.batch,
        grad_accum: args.grad_accum,
        lr: args.lr,
        warmup: if args.warmup >= 1.0 {
            Warmup::Steps(args.warmup as u64)
        } else {
            Warmup::Ratio(args.warmup)
        },
        decay: Decay::Linear,
        adamw: AdamWParams {
            weight_decay: args.weight_decay,
            ..AdamWParams::default()
        },
        clip_norm: (args.clip_norm > 0.0).then_some(args.clip_norm),
        masking: Default::default(),
        eval_every: args.eval_every,
        patience: (args.patience > 0).then_some(args.patience),
        checkpoint_every: args.checkpoint_every,
        seed: args.seed,
    };
    let bar = crate::progress::steps_bar(settings.max_steps.unwrap_or(0), args.quiet);
    let mut on_step = |p: &Progress| {
        bar.set_length(p.total_steps);
        bar.set_position(p.step);
        let eval = p
            .eval_loss
            .map(|l| format!(" held-out {l:.3}"))
            .unwrap_or_default();
        bar.set_message(format!(
            "loss {:.3}{eval} · {:.0} tokens/s",
            p.loss, p.tokens_per_s
        ));
        ControlFlow::Continue(())
    };
    let loss_fn =
        |batch: &MaskedBatch, training: bool, seed: u64| batch_loss(&model, batch, training, seed);
    let outcome = train::train(
        &varmap,
        &data,
        &settings,
        TrainOptions {
            out_dir: &args.out,
            resume: true,
        },
        loss_fn,
        &mut on_step,
    )?;
    bar.finish_and_clear();

    // The model dir: weights (best held-out step), config and tokenizer in the HF layout.
    weights::save_model_dir(&config, &varmap, &args.out, true)?;
    tokenizer::save_dir(&tok, &args.out)?;
    if let Some(step) = outcome.resumed_from {
        eprintln!("resumed from the checkpoint at step {step}");
    }
    let baseline = data.unigram_baseline();
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
        baseline,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The trainer's loss closure: mean masked-LM loss of a batch, with seeded dropout in training.
fn batch_loss(
    model: &MaskedLm,
    batch: &MaskedBatch,
    training: bool,
    dropout_seed: u64,
) -> candle_core::Result<candle_core::Tensor> {
    let Some(at) = labelled_positions(&batch.labels, model.config().vocab_size)? else {
        return candle_core::Tensor::new(0f32, model.device());
    };
    let mut rng = DropoutRng::new(dropout_seed);
    let logits = model.forward_at(
        &batch.input_ids,
        &batch.attention_mask,
        &at.rows,
        training.then_some(&mut rng),
    )?;
    cross_entropy(&logits, &at.targets)
}

fn fmt_loss(loss: Option<f64>) -> String {
    loss.map(|l| format!("{l:.3}"))
        .unwrap_or_else(|| "-".into())
}

/// Refuses to train into a directory holding another model unless it is this run's own
/// checkpointed output (resume) or `--overwrite` was given; never onto the corpus or the init model.
fn guard_output(out: &Path, args: &MlmTrainArgs, init: Option<&Path>) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(out, &args.corpus) || init.is_some_and(|i| same(out, i)) {
        bail!("--out {} is an input of this run", out.display());
    }
    // The weights make a model: a manifest and a log alone are what a run that failed or was
    // killed before its first checkpoint leaves, and they must not block the rerun.
    let has_model = out.join(weights::SAFETENSORS_FILE).exists();
    let has_checkpoint = train::checkpoint::find(out).is_some();
    if has_model && !has_checkpoint && !args.overwrite {
        bail!(
            "{} already holds a model; give --overwrite to replace it",
            out.display()
        );
    }
    Ok(())
}

/// A new config from a preset name or a config.json file, sized to the tokenizer.
fn new_config(spec: &str, tok: &ModelTokenizer, arch: Option<&str>) -> Result<MlmConfig> {
    let arch = match arch {
        Some("bert") => Arch::Bert,
        Some("roberta") => Arch::Roberta,
        Some(other) => bail!("unknown --arch '{other}' (bert or roberta)"),
        None if tok.specials.style == SpecialStyle::Bert => Arch::Bert,
        None => Arch::Roberta,
    };
    let vocab = tok.vocab_size();
    if matches!(spec, "tiny" | "small" | "base") {
        return Ok(MlmConfig::preset(spec, arch, vocab, tok.specials.pad)?);
    }
    let path = Path::new(spec);
    let mut config = MlmConfig::from_file(path).with_context(|| format!("--config {spec}"))?;
    if config.vocab_size < vocab {
        bail!(
            "{}: vocab_size {} is smaller than the tokenizer's {vocab} tokens",
            path.display(),
            config.vocab_size
        );
    }
    config.pad_token_id = tok.specials.pad;
    Ok(config)
}

/// The special ids the packer and the masking need, from the tokenizer.
fn pack_spec(tok: &ModelTokenizer, vocab_size: usize) -> Result<PackSpec> {
    let s = &tok.specials;
    Ok(PackSpec {
        cls: s.cls,
        sep: s.sep,
        pad: s.pad,
        mask: s.mask,
        vocab_size: u32::try_from(vocab_size)?,
        special_ids: tok.special_ids(),
    })
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
        train_blocks: blocks,
        held_out_blocks: Vec::new(),
        train: Default::default(),
        held_out: Default::default(),
        corpus_digest: "bench".into(),
        n_input_documents: 0,
        canaries: None,
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
