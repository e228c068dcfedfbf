//! Fused multi-head self-attention on the CPU: scores, padding mask, softmax, dropout and the
//! weighted sum of values in one pass per (sequence, head), reading the query, key and value
//! projections where they lie and writing the merged context directly; for training, the
//! probabilities are kept and the backward pass gives the query, key and value gradients in
//! one pass too.
//!
//! Op by op, candle copies each projection into a head-major layout, the keys once more
//! transposed, materializes scaled and masked scores, and copies the context back: a seventh
//! of a real-size encoder's inference time, mostly copies and single-threaded strided loops,
//! and in training some twenty graph nodes per layer, each with a zero-filled gradient buffer.
//! Here the small products go to the `gemm` crate (which candle itself uses) with strides
//! instead of copies, one sequence per parallel task.

use std::sync::Mutex;

use candle_core::{CpuStorage, CustomOp3, Layout, Shape, Tensor};
use rayon::prelude::*;

use crate::neural::kernels::{exp_neg, f32_slice, with_f32_data};

/// A strided f32 matrix: element (r, c) at `ptr + r·rs + c·cs`.
#[derive(Clone, Copy)]
struct View {
    ptr: *const f32,
    rs: isize,
    cs: isize,
}

impl View {
    /// Rows `stride` elements apart, columns adjacent.
    fn rows(ptr: *const f32, stride: usize) -> View {
        View {
            ptr,
            rs: stride as isize,
            cs: 1,
        }
    }

    /// The transpose of [`View::rows`]`(ptr, stride)`.
    fn transposed(ptr: *const f32, stride: usize) -> View {
        View {
            ptr,
            rs: 1,
            cs: stride as isize,
        }
    }
}

/// dst (m×n, rows `dst_stride` apart) = scale · lhs (m×k) · rhs (k×n), on this thread.
///
/// # Safety
/// Every element the shapes and strides address must lie inside the allocation its pointer
/// comes from, and no other thread may touch the destination elements meanwhile.
#[allow(clippy::too_many_arguments)]
unsafe fn product(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut f32,
    dst_stride: usize,
    lhs: View,
    rhs: View,
    scale: f32,
) {
    gemm::gemm(
        m,
        n,
        k,
        dst,
        1,
        dst_stride as isize,
        false,
        lhs.ptr,
        lhs.cs,
        lhs.rs,
        rhs.ptr,
        rhs.cs,
        rhs.rs,
        0.0,
        scale,
        false,
        false,
        false,
        gemm::Parallelism::None,
    )
}

struct FusedAttention {
    heads: usize,
    scale: f32,
    /// Per sequence and position: whether that key is a real token (not padding).
    key_valid: Vec<bool>,
    /// Inverted-dropout factors of the probabilities [b, heads, t, t] (0 or 1/(1-p)), or
    /// empty for none.
    dropout: Vec<f32>,
    /// Whether to keep the probabilities (before dropout) for the backward pass.
    keep_probs: bool,
    probs: Mutex<Vec<f32>>,
}

/// Softmax over the real keys of one score row, in place; padded keys get exactly 0.
/// Written as selects and lane-wise sums so the loops vectorize.
fn softmax_row(row: &mut [f32], valid: &[bool]) {
    let mut max = f32::NEG_INFINITY;
    for (&s, &v) in row.iter().zip(valid) {
        let s = if v { s } else { f32::NEG_INFINITY };
        max = if s > max { s } else { max };
    }
    const LANES: usize = 8;
    let mut lanes = [0f32; LANES];
    let mut rows = row.chunks_exact_mut(LANES);
    let mut masks = valid.chunks_exact(LANES);
    for (r, m) in (&mut rows).zip(&mut masks) {
        for i in 0..LANES {
            let e = exp_neg(r[i] - max);
            r[i] = if m[i] { e } else { 0.0 };
            lanes[i] += r[i];
        }
    }
    let mut sum: f32 = lanes.iter().sum();
    for (s, &v) in rows.into_remainder().iter_mut().zip(masks.remainder()) {
        let e = exp_neg(*s - max);
        *s = if v { e } else { 0.0 };
        sum += *s;
    }
    // A sequence with no real key at all (never built by anonlm) gives zeros, not NaN.
    let inv = if sum > 0.0 { 1.0 / sum } else { 0.0 };
    for s in row.iter_mut() {
        *s *= inv;
    }
}

