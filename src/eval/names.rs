//! Name and place token recall on news NER gold, as the held-out checks count it: the share
//! of gold person (place, organisation) tokens that any predicted span covers, and that a span
//! of the matching category covers; and the false-positive share of the entity labels: of the
//! gold tokens under a predicted NAME or LOCATION span, those outside every gold entity.
//!
//! Types map as PER → NAME, LOC → LOCATION, ORG → LOCATION (organisations are a LOCATION
//! subtype); MISC tokens count neither as misses nor as false positives. Predictions of other
//! categories (dates, ids, professions) are not false positives: the corpora do not mark them.

use super::ner_gold::{NerDoc, NerType};
use crate::labels::Category;
use crate::span::Entity;
use crate::text::intersecting;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// Recall of one gold type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TypeRecall {
    /// Gold tokens of this type.
    pub tokens: usize,
    /// Of those, covered by a span of any label.
    pub any: usize,
    /// Of those, covered by a span of the matching category.
    pub same: usize,
    pub recall_any: f64,
    pub recall_same: f64,
}

/// The whole report of one run (one language).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NameReport {
    pub documents: usize,
    pub tokens: usize,
    pub person: TypeRecall,
    pub place: TypeRecall,
    pub organization: TypeRecall,
    /// Gold tokens under a predicted NAME or LOCATION span, MISC tokens left out.
    pub entity_tokens: usize,
    /// Of those, outside every gold entity.
    pub false_positive_tokens: usize,
    pub false_positive_share: f64,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Accumulates documents with their predicted spans.
#[derive(Default)]
pub struct NameCounter {
    r: NameReport,
}

impl NameCounter {
    /// Counts one document. `pred` holds byte spans into `doc.text`.
    pub fn add(&mut self, doc: &NerDoc, pred: &[Entity]) {
        let n = doc.tokens.len();
        // Per token: covered by any span, by a NAME span, by a LOCATION span.
        let (mut any, mut name, mut loc) = (vec![false; n], vec![false; n], vec![false; n]);
        for e in pred {
            for t in intersecting(&doc.tokens, e.start, e.end) {
                any[t] = true;
                match e.label.category {
                    Category::Name => name[t] = true,
                    Category::Location => loc[t] = true,
                    _ => {}
                }
            }
        }
        let r = &mut self.r;
        r.documents += 1;
        r.tokens += n;
        for (t, ty) in doc.types.iter().enumerate() {
            let (slot, same) = match ty {
                Some(NerType::Person) => (&mut r.person, name[t]),
                Some(NerType::Place) => (&mut r.place, loc[t]),
                Some(NerType::Organization) => (&mut r.organization, loc[t]),
                Some(NerType::Other) => continue,
                None => {
                    if name[t] || loc[t] {
                        r.entity_tokens += 1;
                        r.false_positive_tokens += 1;
                    }
                    continue;
                }
            };
            slot.tokens += 1;
            slot.any += any[t] as usize;
            slot.same += same as usize;
            if name[t] || loc[t] {
                r.entity_tokens += 1;
            }
        }
    }

    pub fn finish(mut self) -> NameReport {
        let r = &mut self.r;
        for s in [&mut r.person, &mut r.place, &mut r.organization] {
            s.recall_any = ratio(s.any, s.tokens);
            s.recall_same = ratio(s.same, s.tokens);
        }
        r.false_positive_share = ratio(r.false_positive_tokens, r.entity_tokens);
        self.r
    }
}

impl NameReport {
    /// A plain-text table: counts and ratios only, never text.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Names and places (token level): {} documents, {} tokens",
            self.documents, self.tokens
        );
        let _ = writeln!(
            s,
            "{:<13} {:>7} {:>7} {:>10} {:>7} {:>11}",
            "gold type", "tokens", "any", "recall_any", "same", "recall_same"
        );
        for (name, r) in [
            ("person", &self.person),
            ("place", &self.place),
            ("organization", &self.organization),
        ] {
            let _ = writeln!(
                s,
                "{:<13} {:>7} {:>7} {:>10.3} {:>7} {:>11.3}",
                name, r.tokens, r.any, r.recall_any, r.same, r.recall_same
            );
        }
        let _ = writeln!(
            s,
            "entity-label tokens {} , outside gold entities {} , false-positive share {:.3}",
            self.entity_tokens, self.false_positive_tokens, self.false_positive_share
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Label;

    fn doc(words: &[(&str, Option<NerType>)]) -> NerDoc {
        let mut d = NerDoc::default();
        for (w, t) in words {
            if !d.text.is_empty() {
                d.text.push(' ');
            }
            let s = d.text.len();
            d.text.push_str(w);
            d.tokens.push((s, d.text.len()));
            d.types.push(*t);
        }
        d
    }

    fn span(d: &NerDoc, from: usize, to: usize, cat: Category) -> Entity {
        Entity::new(
            d.tokens[from].0,
            d.tokens[to].1,
            Label {
                category: cat,
                subtype: None,
            },
            "test",
            1.0,
        )
    }

    #[test]
    fn counts_recall_by_type_and_false_positives() {
        use NerType::*;
        let d = doc(&[
            ("Mira", Some(Person)),
            ("Stolk", Some(Person)),
            ("woont", None),
            ("in", None),
            ("Delft", Some(Place)),
            ("bij", None),
            ("Philips", Some(Organization)),
            ("Tour", Some(Other)),
            ("Vandaag", None),
        ]);
        let pred = [
            span(&d, 0, 0, Category::Name),     // Mira: same type
            span(&d, 1, 1, Category::Location), // Stolk: any only
            span(&d, 4, 4, Category::Location), // Delft: same
            span(&d, 7, 7, Category::Name),     // MISC: neutral
            span(&d, 8, 8, Category::Name),     // false positive
            span(&d, 5, 5, Category::Date),     // not an entity label: ignored for FP
        ];
        let mut c = NameCounter::default();
        c.add(&d, &pred);
        let r = c.finish();
        assert_eq!((r.person.tokens, r.person.any, r.person.same), (2, 2, 1));
        assert_eq!((r.place.tokens, r.place.same), (1, 1));
        assert_eq!((r.organization.tokens, r.organization.any), (1, 0));
        // Entity-label tokens: Mira, Stolk, Delft, Vandaag (MISC left out); one false.
        assert_eq!((r.entity_tokens, r.false_positive_tokens), (4, 1));
        assert!((r.false_positive_share - 0.25).abs() < 1e-12);
        assert!(r.to_table().contains("0.500"));
        assert!(!r.to_table().contains("Mira"));
    }
}
