//! Fill-mask: the top-k tokens, with probabilities, at each mask of a sentence.

use crate::mlm::runtime::{InferError, MlmRuntime};
use serde::Serialize;

/// One predicted token at a mask.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Prediction {
    /// The vocabulary entry (`ĠJansen`, `##sen`).
    pub token: String,
    /// The entry decoded as text (` Jansen`, `sen`).
    pub text: String,
    pub id: u32,
    pub prob: f32,
}

/// The predictions at one mask of an input.
#[derive(Debug, Clone, Serialize)]
pub struct MaskFill {
    /// Token position of the mask (specials included).
    pub position: usize,
    pub predictions: Vec<Prediction>,
}

/// Rewrites `<mask>` and `[MASK]` into the model's own mask token, so either spelling works
/// with any model.
pub fn normalize_masks(text: &str, mask_token: &str) -> String {
    let mut out = text.to_string();
    for alias in ["<mask>", "[MASK]"] {
        if alias != mask_token {
            out = out.replace(alias, mask_token);
        }
    }
    out
}

/// Top-`k` predictions at every mask of each text (batched over all masks of all texts).
/// A text without a mask is an error naming its index.
pub fn fill_mask(
    rt: &MlmRuntime,
    texts: &[String],
    top_k: usize,
) -> Result<Vec<Vec<MaskFill>>, InferError> {
    let mask_id = rt.tokenizer.specials.mask;
    let mut rows = Vec::with_capacity(texts.len());
    let mut wanted = Vec::new();
    for (index, text) in texts.iter().enumerate() {
        let normalized = normalize_masks(text, &rt.tokenizer.specials.mask_token);
        let (ids, _) = rt.encode(index, &normalized)?;
        let before = wanted.len();
        wanted.extend(
            ids.iter()
                .enumerate()
                .filter(|(_, &id)| id == mask_id)
                .map(|(p, _)| (index, p)),
        );
        if wanted.len() == before {
            return Err(InferError::NoMask {
                index,
                mask: rt.tokenizer.specials.mask_token.clone(),
            });
        }
        rows.push(ids);
    }
    let mut out: Vec<Vec<MaskFill>> = vec![Vec::new(); texts.len()];
    let mut fills: Vec<Option<Vec<(u32, f32)>>> = vec![None; wanted.len()];
    rt.visit_log_probs(&rows, &wanted, |k, log_probs| {
        fills[k] = Some(top_k_of(log_probs, top_k))
    })?;
    for (k, fill) in fills.into_iter().enumerate() {
        let (index, position) = wanted[k];
        let mut predictions = Vec::new();
        for (id, log_prob) in fill.unwrap_or_default() {
            predictions.push(Prediction {
                token: rt.tokenizer.inner.id_to_token(id).unwrap_or_default(),
                text: rt
                    .tokenizer
                    .inner
                    .decode(&[id], false)
                    .map_err(|e| InferError::Tokenizer(e.to_string()))?,
                id,
                prob: log_prob.exp(),
            });
        }
        out[index].push(MaskFill {
            position,
            predictions,
        });
    }
    Ok(out)
}

/// The `k` largest entries (id, value), largest first; ties broken by the smaller id.
pub fn top_k_of(values: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut ids: Vec<u32> = (0..values.len() as u32).collect();
    let k = k.min(ids.len());
    let order = |a: &u32, b: &u32| {
        values[*b as usize]
            .total_cmp(&values[*a as usize])
            .then(a.cmp(b))
    };
    if k < ids.len() {
        ids.select_nth_unstable_by(k, order);
        ids.truncate(k);
    }
    ids.sort_by(order);
    ids.into_iter()
        .map(|id| (id, values[id as usize]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_in_either_spelling_become_the_models_own() {
        assert_eq!(
            normalize_masks("a [MASK] b <mask>", "<mask>"),
            "a <mask> b <mask>"
        );
        assert_eq!(
            normalize_masks("a [MASK] b <mask>", "[MASK]"),
            "a [MASK] b [MASK]"
        );
    }

    #[test]
    fn top_k_is_sorted_and_breaks_ties_by_id() {
        let v = [0.1, 0.5, 0.5, -1.0, 0.9];
        assert_eq!(top_k_of(&v, 3), vec![(4, 0.9), (1, 0.5), (2, 0.5)]);
        assert_eq!(top_k_of(&v, 10).len(), 5);
    }
}