impl FusedAttention {
    /// Gradients of the query, key and value projections [b, t, h] from the upstream
    /// gradient `g` of the context and the kept probabilities `probs` [b, heads, t, t]. Per
    /// (sequence, head), with P the probabilities, D the dropout factors and dO, V, K, Q the
    /// head's slices: dV = (P∘D)ᵀ·dO; dP = (dO·Vᵀ)∘D; dS = P∘(dP − rowsum(dP∘P));
    /// dQ = scale·dS·K; dK = scale·dSᵀ·Q.
    fn gradients(
        &self,
        q: &[f32],
        k: &[f32],
        v: &[f32],
        g: &[f32],
        probs: &[f32],
        (b, t, h): (usize, usize, usize),
    ) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let hd = h / self.heads;
        let (mut dq, mut dk, mut dv) = (
            vec![0f32; b * t * h],
            vec![0f32; b * t * h],
            vec![0f32; b * t * h],
        );
        dq.par_chunks_mut(t * h)
            .zip(dk.par_chunks_mut(t * h).zip(dv.par_chunks_mut(t * h)))
            .enumerate()
            .for_each(|(seq, (dq_seq, (dk_seq, dv_seq)))| {
                let base = seq * t * h;
                let mut dropped = vec![0f32; t * t];
                let mut ds = vec![0f32; t * t];
                for head in 0..self.heads {
                    let off = base + head * hd;
                    let at = (seq * self.heads + head) * t * t;
                    let p = &probs[at..at + t * t];
                    let factors = (!self.dropout.is_empty()).then(|| &self.dropout[at..at + t * t]);
                    match factors {
                        Some(f) => {
                            for ((d, &p), &f) in dropped.iter_mut().zip(p).zip(f) {
                                *d = p * f;
                            }
                        }
                        None => dropped.copy_from_slice(p),
                    }
                    // SAFETY: as in the forward pass: q, k, v, g rows 0..t of stride h from
                    // `off` lie inside this sequence; the t×t buffers are this task's own;
                    // the destinations are this task's rows of dq, dk, dv, columns of `head`.
                    unsafe {
                        // dV[j][d] = Σ_i dropped[i][j] · dO[i][d]
                        product(
                            t,
                            hd,
                            t,
                            dv_seq.as_mut_ptr().add(head * hd),
                            h,
                            View::transposed(dropped.as_ptr(), t),
                            View::rows(g.as_ptr().add(off), h),
                            1.0,
                        );
                        // ds[i][j] = Σ_d dO[i][d] · V[j][d]
                        product(
                            t,
                            t,
                            hd,
                            ds.as_mut_ptr(),
                            t,
                            View::rows(g.as_ptr().add(off), h),
                            View::transposed(v.as_ptr().add(off), h),
                            1.0,
                        );
                    }
                    for i in 0..t {
                        let row = &mut ds[i * t..(i + 1) * t];
                        let p_row = &p[i * t..(i + 1) * t];
                        if let Some(f) = factors {
                            for (d, &f) in row.iter_mut().zip(&f[i * t..(i + 1) * t]) {
                                *d *= f;
                            }
                        }
                        let dot: f32 = row.iter().zip(p_row).map(|(d, p)| d * p).sum();
                        for (d, &p) in row.iter_mut().zip(p_row) {
                            *d = p * (*d - dot);
                        }
                    }
                    // SAFETY: as above.
                    unsafe {
                        // dQ[i][d] = scale · Σ_j ds[i][j] · K[j][d]
                        product(
                            t,
                            hd,
                            t,
                            dq_seq.as_mut_ptr().add(head * hd),
                            h,
                            View::rows(ds.as_ptr(), t),
                            View::rows(k.as_ptr().add(off), h),
                            self.scale,
                        );
                        // dK[j][d] = scale · Σ_i ds[i][j] · Q[i][d]
                        product(
                            t,
                            hd,
                            t,
                            dk_seq.as_mut_ptr().add(head * hd),
                            h,
                            View::transposed(ds.as_ptr(), t),
                            View::rows(q.as_ptr().add(off), h),
                            self.scale,
                        );
                    }
                }
            });
        (dq, dk, dv)
    }
}

