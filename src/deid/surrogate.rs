//! The `surrogate` operator: realistic fake values from `crate::surrogate`, consistent per
//! document (and, with a key, across the corpus), never equal to the original.
//!
//! Consistency rules:
//! - Within a document, the same (category, normalized original) always gets the same value
//!   (a per-document memo that lives across passes).
//! - With a key (corpus scope), the generator's RNG for a value is seeded from
//!   HMAC-SHA256(key, "surrogate", category, normalized original), so the same original gets
//!   the same surrogate in every document and every run with that key.
//! - Name parts: when a multi-word NAME is replaced, its words are paired with the surrogate's
//!   words (word by word when the counts match, otherwise first with first and last with
//!   last). A later NAME in the same document whose words were all seen that way (a surname
//!   alone, or the name reordered) is rebuilt from those parts instead of drawn anew, so
//!   "Juan García … García" stays one person. The driver replaces multi-word names first so
//!   the parts are known regardless of order. With a key this rebuilt value wins over the
//!   keyed draw inside that document; a lone surname in a document without the full name gets
//!   its keyed draw, which differs from the part (known limitation).

use super::norm::{name_tokens, normalize};
use super::{OpContext, Operator, Replaced};
use crate::keys::Key;
use crate::labels::{Category, Label};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::{HashMap, HashSet};

/// Draws before giving up on a value that differs from the original.
const MAX_TRIES: usize = 16;

/// Per-document memory of surrogates handed out.
#[derive(Default, Debug)]
pub struct SurrogateMemo {
    values: HashMap<(Category, String), String>,
    /// Values handed out (document scope redraws to keep two originals apart).
    used: HashSet<String>,
    /// Lowercased NAME word → surrogate word, learned from multi-word names.
    name_parts: HashMap<String, String>,
}

/// Replaces a span with a fake value of the same type.
pub struct Surrogate {
    /// `Some` for corpus-wide consistency (keyed seeding), `None` for per-document draws.
    pub key: Option<Key>,
}

impl Surrogate {
    fn draw(
        &self,
        label: Label,
        original: &str,
        norm: &str,
        ctx: &mut OpContext,
    ) -> Option<String> {
        let mut keyed;
        let rng: &mut dyn RngCore = match &self.key {
            Some(k) => {
                let cat = label.category.as_str().as_bytes();
                keyed = ChaCha20Rng::from_seed(k.mac("surrogate", &[cat, norm.as_bytes()]));
                &mut keyed
            }
            None => &mut *ctx.rng,
        };
        // Words of 3 characters or fewer may recur: particles (de, van, der, del, di) are
        // kept by the generator and carry no identity on their own.
        let orig_words: HashSet<&str> = name_tokens(norm)
            .filter(|w| w.chars().count() > 3)
            .collect();
        for _ in 0..MAX_TRIES {
            let s = crate::surrogate::generate(label, ctx.lang, original, rng);
            let s_norm = normalize(label, &s);
            let leaks = s.is_empty()
                || s == original
                || s_norm == norm
                // A name surrogate shares no name word with the original, in any position.
                || (label.category == Category::Name
                    && name_tokens(&s_norm).any(|w| orig_words.contains(w)));
            let clash = self.key.is_none() && ctx.memo.used.contains(&s);
            if !leaks && !clash {
                return Some(s);
            }
        }
        None
    }

    /// A NAME rebuilt from parts learned from earlier multi-word names in this document.
    fn from_parts(original: &str, memo: &SurrogateMemo) -> Option<String> {
        let mut out = String::new();
        for word in name_tokens(original) {
            let part = memo.name_parts.get(&word.to_lowercase())?;
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&match_case(word, part));
        }
        (!out.is_empty()).then_some(out)
    }

    fn learn_parts(original: &str, surrogate: &str, memo: &mut SurrogateMemo) {
        let o: Vec<String> = name_tokens(original).map(str::to_lowercase).collect();
        let s: Vec<&str> = name_tokens(surrogate).collect();
        if o.len() < 2 || s.is_empty() {
            return;
        }
        let pairs: Vec<(usize, usize)> = if o.len() == s.len() {
            (0..o.len()).map(|i| (i, i)).collect()
        } else if s.len() >= 2 {
            vec![(0, 0), (o.len() - 1, s.len() - 1)]
        } else {
            vec![(o.len() - 1, 0)]
        };
        for (i, j) in pairs {
            if o[i] != s[j].to_lowercase() {
                memo.name_parts
                    .entry(o[i].clone())
                    .or_insert_with(|| s[j].to_string());
            }
        }
    }
}

/// `value` in upper case when `word` is written all in capitals (more than one letter),
/// otherwise unchanged.
fn match_case(word: &str, value: &str) -> String {
    let mut letters = word.chars().filter(|c| c.is_alphabetic());
    let all_upper = letters.clone().nth(1).is_some() && letters.all(char::is_uppercase);
    if all_upper {
        value.to_uppercase()
    } else {
        value.to_string()
    }
}

