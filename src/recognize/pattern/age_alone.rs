//! An age written as a bare number after a person and `is`/`was` in English notes ("Pt is 96
//! and oriented", "grandmother, who is 92, lives"), or after the verbs of a life's length in a
//! family history ("lived to 97", "died at age 93", "passed away at 91"), where no unit marks
//! it. Only a person word as the subject of `is` (a vital sign "HR is 96" is none), and only
//! where the clause ends or goes on after the number ("is 2 assist", "was 36 weeks", "is 1:1"
//! count something else). An age over 89 between commas after a name or a person's word is one
//! too ("Ethel Marchetti, 94, lives in Saugus", "MOTHER, 91, IS HCP"). The other languages
//! write the unit ("tiene 92 años").

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use regex::Regex;

const SCORE: f32 = 0.6;

/// Words that may follow the age and go on with the sentence, not count something.
const GOES_ON: &[&str] = &[
    "and",
    "but",
    "with",
    "now",
    "today",
    "yesterday",
    "this",
    "last",
    "on",
    "in",
    "at",
    "so",
    "herself",
    "himself",
];

/// Words of a person before an age in apposition ("mother, 91, is HCP").
const PERSON_WORDS: &[&str] = &[
    "pt",
    "patient",
    "mother",
    "father",
    "wife",
    "husband",
    "sister",
    "brother",
    "aunt",
    "uncle",
    "grandmother",
    "grandfather",
    "mom",
    "dad",
    "spouse",
    "partner",
    "friend",
    "neighbor",
];

pub struct AgesAlone {
    ages: Regex,
    /// A word, a comma, a number of two or three digits and a comma, then a word.
    apposed: Regex,
}

impl AgesAlone {
    /// The rule of `lang`, or `None` where it has none (see the module line).
    pub fn new(lang: Lang) -> Option<Self> {
        (lang == Lang::En).then(|| AgesAlone {
            ages: Regex::new(concat!(
                r"\b(?:(?i:pt|patient|he|she|who)[ ]+(?i:is|was|turned|turns)",
                r"|(?i:lived|lives)[ ]+(?i:to)(?:[ ]+(?i:be|age))?",
                r"|(?i:died|passed away|passed)[ ]+(?i:at)(?:[ ]+(?i:age))?",
                r")[ ]+([0-9]{1,3})\b",
            ))
            .expect("the age pattern is valid"),
            apposed: Regex::new(
                r"\b([A-Za-z][A-Za-z'\-]*)[ ]?,[ ]?([0-9]{2,3})[ ]?,[ ]?([A-Za-z]+)\b",
            )
            .expect("the apposed age pattern is valid"),
        })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let label = Label::new(Category::Age, Subtype::Age);
        for caps in self.ages.captures_iter(text) {
            let age = caps.get(1).expect("the pattern has one group");
            let years: u32 = age.as_str().parse().unwrap_or(0);
            if (1..=120).contains(&years) && clause_goes_on(&text[age.end()..]) {
                out.push(Cand::new(age.start(), age.end(), label, "age_alone", SCORE));
            }
        }
        for caps in self.apposed.captures_iter(text) {
            let (before, age, after) = (&caps[1], caps.get(2).expect("group 2"), &caps[3]);
            let years: u32 = age.as_str().parse().unwrap_or(0);
            // The clause goes on in the case of the words before ("lives", "IS"): a
            // capitalized word opens the next item of a list ("Lasix, 100, Lopressor").
            let same_case = if before.chars().any(char::is_lowercase) {
                !after.chars().any(char::is_uppercase)
            } else {
                !after.chars().any(char::is_lowercase)
            };
            if (90..=120).contains(&years) && person_before(before) && same_case && !is_unit(after)
            {
                out.push(Cand::new(age.start(), age.end(), label, "age_alone", SCORE));
            }
        }
    }
}

/// Whether `word`, before an age in apposition, names a person: a person's word, or a
/// capitalized word of three letters or more (a surname) written in mixed case or all in
/// capitals of four letters or more ("Marchetti", "MARCHETTI"; not "SAT" of "O2 SAT, 92,").
fn person_before(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let capitalized = word.chars().next().is_some_and(char::is_uppercase);
    let all_caps = !word.chars().any(char::is_lowercase);
    PERSON_WORDS.iter().any(|p| p.eq_ignore_ascii_case(word))
        || capitalized && (!all_caps && letters >= 3 || all_caps && letters >= 4)
}

/// Whether `word`, after the number, is a unit of age or a percentage's word ("yo", "years").
fn is_unit(word: &str) -> bool {
    ["yo", "y", "yrs", "years", "year", "percent", "pct"]
        .iter()
        .any(|u| u.eq_ignore_ascii_case(word))
}

/// Whether `rest`, the text right after the number, ends the clause (end of text, `,`, `;`,
/// `)`, a full stop not followed by a digit) or goes on with a word of [`GOES_ON`].
fn clause_goes_on(rest: &str) -> bool {
    match rest.chars().next() {
        None | Some(',' | ';' | ')' | '\n') => true,
        Some('.') => !rest[1..].starts_with(|c: char| c.is_ascii_digit()),
        Some(' ') => {
            let next = rest
                .trim_start_matches(' ')
                .split(|c: char| !c.is_alphabetic())
                .next()
                .unwrap_or("");
            GOES_ON.iter().any(|w| w.eq_ignore_ascii_case(next))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        AgesAlone::new(Lang::En).unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn a_bare_number_after_a_person_and_is_is_an_age() {
        assert_eq!(
            found("Pt is 96 and oriented x2. Grandmother, who is 92, lives alone. SHE WAS 101."),
            ["96", "92", "101"]
        );
        assert_eq!(found("wife at bedside, she is 90 herself."), ["90"]);
        assert_eq!(
            found("grandfather lived to 97; mother died at age 93, aunt passed away at 91."),
            ["97", "93", "91"]
        );
        for text in [
            "HR is 96 and regular.",
            "Pt is 2 assist to chair.",
            "She was 36 weeks at delivery.",
            "Pt is 1:1 with sitter.",
            "Pt is 100% on RA.",
            "Pt was 4.5 kg at birth.",
            "Pt is 0/10 pain.",
            "Pt is 150.",
            "Pt died at 0315.",
            "lived to 2 blocks away",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
        assert!(AgesAlone::new(Lang::Nl).is_none());
    }

    #[test]
    fn an_age_over_89_between_commas_after_a_name_or_person_is_an_age() {
        assert_eq!(
            found("Pt's mother Ethel Marchetti, 94, lives in Saugus."),
            ["94"]
        );
        assert_eq!(found("MOTHER, 91, IS HCP."), ["91"]);
        for text in [
            "O2 SAT, 92, ON 2L",
            "Smith, 45, lives alone",
            "sats 94, 96, 98",
            "Lasix, 100, Lopressor",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