impl CustomOp3 for FusedAttention {
    fn name(&self) -> &'static str {
        "anonlm-fused-attention"
    }

    fn cpu_fwd(
        &self,
        q_s: &CpuStorage,
        q_l: &Layout,
        k_s: &CpuStorage,
        k_l: &Layout,
        v_s: &CpuStorage,
        v_l: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (b, t, h) = q_l.shape().dims3()?;
        if k_l.shape().dims3()? != (b, t, h) || v_l.shape().dims3()? != (b, t, h) {
            candle_core::bail!("fused attention: query, key and value shapes differ");
        }
        if self.key_valid.len() != b * t || h % self.heads != 0 {
            candle_core::bail!("fused attention: mask or head count does not fit the input");
        }
        let (q, k, v) = (
            f32_slice(q_s, q_l)?,
            f32_slice(k_s, k_l)?,
            f32_slice(v_s, v_l)?,
        );
        let hd = h / self.heads;
        if !self.dropout.is_empty() && self.dropout.len() != b * self.heads * t * t {
            candle_core::bail!("fused attention: the dropout mask does not fit the input");
        }
        let mut out = vec![0f32; b * t * h];
        let kept_stride = if self.keep_probs {
            self.heads * t * t
        } else {
            1
        };
        let mut kept = vec![0f32; b * kept_stride];
        // Each task owns one sequence's output rows; its heads run one after another there,
        // so tasks never share an output row. Parallel over sequences (rows of a PLL batch
        // number in the dozens), and gemm stays single-threaded inside.
        out.par_chunks_mut(t * h)
            .zip(kept.par_chunks_mut(kept_stride))
            .enumerate()
            .for_each(|(seq, (out_seq, kept_seq))| {
                let valid = &self.key_valid[seq * t..(seq + 1) * t];
                let base = seq * t * h;
                let mut scores = vec![0f32; t * t];
                for head in 0..self.heads {
                    let off = base + head * hd;
                    // SAFETY: every pointer with its strides addresses only elements of the
                    // slices it comes from: rows 0..t of stride h starting at `off` (q, k, v:
                    // off + (t-1)·h + hd ≤ base + t·h, inside the sequence), the t×t scores
                    // buffer, and this task's own output rows. Nothing else writes them.
                    unsafe {
                        // scores[i][j] = scale · q_i · k_j
                        product(
                            t,
                            t,
                            hd,
                            scores.as_mut_ptr(),
                            t,
                            View::rows(q.as_ptr().add(off), h),
                            View::transposed(k.as_ptr().add(off), h),
                            self.scale,
                        );
                    }
                    for row in scores.chunks_mut(t) {
                        softmax_row(row, valid);
                    }
                    let square = head * t * t..(head + 1) * t * t;
                    if self.keep_probs {
                        kept_seq[square.clone()].copy_from_slice(&scores);
                    }
                    if !self.dropout.is_empty() {
                        let at = seq * self.heads * t * t;
                        let factors = &self.dropout[at + square.start..at + square.end];
                        for (s, &f) in scores.iter_mut().zip(factors) {
                            *s *= f;
                        }
                    }
                    // SAFETY: as above; the destination is this task's output rows, columns
                    // head·hd .. (head+1)·hd.
                    unsafe {
                        product(
                            t,
                            hd,
                            t,
                            out_seq.as_mut_ptr().add(head * hd),
                            h,
                            View::rows(scores.as_ptr(), t),
                            View::rows(v.as_ptr().add(off), h),
                            1.0,
                        );
                    }
                }
            });
        if self.keep_probs {
            *self.probs.lock().expect("attention probabilities") = kept;
        }
        Ok((CpuStorage::F32(out), Shape::from((b, t, h))))
    }

    fn bwd(
        &self,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> candle_core::Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (b, t, h) = q.dims3()?;
        let probs = self.probs.lock().expect("attention probabilities");
        if probs.len() != b * self.heads * t * t {
            candle_core::bail!("fused attention: no probabilities kept for the backward pass");
        }
        let grad = grad.contiguous()?;
        let (dq, dk, dv) = with_f32_data(q, |q| {
            with_f32_data(k, |k| {
                with_f32_data(v, |v| {
                    with_f32_data(&grad, |g| Ok(self.gradients(q, k, v, g, &probs, (b, t, h))))
                })
            })
        })?;
        let dev = q.device();
        Ok((
            Some(Tensor::from_vec(dq, (b, t, h), dev)?),
            Some(Tensor::from_vec(dk, (b, t, h), dev)?),
            Some(Tensor::from_vec(dv, (b, t, h), dev)?),
        ))
    }
}

