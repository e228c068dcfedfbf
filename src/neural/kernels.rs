//! CPU kernels the encoder needs and candle 0.11.1 runs slowly or without gradients: exact
//! (erf) GELU, layer norm and the last-dimension softmax, as parallel custom ops with their
//! backward passes.
//!
//! Hand-written because candle's `gelu_erf` calls a scalar `erf` per element on one thread
//! (a tenth of a real-size encoder's time) and no crate offers a vectorizable erf for f32
//! slices, and because candle's fused layer norm and softmax have no backward pass, so
//! training had to build each from a dozen single-threaded tensor ops. Other devices and
//! dtypes use candle's own ops.

use candle_core::{CpuStorage, CustomOp1, CustomOp3, DType, Layout, Shape, Tensor, D};
use rayon::prelude::*;

/// Elements per parallel work unit: large enough to amortize the hand-off.
const CHUNK: usize = 16 * 1024;

/// exp(y) for y ≤ 0 within 5e-7 relative error, branch-free so loops over slices vectorize:
/// 2^(y·log2 e) split into the nearest integer power (built in the exponent bits) and a
/// polynomial for the rest.
#[inline(always)]
pub(crate) fn exp_neg(y: f32) -> f32 {
    // Adding and taking away 1.5·2^23 rounds to the nearest integer without a rounding
    // instruction (which SSE2, the baseline target, lacks).
    const ROUND: f32 = 12_582_912.0;
    // ln 2 in two parts (Cody and Waite): n · LN2_HI is exact, so y - n ln 2 keeps its digits.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Comparisons and selects rather than f32::max and `as` casts, whose NaN rules keep
    // the loop scalar. NaN stays NaN: it fails the comparison and flows through.
    let underflow = y < -87.0;
    let y = if underflow { -87.0 } else { y };
    let shifted = y * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    // The integer n sits in the low mantissa bits of `shifted`, one unit per ulp.
    let n_int = shifted.to_bits() as i32 - ROUND.to_bits() as i32;
    // e^l for |l| ≤ ln 2 / 2: Taylor series to the 7th power (remainder below 1e-8).
    let l = (y - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + l * (1.0
            + l * (0.5
                + l * (1.0 / 6.0
                    + l * (1.0 / 24.0 + l * (1.0 / 120.0 + l * (1.0 / 720.0 + l / 5040.0))))));
    let e = p * f32::from_bits(((n_int + 127) as u32) << 23);
    // Below e^-87 (near the smallest normal f32) exactly 0, as for a padding bias of -1e9.
    if underflow {
        0.0
    } else {
        e
    }
}

/// erf(x), absolute error below 5e-7 (Abramowitz & Stegun 7.1.26 with an exact exp).
#[inline(always)]
fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [
        0.254_829_6,
        -0.284_496_74,
        1.421_413_7,
        -1.453_152_1,
        1.061_405_4,
    ];
    let ax = x.abs();
    let t = 1.0 / (1.0 + P * ax);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    let y = 1.0 - poly * exp_neg(-ax * ax);
    y.copysign(x)
}

#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// d gelu / dx = Φ(x) + x φ(x).
#[inline(always)]
fn gelu_grad(x: f32) -> f32 {
    const INV_SQRT_2PI: f32 = 0.398_942_3;
    let cdf = 0.5 * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
    cdf + x * INV_SQRT_2PI * exp_neg(-0.5 * x * x)
}

/// Applies `f` to every element of a contiguous f32 tensor, in parallel chunks.
/// (Generic, not a fn pointer, so `f` is inlined and the loop vectorized.)
fn map_f32<F: Fn(f32) -> f32 + Sync>(
    storage: &CpuStorage,
    layout: &Layout,
    f: F,
) -> candle_core::Result<(CpuStorage, Shape)> {
    let src = f32_slice(storage, layout)?;
    let mut out = vec![0f32; src.len()];
    #[cfg(target_arch = "x86_64")]
    let wide = std::arch::is_x86_feature_detected!("avx2");
    out.par_chunks_mut(CHUNK)
        .zip(src.par_chunks(CHUNK))
        .for_each(|(o, s)| {
            #[cfg(target_arch = "x86_64")]
            if wide {
                // SAFETY: the CPU has AVX2 (checked above), all the target feature asks for.
                unsafe { map_chunk_avx2(o, s, &f) };
                return;
            }
            map_chunk(o, s, &f);
        });
    Ok((CpuStorage::F32(out), layout.shape().clone()))
}

