//! A surname that is also an ordinary word, right after a physician's abbreviated title in a
//! note written in one case ("per dr gold.", "DR NG AWARE", "(dr. ko) to see"): read from
//! `surnames_dropped.txt` (the surnames the common-word filter left out of the lists) only where
//! the clause ends after it or a word follows that follows a person.

use super::config::{ALLOW_VERB, BREAKS, TRIGGER};
use super::runs::one_of;
use super::{Ctx, VERB_ENDINGS};
use crate::recognize::lookup::tokens::FxMap;

/// Words of the list that are no one's name right after a title: interjections, articles of
/// other languages and words that govern what follows ("dr re: plan", "dr la", "dr below").
const NO_NAME: &[&str] = &[
    "re", "um", "uh", "oh", "hey", "huh", "bah", "bye", "la", "el", "below", "till", "rather",
    "forth", "overly", "per", "via",
];

/// Words that follow a physician's name in a note ("dr ng aware", "dr yu at bedside", "dr wolf
/// to see", "dr ko and"): a state, a preposition, a conjunction, or a verb of the sentence the
/// name is the subject of. A word ending in "-ed" does too ("(DR MA) CONSULTED").
const AFTER_NAME: &[&str] = &[
    "aware",
    "at",
    "in",
    "to",
    "from",
    "of",
    "on",
    "with",
    "and",
    "here",
    "present",
    "is",
    "was",
    "will",
    "would",
    "wants",
    "agrees",
    "says",
    "states",
    "recommends",
    "following",
    "re",
];

/// Whether token `k`, right after a physician's abbreviated title and in the title's case, is a
/// surname of `surnames_dropped` that ends there: the text after it ends, or goes on with a
/// stop, a comma, a colon, a parenthesis or a slash, or with one of [`AFTER_NAME`] in the same
/// case.
pub(super) fn surname_word_after_title(
    c: &mut Ctx,
    k: usize,
    surnames_dropped: &FxMap<String, ()>,
) -> bool {
    let (text, toks) = (c.text, c.toks);
    let t = toks[k];
    let word = &text[t.start..t.end];
    if !word.chars().all(char::is_alphabetic)
        || !surnames_dropped.contains_key(c.words.folded(k))
        || one_of(text, t, NO_NAME)
        || c.m.single(k) & (BREAKS | TRIGGER | ALLOW_VERB) != 0
    {
        return false;
    }
    let rest = text[t.end..].trim_start_matches([' ', '\t']);
    if rest.is_empty() || rest.starts_with(['.', ',', ';', ':', '(', ')', '/', '\n', '\r']) {
        return true;
    }
    let Some(next) = toks.get(k + 1) else {
        return false;
    };
    let after = &text[next.start..next.end];
    &text[t.end..next.start] == " "
        && next.shape == t.shape
        && (one_of(text, *next, AFTER_NAME)
            || after.chars().count() >= 5 && after.to_lowercase().ends_with(VERB_ENDINGS[0]))
}