/// Which keys are real tokens, per sequence and position, from an attention mask [b, t]
/// (1 for a real token); read once per forward pass.
pub fn key_valid(attention_mask: &Tensor) -> candle_core::Result<Vec<bool>> {
    Ok(attention_mask
        .to_dtype(candle_core::DType::U32)?
        .flatten_all()?
        .to_vec1::<u32>()?
        .into_iter()
        .map(|m| m != 0)
        .collect())
}

/// Context vectors [b, t, hidden] of multi-head attention over `q`, `k`, `v` (each [b, t,
/// hidden], heads side by side in the last dimension), padded keys (see [`key_valid`])
/// left out. Inference on the CPU in f32 only (see [`applies`]).
pub fn fused_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    key_valid: &[bool],
    heads: usize,
    scale: f64,
) -> candle_core::Result<Tensor> {
    let op = FusedAttention {
        heads,
        scale: scale as f32,
        key_valid: key_valid.to_vec(),
        dropout: Vec::new(),
        keep_probs: false,
        probs: Mutex::new(Vec::new()),
    };
    q.contiguous()?
        .apply_op3_no_bwd(&k.contiguous()?, &v.contiguous()?, &op)
}

/// [`fused_attention`] for training: with the inverted-dropout factors `dropout` of the
/// probabilities ([b, heads, t, t], or empty for none) and a backward pass.
pub fn training_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    key_valid: Vec<bool>,
    dropout: Vec<f32>,
    heads: usize,
    scale: f64,
) -> candle_core::Result<Tensor> {
    let op = FusedAttention {
        heads,
        scale: scale as f32,
        key_valid,
        dropout,
        keep_probs: true,
        probs: Mutex::new(Vec::new()),
    };
    q.contiguous()?
        .apply_op3(&k.contiguous()?, &v.contiguous()?, op)
}

/// Whether [`fused_attention`] can run on this input: f32 on the CPU.
pub fn applies(x: &Tensor) -> bool {
    x.device().is_cpu() && x.dtype() == candle_core::DType::F32
}

/// Attention of chosen query rows only: each query (row `r` of `q` [n, hidden]) attends to
/// the keys and values of its own sequence `seq_of[r]` in `k`, `v` [b, t, hidden].
struct RowsAttention {
    heads: usize,
    scale: f32,
    key_valid: Vec<bool>,
    seq_of: Vec<usize>,
}

impl CustomOp3 for RowsAttention {
    fn name(&self) -> &'static str {
        "anonlm-rows-attention"
    }

    fn cpu_fwd(
        &self,
        q_s: &CpuStorage,
        q_l: &Layout,
        k_s: &CpuStorage,
        k_l: &Layout,
        v_s: &CpuStorage,
        v_l: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (n, h) = q_l.shape().dims2()?;
        let (b, t, hk) = k_l.shape().dims3()?;
        if hk != h || v_l.shape().dims3()? != (b, t, h) || self.seq_of.len() != n {
            candle_core::bail!("rows attention: query, key and value shapes differ");
        }
        if self.key_valid.len() != b * t
            || h % self.heads != 0
            || self.seq_of.iter().any(|&s| s >= b)
        {
            candle_core::bail!("rows attention: mask, rows or head count does not fit the input");
        }
        let (q, k, v) = (
            f32_slice(q_s, q_l)?,
            f32_slice(k_s, k_l)?,
            f32_slice(v_s, v_l)?,
        );
        let hd = h / self.heads;
        let mut out = vec![0f32; n * h];
        // A few dozen rows of matrix-vector work: plain loops, one row per task.
        out.par_chunks_mut(h).enumerate().for_each(|(r, out_row)| {
            let seq = self.seq_of[r];
            let valid = &self.key_valid[seq * t..(seq + 1) * t];
            let mut scores = vec![0f32; t];
            for head in 0..self.heads {
                let query = &q[r * h + head * hd..r * h + (head + 1) * hd];
                for (j, score) in scores.iter_mut().enumerate() {
                    let at = (seq * t + j) * h + head * hd;
                    let key = &k[at..at + hd];
                    *score = self.scale * query.iter().zip(key).map(|(a, b)| a * b).sum::<f32>();
                }
                softmax_row(&mut scores, valid);
                let ctx = &mut out_row[head * hd..(head + 1) * hd];
                for (j, &p) in scores.iter().enumerate() {
                    let at = (seq * t + j) * h + head * hd;
                    for (c, &x) in ctx.iter_mut().zip(&v[at..at + hd]) {
                        *c += p * x;
                    }
                }
            }
        });
        Ok((CpuStorage::F32(out), Shape::from((n, h))))
    }
}