#[inline(always)]
fn map_chunk<F: Fn(f32) -> f32>(out: &mut [f32], src: &[f32], f: &F) {
    for (o, &x) in out.iter_mut().zip(src) {
        *o = f(x);
    }
}

/// [`map_chunk`] compiled for AVX2: eight lanes instead of SSE2's four (the release build
/// targets baseline x86-64). Same operations, so the same results.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn map_chunk_avx2<F: Fn(f32) -> f32>(out: &mut [f32], src: &[f32], f: &F) {
    map_chunk(out, src, f)
}

struct GeluErf;

impl CustomOp1 for GeluErf {
    fn name(&self) -> &'static str {
        "anonlm-gelu-erf"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        map_f32(storage, layout, gelu)
    }

    fn bwd(
        &self,
        arg: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> candle_core::Result<Option<Tensor>> {
        let slope = arg.contiguous()?.apply_op1_no_bwd(&GeluErfGrad)?;
        Ok(Some(grad_res.mul(&slope)?))
    }
}

struct GeluErfGrad;

impl CustomOp1 for GeluErfGrad {
    fn name(&self) -> &'static str {
        "anonlm-gelu-erf-grad"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        map_f32(storage, layout, gelu_grad)
    }
}

/// Exact GELU, `x · Φ(x)`: the parallel kernel for f32 on the CPU, candle's op elsewhere.
pub fn gelu_erf(x: &Tensor) -> candle_core::Result<Tensor> {
    if on_cpu_f32(x) {
        x.contiguous()?.apply_op1(GeluErf)
    } else {
        x.gelu_erf()
    }
}

/// The contiguous f32 data of a kernel input.
pub(crate) fn f32_slice<'a>(
    storage: &'a CpuStorage,
    layout: &Layout,
) -> candle_core::Result<&'a [f32]> {
    let CpuStorage::F32(data) = storage else {
        candle_core::bail!("f32 kernel given another dtype");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("f32 kernel given a non-contiguous tensor");
    };
    Ok(&data[start..end])
}

/// The contiguous f32 data of a kernel's output, to write in place.
pub(crate) fn f32_slice_mut<'a>(
    storage: &'a mut CpuStorage,
    layout: &Layout,
) -> candle_core::Result<&'a mut [f32]> {
    let CpuStorage::F32(data) = storage else {
        candle_core::bail!("f32 kernel given another dtype");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("f32 kernel given a non-contiguous tensor");
    };
    Ok(&mut data[start..end])
}

/// Runs `f` on the contiguous f32 data of a CPU tensor, under its storage's read lock.
pub(crate) fn with_f32_data<R>(
    t: &Tensor,
    f: impl FnOnce(&[f32]) -> candle_core::Result<R>,
) -> candle_core::Result<R> {
    let (storage, layout) = t.storage_and_layout();
    let candle_core::Storage::Cpu(cpu) = &*storage else {
        candle_core::bail!("f32 kernel given a tensor that is not on the CPU");
    };
    f(f32_slice(cpu, layout)?)
}

/// Whether the kernels of this module run on `x`: f32 on the CPU.
pub(crate) fn on_cpu_f32(x: &Tensor) -> bool {
    x.device().is_cpu() && x.dtype() == DType::F32
}

/// Column sums [cols] of a matrix [rows, cols] (f32 on the CPU), in parallel over column
/// blocks: candle sums over a leading dimension on one thread, and bias and layer-norm
/// gradients are such sums over every token of a batch.
pub(crate) fn column_sums(m: &Tensor) -> candle_core::Result<Tensor> {
    let (rows, cols) = m.dims2()?;
    let m = m.contiguous()?;
    const BLOCK: usize = 64;
    let mut out = vec![0f32; cols];
    with_f32_data(&m, |data| {
        out.par_chunks_mut(BLOCK).enumerate().for_each(|(i, sums)| {
            let first = i * BLOCK;
            for r in 0..rows {
                let row = &data[r * cols + first..r * cols + first + sums.len()];
                for (s, &v) in sums.iter_mut().zip(row) {
                    *s += v;
                }
            }
        });
        Ok(())
    })?;
    Tensor::from_vec(out, cols, m.device())
}

