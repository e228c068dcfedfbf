//! Fused multi-head self-attention for inference on the CPU: scores, padding mask, softmax
//! and the weighted sum of values in one pass per (sequence, head), reading the query, key and
//! value projections where they lie and writing the merged context directly.
//!
//! Op by op, candle copies each projection into a head-major layout, the keys once more
//! transposed, materializes scaled and masked scores, and copies the context back: a seventh
//! of a real-size encoder's inference time, mostly copies and single-threaded strided loops.
//! Here the small products go to the `gemm` crate (which candle itself uses) with strides
//! instead of copies, one (sequence, head) pair per parallel task. No backward pass: training
//! keeps the op-by-op form.

use candle_core::{CpuStorage, CustomOp3, Layout, Shape, Tensor};
use rayon::prelude::*;

use super::kernels::{exp_neg, f32_slice};

struct FusedAttention {
    heads: usize,
    scale: f32,
    /// Per sequence and position: whether that key is a real token (not padding).
    key_valid: Vec<bool>,
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
        let mut out = vec![0f32; b * t * h];
        // Each task owns one sequence's output rows; its heads run one after another there,
        // so tasks never share an output row. Parallel over sequences (rows of a PLL batch
        // number in the dozens), and gemm stays single-threaded inside.
        out.par_chunks_mut(t * h)
            .enumerate()
            .for_each(|(seq, out_seq)| {
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
                        gemm::gemm(
                            t,
                            t,
                            hd,
                            scores.as_mut_ptr(),
                            1,
                            t as isize,
                            false,
                            q.as_ptr().add(off),
                            1,
                            h as isize,
                            k.as_ptr().add(off),
                            h as isize,
                            1,
                            0.0,
                            self.scale,
                            false,
                            false,
                            false,
                            gemm::Parallelism::None,
                        );
                    }
                    for row in scores.chunks_mut(t) {
                        softmax_row(row, valid);
                    }
                    // SAFETY: as above; the destination is this task's output rows, columns
                    // head·hd .. (head+1)·hd.
                    unsafe {
                        gemm::gemm(
                            t,
                            hd,
                            t,
                            out_seq.as_mut_ptr().add(head * hd),
                            1,
                            h as isize,
                            false,
                            scores.as_ptr(),
                            1,
                            t as isize,
                            v.as_ptr().add(off),
                            1,
                            h as isize,
                            0.0,
                            1.0,
                            false,
                            false,
                            false,
                            gemm::Parallelism::None,
                        );
                    }
                }
            });
        Ok((CpuStorage::F32(out), Shape::from((b, t, h))))
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
    };
    q.contiguous()?
        .apply_op3_no_bwd(&k.contiguous()?, &v.contiguous()?, &op)
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