/// Context vectors [n, hidden] for the query rows `q` [n, hidden] only, row `r` attending to
/// sequence `seq_of[r]` of `k`, `v` [b, t, hidden]; otherwise as [`fused_attention`].
pub fn rows_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    key_valid: &[bool],
    seq_of: Vec<usize>,
    heads: usize,
    scale: f64,
) -> candle_core::Result<Tensor> {
    let op = RowsAttention {
        heads,
        scale: scale as f32,
        key_valid: key_valid.to_vec(),
        seq_of,
    };
    q.contiguous()?
        .apply_op3_no_bwd(&k.contiguous()?, &v.contiguous()?, &op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neural::kernels::tests::max_diff;
    use candle_core::{Device, Var, D};

    /// Attention written as candle ops, with the same dropout factors.
    fn reference(
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        mask: &[u32],
        factors: &Tensor,
        heads: usize,
        scale: f64,
    ) -> candle_core::Result<Tensor> {
        let (b, t, h) = q.dims3()?;
        let split = |y: &Tensor| {
            y.reshape((b, t, heads, h / heads))?
                .transpose(1, 2)?
                .contiguous()
        };
        let (qh, kh, vh) = (split(q)?, split(k)?, split(v)?);
        let bias: Vec<f32> = mask
            .iter()
            .map(|&m| if m == 1 { 0.0 } else { -1e9 })
            .collect();
        let bias = Tensor::from_vec(bias, (b, 1, 1, t), q.device())?;
        let scores = (qh.matmul(&kh.t()?.contiguous()?)? * scale)?.broadcast_add(&bias)?;
        let probs = candle_nn::ops::softmax(&scores, D::Minus1)?;
        (probs * factors)?
            .matmul(&vh)?
            .transpose(1, 2)?
            .reshape((b, t, h))
    }

    /// Context and the query, key and value gradients equal the op-by-op attention, with
    /// padding and dropout.
    #[test]
    fn training_attention_matches_plain_ops_with_gradients() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let (b, t, h, heads) = (3, 9, 12, 3);
        let mask: Vec<u32> = (0..b * t)
            .map(|i| u32::from(i % t < t - i / t * 2))
            .collect();
        let key_valid: Vec<bool> = mask.iter().map(|&m| m == 1).collect();
        let mut rng = crate::neural::dropout::DropoutRng::new(5);
        let factors = rng.factors(b * heads * t * t, 0.2);
        assert!(factors.contains(&0.0));
        let factors_t = Tensor::from_vec(factors.clone(), (b, heads, t, t), &dev)?;
        let var = || Var::from_tensor(&Tensor::randn(0f32, 1.0, (b, t, h), &dev)?);
        let (q, k, v) = (var()?, var()?, var()?);
        let probe = Tensor::randn(0f32, 1.0, (b, t, h), &dev)?;
        let scale = 0.5;
        let ours = training_attention(&q, &k, &v, key_valid, factors, heads, scale)?;
        let theirs = reference(&q, &k, &v, &mask, &factors_t, heads, scale)?;
        let d = max_diff(&ours, &theirs)?;
        assert!(d < 1e-5, "{d}");
        let g1 = (ours * &probe)?.sum_all()?.backward()?;
        let g2 = (theirs * &probe)?.sum_all()?.backward()?;
        for x in [&q, &k, &v] {
            let (a, c) = (g1.get(x).expect("gradient"), g2.get(x).expect("gradient"));
            let d = max_diff(a, c)?;
            assert!(d < 1e-4, "{d}");
        }
        Ok(())
    }
}
