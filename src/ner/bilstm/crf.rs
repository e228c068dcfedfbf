//! Linear-chain CRF: the negative log-likelihood by the forward algorithm (for training) and
//! Viterbi decoding restricted to well-formed BIOES paths (for tagging).

use super::super::tags::TagSet;
use super::partition::LogPartition;
use candle_core::{Result, Tensor};
use candle_nn::{Init, VarBuilder};

/// Transition scores between tags, and from the sentence start / to the sentence end.
pub struct Crf {
    pub transitions: Tensor,
    pub start: Tensor,
    pub end: Tensor,
    tags: usize,
}

impl Crf {
    pub fn new(vb: VarBuilder, tags: usize) -> Result<Self> {
        let init = Init::Uniform { lo: -0.1, up: 0.1 };
        Ok(Crf {
            transitions: vb.get_with_hints((tags, tags), "transitions", init)?,
            start: vb.get_with_hints(tags, "start", init)?,
            end: vb.get_with_hints(tags, "end", init)?,
            tags,
        })
    }

    /// Mean negative log-likelihood of the gold `tags` (row-major, batch × width, padding
    /// anything) under `emissions` (batch, width, tags), rows of the given lengths (≥ 1).
    pub fn neg_log_likelihood(
        &self,
        emissions: &Tensor,
        tags: &[usize],
        lengths: &[usize],
    ) -> Result<Tensor> {
        let (b, w, k) = emissions.dims3()?;
        let dev = emissions.device();
        // Score of the gold path: emissions, transitions, start and end, gathered by index.
        let mut emit_index = Vec::new();
        let mut trans_index = Vec::new();
        let mut first = Vec::with_capacity(b);
        let mut last = Vec::with_capacity(b);
        for (row, &len) in lengths.iter().enumerate() {
            let t = &tags[row * w..row * w + len];
            for (p, &tag) in t.iter().enumerate() {
                emit_index.push(((row * w + p) * k + tag) as u32);
                if p > 0 {
                    trans_index.push((t[p - 1] * k + tag) as u32);
                }
            }
            first.push(t[0] as u32);
            last.push(t[len - 1] as u32);
        }
        let gather = |x: &Tensor, idx: Vec<u32>| -> Result<Tensor> {
            if idx.is_empty() {
                return Tensor::zeros((), x.dtype(), dev);
            }
            let n = idx.len();
            x.flatten_all()?
                .index_select(&Tensor::from_vec(idx, n, dev)?, 0)?
                .sum_all()
        };
        let gold = (gather(emissions, emit_index)?
            + gather(&self.transitions, trans_index)?
            + gather(&self.start, first)?
            + gather(&self.end, last)?)?;

        // log Z by the forward algorithm, as one fused op (see `partition`).
        let bounds = Tensor::stack(&[&self.start, &self.end], 0)?;
        let log_z = emissions
            .contiguous()?
            .apply_op3(
                &self.transitions.contiguous()?,
                &bounds,
                LogPartition {
                    lengths: lengths.to_vec(),
                },
            )?
            .sum_all()?;
        ((log_z - gold)? / b as f64)?.reshape(())
    }

    /// Host copies of the scores, for decoding.
    pub fn scores(&self) -> Result<CrfScores> {
        Ok(CrfScores {
            transitions: self.transitions.flatten_all()?.to_vec1()?,
            start: self.start.to_vec1()?,
            end: self.end.to_vec1()?,
            tags: self.tags,
            before: vec![(0..self.tags).collect(); self.tags],
        })
    }
}

/// The CRF's scores on the host, with the ill-formed BIOES moves forbidden.
pub struct CrfScores {
    transitions: Vec<f32>,
    start: Vec<f32>,
    end: Vec<f32>,
    tags: usize,
    /// For each tag, the tags allowed before it (all when unconstrained). Viterbi only looks
    /// at these: an `I-` or `E-` tag has two, which makes decoding about four times faster.
    before: Vec<Vec<usize>>,
}

impl CrfScores {
    /// All scores zero: decoding picks the best tag sequence by emissions alone (after
    /// [`CrfScores::constrain`], among well-formed ones).
    pub fn neutral(tags: usize) -> CrfScores {
        CrfScores {
            transitions: vec![0.0; tags * tags],
            start: vec![0.0; tags],
            end: vec![0.0; tags],
            tags,
            before: vec![(0..tags).collect(); tags],
        }
    }

