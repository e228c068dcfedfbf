//! CPU kernels the encoder needs and candle 0.11.1 runs slowly: exact (erf) GELU and its
//! derivative, as parallel custom ops with a backward pass.
//!
//! Hand-written because candle's `gelu_erf` calls a scalar `erf` per element on one thread
//! (a tenth of a real-size encoder's time), and no crate offers a vectorizable erf for f32
//! slices. Other devices and dtypes use candle's own op.

use candle_core::{CpuStorage, CustomOp1, DType, Layout, Shape, Tensor};
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
    let y = if y < -87.0 { -87.0 } else { y };
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
    p * f32::from_bits(((n_int + 127) as u32) << 23)
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
    let CpuStorage::F32(data) = storage else {
        candle_core::bail!("f32 kernel given another dtype");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("f32 kernel given a non-contiguous tensor");
    };
    let src = &data[start..end];
    let mut out = vec![0f32; src.len()];
    out.par_chunks_mut(CHUNK)
        .zip(src.par_chunks(CHUNK))
        .for_each(|(o, s)| {
            for (o, &x) in o.iter_mut().zip(s) {
                *o = f(x);
            }
        });
    Ok((CpuStorage::F32(out), layout.shape().clone()))
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
    if x.device().is_cpu() && x.dtype() == DType::F32 {
        x.contiguous()?.apply_op1(GeluErf)
    } else {
        x.gelu_erf()
    }
}

#[cfg(test)]
mod tests {
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
        assert!(exp_neg(-200.0) >= 0.0 && exp_neg(-200.0) < 1e-37);
        assert!(exp_neg(f32::NEG_INFINITY) < 1e-37);
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
}
