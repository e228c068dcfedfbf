//! Rule hits as a tagger input: the built-in recognizers' spans over a text, as one feature id
//! per token (none, or the first or a later token of a span with a given label). The rules are
//! precise on structured identifiers and list words; the model learns when to trust them and
//! where their extents end.

use crate::error::{StageContext, StageResult as Result};
use crate::labels::{Category, Label, Subtype};
use crate::lang::{Lang, LangChoice};
use crate::recognize::build::build_pipeline;
use crate::recognize::Pipeline;
use crate::text::Tok;
use crate::wordlists::ListSources;

/// Subtype slots per category: every subtype, plus one for a label without subtype.
const SLOTS: usize = Subtype::ALL.len() + 1;

/// Number of feature ids: 0 (no rule hit), then a first-token and a later-token id per label.
pub const RULE_FEATURES: usize = 1 + 2 * Category::ALL.len() * SLOTS;

fn label_index(l: Label) -> usize {
    let c = Category::ALL
        .iter()
        .position(|&c| c == l.category)
        .expect("every category is listed");
    let s = l
        .subtype
        .and_then(|s| Subtype::ALL.iter().position(|&t| t == s))
        .unwrap_or(SLOTS - 1);
    c * SLOTS + s
}

/// The built-in recognizers, language detected per document (as `recognize --lang auto`).
pub struct RuleFeatures {
    pipeline: Pipeline,
}

impl RuleFeatures {
    /// Fails closed: if a built-in list cannot load, there is no tagger.
    pub fn new() -> Result<Self> {
        let pipeline = build_pipeline(LangChoice::Auto, Lang::En, &ListSources::default())
            .stage_context("building the recognizers whose hits the tagger reads")?;
        Ok(RuleFeatures { pipeline })
    }

    /// One feature id per token of `text`.
    pub fn token_features(&self, text: &str, tokens: &[Tok]) -> Vec<u32> {
        let (_, mut spans) = self.pipeline.recognize(text);
        spans.sort_by_key(|e| (e.start, e.end));
        let mut out = vec![0u32; tokens.len()];
        let mut first = 0;
        for e in &spans {
            // Tokens are sorted; skip those ending before the span.
            while first < tokens.len() && tokens[first].1 <= e.start {
                first += 1;
            }
            let base = 1 + 2 * label_index(e.label) as u32;
            let mut t = first;
            let mut inside = false;
            while t < tokens.len() && tokens[t].0 < e.end {
                if out[t] == 0 {
                    out[t] = base + u32::from(inside);
                }
                inside = true;
                t += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tokenize;

    #[test]
    fn rule_hits_become_first_and_later_token_ids() {
        let rules = RuleFeatures::new().unwrap();
        let text = "Correo: ana.ruiz@example.com. Fecha de ingreso: 12/03/2019.";
        let tokens = tokenize(text);
        let f = rules.token_features(text, &tokens);
        let at = |word: &str| {
            let i = tokens
                .iter()
                .position(|&(s, e)| &text[s..e] == word)
                .unwrap();
            f[i]
        };
        assert_eq!(at("Correo"), 0);
        assert_eq!(at("Fecha"), 0);
        let (ana, date) = (at("ana"), at("12"));
        assert!(ana > 0 && date > 0 && ana != date, "{ana} {date}");
        assert_eq!(ana % 2, 1, "a span's first token has the first-token id");
        assert_eq!(at("ruiz"), ana + 1);
        assert_eq!(at("2019"), date + 1);
        assert!(f.iter().all(|&v| (v as usize) < RULE_FEATURES));
    }
}