    /// Sets the score of every move the tag set does not allow to −∞.
    pub fn constrain(&mut self, tagset: &TagSet) {
        let k = self.tags;
        for to in 0..k {
            if !tagset.allowed(None, Some(to)) {
                self.start[to] = f32::NEG_INFINITY;
            }
            if !tagset.allowed(Some(to), None) {
                self.end[to] = f32::NEG_INFINITY;
            }
            for from in 0..k {
                if !tagset.allowed(Some(from), Some(to)) {
                    self.transitions[from * k + to] = f32::NEG_INFINITY;
                }
            }
        }
        self.before = (0..k)
            .map(|to| {
                (0..k)
                    .filter(|&from| self.transitions[from * k + to].is_finite())
                    .collect()
            })
            .collect();
    }

    /// The best tag path for one sentence's emissions (len × tags, row-major).
    pub fn viterbi(&self, emissions: &[f32], len: usize) -> Vec<usize> {
        let k = self.tags;
        if len == 0 {
            return Vec::new();
        }
        let mut score: Vec<f32> = (0..k).map(|t| self.start[t] + emissions[t]).collect();
        let mut back = vec![0u32; len * k];
        let mut next = vec![0f32; k];
        for p in 1..len {
            for to in 0..k {
                let (mut best, mut arg) = (f32::NEG_INFINITY, 0);
                for &from in &self.before[to] {
                    let s = score[from] + self.transitions[from * k + to];
                    if s > best {
                        best = s;
                        arg = from;
                    }
                }
                next[to] = best + emissions[p * k + to];
                back[p * k + to] = arg as u32;
            }
            std::mem::swap(&mut score, &mut next);
        }
        let mut best = 0;
        for t in 1..k {
            if score[t] + self.end[t] > score[best] + self.end[best] {
                best = t;
            }
        }
        let mut path = vec![0usize; len];
        path[len - 1] = best;
        for p in (1..len).rev() {
            path[p - 1] = back[p * k + path[p]] as usize;
        }
        path
    }
}

