//! The CRF's log partition function as one candle operation: the scaled forward algorithm,
//! and a hand-written gradient from the forward–backward marginals.
//!
//! Built from candle ops, every time step of the forward algorithm costs a handful of small
//! ops on a (batch, tags, tags) grid, and their gradients as many again; at 81 tags that was a
//! third of training time. Here the exponentials of the transitions are taken once, and each
//! step is a matrix–vector product in probability space, rescaled to sum to one (Rabiner's
//! scaling), so the inner loops hold no `exp` or `log`.

use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape};

/// Inputs: emissions (batch, width, tags), transitions (tags, tags) indexed [from, to], and
/// bounds (2, tags): the start scores, then the end scores. Output: log Z of each row (batch),
/// over the first `lengths[row]` positions (each ≥ 1).
pub struct LogPartition {
    pub lengths: Vec<usize>,
}

/// exp(x − max x) in f64, and that max.
fn exp_shifted(x: impl Iterator<Item = f32> + Clone) -> (Vec<f64>, f64) {
    let m = x.clone().fold(f32::NEG_INFINITY, f32::max) as f64;
    (x.map(|v| (v as f64 - m).exp()).collect(), m)
}

/// Probability-space transitions exp(T − max T), row-major [from, to], and max T.
fn transition_factors(trans: &[f32]) -> (Vec<f64>, f64) {
    exp_shifted(trans.iter().copied())
}

/// Normalizes `v` to sum to one and returns ln of the old sum.
fn rescale(v: &mut [f64]) -> f64 {
    let s: f64 = v.iter().sum();
    v.iter_mut().for_each(|x| *x /= s);
    s.ln()
}

/// One row's scaled forward pass: normalized alphas (len × tags), the emission factors
/// exp(e − max e) (len × tags), and log Z.
struct Forward {
    alphas: Vec<f64>,
    factors: Vec<f64>,
    log_z: f64,
}

fn forward_row(e: &[f32], len: usize, k: usize, tf: &[f64], t_max: f64, bounds: &[f32]) -> Forward {
    let mut alphas = vec![0f64; len * k];
    let mut factors = vec![0f64; len * k];
    let (start, end) = bounds.split_at(k);
    // Position 0: start + emission.
    let (a0, m0) = exp_shifted((0..k).map(|j| start[j] + e[j]));
    alphas[..k].copy_from_slice(&a0);
    let mut log_z = m0 + rescale(&mut alphas[..k]);
    for t in 1..len {
        let (u, m) = exp_shifted(e[t * k..(t + 1) * k].iter().copied());
        factors[t * k..(t + 1) * k].copy_from_slice(&u);
        let (prev, cur) = alphas.split_at_mut(t * k);
        let prev = &prev[(t - 1) * k..];
        let cur = &mut cur[..k];
        for (i, &a) in prev.iter().enumerate() {
            if a == 0.0 {
                continue;
            }
            for (c, &f) in cur.iter_mut().zip(&tf[i * k..(i + 1) * k]) {
                *c += a * f;
            }
        }
        for (c, &f) in cur.iter_mut().zip(&u) {
            *c *= f;
        }
        log_z += m + t_max + rescale(cur);
    }
    let (ef, me) = exp_shifted(end.iter().copied());
    let last = &alphas[(len - 1) * k..len * k];
    let fin: f64 = last.iter().zip(&ef).map(|(a, f)| a * f).sum();
    log_z += me + fin.ln();
    Forward {
        alphas,
        factors,
        log_z,
    }
}

fn contiguous<'a>(s: &'a CpuStorage, l: &Layout, what: &str) -> Result<&'a [f32]> {
    let CpuStorage::F32(v) = s else {
        candle_core::bail!("crf log partition: {what} must be f32");
    };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&v[a..b]),
        None => candle_core::bail!("crf log partition: {what} must be contiguous"),
    }
}

impl LogPartition {
    fn check(&self, e: &Layout, t: &Layout, b: &Layout) -> Result<(usize, usize, usize)> {
        let (rows, w, k) = e.shape().dims3()?;
        let (k1, k2) = t.shape().dims2()?;
        let (two, k3) = b.shape().dims2()?;
        if k1 != k || k2 != k || two != 2 || k3 != k {
            candle_core::bail!("crf log partition: emissions, transitions and bounds disagree");
        }
        if self.lengths.len() != rows || self.lengths.iter().any(|&l| l == 0 || l > w) {
            candle_core::bail!("crf log partition: lengths do not fit the emissions");
        }
        Ok((rows, w, k))
    }
}

