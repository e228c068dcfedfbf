//! English hospitals, schools and fire departments named by their town and one short word, with
//! no tail word after them: "Lowell General", "MILFORD REGIONAL", "Boston Children's",
//! "arlington high", "Waltham Fire". The
//! short word is an ordinary one, so the tail rules leave it alone; here the town before it and
//! the end of the clause after it are the evidence.

use super::config::{ALLOWW, BREAKS, FIRSTN, PLACE_WORD, SURN, SURN_OPEN, SURN_WORD, TRIGGER};
use super::runs::one_of;
use super::{capitalized_on_line, Ctx, S_HOSPITAL, S_ORG};
use crate::labels::{Category, Label, Subtype};
use crate::recognize::lookup::tokens::Shape;
use crate::span::Entity;

const SOURCE: &str = "context:town_institution";

/// Words that name a hospital after a town or a name ("Lawrence General"); "children" only in
/// the possessive.
const HOSPITAL_WORDS: &[&str] = &["general", "regional", "children"];
/// Words that name a school or a fire department after a town only ("Brockton High",
/// "Extricated by Waltham Fire"): after a person's name they are the sentence's ("son Milton
/// high on arrival").
const TOWN_WORDS: &[&str] = &["high", "fire"];
/// Words that may follow such a name in the same clause: prepositions, conjunctions, days and
/// the units of a hospital ("Lowell General ED"). Any other word may go on with a term
/// ("Lowell General Surgery", "high flow").
const AFTER: &[&str] = &[
    "for",
    "on",
    "in",
    "at",
    "to",
    "and",
    "or",
    "with",
    "via",
    "by",
    "since",
    "after",
    "until",
    "from",
    "where",
    "who",
    "when",
    "yesterday",
    "today",
    "tonight",
    "ed",
    "er",
    "icu",
    "x",
];

/// Adds the institutions named by a town (or, for hospitals, a listed name) and a short word.
pub(super) fn town_institutions(c: &mut Ctx) {
    let (text, toks) = (c.text, c.toks);
    for k in 1..toks.len() {
        let (head, t) = (toks[k - 1], toks[k]);
        let word = &text[t.start..t.end];
        // The length first: this runs on every token of an English document.
        if !matches!(word.len(), 4 | 7 | 8) {
            continue;
        }
        let hospital = one_of(text, t, HOSPITAL_WORDS);
        if !hospital && !one_of(text, t, TOWN_WORDS) {
            continue;
        }
        // Both words in one case, one blank apart: "Lowell General", "LOWELL GENERAL",
        // "lowell general" (on a line without capitals).
        let same_case = match (head.shape, t.shape) {
            (Shape::Cap, Shape::Cap) | (Shape::Upper, Shape::Upper) => true,
            (Shape::Lower, Shape::Lower) => !capitalized_on_line(text, toks, k),
            _ => false,
        };
        if !same_case || &text[head.end..t.start] != " " {
            continue;
        }
        let bits = c.m.single(k - 1);
        let place = bits & PLACE_WORD != 0;
        let named = bits & (FIRSTN | SURN | SURN_OPEN) != 0;
        if bits & (BREAKS | TRIGGER | ALLOWW | SURN_WORD) != 0 || !(place || hospital && named) {
            continue;
        }
        // "Children" only as "Children's".
        let mut last = k;
        if one_of(text, t, &["children"]) {
            let possessive = toks.get(k + 1).is_some_and(|&s| {
                one_of(text, s, &["s"]) && matches!(&text[t.end..s.start], "'" | "\u{2019}")
            });
            if !possessive {
                continue;
            }
            last = k + 1;
        }
        if !clause_goes_on_fittingly(c, last) {
            continue;
        }
        let (label, score) = if hospital {
            (
                Label::new(Category::Location, Subtype::Hospital),
                S_HOSPITAL,
            )
        } else {
            (Label::new(Category::Location, Subtype::Organization), S_ORG)
        };
        c.out.push(Entity::new(
            head.start,
            toks[last].end,
            label,
            SOURCE,
            score,
        ));
    }
}

/// Whether the text after token `last` ends the clause (punctuation, a line's end, the
/// document's end) or goes on with one of [`AFTER`].
fn clause_goes_on_fittingly(c: &Ctx, last: usize) -> bool {
    let Some(next) = c.toks.get(last + 1) else {
        return true;
    };
    let gap = &c.text[c.toks[last].end..next.start];
    !gap.trim_matches([' ', '\t']).is_empty() || one_of(c.text, *next, AFTER)
}

#[cfg(test)]
mod tests {
    fn found(text: &str) -> Vec<String> {
        crate::recognize::context::tests::english_by_source(text, super::SOURCE)
    }

    #[test]
    fn a_town_and_a_short_word_name_a_hospital_or_a_school() {
        assert_eq!(
            found("Born at Lowell General, transferred."),
            ["Lowell General"]
        );
        assert_eq!(found("FROM MILFORD REGIONAL ED"), ["MILFORD REGIONAL"]);
        assert_eq!(
            found("seen at boston children's for"),
            ["boston children's"]
        );
        assert_eq!(
            found("ATTENDS ARLINGTON HIGH, GUIDANCE"),
            ["ARLINGTON HIGH"]
        );
        assert_eq!(
            found("Extricated by Waltham Fire. DECON BY BRAINTREE FIRE ON SCENE."),
            ["Waltham Fire", "BRAINTREE FIRE"]
        );
    }

    #[test]
    fn a_term_after_the_short_word_or_a_persons_name_before_high_is_none() {
        assert!(found("Seen by Lowell General Surgery.").is_empty());
        assert!(found("lives in arlington high risk for falls").is_empty());
        assert!(found("son milton high on arrival").is_empty());
        assert!(found("INJURED IN HOUSE FIRE. Boston Fire Risk Scale 3.").is_empty());
        assert!(found("Pt's children aware.").is_empty());
    }
}
