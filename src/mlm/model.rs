//! BERT / RoBERTa masked-LM forward pass in candle, with Hugging Face tensor names and real dropout.
//!
//! Own code rather than candle-transformers' bert.rs: that model has no dropout, uses candle's
//! fused layer norm / softmax (no backward pass in candle 0.11.1), and its MLM head expects a
//! decoder weight that `save_pretrained` files lack.

use candle_core::{DType, Device, Tensor, D};
use candle_nn::{Init, Linear, VarBuilder};

use super::attention_cpu;
use super::config::{Activation, Arch, MlmConfig};
use crate::neural::dropout::DropoutRng;
use crate::neural::kernels;
use crate::neural::linear_cpu;

/// Additive attention bias for padded keys; exp() of it underflows to exactly 0 in f32.
const MASK_BIAS: f64 = -1e9;

fn linear(in_dim: usize, out_dim: usize, std: f64, vb: VarBuilder) -> candle_core::Result<Linear> {
    let w = vb.get_with_hints(
        (out_dim, in_dim),
        "weight",
        Init::Randn {
            mean: 0.0,
            stdev: std,
        },
    )?;
    let b = vb.get_with_hints(out_dim, "bias", Init::Const(0.0))?;
    Ok(Linear::new(w, Some(b)))
}

/// Layer norm written with plain tensor ops, so gradients flow (candle's fused one has no backward).
#[derive(Clone, Debug)]
struct LayerNorm {
    weight: Tensor,
    bias: Tensor,
    eps: f64,
}

impl LayerNorm {
    fn new(size: usize, eps: f64, vb: VarBuilder) -> candle_core::Result<Self> {
        let weight = vb.get_with_hints(size, "weight", Init::Const(1.0))?;
        let bias = vb.get_with_hints(size, "bias", Init::Const(0.0))?;
        Ok(LayerNorm { weight, bias, eps })
    }

    /// The same norm on weights outside the autograd graph, for inference.
    fn detached(&self) -> Self {
        LayerNorm {
            weight: self.weight.detach(),
            bias: self.bias.detach(),
            eps: self.eps,
        }
    }

    /// `fused`: candle's one-kernel layer norm (parallel over rows on the CPU), for inference
    /// only: it has no backward pass.
    fn forward(&self, x: &Tensor, fused: bool) -> candle_core::Result<Tensor> {
        if fused {
            return candle_nn::ops::layer_norm(x, &self.weight, &self.bias, self.eps as f32);
        }
        if let Some(normed) = kernels::layer_norm(x, &self.weight, &self.bias, self.eps) {
            return normed;
        }
        let mean = x.mean_keepdim(D::Minus1)?;
        let centered = x.broadcast_sub(&mean)?;
        let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
        let normed = centered.broadcast_div(&(var + self.eps)?.sqrt()?)?;
        normed
            .broadcast_mul(&self.weight)?
            .broadcast_add(&self.bias)
    }
}

/// A linear layer on weights outside the autograd graph, for inference.
fn detached_linear(l: &Linear) -> Linear {
    Linear::new(l.weight().detach(), l.bias().map(Tensor::detach))
}

fn dropout(x: &Tensor, p: f64, rng: &mut Option<&mut DropoutRng>) -> candle_core::Result<Tensor> {
    match rng {
        Some(r) if p > 0.0 => r.apply(x, p as f32),
        _ => Ok(x.clone()),
    }
}

struct Embeddings {
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    layer_norm: LayerNorm,
    dropout: f64,
}

impl Embeddings {
    fn detached(&self) -> Self {
        Embeddings {
            word: self.word.detach(),
            position: self.position.detach(),
            token_type: self.token_type.detach(),
            layer_norm: self.layer_norm.detached(),
            dropout: self.dropout,
        }
    }