impl Operator for Surrogate {
    fn name(&self) -> &'static str {
        "surrogate"
    }

    fn replace(&self, original: &str, label: Label, ctx: &mut OpContext) -> Replaced {
        let norm = normalize(label, original);
        let memo_key = (label.category, norm);
        if let Some(s) = ctx.memo.values.get(&memo_key) {
            return Replaced::by("surrogate", match_case(original, s));
        }
        let is_name = label.category == Category::Name;
        let found = if is_name {
            Self::from_parts(original, ctx.memo)
        } else {
            None
        };
        let value = match found.or_else(|| self.draw(label, original, &memo_key.1, ctx)) {
            Some(v) => v,
            // The generator kept returning the original: a tag is the safe answer.
            None => {
                return Replaced {
                    text: format!("[{}]", label.category),
                    operator: "tag",
                    fallback_from: Some("surrogate"),
                }
            }
        };
        if is_name {
            Self::learn_parts(original, &value, ctx.memo);
        }
        ctx.memo.used.insert(value.clone());
        ctx.memo.values.insert(memo_key, value.clone());
        Replaced::by("surrogate", value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Subtype;
    use crate::lang::Lang;

    fn run(op: &Surrogate, doc: &str, seed: u64, items: &[(&str, Label)]) -> Vec<String> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut memo = SurrogateMemo::default();
        let mut ctx = OpContext {
            doc_id: doc,
            lang: Lang::Es,
            patient: doc,
            rng: &mut rng,
            memo: &mut memo,
        };
        items
            .iter()
            .map(|(o, l)| op.replace(o, *l, &mut ctx).text)
            .collect()
    }

    #[test]
    fn never_original_and_consistent_within_document() {
        let name = Label::new(Category::Name, Subtype::Patient);
        let city = Label::new(Category::Location, Subtype::City);
        let ssn = Label::new(Category::Id, Subtype::Ssn);
        let items = [
            ("María", name),
            ("Sevilla", city),
            ("12345678Z", ssn),
            ("MARÍA", name),
            ("Sevilla", city),
            ("12.345.678-Z", ssn),
            ("Lucía", name),
        ];
        let out = run(&Surrogate { key: None }, "doc1", 7, &items);
        for (i, (orig, _)) in items.iter().enumerate() {
            assert_ne!(&out[i], orig);
            assert!(!out[i].is_empty());
        }
        assert_eq!(out[3], out[0].to_uppercase(), "same name, capitals kept");
        assert_eq!(out[1], out[4]);
        assert_eq!(out[2], out[5], "same id, other separators");
        assert_ne!(out[0], out[6], "two people stay two people");
    }

    #[test]
    fn never_returns_the_original_across_types_and_languages() {
        let l = |s: &str| Label::parse(s).unwrap();
        let items = [
            ("Jan de Vries", l("NAME/PATIENT")),
            ("Kovács Éva", l("NAME/DOCTOR")),
            ("J. Smith", l("NAME")),
            ("Sevilla", l("LOCATION/CITY")),
            ("Calle Mayor 12", l("LOCATION/STREET")),
            ("12/03/2019", l("DATE")),
            ("612 345 678", l("CONTACT/PHONE")),
            ("ana@example.org", l("CONTACT/EMAIL")),
            ("123456782", l("ID/SSN")),
            ("54 años", l("AGE")),
        ];
        for lang in Lang::ALL {
            for seed in 0..10 {
                let mut rng = ChaCha20Rng::seed_from_u64(seed);
                let mut memo = SurrogateMemo::default();
                let mut ctx = OpContext {
                    doc_id: "d",
                    lang,
                    patient: "d",
                    rng: &mut rng,
                    memo: &mut memo,
                };
                for (orig, label) in items {
                    let r = Surrogate { key: None }.replace(orig, label, &mut ctx);
                    assert!(!r.text.trim().is_empty(), "{lang} {orig}");
                    assert_ne!(
                        normalize(label, &r.text),
                        normalize(label, orig),
                        "{lang} {orig}"
                    );
                }
            }
        }
    }

    #[test]
    fn keyed_values_agree_across_documents() {
        let name = Label::category_only(Category::Name);
        let key = Key::from_bytes(&[9u8; 32]).unwrap();
        let op = Surrogate { key: Some(key) };
        let a = run(&op, "docA", 1, &[("Pedro Ruiz", name), ("Ana", name)]);
        let b = run(&op, "docB", 2, &[("Ana", name), ("Pedro Ruiz", name)]);
        assert_eq!(a[0], b[1]);
        assert_eq!(a[1], b[0]);
    }

    #[test]
    fn lone_surname_follows_full_name() {
        let mut memo = SurrogateMemo::default();
        Surrogate::learn_parts("Juan García López", "Pedro Martín Ruiz", &mut memo);
        let cases = [
            ("García", Some("Martín")),
            ("GARCÍA", Some("MARTÍN")),
            ("García López", Some("Martín Ruiz")),
            ("Juan", Some("Pedro")),
            ("Gómez", None),
            ("García Gómez", None),
        ];
        for (orig, want) in cases {
            assert_eq!(
                Surrogate::from_parts(orig, &memo).as_deref(),
                want,
                "{orig}"
            );
        }
        let mut memo2 = SurrogateMemo::default();
        Surrogate::learn_parts("Ana María Vidal", "Rosa Soto", &mut memo2);
        assert_eq!(
            Surrogate::from_parts("Vidal", &memo2).as_deref(),
            Some("Soto")
        );
        assert_eq!(Surrogate::from_parts("María", &memo2), None);
    }
}
