//! Dynamic masking: turns packed blocks into a [`MaskedBatch`] (15% of maskable positions
//! chosen per sequence; 80% → mask id, 10% → random ordinary id, 10% unchanged).
//!
//! Every sequence draws from its own ChaCha8 stream keyed by (seed, step, slot), where the slot
//! is the sequence's position within the optimizer step across all its micro-batches. A resumed
//! run therefore reproduces the masks exactly, and splitting a batch into micro-batches for
//! gradient accumulation does not change them.

use candle_core::{Device, Tensor};
use rand::seq::index;
use rand::Rng;

use super::data::{Block, PackSpec};
use super::seeds::{self, Purpose};

/// Label of positions that carry no loss.
pub const IGNORE_INDEX: i64 = -100;

/// Masking probabilities.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MaskingParams {
    /// Fraction of maskable positions chosen per sequence (BERT: 0.15).
    pub mask_prob: f64,
    /// Of the chosen, the fraction replaced by the mask id (0.8).
    pub replace_mask: f64,
    /// Of the chosen, the fraction replaced by a random ordinary id (0.1); the rest is kept.
    pub replace_random: f64,
}

impl Default for MaskingParams {
    fn default() -> Self {
        MaskingParams {
            mask_prob: 0.15,
            replace_mask: 0.8,
            replace_random: 0.1,
        }
    }
}

/// One masked (micro-)batch on the model's device.
#[derive(Debug, Clone)]
pub struct MaskedBatch {
    /// u32 [batch, seq]: ids after masking.
    pub input_ids: Tensor,
    /// u32 [batch, seq]: 1 for real tokens, 0 for padding.
    pub attention_mask: Tensor,
    /// i64 [batch, seq]: original id at chosen positions, -100 elsewhere.
    pub labels: Tensor,
    /// Real (non-padding) tokens in the batch.
    pub n_tokens: usize,
    /// Positions carrying a label.
    pub n_masked: usize,
}

/// Where the random streams of a batch come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaskKey {
    pub purpose: Purpose,
    pub seed: u64,
    pub step: u64,
    /// Slot of the batch's first sequence within the step.
    pub first_slot: u64,
}

/// Masks one sequence in place: returns labels (same length) and the number chosen.
pub fn mask_sequence<R: Rng>(
    ids: &mut [u32],
    len: usize,
    spec: &PackSpec,
    ordinary: &[u32],
    params: &MaskingParams,
    rng: &mut R,
) -> (Vec<i64>, usize) {
    let mut labels = vec![IGNORE_INDEX; ids.len()];
    let maskable: Vec<usize> = (0..len.min(ids.len()))
        .filter(|&i| !spec.is_special(ids[i]))
        .collect();
    if maskable.is_empty() {
        return (labels, 0);
    }
    let n = ((params.mask_prob * maskable.len() as f64).round() as usize).clamp(1, maskable.len());
    let mut chosen: Vec<usize> = index::sample(rng, maskable.len(), n)
        .into_iter()
        .map(|k| maskable[k])
        .collect();
    chosen.sort_unstable();
    for &pos in &chosen {
        labels[pos] = ids[pos] as i64;
        let r: f64 = rng.gen();
        if r < params.replace_mask {
            ids[pos] = spec.mask;
        } else if r < params.replace_mask + params.replace_random {
            ids[pos] = ordinary[rng.gen_range(0..ordinary.len())];
        }
    }
    (labels, n)
}

