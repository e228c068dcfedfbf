//! AdamW with decoupled weight decay, per-parameter decay exclusion, global-norm gradient
//! clipping and a state (step, moments) that round-trips through safetensors for resume.
//!
//! Written here rather than taken from `candle_nn::AdamW` because that optimizer cannot export
//! or import its moments, which an exact resume needs.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Tensor, Var};
use candle_nn::VarMap;

use super::adamw_cpu;
use crate::mlm::train::error::{Result, TrainError};

/// AdamW hyper-parameters (the learning rate is set per step by the schedule).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AdamWParams {
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
}

impl Default for AdamWParams {
    /// BERT/RoBERTa pretraining values: betas (0.9, 0.999), eps 1e-6 is common; we use the
    /// `transformers` Trainer defaults (eps 1e-8) with weight decay 0.01.
    fn default() -> Self {
        AdamWParams {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.01,
        }
    }
}

/// Whether weight decay applies to a parameter, by its name: biases and LayerNorm weights
/// (any name containing `LayerNorm`, `layer_norm` or `norm`, which covers the embeddings
/// LayerNorm) are excluded, as in the BERT and RoBERTa pretraining recipes.
pub fn decays(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !(lower.ends_with("bias") || lower.contains("norm"))
}

/// Gradients summed over the micro-batches of one optimizer step, one slot per variable.
pub struct GradSum {
    sums: Vec<Option<Tensor>>,
}

/// AdamW over the variables of a [`VarMap`], in name order.
pub struct AdamW {
    names: Vec<String>,
    vars: Vec<Var>,
    decay: Vec<bool>,
    m: Vec<Tensor>,
    v: Vec<Tensor>,
    step: u64,
    params: AdamWParams,
}

impl AdamW {
    /// One optimizer over all variables of `varmap`, moments at zero.
    pub fn new(varmap: &VarMap, params: AdamWParams) -> Result<Self> {
        let data = varmap.data().lock().expect("var map lock");
        let mut named: Vec<(String, Var)> =
            data.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        drop(data);
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let mut m = Vec::with_capacity(named.len());
        let mut v = Vec::with_capacity(named.len());
        for (_, var) in &named {
            m.push(var.as_tensor().zeros_like()?.to_dtype(DType::F32)?);
            v.push(var.as_tensor().zeros_like()?.to_dtype(DType::F32)?);
        }
        let decay = named.iter().map(|(n, _)| decays(n)).collect();
        let (names, vars) = named.into_iter().unzip();
        Ok(AdamW {
            names,
            vars,
            decay,
            m,
            v,
            step: 0,
            params,
        })
    }

    /// Number of optimizer steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Variable names in the optimizer's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether weight decay applies to each variable, in [`AdamW::names`] order.
    pub fn decay_flags(&self) -> &[bool] {
        &self.decay
    }

    /// An empty gradient sum for one optimizer step.
    pub fn grad_sum(&self) -> GradSum {
        GradSum {
            sums: vec![None; self.vars.len()],
        }
    }

    /// Adds `scale` times the gradients of `grads` to `sum` (gradient accumulation: candle's
    /// `GradStore` is per backward pass, so sums are kept per variable here).
    pub fn accumulate(
        &self,
        sum: &mut GradSum,
        grads: &candle_core::backprop::GradStore,
        scale: f64,
    ) -> Result<()> {
        for (slot, var) in sum.sums.iter_mut().zip(&self.vars) {
            if let Some(g) = grads.get(var.as_tensor()) {
                let g = if scale == 1.0 {
                    g.clone()
                } else {
                    (g * scale)?
                };
                *slot = Some(match slot.take() {
                    Some(prev) => (prev + g)?,
                    None => g,
                });
            }
        }
        Ok(())
    }