    fn new(c: &MlmConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        let std = c.initializer_range;
        let randn = Init::Randn {
            mean: 0.0,
            stdev: std,
        };
        let fresh = !vb.contains_tensor("word_embeddings.weight");
        let word = vb.get_with_hints(
            (c.vocab_size, c.hidden_size),
            "word_embeddings.weight",
            randn,
        )?;
        let position = vb.get_with_hints(
            (c.max_position_embeddings, c.hidden_size),
            "position_embeddings.weight",
            randn,
        )?;
        let token_type = vb.get_with_hints(
            (c.type_vocab_size, c.hidden_size),
            "token_type_embeddings.weight",
            randn,
        )?;
        if fresh {
            // transformers zeroes the padding row of freshly initialised embeddings.
            let zero = Tensor::zeros((1, c.hidden_size), word.dtype(), word.device())?;
            word.slice_set(&zero, 0, c.pad_token_id as usize)?;
        }
        let layer_norm = LayerNorm::new(c.hidden_size, c.layer_norm_eps, vb.pp("LayerNorm"))?;
        Ok(Embeddings {
            word,
            position,
            token_type,
            layer_norm,
            dropout: c.hidden_dropout_prob,
        })
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    out_norm: LayerNorm,
}

impl Layer {
    fn detached(&self) -> Self {
        Layer {
            query: detached_linear(&self.query),
            key: detached_linear(&self.key),
            value: detached_linear(&self.value),
            attn_out: detached_linear(&self.attn_out),
            attn_norm: self.attn_norm.detached(),
            intermediate: detached_linear(&self.intermediate),
            output: detached_linear(&self.output),
            out_norm: self.out_norm.detached(),
        }
    }

    fn new(c: &MlmConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        let (h, i, std) = (c.hidden_size, c.intermediate_size, c.initializer_range);
        let att = vb.pp("attention");
        let sa = att.pp("self");
        Ok(Layer {
            query: linear(h, h, std, sa.pp("query"))?,
            key: linear(h, h, std, sa.pp("key"))?,
            value: linear(h, h, std, sa.pp("value"))?,
            attn_out: linear(h, h, std, att.pp("output").pp("dense"))?,
            attn_norm: LayerNorm::new(h, c.layer_norm_eps, att.pp("output").pp("LayerNorm"))?,
            intermediate: linear(h, i, std, vb.pp("intermediate").pp("dense"))?,
            output: linear(i, h, std, vb.pp("output").pp("dense"))?,
            out_norm: LayerNorm::new(h, c.layer_norm_eps, vb.pp("output").pp("LayerNorm"))?,
        })
    }
}

/// A BERT or RoBERTa encoder with its masked-LM head (decoder tied to the word embeddings).
pub struct MaskedLm {
    arch: Arch,
    config: MlmConfig,
    embeddings: Embeddings,
    layers: Vec<Layer>,
    head_dense: Linear,
    head_norm: LayerNorm,
    head_act: Activation,
    head_bias: Tensor,
    device: Device,
}

impl MaskedLm {
    /// Builds the model; parameters are taken from (or created in) `vb` under Hugging Face names,
    /// e.g. `bert.encoder.layer.0.attention.self.query.weight` or `lm_head.layer_norm.weight`.
    pub fn new(config: &MlmConfig, vb: VarBuilder) -> candle_core::Result<Self> {
        config
            .validate()
            .map_err(|e| candle_core::Error::Msg(e.to_string()))?;
        let arch = config
            .arch()
            .map_err(|e| candle_core::Error::Msg(e.to_string()))?;
        let enc = vb.pp(arch.prefix());
        let embeddings = Embeddings::new(config, enc.pp("embeddings"))?;
        let layers = (0..config.num_hidden_layers)
            .map(|i| Layer::new(config, enc.pp("encoder").pp("layer").pp(i)))
            .collect::<candle_core::Result<Vec<_>>>()?;
        let (h, std) = (config.hidden_size, config.initializer_range);
        let (head_dense, head_norm, head_bias, head_act) = match arch {
            Arch::Bert => {
                let p = vb.pp("cls").pp("predictions");
                let t = p.pp("transform");
                (
                    linear(h, h, std, t.pp("dense"))?,
                    LayerNorm::new(h, config.layer_norm_eps, t.pp("LayerNorm"))?,
                    p.get_with_hints(config.vocab_size, "bias", Init::Const(0.0))?,
                    config.hidden_act,
                )
            }
            Arch::Roberta => {
                let p = vb.pp("lm_head");
                (
                    linear(h, h, std, p.pp("dense"))?,
                    LayerNorm::new(h, config.layer_norm_eps, p.pp("layer_norm"))?,
                    p.get_with_hints(config.vocab_size, "bias", Init::Const(0.0))?,
                    // RobertaLMHead applies exact gelu whatever hidden_act says.
                    Activation::Gelu,
                )
            }
        };
        Ok(MaskedLm {
            arch,
            config: config.clone(),
            embeddings,
            layers,
            head_dense,
            head_norm,
            head_act,
            head_bias,
            device: vb.device().clone(),
        })
    }

