//! A firm named by capitalized words joined by an ampersand, one of them a surname and none a
//! first name ("Quill & Hargrove", "Harwell Tool & Die"): a law firm, a shop or a
//! practice, which a note names beside a guardian or an employer. Two first names so joined
//! are a couple ("Jay & Trish"); abbreviations ("I & D", "D&C") are short or in capitals, and
//! clinical words are allow-listed.

use super::config::{ALLOWW, BREAKS, FIRSTN, FOREIGN, SURN, SURN_OPEN, TRIGGER};
use super::runs::Run;
use super::{Ctx, S_ORG_BY_CONTEXT};
use crate::labels::{Category, Label, Subtype};
use crate::recognize::lookup::tokens::Shape;

const SOURCE: &str = "context:firm";

/// Capitalized words a firm's name may have besides the two beside the ampersand ("Harwell
/// Tool & Die", "Quill & Hargrove Associates").
const MORE_WORDS: usize = 2;

/// Adds the firms of the document.
pub(super) fn firms(c: &mut Ctx) {
    let label = Label::new(Category::Location, Subtype::Organization);
    for k in 1..c.toks.len() {
        let (a, b) = (c.toks[k - 1], c.toks[k]);
        if &c.text[a.end..b.start] != " & " || !word(c, k - 1) || !word(c, k) {
            continue;
        }
        let spaced = |c: &Ctx, j: usize| &c.text[c.toks[j].end..c.toks[j + 1].start] == " ";
        let mut first = k - 1;
        while first > 0 && k - 1 - first < MORE_WORDS && spaced(c, first - 1) && word(c, first - 1)
        {
            first -= 1;
        }
        let mut last = k;
        while last + 1 < c.toks.len()
            && last - k < MORE_WORDS
            && spaced(c, last)
            && word(c, last + 1)
        {
            last += 1;
        }
        // A couple is two first names ("Jay & Trish"), left out by `word`; a firm bears a
        // surname ("Quill & Hargrove", "Harwell Tool & Die").
        if (first..=last).any(|j| c.m.single(j) & (SURN | SURN_OPEN) != 0) {
            c.push_run(Run { first, last }, label, SOURCE, S_ORG_BY_CONTEXT);
        }
    }
}

/// Whether token `j` is a capitalized word of three letters or more that is no first name, no
/// title, trigger or tail word, and no allow-listed term.
fn word(c: &mut Ctx, j: usize) -> bool {
    let t = c.toks[j];
    t.shape == Shape::Cap
        && c.text[t.start..t.end].chars().count() >= 3
        && c.m.single(j) & (BREAKS | TRIGGER | ALLOWW | FIRSTN | FOREIGN) == 0
}

#[cfg(test)]
mod tests {
    fn firms(text: &str) -> Vec<String> {
        crate::recognize::context::tests::english_by_source(text, super::SOURCE)
    }

    #[test]
    fn two_capitalized_words_joined_by_an_ampersand_are_a_firm() {
        assert_eq!(
            firms("Guardian is attorney Quill of Quill & Hargrove, Worcester."),
            ["Quill & Hargrove"]
        );
        assert_eq!(
            firms("Pt works as a machinist at Harwell Tool & Die in Lynn."),
            ["Harwell Tool & Die"]
        );
        for text in [
            "s/p I & D of abscess",
            "Hx of D&C in 2079.",
            "I&O: 1200 & 800",
            "CHEST & ABDOMEN CT",
            "Jay & Trish visited",
            "Statements & Releases",
        ] {
            assert!(firms(text).is_empty(), "{text}: {:?}", firms(text));
        }
    }
}