    /// Takes one AdamW step with the summed gradients at learning rate `lr`, first clipping
    /// them to global L2 norm `clip` (if any). Variables without a gradient are left alone (no
    /// decay, no moment update), as in PyTorch. Returns the global gradient norm before clipping.
    pub fn step(&mut self, sum: GradSum, lr: f64, clip: Option<f64>) -> Result<f64> {
        let norm = global_norm(&sum)?;
        let clip_scale = match clip {
            // As torch.nn.utils.clip_grad_norm_: coefficient max/(norm+1e-6), capped at 1.
            Some(max) if norm.is_finite() && norm > max => max / (norm + 1e-6),
            _ => 1.0,
        };
        self.step += 1;
        let t = self.step as i32;
        let p = self.params;
        let bc1 = 1.0 - p.beta1.powi(t);
        let bc2 = 1.0 - p.beta2.powi(t);
        for (i, g) in sum.sums.into_iter().enumerate() {
            let Some(g) = g else { continue };
            let decays = self.decay[i] && p.weight_decay != 0.0;
            let update = adamw_cpu::Update {
                beta1: p.beta1 as f32,
                beta2: p.beta2 as f32,
                grad_scale: clip_scale as f32,
                lr: lr as f32,
                decay: if decays {
                    (1.0 - lr * p.weight_decay) as f32
                } else {
                    1.0
                },
                bias_correction1: bc1 as f32,
                bias_correction2: bc2 as f32,
                eps: p.eps as f32,
            };
            let theta = self.vars[i].as_tensor();
            if adamw_cpu::applies([theta, &self.m[i], &self.v[i], &g]) {
                adamw_cpu::apply(theta, &self.m[i], &self.v[i], &g, update)?;
            } else {
                let (next, m, v) = update_with_ops(theta, &self.m[i], &self.v[i], &g, update)?;
                self.vars[i].set(&next)?;
                self.m[i] = m;
                self.v[i] = v;
            }
        }
        Ok(norm)
    }

    /// Writes the step count and both moments of every variable to a safetensors file
    /// (`m.<name>`, `v.<name>`, and `step` as a one-element i64 tensor).
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut map: HashMap<String, Tensor> = HashMap::new();
        for (i, name) in self.names.iter().enumerate() {
            map.insert(format!("m.{name}"), self.m[i].clone());
            map.insert(format!("v.{name}"), self.v[i].clone());
        }
        let step = Tensor::new(&[self.step as i64], &candle_core::Device::Cpu)?;
        map.insert("step".to_string(), step);
        candle_core::safetensors::save(&map, path)?;
        Ok(())
    }

    /// Restores the state written by [`AdamW::save`]; every variable must have both moments
    /// with its own shape.
    pub fn load(&mut self, path: &Path) -> Result<()> {
        let device = self
            .vars
            .first()
            .map(|v| v.device().clone())
            .unwrap_or(candle_core::Device::Cpu);
        let map = candle_core::safetensors::load(path, &device)?;
        let bad = |message: String| TrainError::Checkpoint {
            path: path.to_path_buf(),
            message,
        };
        let step = map
            .get("step")
            .ok_or_else(|| bad("optimizer state has no `step`".into()))?
            .flatten_all()?
            .to_vec1::<i64>()?;
        let step = *step
            .first()
            .ok_or_else(|| bad("optimizer `step` is empty".into()))?;
        let mut m = Vec::with_capacity(self.names.len());
        let mut v = Vec::with_capacity(self.names.len());
        for (i, name) in self.names.iter().enumerate() {
            for (prefix, out) in [("m", &mut m), ("v", &mut v)] {
                let key = format!("{prefix}.{name}");
                let t = map
                    .get(&key)
                    .ok_or_else(|| bad(format!("optimizer state lacks `{key}`")))?;
                if t.dims() != self.vars[i].dims() {
                    return Err(bad(format!(
                        "`{key}` has shape {:?}, the variable {:?}",
                        t.dims(),
                        self.vars[i].dims()
                    )));
                }
                out.push(t.clone());
            }
        }
        if map.len() != 2 * self.names.len() + 1 {
            return Err(bad(format!(
                "optimizer state holds {} tensors, expected {} for {} variables",
                map.len(),
                2 * self.names.len() + 1,
                self.names.len()
            )));
        }
        self.m = m;
        self.v = v;
        self.step = step as u64;
        Ok(())
    }
}

