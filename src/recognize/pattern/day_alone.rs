//! A day of the month named alone by its ordinal in English notes ("plans EGD on the 3rd",
//! "home by the 15th"): like a month alone, an element of a date. Only after a dating word and
//! "the", and not before a noun it counts ("on the 3rd floor", "by the 2nd dose"). The other
//! languages write the day with its month.

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use regex::Regex;

const SCORE: f32 = 0.6;

/// Words that may follow the day and go on with the sentence, not count something.
const GOES_ON: &[&str] = &[
    "and", "or", "at", "in", "to", "per", "if", "for", "when", "with", "as", "but", "pending",
];

pub struct DaysAlone {
    days: Regex,
}

impl DaysAlone {
    /// The rule of `lang`, or `None` where it has none (see the module line).
    pub fn new(lang: Lang) -> Option<Self> {
        (lang == Lang::En).then(|| DaysAlone {
            days: Regex::new(
                r"\b(?i:on|by|until|till|since|before|after|from)[ ]+(?i:the)[ ]+([0-9]{1,2}(?:st|nd|rd|th))\b",
            )
            .expect("the day pattern is valid"),
        })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        for caps in self.days.captures_iter(text) {
            let day = caps.get(1).expect("the pattern has one group");
            let number: u32 = day
                .as_str()
                .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .unwrap_or(0);
            let next = text[day.end()..]
                .trim_start_matches([' ', '\t'])
                .split(|c: char| !c.is_alphabetic())
                .next()
                .unwrap_or("");
            let counts = next.starts_with(|c: char| c.is_lowercase()) && !GOES_ON.contains(&next);
            if (1..=31).contains(&number) && !counts {
                let label = Label::new(Category::Date, Subtype::Date);
                out.push(Cand::new(day.start(), day.end(), label, "day_alone", SCORE));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        DaysAlone::new(Lang::En).unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn an_ordinal_day_after_a_dating_word_and_the_is_a_date() {
        assert_eq!(
            found("GI plans EGD on the 3rd. Home by the 15th and off work until the 21st."),
            ["3rd", "15th", "21st"]
        );
        for text in [
            "Room on the 3rd floor.",
            "Reassess after the 2nd dose of lasix.",
            "Seen on the 45th day.",
            "She was the 3rd to arrive.",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
        assert!(DaysAlone::new(Lang::Es).is_none());
    }
}
