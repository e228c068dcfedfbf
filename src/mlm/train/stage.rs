//! The `mlm train` stage as a library call: pretraining from scratch or continued pretraining
//! of a BERT/RoBERTa masked LM on a corpus, writing a Hugging Face model dir with a manifest
//! and a training log; resumes from the dir's checkpoint.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use candle_core::DType;
use candle_nn::VarMap;

use super::{prepare_stage, shards};
use crate::canary::setup as canary_setup;
use crate::corpus::source::CorpusInput;
use crate::error::{StageContext, StageResult, ValueError};
use crate::mlm::config::{Arch, MlmConfig};
use crate::mlm::device::select_device;
use crate::mlm::loss::{cross_entropy, labelled_positions};
use crate::mlm::model::MaskedLm;
use crate::mlm::train::{
    self, DataSettings, MaskedBatch, PackSpec, Progress, TrainOptions, TrainOutcome, TrainSettings,
};
use crate::mlm::{hub, weights};
use crate::neural::dropout::DropoutRng;
use crate::neural::init::seeded_var_builder;
use crate::neural::optim::AdamWParams;
use crate::neural::schedule::{Decay, Warmup};
use crate::tokenizer::{self, ModelTokenizer, SpecialStyle};

/// Tokens per block when neither --seq-len nor a data dir says.
pub const DEFAULT_SEQ_LEN: usize = 128;
/// Held-out fraction when neither --held-out nor a data dir says.
pub const DEFAULT_HELD_OUT: f64 = 0.05;

/// Everything one training run needs (the flags of `mlm train`).
#[derive(Clone, Debug)]
pub struct MlmTrainSettings {
    /// The corpus (prepared into a scratch dir inside `out` first), or ...
    pub corpus: Option<PathBuf>,
    /// ... a data dir of `mlm prepare`.
    pub data: Option<PathBuf>,
    pub format: String,
    pub tokenizer: Option<PathBuf>,
    /// A preset (`tiny`, `small`, `base`) or a config.json file.
    pub config: String,
    pub arch: Option<Arch>,
    /// A model dir or hub id to continue from.
    pub init: Option<String>,
    pub out: PathBuf,
    pub overwrite: bool,
    pub device: String,
    pub steps: Option<u64>,
    pub epochs: Option<u64>,
    pub batch: usize,
    pub grad_accum: usize,
    /// Default 128; a data dir has its own.
    pub seq_len: Option<usize>,
    pub lr: f64,
    /// A ratio of the steps below 1, a step count from 1.
    pub warmup: f64,
    pub weight_decay: f64,
    /// 0: no clipping.
    pub clip_norm: f64,
    /// Default 0.05; a data dir has its own.
    pub held_out: Option<f64>,
    pub eval_every: u64,
    /// 0: no early stopping.
    pub patience: u64,
    pub checkpoint_every: u64,
    pub seed: u64,
    pub max_doc_bytes: usize,
    pub canary: canary_setup::CanarySettings,
    pub quiet: bool,
}

/// How a finished run went.
pub struct TrainSummary {
    pub outcome: TrainOutcome,
    pub unigram_baseline: f64,
}

