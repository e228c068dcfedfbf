//! English institutions named for a saint in the possessive and written alone: "transferred
//! from St. Elizabeth's", "Saint Luke's ED", "ST. VINCENT'S", and in a note without capitals
//! "from st. brendan's". The saint's name alone is a first name to the lists, and no tail word
//! ("Hospital") follows to name the place.

use super::config::{HOSP_TAIL, ORG_TAIL};
use super::runs::{one_of, ORG_ENDS};
use super::{capitalized_on_line, Ctx, S_HOSPITAL};
use crate::labels::{Category, Label, Subtype};
use crate::recognize::lookup::tokens::Shape;
use crate::recognize::lookup::EponymHeads;
use crate::span::Entity;

const SOURCE: &str = "context:saint";

/// How English abbreviates or writes "saint" before a name, lower case.
const SAINT_WORDS: &[&str] = &["st", "saint"];

/// Adds the institutions "St. NAME's" where a word other than a capitalized one follows (a
/// capitalized one may go on with the name: "St. Mary's Hospital" is read by the tail rules),
/// and no eponym's tail word ("St. John's wort").
pub(super) fn saints_alone(c: &mut Ctx, eponyms: &EponymHeads) {
    let (text, toks) = (c.text, c.toks);
    for k in 1..toks.len() {
        let (saint, name) = (toks[k - 1], toks[k]);
        let word = &text[saint.start..saint.end];
        // Compared in place, the length first: this runs on every token of an English
        // document.
        if !matches!(word.len(), 2 | 5) || !SAINT_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word))
        {
            continue;
        }
        // Same case for both words: "St. Elizabeth's", "ST. ELIZABETH'S", "st. brendan's".
        let same_case = name.shape == saint.shape || saint.shape == Shape::Cap;
        let lower = saint.shape == Shape::Lower;
        if !(name.shape.is_proper() || lower) || !same_case {
            continue;
        }
        // In lower case "st" is a street's too ("lives on elm st. kevin's wife called"): only
        // after a preposition, or opening a line or sentence, on a line without capitals.
        if lower
            && (k >= 2
                && !one_of(text, toks[k - 2], ORG_ENDS)
                && !crate::recognize::lookup::sentence_start(text, toks, k - 1)
                || capitalized_on_line(text, toks, k))
        {
            continue;
        }
        let gap = &text[saint.end..name.start];
        if !matches!(gap, " " | ". ") {
            continue;
        }
        // "Main St. Kevin's wife": a street's abbreviation, after a capitalized word.
        let street = k >= 2
            && saint.shape == Shape::Cap
            && toks[k - 2].shape == Shape::Cap
            && &text[toks[k - 2].end..saint.start] == " ";
        if street {
            continue;
        }
        let rest = &text[name.end..];
        let ends_in_s = text[name.start..name.end].ends_with(['s', 'S']);
        let Some(after) = ["'s", "'S", "\u{2019}s", "\u{2019}S"]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .or_else(|| ends_in_s.then(|| rest.strip_prefix('\'')).flatten())
        else {
            continue;
        };
        // A letter or digit right after is no possessive ("St. Mary'sville").
        if after.starts_with(|ch: char| ch.is_alphanumeric()) {
            continue;
        }
        // A capitalized word after it may go on with the name; in mixed case an all-caps one
        // is a unit ("St. Luke's ED").
        let next = after.trim_start_matches(' ');
        let next_word = next
            .split(|ch: char| !ch.is_alphanumeric())
            .next()
            .unwrap_or("");
        let unit = saint.shape == Shape::Cap
            && next_word.chars().count() >= 2
            && !next_word.chars().any(char::is_lowercase);
        // In capitals every word is capitalized: only a tail word goes on with the name
        // ("ST. MARY'S HOSPITAL", read by the tail rules), and in lower case the same.
        let end = text.len() - after.len();
        let capital_follows = if saint.shape == Shape::Cap {
            after.starts_with(' ') && next.starts_with(char::is_uppercase) && !unit
        } else {
            after.starts_with(' ')
                && toks[k + 1..]
                    .iter()
                    .position(|t| t.start >= end)
                    .is_some_and(|j| {
                        c.m.longest(k + 1 + j)
                            .is_some_and(|(_, bits)| bits & (HOSP_TAIL | ORG_TAIL) != 0)
                    })
        };
        if capital_follows || eponyms.tail_after(text, name.end) {
            continue;
        }
        let label = Label::new(Category::Location, Subtype::Hospital);
        c.out
            .push(Entity::new(saint.start, end, label, SOURCE, S_HOSPITAL));
    }
}

#[cfg(test)]
mod tests {
    fn saints(text: &str) -> Vec<String> {
        crate::recognize::context::tests::english_by_source(text, super::SOURCE)
    }

    #[test]
    fn a_saint_in_the_possessive_alone_is_an_institution() {
        assert_eq!(
            saints("Transferred from St. Elizabeth's where she was admitted."),
            ["St. Elizabeth's"]
        );
        assert_eq!(saints("Seen at Saint Luke's ED today"), ["Saint Luke's"]);
        assert_eq!(saints("PT FROM ST. VINCENT'S, STABLE."), ["ST. VINCENT'S"]);
        assert_eq!(saints("was at St James' last week"), ["St James'"]);
        // In capitals the word after it is capitalized too; in lower case after a preposition.
        assert_eq!(
            saints("TRANSFERRED FROM ST. BRENDAN'S TODAY."),
            ["ST. BRENDAN'S"]
        );
        assert_eq!(
            saints("transferred from st. brendan's today."),
            ["st. brendan's"]
        );
    }

    #[test]
    fn longer_names_eponyms_and_streets_are_left_alone() {
        assert!(saints("Admitted to St. Mary's Hospital in 2019.").is_empty());
        assert!(saints("Takes St. John's wort at home.").is_empty());
        assert!(saints("Lives on Main St. Kevin's wife called.").is_empty());
        assert!(saints("Lives at 12 Elm St. Mother's day visit planned.").is_empty());
        assert!(saints("ADMITTED TO ST. MARY'S HOSPITAL IN 2019.").is_empty());
        assert!(saints("lives on elm st. kevin's wife called").is_empty());
        assert!(saints("TAKES ST. JOHN'S WORT DAILY.").is_empty());
    }
}
