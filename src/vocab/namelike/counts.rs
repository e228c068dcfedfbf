//! How often each vocabulary entry occurs inside names replaced by de-identification and how
//! often elsewhere, counted by tokenizing the original corpus with the model's own tokenizer.

use crate::tokenizer::{ModelTokenizer, TokenizerError};

/// Occurrences of one token.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenCounts {
    pub in_names: u64,
    pub elsewhere: u64,
}

/// Counts per token id, with totals.
#[derive(Debug, Clone, Default)]
pub struct InNameCounts {
    per_id: Vec<TokenCounts>,
    pub total_in_names: u64,
    pub total_elsewhere: u64,
    pub documents: usize,
}

impl InNameCounts {
    /// Tokenizes each `(text, name byte ranges)` and counts every non-special token inside a
    /// range (any overlap) or outside. Errors name the document by index.
    pub fn count<'a>(
        tokenizer: &ModelTokenizer,
        docs: impl IntoIterator<Item = (&'a str, &'a [(usize, usize)])>,
    ) -> Result<Self, (usize, TokenizerError)> {
        let mut out = InNameCounts {
            per_id: vec![TokenCounts::default(); tokenizer.vocab_size()],
            ..Default::default()
        };
        let specials = tokenizer.special_ids();
        for (index, (text, ranges)) in docs.into_iter().enumerate() {
            let enc = tokenizer
                .inner
                .encode(text, false)
                .map_err(|e| (index, TokenizerError::Tokenizers(e.to_string())))?;
            for (&id, &(s, e)) in enc.get_ids().iter().zip(enc.get_offsets()) {
                if specials.binary_search(&id).is_ok() || e <= s {
                    continue;
                }
                let inside = ranges.iter().any(|&(a, b)| s < b && a < e);
                let slot = &mut out.per_id[id as usize];
                if inside {
                    slot.in_names += 1;
                    out.total_in_names += 1;
                } else {
                    slot.elsewhere += 1;
                    out.total_elsewhere += 1;
                }
            }
            out.documents += 1;
        }
        Ok(out)
    }

    pub fn get(&self, id: u32) -> TokenCounts {
        self.per_id.get(id as usize).copied().unwrap_or_default()
    }

    /// Log of how much more frequent the token is inside names than elsewhere (relative
    /// frequencies, add-½ smoothed over the vocabulary), clipped to ±4 nats.
    pub fn log_ratio(&self, id: u32) -> f64 {
        let c = self.get(id);
        let v = self.per_id.len().max(1) as f64;
        let inside = (c.in_names as f64 + 0.5) / (self.total_in_names as f64 + 0.5 * v);
        let outside = (c.elsewhere as f64 + 0.5) / (self.total_elsewhere as f64 + 0.5 * v);
        (inside / outside).ln().clamp(-4.0, 4.0)
    }
}
