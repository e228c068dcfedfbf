//! The word right after an abbreviated title in mixed case, where the title's usual run reads
//! it wrong: a weekday that is the surname ("Dr. Sunday at Bay Cove"), and the first word of a
//! sentence after an abbreviation in capitals that only looks like a title ("found in BR. No
//! marks": the bathroom, not "Brother").

use super::config::{ContextConfig, FIRSTN, FOREIGN, SURN, SURN_OPEN, SURN_WORD};
use super::Ctx;
use crate::recognize::lookup::tokens::Shape;

/// Whether token `k`, right after an abbreviated title, is a capitalized weekday of the
/// language that no list holds as a first name: a weekday ends a name's run, but here it is
/// the surname, unless a date follows it ("Dr. Sunday at", not "Dr. Friday 12/4").
pub(super) fn weekday_surname(c: &Ctx, cfg: &ContextConfig, k: usize) -> bool {
    let t = c.toks[k];
    let rest = c.text[t.end..].trim_start_matches([' ', ',']);
    t.shape == Shape::Cap
        && cfg.weekdays.contains_key(c.words.folded(k))
        && !rest.starts_with(|ch: char| ch.is_ascii_digit())
}

/// Whether the capitalized token `k` opens the next sentence after the title token `last`,
/// written in capitals with its full stop in a note in mixed case: a word no name list holds,
/// that is an ordinary word of the language or of three letters or fewer ("in BR. No marks",
/// "BR. None seen"; not "DR. Ng", "MR. Stone").
pub(super) fn sentence_after_caps_title(
    c: &mut Ctx,
    cfg: &ContextConfig,
    last: usize,
    k: usize,
) -> bool {
    let (title, next) = (c.toks[last], c.toks[k]);
    if title.shape != Shape::Upper
        || !c.text[title.end..].starts_with('.')
        || next.shape != Shape::Cap
    {
        return false;
    }
    let bits = c.m.single(k);
    let short = c.text[next.start..next.end].chars().count() <= 3;
    let folded = c.words.folded(k);
    let ordinary = cfg
        .ordinary_words
        .as_ref()
        .is_some_and(|o| o.contains_key(folded));
    (short || ordinary)
        && !cfg.surnames_dropped.contains_key(folded)
        && bits & (FIRSTN | FOREIGN | SURN | SURN_OPEN | SURN_WORD) == 0
}
