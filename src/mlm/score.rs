//! Sentence scores for the probe and audit stages: masked-token loss under a fixed masking seed,
//! pseudo-log-likelihood (each position masked in turn, many masked copies per forward pass),
//! and the log-probability of candidate strings at a slot.

use crate::mlm::fill::normalize_masks;
use crate::mlm::runtime::{InferError, MlmRuntime};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Mean negative log-likelihood of the masked tokens of one sentence.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct MaskedLoss {
    pub loss: f64,
    pub n_masked: usize,
}

/// Pseudo-log-likelihood of one sentence: the sum over its tokens of log P(token | the rest).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct PseudoLogLikelihood {
    pub pll: f64,
    pub n_tokens: usize,
}

/// Scores of one candidate string at the mask of a template.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CandidateScore {
    pub candidate_index: usize,
    /// Token pieces the candidate takes in the filled sentence.
    pub n_pieces: usize,
    /// Sum over the pieces of log P(piece | sentence with that piece masked) (PLL of the slot).
    pub pll: f64,
    /// Sum over the pieces of log P(piece) with all pieces masked together.
    pub log_prob_all_masked: f64,
}

/// Token positions a score may mask: everything but special tokens (`specials` sorted).
fn maskable(specials: &[u32], ids: &[u32]) -> Vec<usize> {
    (0..ids.len())
        .filter(|&p| specials.binary_search(&ids[p]).is_err())
        .collect()
}

/// The masking RNG of one sentence: from the seed and the sentence text only, so a sentence
/// gets the same masks whatever batch or order it comes in.
fn sentence_rng(seed: u64, text: &str) -> ChaCha8Rng {
    let digest = Sha256::new()
        .chain_update(seed.to_le_bytes())
        .chain_update(text.as_bytes())
        .finalize();
    let mut key = [0u8; 32];
    key.copy_from_slice(&digest);
    ChaCha8Rng::from_seed(key)
}

/// Masked-token loss per sentence: `mask_prob` of its tokens (at least one) masked at once,
/// chosen from `seed` and the sentence, mean NLL of the originals. Empty sentences score NaN
/// with `n_masked` 0.
pub fn masked_token_loss(
    rt: &MlmRuntime,
    sentences: &[&str],
    seed: u64,
    mask_prob: f64,
) -> Result<Vec<MaskedLoss>, InferError> {
    let mask_id = rt.tokenizer.specials.mask;
    let specials = rt.tokenizer.special_ids();
    let mut rows = Vec::with_capacity(sentences.len());
    let mut wanted = Vec::new();
    let mut targets = Vec::new();
    for (index, text) in sentences.iter().enumerate() {
        let (mut ids, _) = rt.encode(index, text)?;
        let candidates = maskable(&specials, &ids);
        if !candidates.is_empty() {
            let n =
                ((candidates.len() as f64 * mask_prob).round() as usize).clamp(1, candidates.len());
            let mut chosen: Vec<usize> = sample(&mut sentence_rng(seed, text), candidates.len(), n)
                .into_iter()
                .map(|i| candidates[i])
                .collect();
            chosen.sort_unstable();
            for p in chosen {
                targets.push(ids[p]);
                ids[p] = mask_id;
                wanted.push((index, p));
            }
        }
        rows.push(ids);
    }
    let mut sums = vec![(0.0f64, 0usize); sentences.len()];
    rt.visit_log_probs(&rows, &wanted, |k, log_probs| {
        let entry = &mut sums[wanted[k].0];
        entry.0 -= f64::from(log_probs[targets[k] as usize]);
        entry.1 += 1;
    })?;
    Ok(sums
        .into_iter()
        .map(|(nll, n)| MaskedLoss {
            loss: if n == 0 { f64::NAN } else { nll / n as f64 },
            n_masked: n,
        })
        .collect())
}

/// Pseudo-log-likelihood of each sentence (Salazar et al. 2020): every non-special token masked
/// in turn; the masked copies of all sentences are batched together.
pub fn pseudo_log_likelihood(
    rt: &MlmRuntime,
    sentences: &[&str],
) -> Result<Vec<PseudoLogLikelihood>, InferError> {
    let specials = rt.tokenizer.special_ids();
    let mut rows = Vec::new();
    let mut wanted = Vec::new();
    let mut owner = Vec::new();
    let mut targets = Vec::new();
    for (index, text) in sentences.iter().enumerate() {
        let (ids, _) = rt.encode(index, text)?;
        for p in maskable(&specials, &ids) {
            let mut copy = ids.clone();
            targets.push(copy[p]);
            copy[p] = rt.tokenizer.specials.mask;
            wanted.push((rows.len(), p));
            owner.push(index);
            rows.push(copy);
        }
    }
    let mut out = vec![
        PseudoLogLikelihood {
            pll: 0.0,
            n_tokens: 0
        };
        sentences.len()
    ];
    rt.visit_log_probs(&rows, &wanted, |k, log_probs| {
        let entry = &mut out[owner[k]];
        entry.pll += f64::from(log_probs[targets[k] as usize]);
        entry.n_tokens += 1;
    })?;
    Ok(out)
}