    /// The same model on weights outside the autograd graph (storage shared, so later updates
    /// of the trained variables show through). An inference forward runs on it: ops on
    /// variables record their inputs for backprop, which would keep every intermediate of a
    /// forward pass alive until its output is dropped (gigabytes for a batch of PLL copies).
    fn detached(&self) -> MaskedLm {
        MaskedLm {
            arch: self.arch,
            config: self.config.clone(),
            embeddings: self.embeddings.detached(),
            layers: self.layers.iter().map(Layer::detached).collect(),
            head_dense: detached_linear(&self.head_dense),
            head_norm: self.head_norm.detached(),
            head_act: self.head_act,
            head_bias: self.head_bias.detach(),
            device: self.device.clone(),
        }
    }

    pub fn config(&self) -> &MlmConfig {
        &self.config
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Position ids: 0..T for BERT; for RoBERTa transformers' `create_position_ids_from_input_ids`
    /// (cumulative count of non-pad tokens, offset by the padding index; pads get the padding index).
    fn position_ids(&self, input_ids: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t) = input_ids.dims2()?;
        let max = self.config.max_position_embeddings;
        match self.arch {
            Arch::Bert => {
                if t > max {
                    candle_core::bail!(
                        "sequence of {t} tokens exceeds max_position_embeddings {max}"
                    );
                }
                Tensor::arange(0u32, t as u32, &self.device)?
                    .unsqueeze(0)?
                    .broadcast_as((b, t))?
                    .contiguous()
            }
            Arch::Roberta => {
                let pad = self.config.pad_token_id;
                let ids: Vec<Vec<u32>> = input_ids.to_vec2()?;
                let mut pos = Vec::with_capacity(b * t);
                for row in &ids {
                    let mut count = 0u32;
                    for &id in row {
                        if id == pad {
                            pos.push(pad);
                        } else {
                            count += 1;
                            pos.push(count + pad);
                        }
                    }
                }
                if let Some(&p) = pos.iter().max() {
                    if p as usize >= max {
                        candle_core::bail!(
                            "sequence too long: position {p} exceeds max_position_embeddings {max}"
                        );
                    }
                }
                Tensor::from_vec(pos, (b, t), &self.device)
            }
        }
    }

    /// Final hidden states f32 [batch, seq, hidden] (before the MLM head). `dropout_rng`:
    /// Some in training; None for inference, which runs outside the autograd graph on fused
    /// kernels (nothing can be trained from it).
    pub fn forward_hidden(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        dropout_rng: Option<&mut DropoutRng>,
    ) -> candle_core::Result<Tensor> {
        self.in_mode(dropout_rng, |model, dropout, _| {
            model.encode(input_ids, attention_mask, dropout, None)
        })
    }

    /// Runs `pass(model, dropout, fused)` in the mode `dropout` selects: training on this
    /// model's variables, or inference (`None`) on [`MaskedLm::detached`] weights with fused
    /// kernels.
    fn in_mode<R>(
        &self,
        dropout: Option<&mut DropoutRng>,
        pass: impl FnOnce(&MaskedLm, Option<&mut DropoutRng>, bool) -> R,
    ) -> R {
        match dropout {
            None => pass(&self.detached(), None, true),
            Some(rng) => pass(self, Some(rng), false),
        }
    }

