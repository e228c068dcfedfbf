//! AdamW's update of one f32 CPU variable as three in-place parallel passes (first moment,
//! second moment, weights) with no allocation.
//!
//! As tensor ops the same update is fifteen passes, each allocating a variable-sized buffer
//! and most of them on one thread (candle's affine map is serial): half a second per step of
//! a RoBERTa-base model on two cores. Other devices and dtypes keep the tensor-op form.

use candle_core::{CpuStorage, InplaceOp2, InplaceOp3, Layout, Tensor};
use rayon::prelude::*;

use crate::neural::kernels::{f32_slice, f32_slice_mut, on_cpu_f32};

/// Elements per parallel work unit.
const CHUNK: usize = 32 * 1024;

/// Hyper-parameters of one variable's update; `grad_scale` is the clipping coefficient.
#[derive(Debug, Clone, Copy)]
pub struct Update {
    pub beta1: f32,
    pub beta2: f32,
    pub grad_scale: f32,
    pub lr: f32,
    /// `1 - lr · weight_decay`, or 1 where the variable is not decayed.
    pub decay: f32,
    pub bias_correction1: f32,
    pub bias_correction2: f32,
    pub eps: f32,
}

/// A moment, in place: m ← β·m + (1-β)·(s·g) for the first, v ← β·v + (1-β)·(s·g)² for
/// the second.
struct Moment {
    beta: f32,
    grad_scale: f32,
    squared: bool,
}

impl InplaceOp2 for Moment {
    fn name(&self) -> &'static str {
        "anonlm-adamw-moment"
    }

    fn cpu_fwd(
        &self,
        dst: &mut CpuStorage,
        dst_l: &Layout,
        g_s: &CpuStorage,
        g_l: &Layout,
    ) -> candle_core::Result<()> {
        let (m, g) = (f32_slice_mut(dst, dst_l)?, f32_slice(g_s, g_l)?);
        if m.len() != g.len() {
            candle_core::bail!("adamw: moment and gradient sizes differ");
        }
        let (keep, take, s, squared) = (self.beta, 1.0 - self.beta, self.grad_scale, self.squared);
        m.par_chunks_mut(CHUNK)
            .zip(g.par_chunks(CHUNK))
            .for_each(|(m, g)| {
                for (m, &g) in m.iter_mut().zip(g) {
                    let g = s * g;
                    let x = if squared { g * g } else { g };
                    *m = keep * *m + take * x;
                }
            });
        Ok(())
    }
}

/// θ ← θ·decay − lr · (m/bc₁) / (√(v/bc₂) + ε)
struct Weights(Update);

impl InplaceOp3 for Weights {
    fn name(&self) -> &'static str {
        "anonlm-adamw-theta"
    }

    fn cpu_fwd(
        &self,
        dst: &mut CpuStorage,
        dst_l: &Layout,
        m_s: &CpuStorage,
        m_l: &Layout,
        v_s: &CpuStorage,
        v_l: &Layout,
    ) -> candle_core::Result<()> {
        let (theta, m, v) = (
            f32_slice_mut(dst, dst_l)?,
            f32_slice(m_s, m_l)?,
            f32_slice(v_s, v_l)?,
        );
        if theta.len() != m.len() || theta.len() != v.len() {
            candle_core::bail!("adamw: weight and moment sizes differ");
        }
        let u = self.0;
        theta
            .par_chunks_mut(CHUNK)
            .zip(m.par_chunks(CHUNK).zip(v.par_chunks(CHUNK)))
            .for_each(|(theta, (m, v))| {
                for ((t, &m), &v) in theta.iter_mut().zip(m).zip(v) {
                    let denom = (v / u.bias_correction2).sqrt() + u.eps;
                    *t = *t * u.decay - u.lr * ((m / u.bias_correction1) / denom);
                }
            });
        Ok(())
    }
}

/// Whether [`apply`] runs on these tensors: all f32 on the CPU.
pub fn applies(tensors: [&Tensor; 4]) -> bool {
    tensors.into_iter().all(on_cpu_f32)
}

/// One AdamW update of `theta` with gradient `grad`, moments `m` and `v` updated in place
/// (each its own contiguous storage).
pub fn apply(
    theta: &Tensor,
    m: &Tensor,
    v: &Tensor,
    grad: &Tensor,
    update: Update,
) -> candle_core::Result<()> {
    let grad = grad.contiguous()?;
    let moment = |beta, squared| Moment {
        beta,
        grad_scale: update.grad_scale,
        squared,
    };
    m.inplace_op2(&grad, &moment(update.beta1, false))?;
    v.inplace_op2(&grad, &moment(update.beta2, true))?;
    theta.inplace_op3(m, v, &Weights(update))
}
