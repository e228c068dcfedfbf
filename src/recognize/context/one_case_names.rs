//! Full names in notes written in one case ("-- colette marchetti, rn", "pt's hcp, ingeborg
//! halvorsen (sister)", "DR. ELEANOR WHITCOMBE"): a listed first name right before a surname,
//! neither an ordinary word of the language, on a line without a capitalized word. In lower
//! case the surname is a listed one; in lower case and in capitals also a word no list holds
//! that is no ordinary word ("SIGNED: ROSALIND TAMM RN"). Where a capital marks names the lookup
//! and the first-name runs read such pairs; here the lists and the ordinary words are the
//! evidence. So is a listed first name alone before "from" and a service ("becky from
//! nutrition", "KATHY FROM PHARMACY").

use super::config::{
    is_open_surname, ALLOWW, BREAKS, FIRSTN, STOP, SURN, SURN_OPEN, SURN_WORD, TRIGGER,
};
use super::runs::{one_of, Run};
use super::{capitalized_on_line, unlisted_word, Ctx};
use crate::recognize::lookup::tokens::{FxMap, Shape};

/// The run of the first name at token `i` and the surname after it, when both are in one case
/// (all lower case or all capitals), of three letters or more, one blank apart, no ordinary
/// word (`ordinary`: the language's, folded) and no term or role, on a line without capitals;
/// the first name listed, the surname listed (in lower case; in capitals the lookup reads
/// those) or no list's word that [`unlisted_word`] admits.
pub(super) fn first_and_surname(
    c: &mut Ctx,
    i: usize,
    ordinary: &FxMap<String, ()>,
) -> Option<Run> {
    let (text, toks) = (c.text, c.toks);
    let j = i + 1;
    let next = toks.get(j)?;
    let shape = toks[i].shape;
    if !matches!(shape, Shape::Lower | Shape::Upper)
        || next.shape != shape
        || &text[toks[i].end..next.start] != " "
    {
        return None;
    }
    // The first name's bit first: this runs on every word of a note in one case.
    if c.m.single(i) & FIRSTN == 0 {
        return None;
    }
    let b = c.m.single(j);
    let listed = shape == Shape::Lower && (b & SURN != 0 || is_open_surname(b));
    let surname = listed
        || b & !SURN_OPEN == 0 && unlisted_word(&text[next.start..next.end], c.words.folded(j));
    (surname
        && plain_word(c, i, ordinary)
        && plain_word(c, j, ordinary)
        && !capitalized_on_line(text, toks, i))
    .then_some(Run { first: i, last: j })
}

/// The first name at token `i` alone before "from" and a service or department (a stop word of
/// the triggers: "nutrition", "PHARMACY", "psych"), all in one case, one blank apart, on a line
/// without a capitalized word; the first name listed and [`plain_word`].
pub(super) fn first_name_from_service(
    c: &mut Ctx,
    i: usize,
    ordinary: &FxMap<String, ()>,
) -> Option<Run> {
    let (text, toks) = (c.text, c.toks);
    let shape = toks[i].shape;
    let (from, service) = (toks.get(i + 1)?, toks.get(i + 2)?);
    if !matches!(shape, Shape::Lower | Shape::Upper)
        || !one_of(text, *from, &["from"])
        || c.m.single(i) & FIRSTN == 0
        || from.shape != shape
        || service.shape != shape
        || &text[toks[i].end..from.start] != " "
        || &text[from.end..service.start] != " "
    {
        return None;
    }
    (c.m.single(i + 2) & STOP != 0
        && plain_word(c, i, ordinary)
        && !capitalized_on_line(text, toks, i))
    .then_some(Run { first: i, last: i })
}

/// Whether token `k` may be a name where no capital tells: three letters or more, letters
/// only, no ordinary word (`ordinary`, folded) and no term, role or surname that is a word.
pub(super) fn plain_word(c: &mut Ctx, k: usize, ordinary: &FxMap<String, ()>) -> bool {
    let word = &c.text[c.toks[k].start..c.toks[k].end];
    word.chars().count() >= 3
        && word.chars().all(char::is_alphabetic)
        && !ordinary.contains_key(c.words.folded(k))
        && c.m.single(k) & (ALLOWW | BREAKS | TRIGGER | SURN_WORD) == 0
}
