//! Dates without a year ("on 7/22", "el 22-7", "op 3/11"): a day and a month joined by `/` or
//! `-`, taken right after a word that introduces a date in the note's language, because on
//! their own such pairs are as often fractions, scores or ranges.
//!
//! A weekday right before the pair introduces it too ("Monday 3/15", "Tues. 3/15", "FRIDAY,
//! 12/4", "lunes 15-3") and is part of the date: its full name in any of the languages, and in
//! English the abbreviations of three letters or more but `sat` and `sun` (a saturation, the
//! sun).
//!
//! English notes (month first) also write them bare ("admitted 4/12", "CXR 3/14 clear"):
//! there a month/day pair with a slash is a date on its own unless it reads as a score or a
//! fraction (a numerator at most a denominator of 2–6, 10 or 15: "pain 5/10", "strength 4/5",
//! "2/6 murmur", "1/2 NS", "GCS 11/15"), a pressure-support setting (a day of 5: "PS 10/5",
//! unless a clock time follows: "12/5 @ 0215"), a ventilator setting after its name ("CPAP
//! 12/8") or a newborn's Apgar scores ("Apgars 7/9"). A dash pair ("3-11 shift", "RR 12-20")
//! still needs the date word: bare, it is a range far more often than a date.
//!
//! A procedure named by its suffix introduces the pair as a date word does ("colonoscopy 4/6
//! showed", "thoracentesis 3/5"): a procedure is dated, never scored. So does a study or scan
//! named by its abbreviation ("CTA 3/3 with PE", "CXR 2/4 clear", "MRI 5/6").

use super::text::{next_char, prev_char};
use super::Cand;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;

const SCORE: f32 = 0.7;

/// Words right before a date ("since 7/22", "desde el 22-7"): prepositions and date nouns; in
/// English also the events and visits a note dates ("admitted 6/5", "extubated 3/2", "return
/// 12/5", "appt 4/3"), after which a pair that would read as a score bare (a day of 5, "2/3")
/// is a date all the same.
pub(super) fn date_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "on",
            "since",
            "from",
            "until",
            "till",
            "dated",
            "date",
            "admitted",
            "readmitted",
            "discharged",
            "transferred",
            "intubated",
            "extubated",
            "due",
            "through",
            "thru",
            "scheduled",
            "delivered",
            "born",
            "return",
            "returns",
            "returned",
            "presented",
            "f/u",
            "appt",
            "appointment",
            "visit",
            "seen",
            "came",
            // The papers, claims and deaths of case-management and legal notes ("SIGNED 4/4",
            // "expired 4/1", "injured at work 3/22" reads its preposition; "effective 5/1").
            "signed",
            "faxed",
            "mailed",
            "filed",
            "submitted",
            "approved",
            "denied",
            "effective",
            "ends",
            "ended",
            "expired",
            "died",
            "injured",
        ],
        Lang::Es => &["el", "día", "dia", "fecha", "desde", "hasta", "del"],
        Lang::Nl => &["op", "sinds", "vanaf", "tot", "per", "d.d.", "datum"],
        Lang::It => &["il", "dal", "al", "giorno", "data", "del"],
        Lang::Hu => &["dátum", "napján"],
    }
}

/// Endings of procedures' names ("colonoscopy", "cholecystectomy", "craniotomy", "angioplasty",
/// "paracentesis"), lower case: a pair right after one dates it.
const PROCEDURE_ENDINGS: &[&str] = &["scopy", "ectomy", "otomy", "plasty", "centesis"];

/// Studies and scans as notes abbreviate them ("CTA 3/3", "cxr 2/4", "TTE 5/6"), lower case: a
/// pair right after one dates it, as after a procedure. Not "US" (the pronoun) nor "PT".
const STUDIES: &[&str] = &[
    "ct", "cta", "cxr", "kub", "mri", "mra", "mrcp", "tte", "tee", "ekg", "ecg", "eeg", "emg",
    "echo", "pet", "dexa", "ercp", "egd", "cath", "angio", "bx", "biopsy", "scan", "xr", "films",
];

/// What after the pair makes it a fraction or a share ("el 3/4 de los casos", "1/2 of the").
const FRACTION_AFTER: &[&str] = &[
    "%", " de los", " de las", " of the", " van de", " della", " degli", " delle", " part",
    " parte", " deel",
];

