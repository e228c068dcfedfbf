//! The LSTM recurrence as one candle operation with a hand-written backward pass (BPTT).
//!
//! Built from candle's elementwise operations, each time step costs about fourteen small ops
//! and their gradients; on a CPU that overhead, not arithmetic, bounded training at about 1,400
//! tokens/s. Here the whole sequence runs in plain loops over `f32` slices, forward and back.

use super::fastmath;
use candle_core::{CpuStorage, CustomOp2, Layout, Result, Shape, Tensor};
use std::sync::Arc;

/// Inputs: the input part of the gates `xw` (batch, time, 4·hidden), gate order i, f, o, g;
/// the recurrent weight (4·hidden, hidden). Output: hidden states (batch, time, hidden).
pub struct Recurrence {
    /// Each row's real length: the steps after it (padding) are not run, and their hidden
    /// states are zero. Padding comes after a row's tokens, so this changes no real position,
    /// and no gradient either (nothing reads a padding position's output).
    lengths: Vec<usize>,
    /// The recurrent weight already [`transposed`], when the caller keeps one (a model that
    /// only tags); otherwise each call transposes it.
    whh_t: Option<Arc<Vec<f32>>>,
}

/// `out += s · x`.
fn axpy(out: &mut [f32], s: f32, x: &[f32]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o += s * v;
    }
}

/// The recurrent weight transposed to (hidden, 4·hidden), so that the recurrent part of the
/// gates is a sum of contiguous rows scaled by the previous hidden state: plain `axpy` loops
/// that vectorize, rather than 4·hidden dot products that each end in a horizontal sum.
pub fn transposed(whh: &[f32], hidden: usize) -> Vec<f32> {
    let g4 = 4 * hidden;
    let mut t = vec![0f32; hidden * g4];
    // Written in order (the reads stride instead): strided writes cost twice as much.
    for (m, row) in t.chunks_exact_mut(g4).enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = whh[j * hidden + m];
        }
    }
    t
}

/// `gates[j] += Σ_m h[m] · w_t[m · 4·hidden + j]`, over m in order, as the plain loop of
/// `axpy`s adds it (so the same sums to the bit), but 32 gates at a time held in registers
/// for the whole sum: the plain loop stored and reloaded every gate once per m, and tagging
/// short documents one sentence at a time was bound by those stores.
#[inline(always)]
fn add_recurrent(gates: &mut [f32], h: &[f32], w_t: &[f32]) {
    const BLOCK: usize = 32;
    let g4 = gates.len();
    let blocked = g4 - g4 % BLOCK;
    for j0 in (0..blocked).step_by(BLOCK) {
        let mut acc = [0f32; BLOCK];
        acc.copy_from_slice(&gates[j0..j0 + BLOCK]);
        for (m, &hm) in h.iter().enumerate() {
            let row = &w_t[m * g4 + j0..m * g4 + j0 + BLOCK];
            for (a, &w) in acc.iter_mut().zip(row) {
                *a += hm * w;
            }
        }
        gates[j0..j0 + BLOCK].copy_from_slice(&acc);
    }
    if blocked < g4 {
        for (m, &hm) in h.iter().enumerate() {
            axpy(
                &mut gates[blocked..],
                hm,
                &w_t[m * g4 + blocked..(m + 1) * g4],
            );
        }
    }
}

/// One row's recurrence: its input gates and length, and where its states go.
struct Row<'a> {
    /// The input part of the gates (time × 4·hidden).
    xw: &'a [f32],
    /// Steps to run: the row's length.
    steps: usize,
    /// Activated gates (time × 4·hidden: σi, σf, σo, tanh g), kept for the backward pass.
    gates: &'a mut [f32],
    /// Cell states (time × hidden), kept for the backward pass.
    cells: &'a mut [f32],
    /// Hidden states (time × hidden); the positions after `steps` are left as they are.
    h_out: &'a mut [f32],
}

/// [`forward_row_body`], compiled for AVX2 where the CPU has it (eight lanes instead of the
/// baseline build's four; the same operations, so the same results).
fn forward_row(whh_t: &[f32], hidden: usize, row: Row) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked above), all the target feature asks for.
        unsafe { forward_row_avx2(whh_t, hidden, row) };
        return;
    }
    forward_row_body(whh_t, hidden, row)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn forward_row_avx2(whh_t: &[f32], hidden: usize, row: Row) {
    forward_row_body(whh_t, hidden, row)
}

