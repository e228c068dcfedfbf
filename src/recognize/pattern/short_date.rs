//! Dates without a year ("on 7/22", "el 22-7", "op 3/11"): a day and a month joined by `/` or
//! `-`, taken only right after a word that introduces a date in the note's language, because on
//! their own such pairs are as often fractions, scores or ranges.

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use regex::Regex;

const SCORE: f32 = 0.7;

/// Words right before a date ("since 7/22", "desde el 22-7"): prepositions and date nouns.
fn date_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &["on", "since", "from", "until", "till", "dated", "date"],
        Lang::Es => &["el", "día", "dia", "fecha", "desde", "hasta", "del"],
        Lang::Nl => &["op", "sinds", "vanaf", "tot", "per", "d.d.", "datum"],
        Lang::It => &["il", "dal", "al", "giorno", "data", "del"],
        Lang::Hu => &["dátum", "napján"],
    }
}

/// What after the pair makes it a fraction or a share ("el 3/4 de los casos", "1/2 of the").
const FRACTION_AFTER: &[&str] = &[
    "%", " de los", " de las", " of the", " van de", " della", " degli", " delle", " part",
    " parte", " deel",
];

pub struct ShortDates {
    re: Regex,
    words: &'static [&'static str],
}

impl ShortDates {
    pub fn new(lang: Lang) -> Self {
        ShortDates {
            re: Regex::new(r"\b(\d{1,2})([/\-])(\d{1,2})\b").expect("static pattern"),
            words: date_words(lang),
        }
    }

    /// Whether the word right before byte `s` (one space between) introduces a date.
    fn after_date_word(&self, text: &str, s: usize) -> bool {
        let Some(before) = text[..s].strip_suffix(' ') else {
            return false;
        };
        let w = before
            .rsplit(|c: char| c.is_whitespace() || c == '(' || c == ',')
            .next()
            .unwrap_or("");
        self.words.iter().any(|d| d.eq_ignore_ascii_case(w))
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        for c in self.re.captures_iter(text) {
            let m = c.get(0).expect("whole match");
            let (s, e) = (m.start(), m.end());
            let rest = &text[e..];
            // Part of a longer number or date ("7/22/2019", "1-2-3", "3/4.5").
            let longer = rest.starts_with(|ch: char| "/-.,".contains(ch))
                && rest[1..].starts_with(|ch: char| ch.is_ascii_digit());
            if longer
                || text[..s].ends_with(|ch: char| "/-.,".contains(ch))
                || FRACTION_AFTER.iter().any(|f| rest.starts_with(f))
                || !self.after_date_word(text, s)
            {
                continue;
            }
            let n = |k: usize| c[k].parse::<u32>().unwrap_or(0);
            let (a, b) = (n(1), n(3));
            let day_month = (1..=31).contains(&a) && (1..=12).contains(&b);
            let month_day = (1..=12).contains(&a) && (1..=31).contains(&b);
            if day_month || month_day {
                let label = Label::new(Category::Date, Subtype::Date);
                out.push(Cand::new(s, e, label, "short_date", SCORE));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(lang: Lang, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        ShortDates::new(lang).find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn dates_without_a_year_after_a_date_word() {
        let cases: &[(Lang, &str, &[&str])] = &[
            (Lang::En, "pt admitted on 7/22 with sob", &["7/22"]),
            (Lang::En, "on vent since 7/19, weaning", &["7/19"]),
            (Lang::Es, "ingresó el 22-7 por disnea", &["22-7"]),
            (Lang::Nl, "controle op 3/11 gepland", &["3/11"]),
            (Lang::It, "ricoverato il 12/3 in reparto", &["12/3"]),
            // No date word: a ratio, a score, a range.
            (Lang::En, "strength 4/5 in all limbs", &[]),
            (Lang::Es, "TA 120/80, Glasgow 15/15", &[]),
            (Lang::Es, "dosis 1-2 comprimidos", &[]),
            // Fractions, impossible dates and dates with a year are left to other rules.
            (Lang::Es, "el 3/4 de los casos", &[]),
            (Lang::En, "on 13/14 occasions", &[]),
            (Lang::En, "on 7/22/2019 at noon", &[]),
        ];
        for (lang, text, want) in cases {
            assert_eq!(found(*lang, text), *want, "{lang}: {text}");
        }
    }
}