/// Argmax of each row of a (rows × tags) matrix; for tests of Viterbi without transitions.
#[cfg(test)]
fn row_argmax(x: &[f32], k: usize) -> Vec<usize> {
    x.chunks(k)
        .map(|r| (0..k).fold(0, |b, i| if r[i] > r[b] { i } else { b }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, Var};

    /// log Z and the gold score by brute force over every path, for a check of the forward
    /// algorithm.
    fn brute_force_nll(e: &[f32], len: usize, k: usize, s: &CrfScores, gold: &[usize]) -> f64 {
        let score = |path: &[usize]| -> f64 {
            let mut v = (s.start[path[0]] + s.end[path[len - 1]]) as f64;
            for p in 0..len {
                v += e[p * k + path[p]] as f64;
                if p > 0 {
                    v += s.transitions[path[p - 1] * k + path[p]] as f64;
                }
            }
            v
        };
        let mut all = Vec::new();
        for code in 0..k.pow(len as u32) {
            let path: Vec<usize> = (0..len).map(|p| code / k.pow(p as u32) % k).collect();
            all.push(score(&path));
        }
        let m = all.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let log_z = m + all.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        log_z - score(gold)
    }

    #[test]
    fn forward_algorithm_matches_brute_force_with_padding() {
        let dev = Device::Cpu;
        let varmap = candle_nn::VarMap::new();
        let vb = crate::neural::init::seeded_var_builder(&varmap, 11, DType::F32, &dev);
        let k = 3;
        let crf = Crf::new(vb, k).unwrap();
        let w = 4;
        let e: Vec<f32> = (0..2 * w * k)
            .map(|i| ((i * 7 % 11) as f32 - 5.0) / 3.0)
            .collect();
        let emissions = Tensor::from_vec(e.clone(), (2, w, k), &dev).unwrap();
        let tags = vec![0, 2, 1, 1, 2, 0, 0, 0];
        let lengths = [4, 2];
        let nll = crf
            .neg_log_likelihood(&emissions, &tags, &lengths)
            .unwrap()
            .to_scalar::<f32>()
            .unwrap() as f64;
        let s = crf.scores().unwrap();
        let expected = (brute_force_nll(&e[..w * k], 4, k, &s, &tags[..4])
            + brute_force_nll(&e[w * k..w * k + 2 * k], 2, k, &s, &tags[4..6]))
            / 2.0;
        assert!((nll - expected).abs() < 1e-4, "{nll} vs {expected}");
    }

    #[test]
    fn viterbi_finds_the_best_path() {
        let dev = Device::Cpu;
        let varmap = candle_nn::VarMap::new();
        let vb = crate::neural::init::seeded_var_builder(&varmap, 5, DType::F32, &dev);
        let k = 3;
        let crf = Crf::new(vb, k).unwrap();
        let s = crf.scores().unwrap();
        let e: Vec<f32> = (0..5 * k)
            .map(|i| ((i * 5 % 7) as f32 - 3.0) / 2.0)
            .collect();
        let path = s.viterbi(&e, 5);
        // Compare with brute force: the path's score is the maximum over all paths.
        let score = |p: &[usize]| -> f32 {
            let mut v = s.start[p[0]] + s.end[p[4]];
            for i in 0..5 {
                v += e[i * k + p[i]];
                if i > 0 {
                    v += s.transitions[p[i - 1] * k + p[i]];
                }
            }
            v
        };
        let best = (0..k.pow(5))
            .map(|c| score(&(0..5).map(|p| c / k.pow(p as u32) % k).collect::<Vec<_>>()))
            .fold(f32::NEG_INFINITY, f32::max);
        assert!((score(&path) - best).abs() < 1e-5);
        // With zero transitions Viterbi is the per-token argmax.
        let zero = CrfScores {
            transitions: vec![0.0; k * k],
            start: vec![0.0; k],
            end: vec![0.0; k],
            tags: k,
            before: vec![(0..k).collect(); k],
        };
        assert_eq!(zero.viterbi(&e, 5), row_argmax(&e, k));
    }

    #[test]
    fn constrained_viterbi_gives_well_formed_bioes() {
        use crate::labels::{Category, Label, Subtype};
        let tagset = TagSet::new(vec![
            Label::new(Category::Name, Subtype::Patient),
            Label::new(Category::Date, Subtype::Date),
        ]);
        let k = tagset.len();
        let dev = Device::Cpu;
        let varmap = candle_nn::VarMap::new();
        let vb = crate::neural::init::seeded_var_builder(&varmap, 9, DType::F32, &dev);
        let crf = Crf::new(vb, k).unwrap();
        let mut s = crf.scores().unwrap();
        s.constrain(&tagset);
        for seed in 0..20usize {
            let len = 1 + seed % 7;
            // Emissions that favour I- and E- tags, which an unconstrained decoder would take.
            let e: Vec<f32> = (0..len * k)
                .map(|i| {
                    if matches!(i % k, 2 | 3 | 6 | 7) {
                        3.0
                    } else {
                        ((i * 31 + seed) % 13) as f32 / 13.0
                    }
                })
                .collect();
            let path = s.viterbi(&e, len);
            let mut prev = None;
            for &t in &path {
                assert!(tagset.allowed(prev, Some(t)), "{path:?}");
                prev = Some(t);
            }
            assert!(tagset.allowed(prev, None), "{path:?}");
        }
    }

    #[test]
    fn gradient_descent_on_the_nll_learns_a_fixed_tagging() {
        // Emissions as free variables: the NLL must fall when they are trained.
        let dev = Device::Cpu;
        let varmap = candle_nn::VarMap::new();
        let vb = crate::neural::init::seeded_var_builder(&varmap, 2, DType::F32, &dev);
        let crf = Crf::new(vb, 3).unwrap();
        let e = Var::zeros((1, 4, 3), DType::F32, &dev).unwrap();
        let tags = [1, 2, 0, 1];
        let first = crf
            .neg_log_likelihood(e.as_tensor(), &tags, &[4])
            .unwrap()
            .to_scalar::<f32>()
            .unwrap();
        for _ in 0..50 {
            let loss = crf.neg_log_likelihood(e.as_tensor(), &tags, &[4]).unwrap();
            let g = loss.backward().unwrap();
            let grad = g.get(e.as_tensor()).unwrap();
            e.set(&(e.as_tensor() - (grad * 0.5).unwrap()).unwrap())
                .unwrap();
        }
        let last = crf
            .neg_log_likelihood(e.as_tensor(), &tags, &[4])
            .unwrap()
            .to_scalar::<f32>()
            .unwrap();
        assert!(last < first / 10.0, "{first} -> {last}");
        let s = crf.scores().unwrap();
        let em: Vec<f32> = e.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(s.viterbi(&em, 4), tags);
    }
}