/// Mean and 1/sqrt(variance + eps) of one row.
#[inline]
fn row_stats(row: &[f32], eps: f32) -> (f32, f32) {
    let n = row.len() as f32;
    let mean = row.iter().sum::<f32>() / n;
    let var = row.iter().map(|&v| (v - mean) * (v - mean)).sum::<f32>() / n;
    (mean, 1.0 / (var + eps).sqrt())
}

/// Layer norm over the last dimension: (x - mean) / sqrt(var + eps) · gamma + beta.
struct LayerNormOp {
    eps: f32,
}

impl CustomOp3 for LayerNormOp {
    fn name(&self) -> &'static str {
        "anonlm-layer-norm"
    }

    fn cpu_fwd(
        &self,
        x_s: &CpuStorage,
        x_l: &Layout,
        g_s: &CpuStorage,
        g_l: &Layout,
        b_s: &CpuStorage,
        b_l: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (x, gamma, beta) = (
            f32_slice(x_s, x_l)?,
            f32_slice(g_s, g_l)?,
            f32_slice(b_s, b_l)?,
        );
        let h = gamma.len();
        if h == 0 || beta.len() != h || x.len() % h != 0 {
            candle_core::bail!("layer norm: weight, bias and input sizes differ");
        }
        let mut out = vec![0f32; x.len()];
        out.par_chunks_mut(h)
            .zip(x.par_chunks(h))
            .for_each(|(o, row)| {
                let (mean, rstd) = row_stats(row, self.eps);
                for i in 0..h {
                    o[i] = (row[i] - mean) * rstd * gamma[i] + beta[i];
                }
            });
        Ok((CpuStorage::F32(out), x_l.shape().clone()))
    }

    fn bwd(
        &self,
        x: &Tensor,
        gamma: &Tensor,
        _beta: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> candle_core::Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let h = gamma.dim(0)?;
        let x = x.contiguous()?;
        let grad = grad.contiguous()?;
        let dx = x.apply_op3_no_bwd(gamma, &grad, &LayerNormInputGrad { eps: self.eps })?;
        let xhat = x.apply_op1_no_bwd(&Normalize { eps: self.eps })?;
        let rows = x.elem_count() / h;
        let grad2 = grad.reshape((rows, h))?;
        let dgamma = column_sums(&(&grad2 * xhat.reshape((rows, h))?)?)?;
        let dbeta = column_sums(&grad2)?;
        Ok((Some(dx), Some(dgamma), Some(dbeta)))
    }
}

/// (x - mean) / sqrt(var + eps) per row of the last dimension.
struct Normalize {
    eps: f32,
}

impl CustomOp1 for Normalize {
    fn name(&self) -> &'static str {
        "anonlm-normalize"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = f32_slice(storage, layout)?;
        let h = layout.shape().dims().last().copied().unwrap_or(1).max(1);
        let mut out = vec![0f32; x.len()];
        out.par_chunks_mut(h)
            .zip(x.par_chunks(h))
            .for_each(|(o, row)| {
                let (mean, rstd) = row_stats(row, self.eps);
                for (o, &v) in o.iter_mut().zip(row) {
                    *o = (v - mean) * rstd;
                }
            });
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }
}

/// Gradient of layer norm with respect to its input, from (x, gamma, upstream gradient):
/// rstd · (d - mean(d) - xhat · mean(d · xhat)) with d = grad · gamma.
struct LayerNormInputGrad {
    eps: f32,
}

impl CustomOp3 for LayerNormInputGrad {
    fn name(&self) -> &'static str {
        "anonlm-layer-norm-input-grad"
    }

    fn cpu_fwd(
        &self,
        x_s: &CpuStorage,
        x_l: &Layout,
        g_s: &CpuStorage,
        g_l: &Layout,
        d_s: &CpuStorage,
        d_l: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (x, gamma, grad) = (
            f32_slice(x_s, x_l)?,
            f32_slice(g_s, g_l)?,
            f32_slice(d_s, d_l)?,
        );
        let h = gamma.len();
        if h == 0 || grad.len() != x.len() || x.len() % h != 0 {
            candle_core::bail!("layer norm gradient: sizes differ");
        }
        let mut out = vec![0f32; x.len()];
        out.par_chunks_mut(h)
            .zip(x.par_chunks(h).zip(grad.par_chunks(h)))
            .for_each(|(o, (row, g))| {
                let (mean, rstd) = row_stats(row, self.eps);
                let (mut sum_d, mut sum_dx) = (0f32, 0f32);
                for i in 0..h {
                    let d = g[i] * gamma[i];
                    sum_d += d;
                    sum_dx += d * (row[i] - mean) * rstd;
                }
                let (mean_d, mean_dx) = (sum_d / h as f32, sum_dx / h as f32);
                for i in 0..h {
                    let xhat = (row[i] - mean) * rstd;
                    o[i] = rstd * (g[i] * gamma[i] - mean_d - xhat * mean_dx);
                }
            });
        Ok((CpuStorage::F32(out), x_l.shape().clone()))
    }
}