/// Runs the first `row.steps` steps of one row. `whh_t` is the [`transposed`] recurrent
/// weight.
#[inline(always)]
fn forward_row_body(whh_t: &[f32], hidden: usize, row: Row) {
    let Row {
        xw,
        steps,
        gates,
        cells,
        h_out,
    } = row;
    let g4 = 4 * hidden;
    let mut tanh_c = vec![0f32; hidden];
    for t in 0..steps {
        let a = &mut gates[t * g4..(t + 1) * g4];
        a.copy_from_slice(&xw[t * g4..(t + 1) * g4]);
        if t > 0 {
            add_recurrent(a, &h_out[(t - 1) * hidden..t * hidden], whh_t);
        }
        fastmath::sigmoid_in_place(&mut a[..3 * hidden]);
        fastmath::tanh_in_place(&mut a[3 * hidden..]);
        let (before, now) = cells.split_at_mut(t * hidden);
        let c = &mut now[..hidden];
        for m in 0..hidden {
            let (i, f, g) = (a[m], a[hidden + m], a[3 * hidden + m]);
            let c_prev = if t == 0 {
                0.0
            } else {
                before[(t - 1) * hidden + m]
            };
            c[m] = f * c_prev + i * g;
        }
        tanh_c.copy_from_slice(c);
        fastmath::tanh_in_place(&mut tanh_c);
        let h = &mut h_out[t * hidden..(t + 1) * hidden];
        for m in 0..hidden {
            h[m] = a[2 * hidden + m] * tanh_c[m];
        }
    }
}

fn dims(xw: &Layout, whh: &Layout) -> Result<(usize, usize, usize)> {
    let (b, t, g4) = xw.shape().dims3()?;
    let (r, hidden) = whh.shape().dims2()?;
    if r != g4 || g4 != 4 * hidden {
        candle_core::bail!("lstm recurrence: gates {g4} and weight {r}x{hidden} disagree");
    }
    Ok((b, t, hidden))
}

fn contiguous<'a>(s: &'a CpuStorage, l: &Layout) -> Result<&'a [f32]> {
    let CpuStorage::F32(v) = s else {
        candle_core::bail!("lstm recurrence: f32 only");
    };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&v[a..b]),
        None => candle_core::bail!("lstm recurrence: inputs must be contiguous"),
    }
}

