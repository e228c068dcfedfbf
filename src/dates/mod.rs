//! Dates as written in clinical text: parse numeric and written forms in nl/hu/es/it/en, keep
//! the exact written format, render another date in that format, and shift by days.
//!
//! `render(parse(s))` reproduces `s` byte for byte; shifting uses a proleptic Gregorian
//! calendar (days-from-civil), so weekdays, month lengths and leap years stay right.

use crate::lang::Lang;

/// Letter case of a month or weekday name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Lower,
    Upper,
    Title,
}

impl Case {
    fn of(word: &str) -> Case {
        let has_lower = word.chars().any(char::is_lowercase);
        let has_upper = word.chars().any(char::is_uppercase);
        let first_upper = word.chars().next().is_some_and(char::is_uppercase);
        if !has_upper {
            Case::Lower
        } else if !has_lower && word.chars().count() > 1 {
            Case::Upper
        } else if first_upper {
            Case::Title
        } else {
            Case::Lower
        }
    }

    fn apply(self, word: &str) -> String {
        match self {
            Case::Lower => word.to_lowercase(),
            Case::Upper => word.to_uppercase(),
            Case::Title => {
                let mut c = word.chars();
                match c.next() {
                    Some(f) => f
                        .to_uppercase()
                        .chain(c.flat_map(char::to_lowercase))
                        .collect(),
                    None => String::new(),
                }
            }
        }
    }
}

/// A month or weekday written as a word: which variant, its case, and the original spelling
/// (reused verbatim when the rendered value equals the parsed one, for exact round trips).
#[derive(Clone, Debug, PartialEq, Eq)]
struct NameStyle {
    abbr: bool,
    case: Case,
    value: u32,
    original: String,
}

/// One piece of a date format.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// Text kept as written: separators, "de", "of", Hungarian case suffixes.
    Lit(String),
    Day {
        pad: bool,
        ordinal: bool,
    },
    MonthNum {
        pad: bool,
    },
    MonthName(NameStyle),
    Year {
        two_digit: bool,
    },
    Weekday(NameStyle),
}

/// The written shape of a date: its parts in order and the language of its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DateFormat {
    parts: Vec<Part>,
    lang: Lang,
}

/// A parsed date: the components the text states and the format it was written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedDate {
    pub year: Option<i32>,
    pub month: Option<u32>,
    pub day: Option<u32>,
    pub format: DateFormat,
    /// A date with a weekday but no year ("Tuesday 4/7"): a year in which that day and month
    /// fall on that weekday, so that a shift moves the weekday with the date.
    weekday_year: Option<i32>,
}

mod calendar;
mod names;
mod parse;
mod render;
#[cfg(test)]
mod tests;

pub use calendar::*;
pub use names::*;
pub use parse::*;
pub use render::*;
