//! Rule hits and list words as tagger inputs: the built-in recognizers' spans over a text, as
//! one feature id per token (none, or the first or a later token of a span with a given label),
//! and which of the language's word lists hold each token (case ignored). The rules are precise
//! on structured identifiers and capitalized list words; the model learns when to trust them,
//! where their extents end, and what a listed name written in lower case or capitals is.

use crate::error::{StageResult as Result, ValueError};
use crate::labels::{Category, Label, Subtype};
use crate::lang::{Lang, LangChoice};
use crate::recognize::build::build_lang;
use crate::recognize::Pipeline;
use crate::text::Tok;
use crate::wordlists::ListSources;
use std::sync::OnceLock;

pub use crate::recognize::lookup::WORD_LIST_FEATURES as LIST_FEATURES;

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

/// A token's inputs from the built-in recognizers: its rule-hit id (`0..RULE_FEATURES`) and its
/// list id (`0..LIST_FEATURES`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenFeatures {
    pub rule: u32,
    pub list: u32,
}

/// The built-in rules of each language as a pipeline of its own, made the first time a text of
/// that language needs its features and then shared by every tagger of the process (five
/// `--models` taggers each built all five languages at load before, 1.3-2.0 s of start-up). Its
/// parts are those of the run's own pipeline when that has no `--lists` (`build_lang`).
static BUILT: [OnceLock<std::result::Result<Pipeline, String>>; Lang::ALL.len()] =
    [const { OnceLock::new() }; Lang::ALL.len()];

/// The built-in rules of `lang` (fails closed: a built-in list that cannot load is an error on
/// every text of that language).
fn rules_of(lang: Lang) -> Result<&'static Pipeline> {
    BUILT[lang.index()]
        .get_or_init(|| {
            build_lang(lang, &ListSources::default())
                .map(|lp| Pipeline::new(LangChoice::Fixed(lang), lang, vec![lp]))
                .map_err(|e| format!("building the recognizers whose hits the tagger reads: {e}"))
        })
        .as_ref()
        .map_err(|e| ValueError::new(e.clone()).into())
}

/// The built-in recognizers, language detected per document (as `recognize --lang auto`),
/// whose word lists also give the list ids.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleFeatures;

impl RuleFeatures {
    /// One rule-hit and list id per token of `text`, the lists of the language detected for it.
    pub fn token_features(&self, text: &str, tokens: &[Tok]) -> Result<Vec<TokenFeatures>> {
        let lang = LangChoice::Auto.resolve(text, Lang::En);
        let pipeline = rules_of(lang)?;
        let mut spans = pipeline.recognize_as(text, lang);
        spans.sort_by_key(|e| (e.start, e.end));
        let lookup = &pipeline.for_lang(lang).lookup;
        let mut buf = String::new();
        let mut out: Vec<TokenFeatures> = tokens
            .iter()
            .map(|&(s, e)| TokenFeatures {
                rule: 0,
                list: lookup.word_lists(&text[s..e], &mut buf),
            })
            .collect();
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
                if out[t].rule == 0 {
                    out[t].rule = base + u32::from(inside);
                }
                inside = true;
                t += 1;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tokenize;

    /// The features of every token of `text`, and a look-up of those of its token `word`.
    fn features_of(text: &str) -> (Vec<TokenFeatures>, impl Fn(&str) -> TokenFeatures + '_) {
        let tokens = tokenize(text);
        let f = RuleFeatures.token_features(text, &tokens).unwrap();
        let all = f.clone();
        let at = move |word: &str| {
            let i = tokens
                .iter()
                .position(|&(s, e)| &text[s..e] == word)
                .unwrap();
            f[i]
        };
        (all, at)
    }

    #[test]
    fn rule_hits_become_first_and_later_token_ids() {
        let (f, features) =
            features_of("Correo: ana.ruiz@example.com. Fecha de ingreso: 12/03/2019.");
        let at = |word: &str| features(word).rule;
        assert_eq!(at("Correo"), 0);
        assert_eq!(at("Fecha"), 0);
        let (ana, date) = (at("ana"), at("12"));
        assert!(ana > 0 && date > 0 && ana != date, "{ana} {date}");
        assert_eq!(ana % 2, 1, "a span's first token has the first-token id");
        assert_eq!(at("ruiz"), ana + 1);
        assert_eq!(at("2019"), date + 1);
        assert!(f.iter().all(|v| (v.rule as usize) < RULE_FEATURES));
    }

    #[test]
    fn list_ids_say_which_lists_hold_a_word_in_any_case() {
        let (f, features) = features_of("i told ryan and the nurse about LONDON and Ryan");
        let at = |word: &str| features(word).list;
        assert_eq!(at("ryan") & 1, 1, "a listed first name in lower case");
        assert_eq!(at("ryan"), at("Ryan"), "case is the shape's business");
        assert_eq!(at("LONDON") & 4, 4, "a listed place in capitals");
        assert_eq!(at("the"), 0);
        assert_eq!(at("nurse"), 0);
        assert!(f.iter().all(|v| (v.list as usize) < LIST_FEATURES));
    }
}