/// The AdamW update as tensor ops (devices other than the CPU): next weights and moments.
fn update_with_ops(
    theta: &Tensor,
    m: &Tensor,
    v: &Tensor,
    g: &Tensor,
    u: adamw_cpu::Update,
) -> candle_core::Result<(Tensor, Tensor, Tensor)> {
    let g = if u.grad_scale == 1.0 {
        g.clone()
    } else {
        (g * u.grad_scale as f64)?
    };
    let m = ((m * u.beta1 as f64)? + (&g * (1.0 - u.beta1 as f64))?)?;
    let v = ((v * u.beta2 as f64)? + (g.sqr()? * (1.0 - u.beta2 as f64))?)?;
    let theta = if u.decay == 1.0 {
        theta.clone()
    } else {
        (theta * u.decay as f64)?
    };
    let denom = ((&v / u.bias_correction2 as f64)?.sqrt()? + u.eps as f64)?;
    let step = ((&m / u.bias_correction1 as f64)? / denom)?;
    let next = (theta - (step * u.lr as f64)?)?;
    Ok((next, m, v))
}

/// Global L2 norm over all summed gradients.
fn global_norm(sum: &GradSum) -> Result<f64> {
    // One read-back for all variables: on a GPU each read waits for the device.
    let squares = sum
        .sums
        .iter()
        .flatten()
        .map(|g| g.to_dtype(DType::F32)?.sqr()?.sum_all())
        .collect::<candle_core::Result<Vec<_>>>()?;
    if squares.is_empty() {
        return Ok(0.0);
    }
    let squares: Vec<f32> = Tensor::stack(&squares, 0)?.to_vec1()?;
    Ok(squares.iter().map(|&s| s as f64).sum::<f64>().sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn decay_rule_excludes_biases_and_norms() {
        for name in [
            "bert.encoder.layer.0.attention.output.dense.weight",
            "roberta.embeddings.word_embeddings.weight",
            "lm_head.dense.weight",
        ] {
            assert!(decays(name), "{name}");
        }
        for name in [
            "bert.encoder.layer.0.attention.output.dense.bias",
            "bert.embeddings.LayerNorm.weight",
            "bert.embeddings.LayerNorm.bias",
            "lm_head.layer_norm.weight",
            "encoder.layer.1.output.norm.weight",
            "lm_head.bias",
        ] {
            assert!(!decays(name), "{name}");
        }
    }

    fn one_var(name: &str, values: &[f32]) -> (VarMap, Var) {
        let vm = VarMap::new();
        let t = Tensor::new(values, &Device::Cpu).unwrap();
        let var = Var::from_tensor(&t).unwrap();
        vm.data()
            .lock()
            .unwrap()
            .insert(name.to_string(), var.clone());
        (vm, var)
    }

    /// Two steps of AdamW on f(x) = sum(x^2), checked against values computed by hand with the
    /// PyTorch formulas (decoupled decay, bias correction).
    #[test]
    fn adamw_matches_hand_computation() {
        let (vm, var) = one_var("w.weight", &[1.0, -2.0]);
        let params = AdamWParams {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.1,
        };
        let mut opt = AdamW::new(&vm, params).unwrap();
        let mut expect = [1.0f64, -2.0];
        let (mut m, mut v) = ([0f64; 2], [0f64; 2]);
        let lr = 0.01;
        for t in 1..=2 {
            let loss = var.as_tensor().sqr().unwrap().sum_all().unwrap();
            let grads = loss.backward().unwrap();
            let mut sum = opt.grad_sum();
            opt.accumulate(&mut sum, &grads, 1.0).unwrap();
            opt.step(sum, lr, None).unwrap();
            for i in 0..2 {
                let g = 2.0 * expect[i];
                expect[i] *= 1.0 - lr * 0.1;
                m[i] = 0.9 * m[i] + 0.1 * g;
                v[i] = 0.999 * v[i] + 0.001 * g * g;
                let mh = m[i] / (1.0 - 0.9f64.powi(t));
                let vh = v[i] / (1.0 - 0.999f64.powi(t));
                expect[i] -= lr * mh / (vh.sqrt() + 1e-8);
            }
        }
        let got = var.as_tensor().to_vec1::<f32>().unwrap();
        for i in 0..2 {
            assert!(
                (got[i] as f64 - expect[i]).abs() < 1e-6,
                "{got:?} vs {expect:?}"
            );
        }
        assert_eq!(opt.step_count(), 2);
    }

    #[test]
    fn no_decay_on_bias_and_clipping_returns_pre_clip_norm() {
        let (vm, var) = one_var("dense.bias", &[3.0, 4.0]);
        let params = AdamWParams {
            weight_decay: 0.5,
            ..Default::default()
        };
        let mut opt = AdamW::new(&vm, params).unwrap();
        assert_eq!(opt.decay_flags(), &[false]);
        // loss = 0.5 * |x|^2: gradient = x = (3, 4), norm 5.
        let loss = (var.as_tensor().sqr().unwrap().sum_all().unwrap() * 0.5).unwrap();
        let grads = loss.backward().unwrap();
        let mut sum = opt.grad_sum();
        // accumulate twice with scale 0.5: the sum is the gradient itself.
        opt.accumulate(&mut sum, &grads, 0.5).unwrap();
        opt.accumulate(&mut sum, &grads, 0.5).unwrap();
        let norm = opt.step(sum, 0.1, Some(1.0)).unwrap();
        assert!((norm - 5.0).abs() < 1e-5, "{norm}");
        // First Adam step moves each coordinate by lr (sign of the gradient), no decay.
        let got = var.as_tensor().to_vec1::<f32>().unwrap();
        assert!(
            (got[0] - 2.9).abs() < 1e-5 && (got[1] - 3.9).abs() < 1e-5,
            "{got:?}"
        );
    }

    /// The in-place CPU kernels and the tensor-op form (other devices) give the same update.
    #[test]
    fn cpu_kernels_match_the_tensor_op_update() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let shape = (37, 1029);
        let theta = Tensor::randn(0f32, 1.0, shape, &dev)?;
        let m = (Tensor::randn(0f32, 1.0, shape, &dev)? * 0.1)?;
        let v = Tensor::randn(0f32, 1.0, shape, &dev)?.sqr()?;
        let g = Tensor::randn(0f32, 1.0, shape, &dev)?;
        let update = adamw_cpu::Update {
            beta1: 0.9,
            beta2: 0.999,
            grad_scale: 0.7,
            lr: 1e-3,
            decay: 1.0 - 1e-3 * 0.01,
            bias_correction1: 1.0 - 0.9f32.powi(3),
            bias_correction2: 1.0 - 0.999f32.powi(3),
            eps: 1e-8,
        };
        let (next, m2, v2) = update_with_ops(&theta, &m, &v, &g, update)?;
        let (t1, m1, v1) = (theta.copy()?, m.copy()?, v.copy()?);
        adamw_cpu::apply(&t1, &m1, &v1, &g, update)?;
        for (a, b) in [(&t1, &next), (&m1, &m2), (&v1, &v2)] {
            let d = crate::neural::kernels::tests::max_diff(a, b)?;
            assert!(d < 1e-6, "{d}");
        }
        // The update moved the weights.
        assert_ne!(t1.to_vec2::<f32>()?, theta.to_vec2::<f32>()?);
        Ok(())
    }

    #[test]
    fn state_round_trips_through_safetensors() {
        let (vm, var) = one_var("a.weight", &[0.5, 1.5, -1.0]);
        let mut opt = AdamW::new(&vm, AdamWParams::default()).unwrap();
        for _ in 0..3 {
            let loss = var.as_tensor().powf(3.0).unwrap().sum_all().unwrap();
            let grads = loss.backward().unwrap();
            let mut sum = opt.grad_sum();
            opt.accumulate(&mut sum, &grads, 1.0).unwrap();
            opt.step(sum, 0.01, Some(1.0)).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opt.safetensors");
        opt.save(&path).unwrap();
        let mut other = AdamW::new(&vm, AdamWParams::default()).unwrap();
        other.load(&path).unwrap();
        assert_eq!(other.step_count(), 3);
        assert_eq!(
            other.m[0].to_vec1::<f32>().unwrap(),
            opt.m[0].to_vec1::<f32>().unwrap()
        );
        assert_eq!(
            other.v[0].to_vec1::<f32>().unwrap(),
            opt.v[0].to_vec1::<f32>().unwrap()
        );
        // A state for other variables is refused.
        let (vm2, _) = one_var("b.weight", &[1.0, 2.0, 3.0]);
        let mut wrong = AdamW::new(&vm2, AdamWParams::default()).unwrap();
        assert!(wrong.load(&path).is_err());
    }
}