/// Fluids and doses after a fraction ("on 1/2 NS", "1/4 strength"), lower case: a pair that
/// reads as a fraction is one before them even after a date word.
const FLUID_AFTER: &[&str] = &[" ns", " normal saline", " strength", " tab", " dose"];

/// Ventilator settings written as two pressures with a slash ("PS 10/5", "BiPAP 12/8"), lower
/// case: the word right before such a pair.
const VENT_SETTINGS: &[&str] = &[
    "ps", "psv", "peep", "cpap", "bipap", "ipap", "epap", "pc", "pcv", "pressure", "support",
    "settings", "vent",
];

/// Scores written with a slash ("Apgars 7/9", at one and five minutes; a biophysical profile's
/// "BPP 8/8", out of eight), lower case: the word right before such a pair.
const PAIRED_SCORES: &[&str] = &["apgar", "apgars", "bpp"];

/// Denominators of scores and fractions: halves to sixths, pain out of 10, GCS out of 15.
const SCALES: &[u32] = &[2, 3, 4, 5, 6, 10, 15];

/// Whether `a/b` reads as a score or a fraction: a numerator at most a scale's denominator.
fn fraction(a: u32, b: u32) -> bool {
    SCALES.contains(&b) && a <= b
}

/// Whether `rest` (the text after a pair) opens with a fluid or a dose ("1/2 NS at 75").
fn fluid_after(rest: &str) -> bool {
    FLUID_AFTER.iter().any(|f| {
        rest.get(..f.len())
            .is_some_and(|r| r.eq_ignore_ascii_case(f))
            && !rest[f.len()..].starts_with(|c: char| c.is_alphanumeric())
    })
}

/// The weekdays that introduce a pair (lower case; see the module line).
fn weekdays(lang: Lang) -> Vec<&'static str> {
    let abbreviated = crate::dates::weekday_abbreviations(lang);
    crate::dates::weekday_spellings(lang)
        .into_iter()
        .filter(|w| {
            !abbreviated.contains(w)
                || lang == Lang::En && w.len() >= 3 && !matches!(*w, "sat" | "sun")
        })
        .collect()
}

pub struct ShortDates {
    words: &'static [&'static str],
    weekdays: Vec<&'static str>,
    /// Month-first notes: a slash pair needs no date word before it.
    bare_month_day: bool,
}

impl ShortDates {
    pub fn new(lang: Lang) -> Self {
        ShortDates {
            words: date_words(lang),
            weekdays: weekdays(lang),
            bare_month_day: lang == Lang::En,
        }
    }

    /// Whether the slash pair `month/day` at `s..e` is a date without a word before it: it stands
    /// alone between spaces or punctuation, and reads as neither a score, a fraction nor a
    /// ventilator setting. A pair followed by a clock time ("12/5 @ 0215", "12/4 at 1500") is a
    /// date even with a day of 5, which bare reads as a pressure-support setting.
    fn bare_date(&self, text: &str, s: usize, e: usize, month: u32, day: u32) -> bool {
        if !self.bare_month_day {
            return false;
        }
        let scale = fraction(month, day);
        standalone_before(text, s)
            && standalone_after(&text[e..])
            && month_and_day(month, day)
            && (day != 5 || clock_time_after(&text[e..]))
            && !scale
            && !after_score_word(text, s)
    }

    /// Whether the word right before byte `s` (one space between) introduces a date, alone or
    /// as a field's label: with its colon, or one of a slash pair of words ("DATE/TIME: 6/5",
    /// "date: 6/10"), "f/u" whole.
    fn after_date_word(&self, text: &str, s: usize) -> bool {
        let Some(before) = text[..s].strip_suffix(' ') else {
            return false;
        };
        let w = before
            .rsplit(|c: char| c.is_whitespace() || c == '(' || c == ',')
            .next()
            .unwrap_or("");
        let listed = |w: &str| self.words.iter().any(|d| d.eq_ignore_ascii_case(w));
        let label = w.strip_suffix(':').filter(|l| !l.is_empty());
        listed(w) || label.is_some_and(|l| listed(l) || l.split('/').any(listed))
    }

