//! Institutions in notes written in lower case ("transferred to lowell general hospital", "pcp
//! at harborview family practice", "waltham police"): the names right before a hospital's or
//! institution's tail word. Where capitals mark a name, `org_backward` reads it; here only the
//! lists and the ordinary words tell where it begins, so only words that may be names count.

use super::config::{FIRSTN, FOREIGN, PLACE_WORD, SURN, SURN_OPEN};
use super::one_case_names::plain_word;
use super::runs::Run;
use super::{capitalized_on_line, unlisted_word, Ctx};
use crate::recognize::lookup::tokens::{FxMap, Shape};

/// Most words of a name read back from its tail ("south shore" of "south shore hospital" is
/// ordinary words and not read).
const MAX_WORDS: usize = 3;

/// The run of the institution whose tail word(s) open at token `tail` and end at `last`, all
/// in lower case on a line without capitals: the words right before the tail, one blank apart,
/// each one a name, a surname or a place the lists hold, or a word no list holds that
/// [`unlisted_word`] admits of five letters or more, and none an ordinary word (`ordinary`).
pub(super) fn names_before_tail(
    c: &mut Ctx,
    tail: usize,
    last: usize,
    ordinary: &FxMap<String, ()>,
) -> Option<Run> {
    let (text, toks) = (c.text, c.toks);
    if toks[tail].shape != Shape::Lower {
        return None;
    }
    let mut first = None;
    let mut k = tail;
    while k > 0 && tail - k < MAX_WORDS {
        let w = k - 1;
        if toks[w].shape != Shape::Lower
            || &text[toks[w].end..toks[k].start] != " "
            || !plain_word(c, w, ordinary)
        {
            break;
        }
        let word = &text[toks[w].start..toks[w].end];
        let listed = c.m.single(w) & (FIRSTN | FOREIGN | SURN | SURN_OPEN | PLACE_WORD) != 0;
        // "spasticity clinic", "obesity clinic": a condition, no name.
        let unlisted = word.chars().count() >= 5
            && unlisted_word(word, c.words.folded(w))
            && !c.words.folded(w).ends_with("ity");
        if !listed && !unlisted {
            break;
        }
        first = Some(w);
        k = w;
    }
    let first = first?;
    (!capitalized_on_line(text, toks, tail)).then_some(Run { first, last })
}