    /// The encoder on this model's tensors as they are (see [`MaskedLm::forward_hidden`]):
    /// hidden states [b, t, hidden], or with `rows` (u32 [n], flat indices into [b * t]) those
    /// rows only, [n, hidden]. In a fused CPU inference the last layer then runs for those rows
    /// alone (keys and values still from every token): the same numbers for a fraction of
    /// that layer's work, as a PLL or fill-mask batch needs one position per sequence.
    fn encode(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        mut dropout_rng: Option<&mut DropoutRng>,
        rows: Option<&Tensor>,
    ) -> candle_core::Result<Tensor> {
        let (b, t) = input_ids.dims2()?;
        if attention_mask.dims2()? != (b, t) {
            candle_core::bail!(
                "attention_mask shape {:?} differs from input_ids shape {:?}",
                attention_mask.dims(),
                input_ids.dims()
            );
        }
        let input_ids = input_ids.to_dtype(DType::U32)?;
        let c = &self.config;
        let e = &self.embeddings;
        let flat = input_ids.flatten_all()?;
        let words = e
            .word
            .index_select(&flat, 0)?
            .reshape((b, t, c.hidden_size))?;
        let pos_ids = self.position_ids(&input_ids)?.flatten_all()?;
        let pos = e
            .position
            .index_select(&pos_ids, 0)?
            .reshape((b, t, c.hidden_size))?;
        // token_type_ids are all 0.
        let tt = e.token_type.narrow(0, 0, 1)?;
        let x = (words + pos)?.broadcast_add(&tt)?;
        let fused = dropout_rng.is_none();
        let x = e.layer_norm.forward(&x, fused)?;
        let mut x = dropout(&x, e.dropout, &mut dropout_rng)?;

        // [b, 1, 1, t]: 0 for real keys, MASK_BIAS for padding.
        let mask = attention_mask.to_dtype(DType::F32)?;
        let bias = ((1.0 - mask)? * MASK_BIAS)?.reshape((b, 1, 1, t))?;
        let heads = c.num_attention_heads;
        let hd = c.hidden_size / heads;
        let scale = 1.0 / (hd as f64).sqrt();
        let cpu_attention = attention_cpu::applies(&x);
        let fused_attention = fused && cpu_attention;
        let key_valid = if cpu_attention {
            attention_cpu::key_valid(attention_mask)?
        } else {
            Vec::new()
        };
        let n_layers = self.layers.len();
        for (index, layer) in self.layers.iter().enumerate() {
            if let (Some(rows), true) = (rows, fused_attention && index + 1 == n_layers) {
                return self.last_layer_at(layer, &x, rows, &key_valid);
            }
            let q = linear_cpu::forward(&layer.query, &x)?;
            let k = linear_cpu::forward(&layer.key, &x)?;
            let v = linear_cpu::forward(&layer.value, &x)?;
            let ctx = if fused_attention {
                attention_cpu::fused_attention(&q, &k, &v, &key_valid, heads, scale)?
            } else if cpu_attention {
                let p = c.attention_probs_dropout_prob;
                let factors = match dropout_rng.as_deref_mut() {
                    Some(rng) if p > 0.0 && p < 1.0 => rng.factors(b * heads * t * t, p as f32),
                    _ => Vec::new(),
                };
                attention_cpu::training_attention(
                    &q,
                    &k,
                    &v,
                    key_valid.clone(),
                    factors,
                    heads,
                    scale,
                )?
            } else {
                let split = |y: Tensor| -> candle_core::Result<Tensor> {
                    y.reshape((b, t, heads, hd))?.transpose(1, 2)?.contiguous()
                };
                let (q, k, v) = (split(q)?, split(k)?, split(v)?);
                let scores = (q.matmul(&k.t()?.contiguous()?)? * scale)?.broadcast_add(&bias)?;
                let probs = if fused {
                    candle_nn::ops::softmax_last_dim(&scores)?
                } else {
                    kernels::softmax_last_dim(&scores)?
                };
                let probs = dropout(&probs, c.attention_probs_dropout_prob, &mut dropout_rng)?;
                probs
                    .matmul(&v)?
                    .transpose(1, 2)?
                    .contiguous()?
                    .reshape((b, t, c.hidden_size))?
            };
            let a = linear_cpu::forward(&layer.attn_out, &ctx)?;
            let a = dropout(&a, c.hidden_dropout_prob, &mut dropout_rng)?;
            let a = layer.attn_norm.forward(&(a + &x)?, fused)?;
            let f = c
                .hidden_act
                .forward(&linear_cpu::forward(&layer.intermediate, &a)?)?;
            let f = linear_cpu::forward(&layer.output, &f)?;
            let f = dropout(&f, c.hidden_dropout_prob, &mut dropout_rng)?;
            x = layer.out_norm.forward(&(f + a)?, fused)?;
        }
        match rows {
            Some(rows) => x.reshape((b * t, c.hidden_size))?.index_select(rows, 0),
            None => Ok(x),
        }
    }

