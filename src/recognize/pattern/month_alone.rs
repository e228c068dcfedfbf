//! A month named alone after a word that dates it, in English notes ("drank heavily until
//! October", "admitted to Mount Auburn in August", "since mid-June"): under HIPAA the month is
//! an element of a date, and such a month narrows one as a day does. Capitalized, in capitals,
//! or in lower case as notes without capitals write it ("ran out in september"), but "may"
//! only capitalized or in capitals, so the lower-case one stays a verb; the day and year
//! forms ("October 12", "June 2019") are the date shapes'. The other languages have no such rule: MEDDOCAN's 500 training notes, for
//! one, mark a month alone as a date three times.

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use aho_corasick::{AhoCorasick, MatchKind};

const SCORE: f32 = 0.6;

/// Words after which a month names when something happened ("until October", "LAST MAY").
const MONTH_WORDS: &[&str] = &[
    "in", "since", "until", "till", "from", "through", "thru", "during", "by", "early", "late",
    "mid", "last", "before", "after",
];

/// Abbreviations that date alone as the full names do ("until Sept", "since Nov."); not
/// "Jan", "Jun", "Mar" or "Jul", which are names or words too.
const ABBREVIATIONS: &[&str] = &["feb", "apr", "aug", "sep", "sept", "oct", "nov", "dec"];

pub struct MonthsAlone {
    months: AhoCorasick,
    /// The automaton's patterns before this index are full names, the rest abbreviations.
    full_names: usize,
}

impl MonthsAlone {
    /// The rule of `lang`, or `None` where it has none (see the module line).
    pub fn new(lang: Lang) -> Option<Self> {
        if lang != Lang::En {
            return None;
        }
        let mut names = Vec::new();
        let capitalized = |word: &str| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
        };
        for month in crate::dates::month_spellings(lang).0 {
            names.push(capitalized(month)?);
            names.push(month.to_uppercase());
            if month != "may" {
                names.push(month.to_lowercase());
            }
        }
        // In capitals an abbreviation is a test or a finding more often ("OCT", "DEC").
        let full_names = names.len();
        for abbreviation in ABBREVIATIONS {
            names.push(capitalized(abbreviation)?);
        }
        let months = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&names)
            .expect("the month names build an automaton");
        Some(MonthsAlone { months, full_names })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        for m in self.months.find_iter(text) {
            let (s, e) = (m.start(), m.end());
            let full = m.pattern().as_usize() < self.full_names;
            let after = &text[e..];
            // An abbreviation's full stop may close it ("until Sept."); a name runs on.
            let after = if full {
                after
            } else {
                after.strip_prefix('.').unwrap_or(after)
            };
            if after.starts_with(|c: char| c.is_alphanumeric())
                || after
                    .trim_start_matches(',')
                    .strip_prefix(' ')
                    .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            {
                continue;
            }
            let before = &text[..s];
            let word = if ["mid-", "Mid-", "MID-"].iter().any(|p| before.ends_with(p)) {
                "mid".to_string()
            } else if let Some(before) = before.strip_suffix(' ') {
                let last = before.rsplit(|c: char| !c.is_alphabetic()).next();
                last.unwrap_or("").to_lowercase()
            } else {
                continue;
            };
            if MONTH_WORDS.contains(&word.as_str()) {
                let label = Label::new(Category::Date, Subtype::Date);
                out.push(Cand::new(s, e, label, "month_alone", SCORE));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        MonthsAlone::new(Lang::En).unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn a_month_after_a_word_that_dates_it_is_a_date() {
        assert_eq!(
            found("Pt drank heavily until October. Well until August."),
            ["October", "August"]
        );
        assert_eq!(
            found("Admitted to Mount Auburn in August with similar sx."),
            ["August"]
        );
        assert_eq!(
            found("SOB since mid-June, worse LAST MAY."),
            ["June", "MAY"]
        );
        assert_eq!(
            found("Worked as a mechanic until Sept. Seen in Nov and again since Dec."),
            ["Sept", "Nov", "Dec"]
        );
        assert_eq!(
            found("stopped abilify when he ran out in september. sober since july."),
            ["september", "july"]
        );
        // The verb, a month with its day or year (the date shapes' to take), and a month
        // after no dating word are left alone.
        for text in [
            "Pt may go home; MAY BE DC'D TOMORROW.",
            "pain in may be referred; worse since may.",
            "Seen on October 12 and in June 2019.",
            "Family says March was hard. August bank holiday.",
            "Transferred in Augusta, GA.",
            "Seen in Sept. 3 and in Nov 2080; cleared by OCT; visit from Jan.",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
        assert!(MonthsAlone::new(Lang::Es).is_none());
    }
}