impl CustomOp3 for LogPartition {
    fn name(&self) -> &'static str {
        "crf-log-partition"
    }

    fn cpu_fwd(
        &self,
        es: &CpuStorage,
        el: &Layout,
        ts: &CpuStorage,
        tl: &Layout,
        bs: &CpuStorage,
        bl: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (rows, w, k) = self.check(el, tl, bl)?;
        let (e, t, b) = (
            contiguous(es, el, "emissions")?,
            contiguous(ts, tl, "transitions")?,
            contiguous(bs, bl, "bounds")?,
        );
        let (tf, t_max) = transition_factors(t);
        let out: Vec<f32> = (0..rows)
            .map(|r| {
                let e = &e[r * w * k..(r + 1) * w * k];
                forward_row(e, self.lengths[r], k, &tf, t_max, b).log_z as f32
            })
            .collect();
        Ok((CpuStorage::F32(out), Shape::from(rows)))
    }

    #[allow(clippy::too_many_arguments)]
    fn bwd(
        &self,
        emissions: &candle_core::Tensor,
        transitions: &candle_core::Tensor,
        bounds: &candle_core::Tensor,
        _log_z: &candle_core::Tensor,
        grad: &candle_core::Tensor,
    ) -> Result<(
        Option<candle_core::Tensor>,
        Option<candle_core::Tensor>,
        Option<candle_core::Tensor>,
    )> {
        let (rows, w, k) = emissions.dims3()?;
        let e: Vec<f32> = emissions.flatten_all()?.to_vec1()?;
        let t: Vec<f32> = transitions.flatten_all()?.to_vec1()?;
        let b: Vec<f32> = bounds.flatten_all()?.to_vec1()?;
        let g: Vec<f32> = grad.flatten_all()?.to_vec1()?;
        let (tf, t_max) = transition_factors(&t);
        let (end_f, _) = exp_shifted(b[k..].iter().copied());
        let mut de = vec![0f32; rows * w * k];
        let mut dt = vec![0f64; k * k];
        let mut db = vec![0f64; 2 * k];
        for r in 0..rows {
            let len = self.lengths[r];
            let er = &e[r * w * k..(r + 1) * w * k];
            let fw = forward_row(er, len, k, &tf, t_max, &b);
            let gr = g[r] as f64;
            // Scaled betas, from the end backwards; each normalized to sum to one, which
            // leaves the marginals unchanged once they are normalized themselves.
            let mut beta = end_f.clone();
            rescale(&mut beta);
            let mut marginal = vec![0f64; k];
            for t in (0..len).rev() {
                let alpha = &fw.alphas[t * k..(t + 1) * k];
                for (m, (a, bt)) in marginal.iter_mut().zip(alpha.iter().zip(&beta)) {
                    *m = a * bt;
                }
                rescale(&mut marginal);
                let d = &mut de[(r * w + t) * k..(r * w + t + 1) * k];
                for (dj, m) in d.iter_mut().zip(&marginal) {
                    *dj = (gr * m) as f32;
                }
                if t + 1 == len {
                    for (dbj, m) in db[k..].iter_mut().zip(&marginal) {
                        *dbj += gr * m;
                    }
                }
                if t == 0 {
                    for (dbj, m) in db[..k].iter_mut().zip(&marginal) {
                        *dbj += gr * m;
                    }
                    break;
                }
                // Pairwise marginals of (t−1, t): α̂(t−1, i) · F[i, j] · u(t, j) · β̂(t, j).
                let prev = &fw.alphas[(t - 1) * k..t * k];
                let u = &fw.factors[t * k..(t + 1) * k];
                let ub: Vec<f64> = u.iter().zip(&beta).map(|(x, y)| x * y).collect();
                let mut pair = vec![0f64; k * k];
                let mut total = 0f64;
                let mut next_beta = vec![0f64; k];
                for (i, &a) in prev.iter().enumerate() {
                    let row = &tf[i * k..(i + 1) * k];
                    let out = &mut pair[i * k..(i + 1) * k];
                    let mut s = 0f64;
                    for ((o, &f), &x) in out.iter_mut().zip(row).zip(&ub) {
                        let fx = f * x;
                        s += fx;
                        *o = a * fx;
                    }
                    next_beta[i] = s;
                    total += a * s;
                }
                if total > 0.0 {
                    let scale = gr / total;
                    for (d, p) in dt.iter_mut().zip(&pair) {
                        *d += scale * p;
                    }
                }
                rescale(&mut next_beta);
                beta = next_beta;
            }
        }
        let dev = emissions.device();
        let to32 = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<f32>>();
        Ok((
            Some(candle_core::Tensor::from_vec(de, (rows, w, k), dev)?),
            Some(candle_core::Tensor::from_vec(to32(dt), (k, k), dev)?),
            Some(candle_core::Tensor::from_vec(to32(db), (2, k), dev)?),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor, Var};

    /// log Σ exp over `dim`, with the shift detached.
    fn log_sum_exp(x: &Tensor, dim: usize) -> Result<Tensor> {
        let m = x.max_keepdim(dim)?.detach();
        (x.broadcast_sub(&m)?.exp()?.sum_keepdim(dim)?.log()? + m)?.squeeze(dim)
    }

    /// The forward algorithm from candle ops (autograd gives its gradient): the reference.
    fn reference(
        e: &Tensor,
        t: &Tensor,
        s: &Tensor,
        end: &Tensor,
        lengths: &[usize],
    ) -> Result<Tensor> {
        let (b, w, _) = e.dims3()?;
        let dev = e.device();
        let mut alpha = e.narrow(1, 0, 1)?.squeeze(1)?.broadcast_add(s)?;
        let trans = t.unsqueeze(0)?;
        for p in 1..w {
            let live: Vec<f32> = lengths
                .iter()
                .map(|&l| if p < l { 1.0 } else { 0.0 })
                .collect();
            let live = Tensor::from_vec(live, (b, 1), dev)?;
            let scores = alpha.unsqueeze(2)?.broadcast_add(&trans)?;
            let next = (log_sum_exp(&scores, 1)? + e.narrow(1, p, 1)?.squeeze(1)?)?;
            alpha =
                (next.broadcast_mul(&live)? + alpha.broadcast_mul(&live.affine(-1.0, 1.0)?)?)?;
        }
        log_sum_exp(&alpha.broadcast_add(end)?, 1)
    }

    fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
        (a - b)
            .unwrap()
            .abs()
            .unwrap()
            .flatten_all()
            .unwrap()
            .max(0)
            .unwrap()
            .to_scalar()
            .unwrap()
    }

    #[test]
    fn fused_log_partition_and_gradients_match_the_op_by_op_forward_algorithm() -> Result<()> {
        let dev = Device::Cpu;
        let (b, w, k) = (3, 5, 4);
        let lengths = [5, 2, 1];
        let e = Var::from_tensor(&(Tensor::randn(0f32, 2.0, (b, w, k), &dev)?))?;
        let t = Var::from_tensor(&(Tensor::randn(0f32, 1.5, (k, k), &dev)?))?;
        let s = Var::from_tensor(&Tensor::randn(0f32, 1.0, k, &dev)?)?;
        let end = Var::from_tensor(&Tensor::randn(0f32, 1.0, k, &dev)?)?;
        // Different weights per row, so a mix-up of rows would show.
        let weights = Tensor::new(&[1.0f32, 0.5, 2.0], &dev)?;

        let want = reference(&e, &t, &s, &end, &lengths)?;
        let bounds = Tensor::stack(&[s.as_tensor(), end.as_tensor()], 0)?;
        let got = e.as_tensor().apply_op3(
            t.as_tensor(),
            &bounds,
            LogPartition {
                lengths: lengths.to_vec(),
            },
        )?;
        assert!(max_diff(&want, &got) < 1e-4, "{want} vs {got}");

        let gw = (want * &weights)?.sum_all()?.backward()?;
        let gg = (got * &weights)?.sum_all()?.backward()?;
        for (name, v) in [
            ("emissions", &e),
            ("transitions", &t),
            ("start", &s),
            ("end", &end),
        ] {
            let (a, b) = (gw.get(v).unwrap(), gg.get(v).unwrap());
            assert!(max_diff(a, b) < 1e-4, "{name}: {a} vs {b}");
        }
        // Padding positions get no gradient.
        let de = gg.get(&e).unwrap().narrow(0, 1, 1)?.narrow(1, 2, 3)?;
        assert_eq!(max_diff(&de, &de.zeros_like()?), 0.0);
        Ok(())
    }

    #[test]
    fn large_scores_neither_overflow_nor_underflow() -> Result<()> {
        let dev = Device::Cpu;
        let (b, w, k) = (1, 40, 3);
        let e = (Tensor::randn(0f32, 1.0, (b, w, k), &dev)? * 80.0)?;
        let t = (Tensor::randn(0f32, 1.0, (k, k), &dev)? * 60.0)?;
        let s = Tensor::zeros(k, candle_core::DType::F32, &dev)?;
        let want = reference(&e, &t, &s, &s, &[w])?;
        let bounds = Tensor::stack(&[&s, &s], 0)?;
        let got = e.apply_op3(&t, &bounds, LogPartition { lengths: vec![w] })?;
        let (a, g): (f32, f32) = (want.sum_all()?.to_scalar()?, got.sum_all()?.to_scalar()?);
        assert!(
            g.is_finite() && (a - g).abs() / a.abs() < 1e-5,
            "{a} vs {g}"
        );
        Ok(())
    }
}
