//! Full names in notes written without capitals ("-- colette marchetti, rn", "pt's hcp, ingeborg
//! halvorsen (sister)"): a listed first name right before a listed surname, neither an ordinary
//! word of the language, on a line without a capitalized word. Where a capital marks names the
//! lookup reads such pairs; here the two lists together are the evidence.

use super::config::{is_open_surname, ALLOWW, BREAKS, FIRSTN, SURN, SURN_WORD, TRIGGER};
use super::runs::Run;
use super::{capitalized_on_line, Ctx};
use crate::recognize::lookup::tokens::{FxMap, Shape};

/// The run of the first name at token `i` and the surname after it, when both are listed, in
/// lower case, of three letters or more, one blank apart, no ordinary word (`ordinary`: the
/// language's, folded) and no term, role or one-word place, on a line without capitals.
pub(super) fn first_and_surname(
    c: &mut Ctx,
    i: usize,
    ordinary: &FxMap<String, ()>,
) -> Option<Run> {
    let (text, toks) = (c.text, c.toks);
    let j = i + 1;
    let next = toks.get(j)?;
    if toks[i].shape != Shape::Lower
        || next.shape != Shape::Lower
        || &text[toks[i].end..next.start] != " "
    {
        return None;
    }
    let plain = |c: &mut Ctx, k: usize| {
        let word = &c.text[c.toks[k].start..c.toks[k].end];
        word.chars().count() >= 3
            && word.chars().all(char::is_alphabetic)
            && !ordinary.contains_key(c.words.folded(k))
            && c.m.single(k) & (ALLOWW | BREAKS | TRIGGER | SURN_WORD) == 0
    };
    let first = c.m.single(i) & FIRSTN != 0;
    let surname = {
        let b = c.m.single(j);
        b & SURN != 0 || is_open_surname(b)
    };
    (first && surname && plain(c, i) && plain(c, j) && !capitalized_on_line(text, toks, i))
        .then_some(Run { first: i, last: j })
}