    /// Whether the word right before byte `s` (one space between) is an English procedure named
    /// by its ending (`PROCEDURE_ENDINGS`), of eight letters or more, or a study (`STUDIES`).
    fn after_procedure(&self, text: &str, s: usize) -> bool {
        let Some(before) = text[..s].strip_suffix(' ') else {
            return false;
        };
        let w = before
            .rsplit(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        // ASCII letters only, so any byte offset is a boundary.
        let procedure = w.len() >= 8
            && PROCEDURE_ENDINGS
                .iter()
                .any(|ending| w[w.len() - ending.len()..].eq_ignore_ascii_case(ending));
        let study = || STUDIES.iter().any(|study| study.eq_ignore_ascii_case(w));
        self.bare_month_day && (procedure || study())
    }

    /// The start of a weekday standing right before byte `s`, with one space and at most a "."
    /// or "," between ("Monday 3/15", "Tues. 3/15", "FRIDAY, 12/4"): the date's span opens
    /// there, as a written date's does ("Monday, March 15").
    fn weekday_before(&self, text: &str, s: usize) -> Option<usize> {
        let before = text[..s].strip_suffix(' ')?;
        let before = before.strip_suffix(['.', ',']).unwrap_or(before);
        let w = before
            .rsplit(|c: char| !c.is_alphabetic())
            .next()
            .unwrap_or("");
        let listed = !w.is_empty() && self.weekdays.contains(&w.to_lowercase().as_str());
        listed.then(|| before.len() - w.len())
    }

    /// A range of two month/day pairs joined by a dash in a month-first note ("bill for
    /// 3/28-4/4 stay"): both are dates when each is a month and a day, one of them at least
    /// reads as no score or fraction, and no ventilator or score word stands before it ("PS
    /// 10/5-12/5"). Returns where the second pair ends.
    fn range_end(&self, text: &str, s: usize, e: usize, (a, b): (u32, u32)) -> Option<usize> {
        if !self.bare_month_day {
            return None;
        }
        let rest = text[e..].strip_prefix('-')?;
        let (c, rest2) = leading_number(rest)?;
        let rest2 = rest2.strip_prefix('/')?;
        let (d, tail) = leading_number(rest2)?;
        let end = text.len() - tail.len();
        (standalone_after(tail)
            && month_and_day(a, b)
            && month_and_day(c, d)
            && !(fraction(a, b) && fraction(c, d))
            && standalone_before(text, s)
            && !after_score_word(text, s))
        .then_some(end)
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let label = Label::new(Category::Date, Subtype::Date);
        let mut range_until = 0;
        for (s, sep, e) in digit_pairs(text) {
            if s < range_until {
                continue;
            }
            let rest = &text[e..];
            let n = |r: std::ops::Range<usize>| text[r].parse::<u32>().unwrap_or(0);
            let (a, b) = (n(s..sep), n(sep + 1..e));
            let slash = text.as_bytes()[sep] == b'/';
            if slash {
                if let Some(end) = self.range_end(text, s, e, (a, b)) {
                    out.push(Cand::new(s, e, label, "short_date", SCORE));
                    out.push(Cand::new(e + 1, end, label, "short_date", SCORE));
                    range_until = end;
                    continue;
                }
            }
            // Part of a longer number or date ("7/22/2019", "1-2-3", "3/4.5").
            let longer = rest.starts_with(|ch: char| "/-.,".contains(ch))
                && rest[1..].starts_with(|ch: char| ch.is_ascii_digit());
            let weekday = self.weekday_before(text, s);
            let introduced = self.after_date_word(text, s)
                || self.after_procedure(text, s)
                || weekday.is_some()
                || (slash && self.bare_date(text, s, e, a, b));
            if longer
                || text[..s].ends_with(|ch: char| "/-.,".contains(ch))
                || FRACTION_AFTER.iter().any(|f| rest.starts_with(f))
                || (slash && fraction(a, b) && fluid_after(rest))
                || !introduced
            {
                continue;
            }
            if month_and_day(b, a) || month_and_day(a, b) {
                let start = weekday.unwrap_or(s);
                out.push(Cand::new(start, e, label, "short_date", SCORE));
            }
        }
    }
}

/// Whether a pair at byte `s` stands after a space, an opening parenthesis or punctuation.
fn standalone_before(text: &str, s: usize) -> bool {
    text[..s]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || "(,;:".contains(c))
}

/// Whether the word before byte `s` is a ventilator setting's or a paired score's ("PS 10/5",
/// "Apgars 7/9"), alone or in a slash pair of words ("PEEP/PS").
fn after_score_word(text: &str, s: usize) -> bool {
    let word_before = text[..s]
        .trim_end()
        .rsplit(|c: char| !c.is_ascii_alphabetic() && c != '/')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    VENT_SETTINGS
        .iter()
        .chain(PAIRED_SCORES)
        .any(|v| word_before.split('/').any(|w| w == *v))
}