impl CustomOp2 for Recurrence {
    fn name(&self) -> &'static str {
        "lstm-recurrence"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (b, t, hidden) = dims(l1, l2)?;
        self.check(b)?;
        let (xw, whh) = (contiguous(s1, l1)?, contiguous(s2, l2)?);
        let own;
        let whh = match &self.whh_t {
            Some(w) => &w[..],
            None => {
                own = transposed(whh, hidden);
                &own[..]
            }
        };
        let mut out = vec![0f32; b * t * hidden];
        let mut gates = vec![0f32; t * 4 * hidden];
        let mut cells = vec![0f32; t * hidden];
        for row in 0..b {
            forward_row(
                whh,
                hidden,
                Row {
                    xw: &xw[row * t * 4 * hidden..(row + 1) * t * 4 * hidden],
                    steps: self.lengths[row].min(t),
                    gates: &mut gates,
                    cells: &mut cells,
                    h_out: &mut out[row * t * hidden..(row + 1) * t * hidden],
                },
            );
        }
        Ok((CpuStorage::F32(out), Shape::from((b, t, hidden))))
    }

    fn bwd(
        &self,
        xw_t: &Tensor,
        whh_t: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (b, t, g4) = xw_t.dims3()?;
        let hidden = g4 / 4;
        let xw: Vec<f32> = xw_t.flatten_all()?.to_vec1()?;
        let whh: Vec<f32> = whh_t.flatten_all()?.to_vec1()?;
        let whh_tr = transposed(&whh, hidden);
        let grad: Vec<f32> = grad_res.flatten_all()?.to_vec1()?;
        let mut d_xw = vec![0f32; b * t * g4];
        let mut d_whh = vec![0f32; g4 * hidden];
        let mut gates = vec![0f32; t * g4];
        let mut cells = vec![0f32; t * hidden];
        let mut hs = vec![0f32; t * hidden];
        let zeros = vec![0f32; hidden];
        let mut dh_next = vec![0f32; hidden];
        let mut dc_next = vec![0f32; hidden];
        let mut da = vec![0f32; g4];
        self.check(b)?;
        for row in 0..b {
            // Recompute the forward pass of the row, keeping gates and cells.
            let len = self.lengths[row].min(t);
            forward_row(
                &whh_tr,
                hidden,
                Row {
                    xw: &xw[row * t * g4..(row + 1) * t * g4],
                    steps: len,
                    gates: &mut gates,
                    cells: &mut cells,
                    h_out: &mut hs,
                },
            );
            dh_next.iter_mut().for_each(|v| *v = 0.0);
            dc_next.iter_mut().for_each(|v| *v = 0.0);
            for step in (0..len).rev() {
                let a = &gates[step * g4..(step + 1) * g4];
                let c = &cells[step * hidden..(step + 1) * hidden];
                let c_prev = if step == 0 {
                    &zeros[..]
                } else {
                    &cells[(step - 1) * hidden..step * hidden]
                };
                let h_prev = if step == 0 {
                    &zeros[..]
                } else {
                    &hs[(step - 1) * hidden..step * hidden]
                };
                let g_out = &grad[(row * t + step) * hidden..(row * t + step + 1) * hidden];
                for m in 0..hidden {
                    let (i, f, o, g) = (a[m], a[hidden + m], a[2 * hidden + m], a[3 * hidden + m]);
                    let dh = g_out[m] + dh_next[m];
                    let tc = fastmath::tanh(c[m]);
                    let d_o = dh * tc;
                    let dc = dh * o * (1.0 - tc * tc) + dc_next[m];
                    da[m] = dc * g * i * (1.0 - i);
                    da[hidden + m] = dc * c_prev[m] * f * (1.0 - f);
                    da[2 * hidden + m] = d_o * o * (1.0 - o);
                    da[3 * hidden + m] = dc * i * (1.0 - g * g);
                    dc_next[m] = dc * f;
                }
                d_xw[(row * t + step) * g4..(row * t + step + 1) * g4].copy_from_slice(&da);
                dh_next.iter_mut().for_each(|v| *v = 0.0);
                for j in 0..g4 {
                    let w = &whh[j * hidden..(j + 1) * hidden];
                    axpy(&mut dh_next, da[j], w);
                    axpy(&mut d_whh[j * hidden..(j + 1) * hidden], da[j], h_prev);
                }
            }
        }
        let dev = xw_t.device();
        Ok((
            Some(Tensor::from_vec(d_xw, (b, t, g4), dev)?),
            Some(Tensor::from_vec(d_whh, (g4, hidden), dev)?),
        ))
    }
}

impl Recurrence {
    fn check(&self, rows: usize) -> Result<()> {
        if self.lengths.len() != rows {
            candle_core::bail!(
                "lstm recurrence: {} lengths for {rows} rows",
                self.lengths.len()
            );
        }
        Ok(())
    }
}

