//! `probe run`: top-k fill-mask predictions at each slot of a probe set (batched through
//! [`crate::mlm::fill::fill_mask`]), with recovery figures when the originals are given.

use super::error::ProbeError;
use super::recovery::{recover, Recovery, RecoverySettings};
use super::set::{ProbeSlot, SetKind};
use super::user_file::count_masks;
use crate::labels::{Category, Subtype};
use crate::mlm::fill::fill_mask;
use crate::mlm::runtime::MlmRuntime;
use serde::{Deserialize, Serialize};

/// One predicted token at a slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedPrediction {
    /// 1 = most probable.
    pub rank: usize,
    /// The vocabulary entry (`ĠJansen`, `##sen`).
    pub token: String,
    pub id: u32,
    /// The entry decoded as text, surrounding spaces (the word-boundary marker) stripped.
    pub text: String,
    pub prob: f32,
}

/// One line of the output of `probe run`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    pub slot_id: String,
    pub set: SetKind,
    /// The document of a probe-set slot; `null` for user sentences.
    pub doc_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<Subtype>,
    /// Top-k, most probable first.
    pub predictions: Vec<RankedPrediction>,
    /// Present when the slot's original is known (`--originals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
}

fn slot_error(slot: &ProbeSlot, msg: impl Into<String>) -> ProbeError {
    ProbeError::Slot {
        slot_id: slot.slot_id.clone(),
        msg: msg.into(),
    }
}

/// Predictions (and recoveries) for a chunk of slots. Every slot must hold exactly one mask
/// (`<mask>`, `[MASK]` or the model's own token) and fit the model; nothing is truncated.
pub fn predict_chunk(
    rt: &MlmRuntime,
    slots: &[ProbeSlot],
    top_k: usize,
    recovery: Option<&RecoverySettings>,
) -> Result<Vec<ProbeResult>, ProbeError> {
    let mask = rt.tokenizer.specials.mask_token.as_str();
    for slot in slots {
        match count_masks(&slot.text, Some(mask)) {
            1 => {}
            n => {
                return Err(slot_error(
                    slot,
                    format!("{n} masks, exactly one is expected"),
                ))
            }
        }
    }
    let texts: Vec<String> = slots.iter().map(|s| s.text.clone()).collect();
    let fills = fill_mask(rt, &texts, top_k).map_err(|e| match e.input_index() {
        Some(i) if i < slots.len() => slot_error(&slots[i], e.to_string()),
        _ => ProbeError::Infer(e),
    })?;
    let mut out = Vec::with_capacity(slots.len());
    for (slot, masks) in slots.iter().zip(fills) {
        // The text holds one mask token; a tokenizer could still split it oddly.
        let [fill] = masks.as_slice() else {
            return Err(slot_error(
                slot,
                format!(
                    "{} mask positions after tokenizing, exactly one is expected",
                    masks.len()
                ),
            ));
        };
        let predictions: Vec<RankedPrediction> = fill
            .predictions
            .iter()
            .enumerate()
            .map(|(i, p)| RankedPrediction {
                rank: i + 1,
                token: p.token.clone(),
                id: p.id,
                text: p.text.trim().to_string(),
                prob: p.prob,
            })
            .collect();
        let recovery = match recovery {
            Some(settings) => recover(rt, slot, &predictions, settings)?,
            None => None,
        };
        out.push(ProbeResult {
            slot_id: slot.slot_id.clone(),
            set: slot.set,
            doc_id: slot.doc_id.clone(),
            label: slot.label,
            subtype: slot.subtype,
            predictions,
            recovery,
        });
    }
    Ok(out)
}
