//! Holidays named in English notes ("fell on Christmas Eve", "home by Thanksgiving", "since
//! New Year's"): a holiday fixes a day of the year as a written date does, so it is a date
//! (HIPAA counts every element of a date but the year). Capitalized or in capitals; a one-word
//! holiday also in lower case ("over xmas"), which no other word is spelled as. English only:
//! the other languages' corpora (MEDDOCAN's notes, the news splits) do not mark holidays.

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use aho_corasick::{AhoCorasick, MatchKind};

const SCORE: f32 = 0.6;

/// The holidays, capitalized; the longest form is taken ("Christmas Eve" over "Christmas").
const HOLIDAYS: &[&str] = &[
    "Christmas",
    "Christmas Eve",
    "Christmas Day",
    "Xmas",
    "X-mas",
    "New Year's",
    "New Year's Eve",
    "New Year's Day",
    "New Years Eve",
    "New Years Day",
    "Thanksgiving",
    "Thanksgiving Day",
    "Easter",
    "Easter Sunday",
    "Good Friday",
    "Memorial Day",
    "Labor Day",
    "Independence Day",
    "Fourth of July",
    "Veterans Day",
    "Veterans' Day",
    "Columbus Day",
    "Presidents Day",
    "Presidents' Day",
    "Martin Luther King Day",
    "MLK Day",
    "Halloween",
    "Valentine's Day",
    "Mother's Day",
    "Father's Day",
    "Hanukkah",
    "Chanukah",
    "Passover",
    "Rosh Hashanah",
    "Yom Kippur",
];

pub struct Holidays {
    names: AhoCorasick,
}

impl Holidays {
    /// The rule of `lang`, or `None` where it has none (see the module line).
    pub fn new(lang: Lang) -> Option<Self> {
        if lang != Lang::En {
            return None;
        }
        let mut names = Vec::new();
        for holiday in HOLIDAYS {
            names.push(holiday.to_string());
            names.push(holiday.to_uppercase());
            if !holiday.contains([' ', '-']) {
                names.push(holiday.to_lowercase());
            }
        }
        let names = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&names)
            .expect("the holiday names build an automaton");
        Some(Holidays { names })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        for m in self.names.find_iter(text) {
            let (s, e) = (m.start(), m.end());
            let glued_before = text[..s]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let glued_after = text[e..].chars().next().is_some_and(char::is_alphanumeric);
            if !glued_before && !glued_after {
                let label = Label::new(Category::Date, Subtype::Date);
                out.push(Cand::new(s, e, label, "holiday", SCORE));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        Holidays::new(Lang::En).unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn a_holiday_is_a_date() {
        assert_eq!(
            found("Fell on Christmas Eve; seen again after NEW YEAR'S DAY."),
            ["Christmas Eve", "NEW YEAR'S DAY"]
        );
        assert_eq!(
            found("home by thanksgiving, drinking since xmas"),
            ["thanksgiving", "xmas"]
        );
        // Inside a longer word, and a lower-case phrase of several words, are left alone.
        for text in ["Christmastime visit", "pt in labor day 2 of induction"] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
        assert!(Holidays::new(Lang::Nl).is_none());
    }
}