/// Layer norm over the last dimension with gradients for input, weight and bias: the
/// parallel kernel for f32 on the CPU, `None` elsewhere (the caller builds it from ops).
pub fn layer_norm(
    x: &Tensor,
    gamma: &Tensor,
    beta: &Tensor,
    eps: f64,
) -> Option<candle_core::Result<Tensor>> {
    if !on_cpu_f32(x) || !on_cpu_f32(gamma) || !on_cpu_f32(beta) {
        return None;
    }
    Some((|| {
        x.contiguous()?.apply_op3(
            &gamma.contiguous()?,
            &beta.contiguous()?,
            LayerNormOp { eps: eps as f32 },
        )
    })())
}

/// Softmax over the last dimension.
struct SoftmaxOp;

impl CustomOp1 for SoftmaxOp {
    fn name(&self) -> &'static str {
        "anonlm-softmax"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = f32_slice(storage, layout)?;
        let n = layout.shape().dims().last().copied().unwrap_or(1).max(1);
        let mut out = x.to_vec();
        out.par_chunks_mut(n).for_each(|row| {
            let max = row
                .iter()
                .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
            let mut sum = 0f32;
            for v in row.iter_mut() {
                *v = exp_neg(*v - max);
                sum += *v;
            }
            let inv = 1.0 / sum;
            for v in row.iter_mut() {
                *v *= inv;
            }
        });
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }

    fn bwd(
        &self,
        _arg: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> candle_core::Result<Option<Tensor>> {
        // dx = y · (g - Σ g·y) over the last dimension.
        let inner = (grad * res)?.sum_keepdim(D::Minus1)?;
        Ok(Some((res * grad.broadcast_sub(&inner)?)?))
    }
}