    /// The last encoder layer (fused CPU inference) at `rows` of its input `x` [b, t, hidden]
    /// only → [n, hidden].
    fn last_layer_at(
        &self,
        layer: &Layer,
        x: &Tensor,
        rows: &Tensor,
        key_valid: &[bool],
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let (b, t, h) = x.dims3()?;
        let k = linear_cpu::forward(&layer.key, x)?;
        let v = linear_cpu::forward(&layer.value, x)?;
        let picked = x.reshape((b * t, h))?.index_select(rows, 0)?;
        let q = linear_cpu::forward(&layer.query, &picked)?;
        let seq_of = rows
            .to_dtype(DType::U32)?
            .to_vec1::<u32>()?
            .into_iter()
            .map(|r| r as usize / t)
            .collect();
        let heads = c.num_attention_heads;
        let scale = 1.0 / ((h / heads) as f64).sqrt();
        let ctx = attention_cpu::rows_attention(&q, &k, &v, key_valid, seq_of, heads, scale)?;
        let a = linear_cpu::forward(&layer.attn_out, &ctx)?;
        let a = layer.attn_norm.forward(&(a + &picked)?, true)?;
        let f = c
            .hidden_act
            .forward(&linear_cpu::forward(&layer.intermediate, &a)?)?;
        let f = linear_cpu::forward(&layer.output, &f)?;
        layer.out_norm.forward(&(f + a)?, true)
    }

    /// MLM head on hidden states [batch, seq, hidden] → logits [batch, seq, vocab]; `fused`
    /// (kernels without a backward pass) for inference.
    fn head(&self, hidden: &Tensor, fused: bool) -> candle_core::Result<Tensor> {
        let (b, t, h) = hidden.dims3()?;
        let y = linear_cpu::forward(&self.head_dense, hidden)?;
        let y = self.head_act.forward(&y)?;
        let y = self.head_norm.forward(&y, fused)?.reshape((b * t, h))?;
        // The decoder shares the word embeddings.
        let decoder = Linear::new(self.embeddings.word.clone(), Some(self.head_bias.clone()));
        let logits = linear_cpu::forward(&decoder, &y)?;
        logits.reshape((b, t, self.config.vocab_size))
    }

    /// Logits f32 [n, vocab] at `rows` (u32 [n], flat indices into [batch * seq]) only: the
    /// vocabulary projection, the costliest layer of a small model, runs where it is needed.
    /// Equal to gathering those rows from [`MaskedLm::forward`].
    pub fn forward_at(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        rows: &Tensor,
        dropout: Option<&mut DropoutRng>,
    ) -> candle_core::Result<Tensor> {
        self.in_mode(dropout, |model, dropout, fused| {
            let picked = model.encode(input_ids, attention_mask, dropout, Some(rows))?;
            model.head(&picked.unsqueeze(0)?, fused)?.squeeze(0)
        })
    }

    /// input_ids u32 [batch, seq]; attention_mask u32 [batch, seq] (1 = real token);
    /// dropout: Some(rng) in training mode, None for inference. Returns logits f32 [batch, seq, vocab].
    pub fn forward(
        &self,
        input_ids: &Tensor,
        attention_mask: &Tensor,
        dropout: Option<&mut DropoutRng>,
    ) -> candle_core::Result<Tensor> {
        self.in_mode(dropout, |model, dropout, fused| {
            let hidden = model.encode(input_ids, attention_mask, dropout, None)?;
            model.head(&hidden, fused)
        })
    }
}
