//! Names that are also ordinary words, in a note written in one case, read only where the name
//! ends after them: a surname the common-word filter dropped right after a physician's
//! abbreviated title ("per dr gold.", "DR NG AWARE", "(dr. ko) to see"; `surnames_dropped.txt`)
//! and a first name it dropped right after a relative's or staff member's word ("wife sunny to
//! follow", "SON MILES UPDATED", "sw iris updated"; `first_name_words.txt`); and a town the
//! place lists dropped right after a place's word ("lives in revere with", "FROM GREENFIELD,";
//! `places_dropped.txt`).

use super::config::{ALLOWW, ALLOW_VERB, BREAKS, FIRSTN, TRIGGER};
use super::runs::one_of;
use super::{Ctx, VERB_ENDINGS};
use crate::recognize::lookup::tokens::{FxMap, Shape};

/// Words of the surname list that are no one's name right after a title: interjections,
/// articles of other languages and words that govern what follows ("dr re: plan", "dr la",
/// "dr below").
const NO_SURNAME: &[&str] = &[
    "re", "um", "uh", "oh", "hey", "huh", "bah", "bye", "la", "el", "below", "till", "rather",
    "forth", "overly", "per", "via",
];

/// Words of the first-name list that are the sentence's right after a relative's word: days of
/// the week, adverbs of time and the verb of report ("call daughter sunday.", "daughter soon
/// to arrive", "wife said at 1400").
const NO_FIRST_NAME: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "soon",
    "early",
    "ever",
    "else",
    "long",
    "later",
    "said",
    "seven",
];

/// Words that follow a person's name in a note ("dr ng aware", "dr yu at bedside", "dr wolf
/// to see", "dr ko and", "wife candy here"): a state, a preposition, a conjunction, or a verb
/// of the sentence the name is the subject of. A word ending in "-ed" does too ("(DR MA)
/// CONSULTED", "son miles updated"), and so do the irregular past forms of the verbs a note
/// tells of visitors and callers with ("SON JUNIOR BROUGHT IN HIS MEDS"), and the words that
/// give the person's number ("CM SUMMER PAGER 2218", "wife autumn cell").
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
    "brought",
    "came",
    "left",
    "took",
    "spoke",
    "drove",
    "gave",
    "told",
    "met",
    "sent",
    "pager",
    "ext",
    "cell",
    "phone",
];

/// What follows a name that is also a modal verb ("son will called", "husband will and
/// daughter grace"): the verb cannot be.
const AFTER_MODAL_NAME: &[&str] = &["is", "was", "and"];

/// Words that follow a town in a note: a preposition, a conjunction, a relative pronoun ("in
/// revere with her son", "from hull and", "in concord on 11/22", "from lynn who").
const AFTER_TOWN: &[&str] = &[
    "with", "and", "on", "for", "since", "until", "at", "in", "to", "by", "where", "who", "via",
];

/// Whether token `k`, right after a place's word ("in", "lives in") and in its case, is a town
/// of `places_dropped` that ends there (see [`name_ends_after`]).
pub(super) fn town_word_after_place_word(
    c: &mut Ctx,
    k: usize,
    places_dropped: &FxMap<String, ()>,
) -> bool {
    let t = c.toks[k];
    c.text[t.start..t.end].chars().all(char::is_alphabetic)
        && places_dropped.contains_key(c.words.folded(k))
        && c.m.single(k) & (BREAKS | TRIGGER) == 0
        && name_ends_after(c, k, AFTER_TOWN)
}

/// Whether token `k`, right after a physician's abbreviated title and in the title's case, is a
/// surname of `surnames_dropped` that ends there (see [`name_ends_after`]).
pub(super) fn surname_word_after_title(
    c: &mut Ctx,
    k: usize,
    surnames_dropped: &FxMap<String, ()>,
) -> bool {
    let t = c.toks[k];
    c.text[t.start..t.end].chars().all(char::is_alphabetic)
        && surnames_dropped.contains_key(c.words.folded(k))
        && !one_of(c.text, t, NO_SURNAME)
        && c.m.single(k) & (BREAKS | TRIGGER | ALLOW_VERB) == 0
        && name_ends_after(c, k, AFTER_NAME)
}

/// Allow-listed first names that are the clinical word after a staff member's word ("seen by
/// geri", "d/w echo").
const NO_STAFF_NAME: &[&str] = &["echo", "geri", "fem", "oral", "dex", "ward"];

/// Whether token `k`, right after a singular relative's or staff member's word and in its
/// case, is a first name of `first_name_words` of three letters or more that ends there (see
/// [`name_ends_after`]; "wife sunny to follow"), or after a staff member's word
/// (`after_staff`) a listed first name the allow list holds as a term ("sw iris updated"; after
/// a relative's word that one is read already); a modal verb ("will", "may") only before a
/// word the verb cannot take.
pub(super) fn first_name_word_after_person_word(
    c: &mut Ctx,
    k: usize,
    first_name_words: &FxMap<String, ()>,
    after_staff: bool,
) -> bool {
    let t = c.toks[k];
    let word = &c.text[t.start..t.end];
    let bits = c.m.single(k);
    let after = if bits & ALLOW_VERB != 0 {
        AFTER_MODAL_NAME
    } else {
        AFTER_NAME
    };
    let allowed_first_name =
        after_staff && bits & (FIRSTN | ALLOWW | ALLOW_VERB) == FIRSTN | ALLOWW;
    word.chars().count() >= 3
        && !(after_staff && one_of(c.text, t, NO_STAFF_NAME))
        && word.chars().all(char::is_alphabetic)
        && (first_name_words.contains_key(c.words.folded(k)) || allowed_first_name)
        && !one_of(c.text, t, NO_FIRST_NAME)
        && bits & (BREAKS | TRIGGER) == 0
        && name_ends_after(c, k, after)
}

/// Whether the name at token `k` ends there: the text after it ends, or goes on with a stop, a
/// comma, a colon, a parenthesis or a slash, or with one of `after` or a word ending in "-ed"
/// in the same case (in lower case after a capitalized name), one blank apart.
fn name_ends_after(c: &Ctx, k: usize, after: &[&str]) -> bool {
    let (text, toks) = (c.text, c.toks);
    let t = toks[k];
    let rest = text[t.end..].trim_start_matches([' ', '\t']);
    if rest.is_empty() || rest.starts_with(['.', ',', ';', ':', '(', ')', '/', '\n', '\r']) {
        return true;
    }
    let Some(next) = toks.get(k + 1) else {
        return false;
    };
    let word = &text[next.start..next.end];
    // A capitalized name in a note in mixed case goes on in lower case ("RN Joy updated").
    let same_case = next.shape == t.shape || t.shape == Shape::Cap && next.shape == Shape::Lower;
    &text[t.end..next.start] == " "
        && same_case
        && (one_of(text, *next, after)
            || word.chars().count() >= 5 && word.to_lowercase().ends_with(VERB_ENDINGS[0]))
}
