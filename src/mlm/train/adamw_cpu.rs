//! AdamW's update of one f32 CPU variable as three in-place parallel passes (first moment,
//! second moment, weights) with no allocation.
//!
//! As tensor ops the same update is fifteen passes, each allocating a variable-sized buffer
//! and most of them on one thread (candle's affine map is serial): half a second per step of
//! a RoBERTa-base model on two cores. Other devices and dtypes keep the tensor-op form.

use candle_core::{CpuStorage, InplaceOp2, InplaceOp3, Layout, Tensor};
use rayon::prelude::*;

use crate::mlm::kernels::f32_slice;

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

fn dst_slice<'a>(dst: &'a mut CpuStorage, layout: &Layout) -> candle_core::Result<&'a mut [f32]> {
    let CpuStorage::F32(data) = dst else {
        candle_core::bail!("adamw: f32 only");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("adamw: the state is not contiguous");
    };
    Ok(&mut data[start..end])
}

/// m ← β₁·m + (1-β₁)·s·g
struct FirstMoment(Update);

impl InplaceOp2 for FirstMoment {
    fn name(&self) -> &'static str {
        "anonlm-adamw-m"
    }

    fn cpu_fwd(
        &self,
        dst: &mut CpuStorage,
        dst_l: &Layout,
        g_s: &CpuStorage,
        g_l: &Layout,
    ) -> candle_core::Result<()> {
        let (m, g) = (dst_slice(dst, dst_l)?, f32_slice(g_s, g_l)?);
        if m.len() != g.len() {
            candle_core::bail!("adamw: moment and gradient sizes differ");
        }
        let u = self.0;
        let (keep, take) = (u.beta1, (1.0 - u.beta1) * u.grad_scale);
        m.par_chunks_mut(CHUNK)
            .zip(g.par_chunks(CHUNK))
            .for_each(|(m, g)| {
                for (m, &g) in m.iter_mut().zip(g) {
                    *m = keep * *m + take * g;
                }
            });
        Ok(())
    }
}

/// v ← β₂·v + (1-β₂)·(s·g)²
struct SecondMoment(Update);

impl InplaceOp2 for SecondMoment {
    fn name(&self) -> &'static str {
        "anonlm-adamw-v"
    }

    fn cpu_fwd(
        &self,
        dst: &mut CpuStorage,
        dst_l: &Layout,
        g_s: &CpuStorage,
        g_l: &Layout,
    ) -> candle_core::Result<()> {
        let (v, g) = (dst_slice(dst, dst_l)?, f32_slice(g_s, g_l)?);
        if v.len() != g.len() {
            candle_core::bail!("adamw: moment and gradient sizes differ");
        }
        let u = self.0;
        let (keep, take, s) = (u.beta2, 1.0 - u.beta2, u.grad_scale);
        v.par_chunks_mut(CHUNK)
            .zip(g.par_chunks(CHUNK))
            .for_each(|(v, g)| {
                for (v, &g) in v.iter_mut().zip(g) {
                    let g = s * g;
                    *v = keep * *v + take * (g * g);
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
            dst_slice(dst, dst_l)?,
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
    tensors
        .iter()
        .all(|t| t.device().is_cpu() && t.dtype() == candle_core::DType::F32)
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
    m.inplace_op2(&grad, &FirstMoment(update))?;
    v.inplace_op2(&grad, &SecondMoment(update))?;
    theta.inplace_op3(m, v, &Weights(update))
}