/// Masks `blocks` (all of the same length) into a batch on `device`; sequence `i` uses the
/// stream keyed by (seed, step, first_slot + i).
pub fn mask_batch(
    blocks: &[&Block],
    spec: &PackSpec,
    ordinary: &[u32],
    params: &MaskingParams,
    key: MaskKey,
    device: &Device,
) -> candle_core::Result<MaskedBatch> {
    let b = blocks.len();
    let t = blocks.first().map(|x| x.ids.len()).unwrap_or(0);
    let mut ids = Vec::with_capacity(b * t);
    let mut att = Vec::with_capacity(b * t);
    let mut labels = Vec::with_capacity(b * t);
    let (mut n_tokens, mut n_masked) = (0, 0);
    for (i, block) in blocks.iter().enumerate() {
        if block.ids.len() != t {
            candle_core::bail!("blocks of unequal length {} and {t}", block.ids.len());
        }
        let mut rng = seeds::rng(
            key.purpose,
            &[key.seed, key.step, key.first_slot + i as u64],
        );
        let mut seq = block.ids.clone();
        let (lab, n) = mask_sequence(&mut seq, block.len, spec, ordinary, params, &mut rng);
        ids.extend(seq);
        att.extend((0..t).map(|j| u32::from(j < block.len)));
        labels.extend(lab);
        n_tokens += block.len;
        n_masked += n;
    }
    Ok(MaskedBatch {
        input_ids: Tensor::from_vec(ids, (b, t), device)?,
        attention_mask: Tensor::from_vec(att, (b, t), device)?,
        labels: Tensor::from_vec(labels, (b, t), device)?,
        n_tokens,
        n_masked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PackSpec {
        PackSpec {
            cls: 1,
            sep: 2,
            pad: 0,
            mask: 3,
            vocab_size: 1000,
            special_ids: vec![4],
        }
        .normalized()
        .unwrap()
    }

    fn block(seed: u64, len: usize, t: usize) -> Block {
        let mut ids = vec![1u32];
        let mut rng = seeds::rng(Purpose::Shuffle, &[seed]);
        while ids.len() + 1 < len {
            // Ordinary ids with a sprinkling of the special id 4 inside the text.
            ids.push(if rng.gen_bool(0.05) {
                4
            } else {
                rng.gen_range(5..1000)
            });
        }
        ids.push(2);
        ids.resize(t, 0);
        Block { ids, len }
    }

    #[test]
    fn ratios_hold_on_a_large_sample_and_specials_stay() {
        let spec = spec();
        let ordinary = spec.ordinary_ids();
        let blocks: Vec<Block> = (0..400)
            .map(|i| block(i, 40 + (i as usize % 89), 128))
            .collect();
        let refs: Vec<&Block> = blocks.iter().collect();
        let key = MaskKey {
            purpose: Purpose::Mask,
            seed: 9,
            step: 1,
            first_slot: 0,
        };
        let p = MaskingParams::default();
        let batch = mask_batch(&refs, &spec, &ordinary, &p, key, &Device::Cpu).unwrap();
        let ids = batch.input_ids.to_vec2::<u32>().unwrap();
        let labels = batch.labels.to_vec2::<i64>().unwrap();
        let att = batch.attention_mask.to_vec2::<u32>().unwrap();
        let (mut maskable, mut chosen, mut to_mask, mut to_random, mut kept) = (0, 0, 0, 0, 0);
        for (r, blk) in blocks.iter().enumerate() {
            let m = blk.ids[..blk.len]
                .iter()
                .filter(|&&x| !spec.is_special(x))
                .count();
            let c = labels[r].iter().filter(|&&l| l != IGNORE_INDEX).count();
            assert_eq!(c, ((0.15 * m as f64).round() as usize).max(1));
            maskable += m;
            chosen += c;
            for j in 0..128 {
                assert_eq!(att[r][j], u32::from(j < blk.len));
                if labels[r][j] == IGNORE_INDEX {
                    assert_eq!(ids[r][j], blk.ids[j], "unchosen positions are unchanged");
                    continue;
                }
                assert!(
                    !spec.is_special(blk.ids[j]),
                    "specials and padding never chosen"
                );
                assert_eq!(labels[r][j], blk.ids[j] as i64);
                if ids[r][j] == 3 {
                    to_mask += 1;
                } else if ids[r][j] == blk.ids[j] {
                    kept += 1;
                } else {
                    assert!(!spec.is_special(ids[r][j]), "random ids are ordinary");
                    to_random += 1;
                }
            }
        }
        assert_eq!(batch.n_masked, chosen);
        assert_eq!(batch.n_tokens, blocks.iter().map(|b| b.len).sum::<usize>());
        let frac = chosen as f64 / maskable as f64;
        assert!((frac - 0.15).abs() < 0.01, "{frac}");
        let c = chosen as f64;
        assert!(chosen > 4000, "{chosen}");
        assert!(
            (to_mask as f64 / c - 0.8).abs() < 0.02,
            "{to_mask}/{chosen}"
        );
        // A random draw equals the original id with probability 1/995: counted as kept.
        assert!(
            (to_random as f64 / c - 0.1).abs() < 0.015,
            "{to_random}/{chosen}"
        );
        assert!((kept as f64 / c - 0.1).abs() < 0.015, "{kept}/{chosen}");
    }

    #[test]
    fn masks_are_deterministic_per_slot_and_at_least_one() {
        let spec = spec();
        let ordinary = spec.ordinary_ids();
        let blocks: Vec<Block> = (0..4).map(|i| block(i, 30, 32)).collect();
        let refs: Vec<&Block> = blocks.iter().collect();
        let p = MaskingParams::default();
        let key = |first_slot, seed| MaskKey {
            purpose: Purpose::Mask,
            seed,
            step: 5,
            first_slot,
        };
        let whole = mask_batch(&refs, &spec, &ordinary, &p, key(0, 1), &Device::Cpu).unwrap();
        let again = mask_batch(&refs, &spec, &ordinary, &p, key(0, 1), &Device::Cpu).unwrap();
        let w = whole.input_ids.to_vec2::<u32>().unwrap();
        assert_eq!(w, again.input_ids.to_vec2::<u32>().unwrap());
        // Two micro-batches of two give the same rows as one batch of four.
        let second = mask_batch(&refs[2..], &spec, &ordinary, &p, key(2, 1), &Device::Cpu).unwrap();
        assert_eq!(&w[2..], &second.input_ids.to_vec2::<u32>().unwrap()[..]);
        let other = mask_batch(&refs, &spec, &ordinary, &p, key(0, 2), &Device::Cpu).unwrap();
        assert_ne!(w, other.input_ids.to_vec2::<u32>().unwrap());
        // A short sequence with one maskable token still gets one label; all-special none.
        let short = Block {
            ids: vec![1, 77, 2, 0],
            len: 3,
        };
        let empty = Block {
            ids: vec![1, 2, 0, 0],
            len: 2,
        };
        let b = mask_batch(
            &[&short, &empty],
            &spec,
            &ordinary,
            &p,
            key(0, 1),
            &Device::Cpu,
        )
        .unwrap();
        let labels = b.labels.to_vec2::<i64>().unwrap();
        assert_eq!(labels[0], vec![-100, 77, -100, -100]);
        assert_eq!(labels[1], vec![-100; 4]);
        assert_eq!(b.n_masked, 1);
    }
}