/// Token ids of `before candidate after` (with specials) and the positions of the candidate's
/// pieces, found by offsets (so multi-piece candidates and leading spaces come out right).
fn slot_pieces(
    rt: &MlmRuntime,
    specials: &[u32],
    index: usize,
    before: &str,
    candidate: &str,
    after: &str,
) -> Result<(Vec<u32>, Vec<usize>), InferError> {
    let filled = format!("{before}{candidate}{after}");
    let (ids, offsets) = rt.encode(index, &filled)?;
    let (start, end) = (before.len(), before.len() + candidate.len());
    let pieces: Vec<usize> = (0..ids.len())
        .filter(|&p| offsets[p].0 < end && offsets[p].1 > start && offsets[p].1 > offsets[p].0)
        .filter(|&p| specials.binary_search(&ids[p]).is_err())
        .collect();
    if pieces.is_empty() {
        return Err(InferError::Input {
            index,
            msg: "candidate encodes to no tokens".into(),
        });
    }
    Ok((ids, pieces))
}

/// Pseudo-log-likelihood of the slot only, for each candidate written between `before` and
/// `after`: each of the candidate's pieces masked in turn with the rest of the sentence
/// visible, log-probabilities summed (`n_tokens`: the pieces). One masked copy per piece,
/// `batch_rows` copies per forward pass; nothing else of the sentence is scored.
pub fn slot_pseudo_log_likelihood(
    rt: &MlmRuntime,
    before: &str,
    after: &str,
    candidates: &[&str],
    batch_rows: usize,
) -> Result<Vec<PseudoLogLikelihood>, InferError> {
    let mask_id = rt.tokenizer.specials.mask;
    let specials = rt.tokenizer.special_ids();
    let mut rows = Vec::new();
    let mut wanted = Vec::new();
    let mut owner = Vec::new();
    let mut targets = Vec::new();
    for (index, candidate) in candidates.iter().enumerate() {
        let (ids, pieces) = slot_pieces(rt, &specials, index, before, candidate, after)?;
        for p in pieces {
            let mut copy = ids.clone();
            targets.push(copy[p]);
            copy[p] = mask_id;
            wanted.push((rows.len(), p));
            owner.push(index);
            rows.push(copy);
        }
    }
    let mut out = vec![
        PseudoLogLikelihood {
            pll: 0.0,
            n_tokens: 0
        };
        candidates.len()
    ];
    crate::mlm::runtime::visit_log_probs(
        &rt.model,
        rt.tokenizer.specials.pad,
        batch_rows,
        &rows,
        &wanted,
        |k, log_probs| {
            let entry = &mut out[owner[k]];
            entry.pll += f64::from(log_probs[targets[k] as usize]);
            entry.n_tokens += 1;
        },
    )?;
    Ok(out)
}

/// Scores each candidate string at the single mask of `template` (`<mask>`, `[MASK]` or the
/// model's own token). The candidate is written into the text and its pieces found by offsets,
/// so multi-piece candidates and byte-level BPE's leading spaces come out right.
pub fn candidate_scores(
    rt: &MlmRuntime,
    template: &str,
    candidates: &[&str],
) -> Result<Vec<CandidateScore>, InferError> {
    let mask_token = rt.tokenizer.specials.mask_token.clone();
    let normalized = normalize_masks(template, &mask_token);
    let mut found = normalized.match_indices(&mask_token);
    let slot = match (found.next(), found.next()) {
        (Some((at, _)), None) => at,
        (None, _) => {
            return Err(InferError::NoMask {
                index: 0,
                mask: mask_token,
            })
        }
        (Some(_), Some(_)) => {
            return Err(InferError::Input {
                index: 0,
                msg: "template holds more than one mask".into(),
            })
        }
    };
    let (before, after) = (&normalized[..slot], &normalized[slot + mask_token.len()..]);
    let mask_id = rt.tokenizer.specials.mask;
    let specials = rt.tokenizer.special_ids();
    let mut rows = Vec::new();
    let mut wanted = Vec::new();
    let mut owner = Vec::new();
    let mut targets = Vec::new();
    let mut n_pieces = Vec::with_capacity(candidates.len());
    for (index, candidate) in candidates.iter().enumerate() {
        let (ids, pieces) = slot_pieces(rt, &specials, index, before, candidate, after)?;
        n_pieces.push(pieces.len());
        // One copy per piece (its PLL term) and one copy with all pieces masked.
        let mut all_masked = ids.clone();
        for &p in &pieces {
            let mut copy = ids.clone();
            copy[p] = mask_id;
            all_masked[p] = mask_id;
            wanted.push((rows.len(), p));
            owner.push((index, false));
            targets.push(ids[p]);
            rows.push(copy);
        }
        let all_row = rows.len();
        rows.push(all_masked);
        for &p in &pieces {
            wanted.push((all_row, p));
            owner.push((index, true));
            targets.push(ids[p]);
        }
    }
    let mut out: Vec<CandidateScore> = n_pieces
        .iter()
        .enumerate()
        .map(|(candidate_index, &n)| CandidateScore {
            candidate_index,
            n_pieces: n,
            pll: 0.0,
            log_prob_all_masked: 0.0,
        })
        .collect();
    rt.visit_log_probs(&rows, &wanted, |k, log_probs| {
        let (index, all) = owner[k];
        let lp = f64::from(log_probs[targets[k] as usize]);
        if all {
            out[index].log_prob_all_masked += lp;
        } else {
            out[index].pll += lp;
        }
    })?;
    Ok(out)
}
