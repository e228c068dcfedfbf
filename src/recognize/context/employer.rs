//! The employer a note names after a job or a work word ("works as a mechanic at Revere Auto
//! Body", "retired teacher from Brookline High School", "works nights at Market Basket"): the
//! capitalized words after the preposition, read as an institution's name. The work words and
//! prepositions are `EMPLOYER` and `EMPLOYER_PREP` entries of the language's
//! `name_triggers.txt`; a language without them has no such rule.

use super::config::{EMPLOYER_PREP, FIRSTN, PLACE_WORD, SURN, TITLE, TRIGGER};
use super::runs::org_forward;
use super::{Ctx, S_ORG_BY_CONTEXT};
use crate::labels::{Category, Label, Subtype};
use crate::recognize::lookup::tokens::Shape;

const SOURCE: &str = "context:employer";

/// Lower-case words a work word may have before its preposition ("works nights at", "worked
/// part time for").
const MAX_WORDS_BETWEEN: usize = 3;

/// Adds the employer named after token `last`, the end of a work word or a profession.
pub(super) fn employer_after(c: &mut Ctx, last: usize) {
    // In capitals, where case marks no name, "WORKS AT NIGHT" would read as an employer.
    if c.toks[last].shape == Shape::Upper {
        return;
    }
    let blank = |c: &Ctx, k: usize| {
        c.text[c.toks[k - 1].end..c.toks[k].start]
            .chars()
            .all(|ch| ch == ' ' || ch == '\t')
    };
    let mut k = last + 1;
    let mut between = 0;
    loop {
        if k >= c.toks.len() || !blank(c, k) || c.toks[k].shape != Shape::Lower {
            return;
        }
        // "works from home for Fidelity": where a patient works is no employer.
        let from_home = c.toks.get(k + 1).is_some_and(|t| {
            blank(c, k + 1) && c.text[t.start..t.end].eq_ignore_ascii_case("home")
        });
        if c.m.single(k) & EMPLOYER_PREP != 0 && !from_home {
            break;
        }
        between += 1;
        if between > MAX_WORDS_BETWEEN {
            return;
        }
        k += 1;
    }
    // "for the MBTA": the article belongs to the sentence.
    let head = match c.toks.get(k + 1) {
        Some(t) if blank(c, k + 1) && c.text[t.start..t.end].eq_ignore_ascii_case("the") => k + 1,
        _ => k,
    };
    let Some(run) = org_forward(&mut c.m, c.text, c.toks, head) else {
        return;
    };
    let first = c.toks[run.first];
    if !first.shape.is_proper() || c.m.single(run.first) & (TITLE | TRIGGER) != 0 {
        return;
    }
    // One word that a place or name list holds is the lookup's ("retired from Brookline",
    // "works for Jim").
    if run.first == run.last && c.m.single(run.first) & (PLACE_WORD | FIRSTN | SURN) != 0 {
        return;
    }
    let label = Label::new(Category::Location, Subtype::Organization);
    c.push_run(run, label, SOURCE, S_ORG_BY_CONTEXT);
}

#[cfg(test)]
mod tests {
    fn employers(text: &str) -> Vec<String> {
        crate::recognize::context::tests::english_by_source(text, super::SOURCE)
    }

    #[test]
    fn the_capitalized_words_after_a_job_and_its_preposition_name_the_employer() {
        for (text, want) in [
            (
                "Pt was working as a mechanic at Revere Auto Body until Sept.",
                "Revere Auto Body",
            ),
            ("Pt works as a bus driver for the MBTA. Lives", "MBTA"),
            (
                "Pt is a retired teacher from Brookline High School. Husband",
                "Brookline High School",
            ),
            (
                "daughter works nights at Market Basket; she",
                "Market Basket",
            ),
            (
                "He is employed by Dunkin Brands as a manager.",
                "Dunkin Brands",
            ),
            // Working from home, the employer comes after.
            ("Pt works from home for Fidelity. Next dose", "Fidelity"),
        ] {
            assert_eq!(employers(text), [want], "{text}");
        }
        // No capitals, a listed town or a person after the preposition, a title, or a note in
        // capitals.
        for text in [
            "Pt works at home as a bookkeeper.",
            "Retired nurse from Brookline, lives alone.",
            "Son works for Dr. Okafor at the clinic.",
            "PT WORKS AT NIGHT AS A GUARD.",
            "Wife works part time, as needed at the school.",
        ] {
            assert!(employers(text).is_empty(), "{text}: {:?}", employers(text));
        }
    }
}
