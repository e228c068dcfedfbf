//! A loaded masked LM ready for inference: model, tokenizer and device together, with padded
//! batched forward passes (shared by fill-mask, scoring and, later, probes and audits).

use crate::mlm::model::MaskedLm;
use crate::mlm::MlmConfig;
use crate::tokenizer::ModelTokenizer;
use candle_core::{DType, Device, Tensor};

/// Errors of inference on a loaded model.
#[derive(Debug, thiserror::Error)]
pub enum InferError {
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("input {index}: no mask token ({mask}, <mask> or [MASK]) found")]
    NoMask { index: usize, mask: String },
    #[error("input {index}: {tokens} tokens, more than the model's {max} positions")]
    TooLong {
        index: usize,
        tokens: usize,
        max: usize,
    },
    #[error("input {index}: {msg}")]
    Input { index: usize, msg: String },
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
    #[error(transparent)]
    Model(#[from] crate::mlm::MlmError),
    #[error(transparent)]
    LoadTokenizer(#[from] crate::tokenizer::TokenizerError),
}

impl InferError {
    /// The position of the offending input in the batch, when the error is about one input.
    pub fn input_index(&self) -> Option<usize> {
        match self {
            InferError::NoMask { index, .. }
            | InferError::TooLong { index, .. }
            | InferError::Input { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// Token ids of a text and the byte offsets of each token.
pub type Encoded = (Vec<u32>, Vec<(usize, usize)>);

/// Model + tokenizer + device.
pub struct MlmRuntime {
    pub model: MaskedLm,
    pub tokenizer: ModelTokenizer,
    pub config: MlmConfig,
    pub device: Device,
    /// Rows per forward pass.
    pub batch_rows: usize,
}

impl MlmRuntime {
    pub fn new(
        model: MaskedLm,
        tokenizer: ModelTokenizer,
        config: MlmConfig,
        device: Device,
    ) -> Self {
        Self {
            model,
            tokenizer,
            config,
            device,
            batch_rows: 32,
        }
    }

    /// Loads a model dir or hub id with its tokenizer onto the device named `device`
    /// (`cpu`, `cuda`, `cuda:N`, `auto`).
    pub fn open_named(spec: &str, device: &str) -> crate::error::StageResult<Self> {
        use crate::error::StageContext;
        let device = crate::mlm::device::select_device(device)?;
        Self::open(spec, &device).with_stage_context(|| format!("loading model '{spec}'"))
    }

    /// Loads a model dir or hub id (local cache) with its tokenizer; the tokenizer must fit
    /// the embeddings. Checkpoint tensors the masked LM does not use are named in one notice
    /// line on stderr.
    pub fn open(spec: &str, device: &Device) -> Result<Self, InferError> {
        let files = crate::mlm::hub::resolve_model(spec)?;
        let loaded = crate::mlm::weights::load_model_dir(&files.dir, device)?;
        if let Some(notice) = loaded.unused_notice() {
            eprintln!("{notice}");
        }
        let tokenizer = crate::tokenizer::load_dir(&files.dir)?;
        crate::mlm::weights::check_vocab(loaded.config.vocab_size, tokenizer.vocab_size())?;
        Ok(Self::new(
            loaded.model,
            tokenizer,
            loaded.config,
            device.clone(),
        ))
    }

    /// Longest input in tokens (specials included) the position embeddings allow.
    pub fn max_tokens(&self) -> usize {
        self.config.max_sequence_len()
    }

    /// Token ids of `text` with the model's special tokens, byte offsets of each token.
    pub fn encode(&self, index: usize, text: &str) -> Result<Encoded, InferError> {
        let enc = self
            .tokenizer
            .inner
            .encode(text, true)
            .map_err(|e| InferError::Tokenizer(e.to_string()))?;
        let ids = enc.get_ids().to_vec();
        if ids.len() > self.max_tokens() {
            return Err(InferError::TooLong {
                index,
                tokens: ids.len(),
                max: self.max_tokens(),
            });
        }
        Ok((ids, enc.get_offsets().to_vec()))
    }

    /// Log-probabilities over the vocabulary at chosen (row, position) pairs of `rows`;
    /// see [`visit_log_probs`].
    pub fn visit_log_probs(
        &self,
        rows: &[Vec<u32>],
        wanted: &[(usize, usize)],
        visit: impl FnMut(usize, &[f32]),
    ) -> Result<(), InferError> {
        visit_log_probs(
            &self.model,
            self.tokenizer.specials.pad,
            self.batch_rows,
            rows,
            wanted,
            visit,
        )
    }
}

/// Log-probabilities over the vocabulary at chosen (row, position) pairs of `rows` (token
/// sequences of any lengths, padded with `pad` here), `batch_rows` sequences per forward pass;
/// `visit(k, log_probs)` is called once for each `wanted[k]`, in no set order. The encoder
/// runs on whole rows, the vocabulary projection only at the wanted positions.
///
/// Rows are batched shortest first, so a batch is padded to little more than its own rows'
/// length: the masked copies of a short and a long sentence no longer share a batch padded to
/// the long one, and a row nothing is wanted from is not run at all.
pub fn visit_log_probs(
    model: &MaskedLm,
    pad: u32,
    batch_rows: usize,
    rows: &[Vec<u32>],
    wanted: &[(usize, usize)],
    mut visit: impl FnMut(usize, &[f32]),
) -> Result<(), InferError> {
    let device = model.device();
    let mut by_row: Vec<Vec<usize>> = vec![Vec::new(); rows.len()];
    for (k, &(row, pos)) in wanted.iter().enumerate() {
        debug_assert!(pos < rows[row].len());
        by_row[row].push(k);
    }
    let mut order: Vec<usize> = (0..rows.len()).filter(|&r| !by_row[r].is_empty()).collect();
    order.sort_by_key(|&r| rows[r].len());
    for batch in order.chunks(batch_rows.max(1)) {
        let batch_ids: Vec<&[u32]> = batch.iter().map(|&r| rows[r].as_slice()).collect();
        let (ids, mask) = pad_batch(&batch_ids, pad, device)?;
        let width = ids.dim(1)?;
        let mut chunk = Vec::new();
        let mut index = Vec::new();
        for (slot, &r) in batch.iter().enumerate() {
            for &k in &by_row[r] {
                chunk.push(k);
                index.push((slot * width + wanted[k].1) as u32);
            }
        }
        let index = Tensor::from_vec(index, chunk.len(), device)?;
        let logits = model
            .forward_at(&ids, &mask, &index, None)?
            .to_dtype(DType::F32)?;
        let log_probs = candle_nn::ops::log_softmax(&logits, 1)?.to_vec2::<f32>()?;
        for (k, row) in chunk.iter().zip(&log_probs) {
            visit(*k, row);
        }
    }
    Ok(())
}

/// Pads sequences with `pad` into `input_ids` and `attention_mask` tensors [rows, longest].
pub fn pad_batch<R: AsRef<[u32]>>(
    rows: &[R],
    pad: u32,
    device: &Device,
) -> candle_core::Result<(Tensor, Tensor)> {
    let width = rows
        .iter()
        .map(|r| r.as_ref().len())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut ids = Vec::with_capacity(rows.len() * width);
    let mut mask = Vec::with_capacity(rows.len() * width);
    for row in rows {
        let row = row.as_ref();
        ids.extend_from_slice(row);
        mask.extend(std::iter::repeat_n(1u32, row.len()));
        ids.extend(std::iter::repeat_n(pad, width - row.len()));
        mask.extend(std::iter::repeat_n(0u32, width - row.len()));
    }
    let shape = (rows.len(), width);
    Ok((
        Tensor::from_vec(ids, shape, device)?,
        Tensor::from_vec(mask, shape, device)?,
    ))
}