pub fn run(args: &MlmTrainSettings) -> StageResult<TrainSummary> {
    let device = select_device(&args.device)?;
    let init_dir = match &args.init {
        Some(spec) => Some(
            hub::resolve_model(spec)
                .with_stage_context(|| format!("--init '{spec}'"))?
                .dir,
        ),
        None => None,
    };
    let data_index = match (&args.corpus, &args.data) {
        (Some(_), None) => None,
        (None, Some(dir)) => Some(
            shards::read_index(dir).with_stage_context(|| format!("--data {}", dir.display()))?,
        ),
        _ => return Err(ValueError::new("give --corpus FILE or --data DIR (one of them)").into()),
    };
    if let Some(index) = &data_index {
        let given = [
            (
                args.seq_len.is_some_and(|n| n != index.settings.seq_len),
                "--seq-len",
            ),
            (
                args.held_out
                    .is_some_and(|f| f != index.settings.held_out_fraction),
                "--held-out",
            ),
            (args.canary.canaries > 0, "--canaries"),
        ];
        if let Some((_, flag)) = given.iter().find(|(on, _)| *on) {
            return Err(ValueError::new(format!(
                "{flag} is fixed when the data is prepared (mlm prepare); --data already has it"
            ))
            .into());
        }
    }
    let tokenizer_dir = match (&args.tokenizer, &init_dir, &args.data) {
        (Some(dir), _, _) => dir.clone(),
        (None, Some(dir), _) => dir.clone(),
        (None, None, Some(data)) => data.join(shards::TOKENIZER_DIR),
        (None, None, None) => {
            return Err(ValueError::new(
                "give --tokenizer DIR (or --init MODEL, whose tokenizer is used)",
            )
            .into())
        }
    };
    let tok = tokenizer::load_dir(&tokenizer_dir)
        .with_stage_context(|| format!("tokenizer {}", tokenizer_dir.display()))?;
    if let Some(index) = &data_index {
        if prepare_stage::tokenizer_sha256(&tok)? != index.tokenizer_sha256 {
            return Err(ValueError::new(format!(
                "tokenizer {} is not the one --data was prepared with",
                tokenizer_dir.display()
            ))
            .into());
        }
    }
    let seq_len = match &data_index {
        Some(index) => index.settings.seq_len,
        None => args.seq_len.unwrap_or(DEFAULT_SEQ_LEN),
    };
    guard_output(&args.out, args, init_dir.as_deref())?;
    // One run per output dir; staging leftovers of a killed run are removed under the lock.
    crate::fsio::refuse_special(&args.out)?;
    crate::fsio::create_private_dir(&crate::fsio::parent_of(&args.out))?;
    let _lock = crate::fsio::RunLock::acquire(&args.out)?;
    crate::fsio::clean_stale_in(&args.out)?;
    let canary_path = canary_setup::canary_path(&args.canary, &args.out, args.corpus.as_deref())?;

    // The model: loaded (continued pretraining) or new from a preset / config file.
    let (config, varmap, model) = match &init_dir {
        Some(dir) => {
            let loaded = weights::load_model_dir(dir, &device)?;
            if let Some(notice) = loaded.unused_notice() {
                // Only the masked LM is trained and saved; the other tensors are not kept.
                eprintln!("{notice}; they are not written to --out");
            }
            weights::check_vocab(loaded.config.vocab_size, tok.vocab_size())?;
            (loaded.config, loaded.varmap, loaded.model)
        }
        None => {
            let config = new_config(&args.config, &tok, args.arch)?;
            let varmap = VarMap::new();
            let model = MaskedLm::new(
                &config,
                seeded_var_builder(&varmap, args.seed, DType::F32, &device),
            )?;
            (config, varmap, model)
        }
    };
    if seq_len > config.max_sequence_len() {
        return Err(ValueError::new(format!(
            "--seq-len {seq_len} exceeds the {} positions of the model",
            config.max_sequence_len()
        ))
        .into());
    }

    // Data: a data dir of `mlm prepare`, or the corpus prepared into a scratch dir inside
    // --out (removed when training ends; a killed run's is removed when it is resumed).
    let (scratch, data_dir) = match (&args.corpus, &args.data) {
        (Some(corpus), _) => {
            let scratch = crate::fsio::scratch_dir(&args.out)?;
            let stage = crate::fsio::StagedDir::new(
                &scratch.path().join("data"),
                false,
                &crate::fsio::Inputs::new(),
            )?;
            let input = CorpusInput {
                path: corpus.clone(),
                format: args.format.clone(),
                label_map: None,
                max_doc_bytes: args.max_doc_bytes,
            };
            let canaries = canary_path.as_deref().map(|path| prepare_stage::CanaryOut {
                settings: &args.canary,
                path,
                overwrite: args.overwrite,
            });
            let settings = DataSettings {
                seq_len,
                held_out_fraction: args.held_out.unwrap_or(DEFAULT_HELD_OUT),
                seed: args.seed,
            };
            let spec = pack_spec(&tok, config.vocab_size)?;
            prepare_stage::write_data(&stage, &input, &tok, spec, settings, canaries, args.quiet)?;
            let dir = stage.dest().to_path_buf();
            stage.publish()?;
            (Some(scratch), dir)
        }
        (None, Some(dir)) => (None, dir.clone()),
        (None, None) => unreachable!("checked above"),
    };
    let (index, data) =
        shards::open(&data_dir).with_stage_context(|| format!("data {}", data_dir.display()))?;
    if index.pack.vocab_size as usize > config.vocab_size {
        return Err(ValueError::new(format!(
            "the data's vocabulary ({} ids) is larger than the model's ({})",
            index.pack.vocab_size, config.vocab_size
        ))
        .into());
    }
    // Counts only, said also under --quiet (which silences the progress bar).
    eprintln!(
        "corpus: {} training documents ({} tokens, {} blocks of {}), {} held out ({} blocks)",
        data.train.n_documents,
        data.train.n_tokens,
        data.train_blocks.len(),
        seq_len,
        data.held_out.n_documents,
        data.held_out_blocks.len()
    );
    if let (Some(c), Some(path)) = (&data.canaries, &canary_path) {
        eprintln!(
            "canaries: {} ({} per repeat value {:?}), {} copies in the training set; secrets in \
             {} (mode 0600: keep it out of the release)",
            c.n_canaries,
            args.canary.canaries,
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
    let unigram_baseline = data.unigram_baseline();
    drop(data);
    drop(scratch);

    // The model dir: weights (best held-out step), config and tokenizer in the HF layout.
    weights::save_model_dir(&config, &varmap, &args.out, true)?;
    tokenizer::save_dir(&tok, &args.out)?;
    // Always said, also under --quiet: a resumed run is not a fresh one.
    if let Some(step) = outcome.resumed_from {
        eprintln!("resumed from the checkpoint at step {step}");
    }
    Ok(TrainSummary {
        unigram_baseline,
        outcome,
    })
}
/// The trainer's loss closure: mean masked-LM loss of a batch, with seeded dropout in training.
pub fn batch_loss(
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

/// Refuses to train into a directory holding another model unless it is this run's own
/// checkpointed output (resume) or `--overwrite` was given; never onto the corpus or the init model.
fn guard_output(out: &Path, args: &MlmTrainSettings, init: Option<&Path>) -> StageResult<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let inputs = [args.corpus.as_deref(), args.data.as_deref(), init];
    if inputs.iter().flatten().any(|i| same(out, i)) {
        return Err(
            ValueError::new(format!("--out {} is an input of this run", out.display())).into(),
        );
    }
    // The weights make a model: a manifest and a log alone are what a run that failed or was
    // killed before its first checkpoint leaves, and they must not block the rerun.
    let has_model = out.join(weights::SAFETENSORS_FILE).exists();
    let has_checkpoint = train::checkpoint::find(out).is_some();
    if has_model && !has_checkpoint && !args.overwrite {
        return Err(ValueError::new(format!(
            "{} already holds a model; give --overwrite to replace it",
            out.display()
        ))
        .into());
    }
    Ok(())
}

/// A new config from a preset name or a config.json file, sized to the tokenizer.
fn new_config(spec: &str, tok: &ModelTokenizer, arch: Option<Arch>) -> StageResult<MlmConfig> {
    let arch = match arch {
        Some(arch) => arch,
        None if tok.specials.style == SpecialStyle::Bert => Arch::Bert,
        None => Arch::Roberta,
    };
    let vocab = tok.vocab_size();
    if MlmConfig::PRESETS.contains(&spec) {
        return Ok(MlmConfig::preset(spec, arch, vocab, tok.specials.pad)?);
    }
    let path = Path::new(spec);
    let mut config =
        MlmConfig::from_file(path).with_stage_context(|| format!("--config {spec}"))?;
    if config.vocab_size < vocab {
        return Err(ValueError::new(format!(
            "{}: vocab_size {} is smaller than the tokenizer's {vocab} tokens",
            path.display(),
            config.vocab_size
        ))
        .into());
    }
    config.pad_token_id = tok.specials.pad;
    Ok(config)
}

/// The special ids the packer and the masking need, from the tokenizer.
pub fn pack_spec(tok: &ModelTokenizer, vocab_size: usize) -> StageResult<PackSpec> {
    let s = &tok.specials;
    Ok(PackSpec {
        cls: s.cls,
        sep: s.sep,
        pad: s.pad,
        mask: s.mask,
        vocab_size: u32::try_from(vocab_size)
            .map_err(|_| ValueError::new("the vocabulary is larger than 2^32 tokens"))?,
        special_ids: tok.special_ids(),
    })
}