/// Hidden states (batch, time, hidden) of an LSTM with input gates `xw` and recurrent weight
/// `whh` over rows of the given `lengths` (see [`Recurrence`]); `whh_t`, when given, must
/// be `whh` [`transposed`].
pub fn recurrence(
    xw: &Tensor,
    whh: &Tensor,
    lengths: &[usize],
    whh_t: Option<Arc<Vec<f32>>>,
) -> Result<Tensor> {
    xw.contiguous()?.apply_op2(
        &whh.contiguous()?,
        Recurrence {
            lengths: lengths.to_vec(),
            whh_t,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var, D};

    /// The same recurrence from candle's own operations (the reference for the gradients).
    fn reference(xw: &Tensor, whh: &Tensor) -> Tensor {
        let (b, t, g4) = xw.dims3().unwrap();
        let h_size = g4 / 4;
        let mut h = Tensor::zeros((b, h_size), xw.dtype(), xw.device()).unwrap();
        let mut c = h.clone();
        let mut outs = Vec::new();
        for step in 0..t {
            let gates = (xw.narrow(1, step, 1).unwrap().squeeze(1).unwrap()
                + h.matmul(&whh.t().unwrap()).unwrap())
            .unwrap();
            let sig =
                candle_nn::ops::sigmoid(&gates.narrow(D::Minus1, 0, 3 * h_size).unwrap()).unwrap();
            let i = sig.narrow(D::Minus1, 0, h_size).unwrap();
            let f = sig.narrow(D::Minus1, h_size, h_size).unwrap();
            let o = sig.narrow(D::Minus1, 2 * h_size, h_size).unwrap();
            let g = gates
                .narrow(D::Minus1, 3 * h_size, h_size)
                .unwrap()
                .tanh()
                .unwrap();
            c = ((f * &c).unwrap() + (i * g).unwrap()).unwrap();
            h = (o * c.tanh().unwrap()).unwrap();
            outs.push(h.clone());
        }
        Tensor::stack(&outs, 1).unwrap()
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar::<f32>()
            .unwrap()
    }

    /// An input-gate tensor (b, t, 4h) and a recurrent weight (4h, h) of made-up values.
    fn inputs(b: usize, t: usize, h: usize, mix: [usize; 2]) -> (Var, Var) {
        let dev = Device::Cpu;
        let xw: Vec<f32> = (0..b * t * 4 * h)
            .map(|i| ((i * mix[0] % 101) as f32 - 50.0) / 40.0)
            .collect();
        let w: Vec<f32> = (0..4 * h * h)
            .map(|i| ((i * mix[1] % 97) as f32 - 48.0) / 90.0)
            .collect();
        (
            Var::from_vec(xw, (b, t, 4 * h), &dev).unwrap(),
            Var::from_vec(w, (4 * h, h), &dev).unwrap(),
        )
    }

    /// The largest difference of the gradients of `xw` and `whh` under two weighted losses.
    fn gradient_diff(a: Tensor, b: Tensor, weights: &Tensor, vars: [&Var; 2]) -> f32 {
        let loss = |x: Tensor| {
            (x * weights)
                .unwrap()
                .sum_all()
                .unwrap()
                .backward()
                .unwrap()
        };
        let (g1, g2) = (loss(a), loss(b));
        vars.iter()
            .map(|v| {
                let t = v.as_tensor();
                max_diff(g1.get(t).unwrap(), g2.get(t).unwrap())
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn fused_recurrence_matches_candle_ops_forward_and_backward() {
        let (b, t, h) = (3, 5, 11);
        let (xw, whh) = inputs(b, t, h, [37, 53]);
        // A weighting of the outputs so every position's gradient differs.
        let weights: Vec<f32> = (0..b * t * h)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) / 5.0)
            .collect();
        let weights = Tensor::from_vec(weights, (b, t, h), &Device::Cpu).unwrap();
        let fused = recurrence(xw.as_tensor(), whh.as_tensor(), &[t; 3], None).unwrap();
        let refr = reference(xw.as_tensor(), whh.as_tensor());
        assert!(max_diff(&fused, &refr) < 1e-5);
        let diff = gradient_diff(fused, refr, &weights, [&xw, &whh]);
        assert!(diff < 1e-4, "{diff}");
    }

    #[test]
    fn rows_stop_at_their_length_and_a_kept_transpose_changes_nothing() {
        let (b, t, h) = (2, 6, 5);
        let (xw, whh) = inputs(b, t, h, [29, 41]);
        let w_data: Vec<f32> = whh.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        let kept = Some(Arc::new(transposed(&w_data, h)));
        let short = recurrence(xw.as_tensor(), whh.as_tensor(), &[6, 2], kept).unwrap();
        let full = recurrence(xw.as_tensor(), whh.as_tensor(), &[t, t], None).unwrap();
        // Real positions as without padding; padding positions zero.
        let real =
            |x: &Tensor, row: usize, len: usize| x.get(row).unwrap().narrow(0, 0, len).unwrap();
        assert_eq!(max_diff(&real(&short, 0, 6), &real(&full, 0, 6)), 0.0);
        assert_eq!(max_diff(&real(&short, 1, 2), &real(&full, 1, 2)), 0.0);
        let pad = short.get(1).unwrap().narrow(0, 2, 4).unwrap();
        assert_eq!(
            pad.abs()
                .unwrap()
                .max_all()
                .unwrap()
                .to_scalar::<f32>()
                .unwrap(),
            0.0
        );
        // Gradients of a loss on the real positions only are the same either way.
        let weights: Vec<f32> = (0..b * t * h)
            .map(|i| {
                if i / (t * h) == 1 && i % (t * h) >= 2 * h {
                    0.0
                } else {
                    1.0 + (i % 5) as f32
                }
            })
            .collect();
        let weights = Tensor::from_vec(weights, (b, t, h), &Device::Cpu).unwrap();
        let diff = gradient_diff(short, full, &weights, [&xw, &whh]);
        assert!(diff < 1e-5, "{diff}");
    }
}