/// Softmax over the last dimension with its gradient: the parallel kernel for f32 on the
/// CPU, candle's op-by-op softmax elsewhere.
pub fn softmax_last_dim(x: &Tensor) -> candle_core::Result<Tensor> {
    if on_cpu_f32(x) {
        x.contiguous()?.apply_op1(SoftmaxOp)
    } else {
        candle_nn::ops::softmax(x, D::Minus1)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use candle_core::{Device, Var};

    fn erf_f64(x: f64) -> f64 {
        // Series / continued fraction are overkill here: integrate exp(-t²) by Simpson's rule.
        let n = 20_000;
        let h = x / n as f64;
        let f = |t: f64| (-t * t).exp();
        let mut s = f(0.0) + f(x);
        for i in 1..n {
            s += f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        s * h / 3.0 * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn erf_matches_the_integral_within_5e_7() {
        for i in -600..=600 {
            let x = i as f64 / 100.0;
            let got = f64::from(erf(x as f32));
            assert!(
                (got - erf_f64(x)).abs() < 5e-7,
                "erf({x}) = {got}, want {}",
                erf_f64(x)
            );
        }
        assert!(erf(0.0).abs() < 5e-7);
        assert_eq!(erf(40.0), 1.0);
        assert_eq!(erf(-40.0), -1.0);
    }

    #[test]
    fn exp_neg_matches_std_within_5e_7_relative() {
        for i in 0..=8_690 {
            let y = -(i as f32) / 100.0;
            let (got, want) = (exp_neg(y), y.exp());
            assert!(
                ((got - want) / want).abs() < 5e-7,
                "exp({y}) = {got}, want {want}"
            );
        }
        assert_eq!(exp_neg(-200.0), 0.0);
        assert_eq!(exp_neg(-1e9), 0.0);
        assert_eq!(exp_neg(f32::NEG_INFINITY), 0.0);
    }

    #[test]
    fn the_kernel_agrees_with_candle_and_its_gradient_with_finite_differences(
    ) -> candle_core::Result<()> {
        let xs: Vec<f32> = (0..50_000)
            .map(|i| (i as f32 - 25_000.0) / 2_500.0)
            .collect();
        let x = Var::from_vec(xs.clone(), xs.len(), &Device::Cpu)?;
        let ours = gelu_erf(x.as_tensor())?;
        let theirs = x.as_tensor().gelu_erf()?;
        let diff = (&ours - &theirs)?.abs()?.max(0)?.to_scalar::<f32>()?;
        assert!(diff < 1e-6, "max difference from candle's gelu_erf {diff}");

        let grads = ours.sum_all()?.backward()?;
        let g = grads
            .get(x.as_tensor())
            .expect("gradient")
            .to_vec1::<f32>()?;
        for (i, &v) in xs.iter().enumerate().step_by(997) {
            let v = f64::from(v);
            let h = 1e-4;
            let ge = |x: f64| 0.5 * x * (1.0 + erf_f64(x / std::f64::consts::SQRT_2));
            let numeric = (ge(v + h) - ge(v - h)) / (2.0 * h);
            assert!(
                (f64::from(g[i]) - numeric).abs() < 1e-5,
                "gradient at {v}: {} vs {numeric}",
                g[i]
            );
        }
        Ok(())
    }

    /// Layer norm and softmax from plain candle ops, as the GPU path builds them.
    fn reference_layer_norm(
        x: &Tensor,
        g: &Tensor,
        b: &Tensor,
        eps: f64,
    ) -> candle_core::Result<Tensor> {
        let mean = x.mean_keepdim(D::Minus1)?;
        let centered = x.broadcast_sub(&mean)?;
        let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
        centered
            .broadcast_div(&(var + eps)?.sqrt()?)?
            .broadcast_mul(g)?
            .broadcast_add(b)
    }

    /// Largest absolute difference of two f32 tensors of one shape.
    pub(crate) fn max_diff(a: &Tensor, b: &Tensor) -> candle_core::Result<f32> {
        (a - b)?.abs()?.flatten_all()?.max(0)?.to_scalar::<f32>()
    }

    #[test]
    fn layer_norm_and_softmax_kernels_match_plain_ops_with_gradients() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let x = Var::from_tensor(&(Tensor::randn(0f32, 2.0, (3, 5, 48), &dev)? + 0.7)?)?;
        let g = Var::from_tensor(&Tensor::randn(1f32, 0.3, 48, &dev)?)?;
        let b = Var::from_tensor(&Tensor::randn(0f32, 0.3, 48, &dev)?)?;
        // A weighted sum, so every output element carries a different upstream gradient.
        let w = Tensor::randn(0f32, 1.0, (3, 5, 48), &dev)?;
        let vars = [&x, &g, &b];

        let ours =
            layer_norm(x.as_tensor(), g.as_tensor(), b.as_tensor(), 1e-5).expect("cpu f32")?;
        let theirs = reference_layer_norm(x.as_tensor(), g.as_tensor(), b.as_tensor(), 1e-5)?;
        assert!(max_diff(&ours, &theirs)? < 1e-5);
        let (ga, gb) = (
            (&ours * &w)?.sum_all()?.backward()?,
            (&theirs * &w)?.sum_all()?.backward()?,
        );
        for v in vars {
            let d = max_diff(
                ga.get(v.as_tensor()).expect("grad"),
                gb.get(v.as_tensor()).expect("grad"),
            )?;
            assert!(d < 1e-4, "layer norm gradient differs by {d}");
        }

        let s = Var::from_tensor(&Tensor::randn(0f32, 3.0, (4, 2, 9), &dev)?)?;
        let ws = Tensor::randn(0f32, 1.0, (4, 2, 9), &dev)?;
        let ours = softmax_last_dim(s.as_tensor())?;
        let theirs = candle_nn::ops::softmax(s.as_tensor(), D::Minus1)?;
        assert!(max_diff(&ours, &theirs)? < 1e-6);
        let (ga, gb) = (
            (&ours * &ws)?.sum_all()?.backward()?,
            (&theirs * &ws)?.sum_all()?.backward()?,
        );
        let d = max_diff(
            ga.get(s.as_tensor()).expect("grad"),
            gb.get(s.as_tensor()).expect("grad"),
        )?;
        assert!(d < 1e-5, "softmax gradient differs by {d}");
        Ok(())
    }
}