/// Whether a pair whose text goes on with `rest` ends there: at the end, a blank or
/// punctuation.
fn standalone_after(rest: &str) -> bool {
    rest.chars()
        .next()
        .is_none_or(|c| c.is_whitespace() || ".,;:)".contains(c))
}

/// Whether `month` and `day` can be a month and a day of it.
fn month_and_day(month: u32, day: u32) -> bool {
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

/// The number of one or two ASCII digits at the head of `s` and the text after it.
fn leading_number(s: &str) -> Option<(u32, &str)> {
    let n = digit_run(s.as_bytes().iter());
    if !(1..=2).contains(&n) {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// Whether `rest` opens with a clock time, after one space and an optional `@` or `at`: of 24
/// hours in four digits ("@ 0215", " at 1500", " 0600") or with a colon ("1:00 PM", "13:30"),
/// ending there.
fn clock_time_after(rest: &str) -> bool {
    let Some(rest) = rest.strip_prefix(' ') else {
        return false;
    };
    let rest = ["@ ", "@", "at "]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
        .unwrap_or(rest);
    let b = rest.as_bytes();
    let digits_from = |i: usize| {
        b[i.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let hours = digits_from(0);
    let (h_len, m_at) = match b.get(hours) {
        Some(b':') if (1..=2).contains(&hours) => (hours, hours + 1),
        _ if hours == 4 => (2, 2),
        _ => return false,
    };
    let number = |r: std::ops::Range<usize>| rest.get(r)?.parse::<u32>().ok();
    let (Some(h), Some(m)) = (number(0..h_len), number(m_at..m_at + 2)) else {
        return false;
    };
    let end = m_at + 2;
    let minutes_end = m_at + digits_from(m_at) == end;
    h < 24 && m < 60 && minutes_end && b.get(end).is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// Every "d/d" or "d-d" of one or two ASCII digits on each side that stands as a word of its
/// own (no word character touching it), left to right and not overlapping: (start, separator,
/// end). Scanned by hand from each separator, because the regex of the same shape needs Unicode
/// word boundaries, which keep it off its fast engines over non-ASCII text. (Its `\d` would also
/// take the digits of other scripts, which never parse as a day or a month.)
fn digit_pairs(text: &str) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let b = text.as_bytes();
    let word = |c: Option<char>| c.is_some_and(regex_syntax::is_word_character);
    let mut from = 0;
    memchr::memchr2_iter(b'/', b'-', b).filter_map(move |sep| {
        let before = digit_run(b[..sep].iter().rev());
        let after = digit_run(b[sep + 1..].iter());
        let (s, e) = (sep - before, sep + 1 + after);
        let pair = s >= from
            && (1..=2).contains(&before)
            && (1..=2).contains(&after)
            && !word(prev_char(text, s))
            && !word(next_char(text, e));
        pair.then(|| {
            from = e;
            (s, sep, e)
        })
    })
}

/// The ASCII digits at the head of `bytes`, counted up to three (three or more leave no pair).
fn digit_run<'a>(bytes: impl Iterator<Item = &'a u8>) -> usize {
    bytes.take(3).take_while(|c| c.is_ascii_digit()).count()
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
            (
                Lang::En,
                "pt admitted 6/5 with DKA, extubated 2/3",
                &["6/5", "2/3"],
            ),
            (
                Lang::En,
                "sent home, returned 4/4 w/ SOB; presented 3/5 to ED",
                &["4/4", "3/5"],
            ),
            (Lang::Es, "ingresó el 22-7 por disnea", &["22-7"]),
            (Lang::Nl, "controle op 3/11 gepland", &["3/11"]),
            (Lang::It, "ricoverato il 12/3 in reparto", &["12/3"]),
            (
                Lang::Es,
                "control el lunes 15-3 en consulta",
                &["lunes 15-3"],
            ),
            (
                Lang::Nl,
                "controle maandag 3-11, zo 3-4 keer per dag",
                &["maandag 3-11"],
            ),
            // No date word: a ratio, a score, a range.
            (Lang::Nl, "kracht 4/5 links", &[]),
            (Lang::Es, "control 12/3 sin cambios", &[]),
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

    #[test]
    fn digit_pairs_are_the_matches_of_their_regex() {
        let re = regex::Regex::new(r"\b\d{1,2}[/\-]\d{1,2}\b").unwrap();
        let texts = [
            "on 7/22, 1/2-3, 12-7-2019 and 123/4, 1/234, x1/2, 1/2x, _1/2, é1/2 (3/4) 5/6.",
            "a--1/-2//3 4-5/6 99/99 0/0 7/ /8 1-2",
            "ß12/3 №4/5 3/4a 5\u{301}/6 1/2\u{301}",
        ];
        for t in texts {
            let ours: Vec<&str> = digit_pairs(t).map(|(s, _, e)| &t[s..e]).collect();
            let theirs: Vec<&str> = re.find_iter(t).map(|m| m.as_str()).collect();
            assert_eq!(ours, theirs, "{t}");
        }
    }

    #[test]
    fn english_notes_write_month_and_day_bare() {
        let cases: &[(&str, &[&str])] = &[
            ("admitted 4/12 with SOB", &["4/12"]),
            ("CXR 3/14 clear, dressing changed 12/3.", &["3/14", "12/3"]),
            ("(last BM 11/28)", &["11/28"]),
            // Scores, fractions, settings, ranges and readings.
            ("pain 5/10, strength 4/5 and 5/5, 2/6 SEM", &[]),
            ("D5 1/2NS at 75, then 1/2 NS", &[]),
            // After a date word too; a date is still one before them ("on 12/3 NS bolus").
            (
                "on 1/2 NS at 75, on 1/4 strength feeds, on 12/3 NS bolus",
                &["12/3"],
            ),
            ("GCS 11/15, pulses 2/4", &[]),
            ("on PS 10/5 overnight, CPAP 12/8 by day, BiPAP 15/8", &[]),
            ("SOB 2/2 CHF", &[]),
            ("11-7 NPN: RR 12-20", &[]),
            ("BP 110/60, ABG 7.32/45/78", &[]),
            ("x2/3 and 3/14a", &[]),
            // A clock time after the pair dates it, a day of 5 too; a score stays a score.
            ("Event 12/5 @ 0215: brady", &["12/5"]),
            ("seen 12/5 at 1500 and 11/5 0600", &["12/5", "11/5"]),
            ("pain 5/10 at 0400, PS 10/5 at 0800, 12/5 at 2500", &[]),
            (
                "seen 12/5 1:00 PM, 11/5 13:30; PS 10/5 1:0, 12/5 at 25:00",
                &["12/5", "11/5"],
            ),
            // A field's label names the date, a slash pair of words too; "f/u" stays whole.
            (
                "DATE/TIME: 6/5 1:00 PM; date/time: 6/10 3:30; Date: 5/10; f/u 3/10",
                &["6/5", "6/10", "5/10", "3/10"],
            ),
            ("Time: 5/10 pain; PEEP/PS: 10/5; : 5/10", &[]),
            // A weekday introduces the pair, even one that reads as a score bare, and belongs
            // to the date.
            (
                "f/u Monday 3/15 with PCP; seen Tues. 3/10, FRIDAY, 12/5 and Thurs 6/7",
                &["Monday 3/15", "Tues. 3/10", "FRIDAY, 12/5", "Thurs 6/7"],
            ),
            // Not an abbreviation that is also a word, nor a weekday away from the pair.
            ("O2 sat 3/4 L NC; Pain 3/10 Monday; Monday: pain 3/10", &[]),
            // A procedure named by its ending dates the pair, one that reads as a score too.
            (
                "colonoscopy 4/6 showed diverticulosis; s/p Cholecystectomy 3/5",
                &["4/6", "3/5"],
            ),
            ("program 1/2 done, ostomy 1/2 full, scope 2/3", &[]),
            // So does a study by its abbreviation, in any case; not a word that merely ends so.
            (
                "PE: CTA 3/3 with PE; cxr 2/4 clear, TTE 5/6 EF 55%",
                &["3/3", "2/4", "5/6"],
            ),
            ("told us 3/4 of it; Act 2/3 done; strength 4/5", &[]),
            // A range of two pairs dates both, one that reads as a score too; not a range of
            // settings or of two fractions.
            (
                "itemized bill for 3/28-4/4 stay; away 12/30-1/2.",
                &["3/28", "4/4", "12/30", "1/2"],
            ),
            ("PS 10/5-12/5 overnight; weaned 1/2-3/4 strength", &[]),
            // The papers and the deaths of case-management notes date the pair after them.
            (
                "NOMNC SIGNED 4/4 1030; pt expired 4/1; tech came 5/10",
                &["4/4", "4/1", "5/10"],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(found(Lang::En, text), *want, "{text}");
        }
    }
}
