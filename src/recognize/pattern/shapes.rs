//! Untriggered shapes found in one scan: dates, ages, years, phone numbers, checksummed
//! identifiers, postcodes and IPv4 addresses.
//!
//! One combined regex (the alternation of every rule) finds candidate starts; at each start the
//! rules are tried in priority order with anchored regexes on the rest of the text, and the first
//! one whose validator accepts wins. Rejected starts skip one token, so a failed long reading
//! never hides a shorter valid one further on.

use super::lexicon::{alternation, Lexicon};
use super::openings::Openings;
use super::text::{
    ends_token, is_title_word, line_end_within, line_start_within, next_char, starts_token,
    token_end, words_before,
};
use super::{Cand, PatternError};
use crate::checksum;
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use regex::Regex;

/// The years of a date written in full: notes derived from MIMIC shift theirs past 2100
/// ("12/10/2130"), and such a date is one all the same.
const DATE_YEARS: std::ops::RangeInclusive<u32> = 1900..=2199;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Iban,
    CodiceFiscale,
    DniNie,
    Ipv4,
    DateNum,
    DateWritten,
    Nass,
    Bsn,
    Taj,
    Nhs,
    PhoneIntl,
    PhoneLocal,
    AgeAdj,
    AgeUnit,
    YearSuffix,
    Year,
    ZipNl,
    ZipUk,
    Zip5,
    Zip4,
}

struct Rule {
    kind: Kind,
    re: Regex,
    /// The two-byte openings of this rule: most rules are skipped at a start by one bit test
    /// instead of a regex call.
    openings: Openings,
}

pub struct Shapes {
    lang: Lang,
    lex: &'static Lexicon,
    /// Full month names and abbreviations (lower case), from `crate::dates`.
    months: Vec<&'static str>,
    month_abbr: Vec<&'static str>,
    /// Every rule as one pattern anchored at the start: does any rule match here at all?
    /// Anchored on purpose: an unanchored union of these rules makes the lazy DFA track every
    /// possible start at once, and its states then keep being built instead of reused.
    any: Regex,
    /// The two-byte openings of the rules other than codes (`is_code`): the scan asks `any`
    /// only where one fits or the word is shaped like a code.
    openings: Openings,
    rules: Vec<Rule>,
    ext: Regex,
    /// "y abril de 2000" after a bare month.
    conj: Regex,
}

const D: &str = "[0-9]";

/// How far either side of an abbreviated month its line is read for lower-case letters.
const LINE_WINDOW: usize = 400;

/// Whether `raw` opens with a parenthesis that the number's first group does not close
/// ("(508-555-0119)", "(+995 555 12 34 56)"; not "(508) 555-0119" nor "(+1) 617 ...").
fn encloses_whole_number(raw: &str) -> bool {
    raw.strip_prefix('(').is_some_and(|rest| {
        let rest = rest.strip_prefix('+').unwrap_or(rest);
        let group = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        !rest[group..].starts_with(')')
    })
}

/// Regex sources of written dates for `lex`: month-first ("March 12, 2019") and the other
/// orders, tried in that order so a failed month-first reading falls back.
pub fn written_date_source(lang: Lang, lex: &Lexicon) -> (String, String) {
    let (full, abbr) = crate::dates::month_spellings(lang);
    let (full, abbr) = (alternation(&full), alternation(&abbr));
    // "mei." after a full name occurs by analogy with the abbreviations ("12 mei. 2019").
    let month = format!(r"(?i:(?:{full})\.?|(?:{abbr})\.?)");
    let wd = format!(
        r"(?:(?i:{}),?[ ]+)?",
        alternation(&crate::dates::weekday_spellings(lang))
    );
    let ord = if lex.ordinals.is_empty() {
        r"\.?".to_string()
    } else {
        format!(r"(?:{}|\.)?", alternation(lex.ordinals))
    };
    let links = if lex.date_links.is_empty() {
        String::new()
    } else {
        format!(r"(?i:{})[ ]+|", alternation(lex.date_links))
    };
    let year = format!("(?:{D}{{4}}|'{D}{{2}})");
    let day = format!("{D}{{1,2}}");
    let the = if lang == Lang::En { "(?:the[ ]+)?" } else { "" };
    // Day month [year]: "3 de mayo de 2010", "12 mrt. 2019", "12th of March", "26-julio-2004".
    let dmy = format!(
        r"{wd}(?:{the}{day}{ord}[ ]*(?:{links}[\-/][ ]*)?)?{month}(?:[ ]*(?:{links}[\-/,][ ]*)?(?:{year}|{D}{{2}}))?"
    );
    // Month day[, year]: "March 12, 2019", "Agosto 06".
    let mdy = format!(r"{wd}{month}[ ]+{day}(?:st|nd|rd|th)?(?:,?[ ]+{year})?");
    let mut first = vec![mdy];
    if lang == Lang::Hu {
        // "2019. március 12.", "2019. március 12., kedd", "március 12-én", "2019. márciusban".
        let wd_after = alternation(super::lexicon::HU_WEEKDAYS_AFTER);
        first.insert(
            0,
            format!(
                r"(?:{D}{{4}}\.?[ ]*)?{month}[ ]*{day}(?:\.(?:,?[ ]+(?i:{wd_after})[a-záéíóöőúüű]*)?|-(?i:[a-záéíóöőúüű]{{1,5}}))?|{D}{{4}}\.[ ]*{month}(?i:ban|ben|ig|tól|től|i)?"
            ),
        );
    }
    (first.join("|"), dmy)
}

/// A number in digits or in the language's words, two of them joined by its "and" or a
/// hyphen ("ninety-two").
fn number_source(lex: &Lexicon) -> String {
    if lex.number_words.is_empty() {
        format!("{D}{{1,3}}")
    } else {
        let w = alternation(lex.number_words);
        format!(r"(?:{D}{{1,3}}|(?i:(?:{w})(?:(?:[ ]+(?:y|e|and)[ ]+|-)(?:{w}))?))")
    }
}

fn rule_sources(lang: Lang, lex: &Lexicon) -> Vec<(Kind, String)> {
    let mut v: Vec<(Kind, String)> = Vec::new();
    v.push((
        Kind::Iban,
        format!("[A-Z]{{2}}{D}{{2}}(?:[ ]?[A-Z0-9]){{11,30}}"),
    ));
    let cd = "[0-9LMNPQRSTUV]";
    v.push((
        Kind::CodiceFiscale,
        format!("[A-Za-z]{{6}}{cd}{{2}}[A-Za-z]{cd}{{2}}[A-Za-z]{cd}{{3}}[A-Za-z]"),
    ));
    if lang == Lang::Es {
        v.push((Kind::DniNie, format!("[XYZxyz]?-?{D}{{7,8}}-?[A-Za-z]")));
    }
    v.push((
        Kind::Ipv4,
        format!(r"{D}{{1,3}}\.{D}{{1,3}}\.{D}{{1,3}}\.{D}{{1,3}}"),
    ));
    v.push((
        Kind::DateNum,
        format!(
            r"{D}{{4}}\.[ ]?{D}{{1,2}}\.[ ]?{D}{{1,2}}\.?|{D}{{4}}[\-/]{D}{{1,2}}[\-/]{D}{{1,2}}|{D}{{1,2}}[ ]?[/.\-]{{1,2}}[ ]?{D}{{1,2}}[ ]?[/.\-]{{1,2}}[ ]?(?:{D}{{4}}|{D}{{2}})|{D}{{1,2}}/{D}{{4}}"
        ),
    ));
    let (mdy, dmy) = written_date_source(lang, lex);
    v.push((Kind::DateWritten, mdy));
    v.push((Kind::DateWritten, dmy));
    match lang {
        Lang::Es => v.push((
            Kind::Nass,
            format!("{D}{{2}}[ /\\-]{D}{{7,10}}[ /\\-]{D}{{2}}|{D}{{12}}"),
        )),
        Lang::Nl => v.push((
            Kind::Bsn,
            format!(r"{D}{{9}}|{D}{{4}}\.{D}{{2}}\.{D}{{3}}|{D}{{3}}[ \-]{D}{{3}}[ \-]{D}{{3}}"),
        )),
        Lang::Hu => v.push((Kind::Taj, format!(r"{D}{{3}}[ \-]?{D}{{3}}[ \-]?{D}{{3}}"))),
        Lang::En => v.push((Kind::Nhs, format!(r"{D}{{3}}[ \-]?{D}{{3}}[ \-]?{D}{{4}}"))),
        Lang::It => {}
    }
    v.push((
        Kind::PhoneIntl,
        format!(
            r"(?:\+[ ]?|00|\(\+){D}{{1,3}}\)?[ .\-]{{0,2}}(?:\(0\)[ .\-]?)?(?:\({D}{{1,4}}\)[ .\-]?)?{D}{{1,4}}(?:[ .\-]?{D}{{1,4}}){{1,5}}"
        ),
    ));
    v.push((
        Kind::PhoneLocal,
        format!(r"{D}{{6,}}|\(?{D}+\)?(?:[ .\-]\(?{D}+\)?){{1,5}}|{D}{{4,5}}"),
    ));
    let num = number_source(lex);
    if !lex.age_adjectives.is_empty() {
        v.push((
            Kind::AgeAdj,
            format!(
                r"{D}{{1,3}}[ ]*-?[ ]*(?i:{})|{num}[ ]*-[ ]*(?i:{})",
                alternation(lex.age_adjectives),
                alternation(lex.age_adjectives)
            ),
        ));
    }
    let units = alternation(lex.age_units);
    v.push((
        Kind::AgeUnit,
        format!(r"{num}[ ]*(?i:{units})(?:[ ]+(?:y|e|en|and|és)[ ]+(?:{num}[ ]*(?i:{units})|(?i:medio|mezzo|half)))?"),
    ));
    if lang == Lang::Hu {
        v.push((
            Kind::YearSuffix,
            format!(r"(?:19|20){D}{{2}}-(?i:ban|ben|ig|tól|től|ra|re|as|es|ös|i|a|e)"),
        ));
    }
    let year_noun = if lex.year_nouns.is_empty() {
        String::new()
    } else {
        format!(r"(?:(?i:{})[ ]+)?", alternation(lex.year_nouns))
    };
    // English notes shifted by MIMIC's scheme write years past 2100 too (see `Kind::Year`).
    let centuries = if lang == Lang::En {
        "19|20|21"
    } else {
        "19|20"
    };
    v.push((Kind::Year, format!(r"{year_noun}(?:{centuries}){D}{{2}}")));
    match lang {
        Lang::Nl => v.push((Kind::ZipNl, format!("[1-9]{D}{{3}}[ ]?[A-Z]{{2}}"))),
        Lang::En => v.push((
            Kind::ZipUk,
            format!("[A-Z]{{1,2}}{D}[A-Z0-9]?[ ]{D}[A-Z]{{2}}"),
        )),
        Lang::Es | Lang::It => v.push((Kind::Zip5, format!("(?:[A-Z]-)?{D}{{5}}"))),
        Lang::Hu => v.push((Kind::Zip4, format!("(?:H-)?[1-9]{D}{{3}}"))),
    }
    v
}

/// The rules of `srcs` that `keep` takes, as one pattern anchored at the start.
fn anchored_union(srcs: &[(Kind, String)], keep: impl Fn(Kind) -> bool) -> String {
    let parts: Vec<String> = srcs
        .iter()
        .filter(|(k, _)| keep(*k))
        .map(|(_, s)| format!("(?:{s})"))
        .collect();
    format!("^(?:{})", parts.join("|"))
}

/// Rules whose matches may open with any letters: IBAN, codice fiscale, DNI/NIE, postcodes
/// with a letter prefix.
fn is_code(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Iban | Kind::CodiceFiscale | Kind::DniNie | Kind::ZipUk | Kind::Zip5 | Kind::Zip4
    )
}

/// Whether the word `s..end` can open a code (`is_code`): it holds a digit ("GB82", "SW1A"),
/// runs 16 bytes or more (a codice fiscale), or is one letter before a hyphen ("X-", "H-").
fn code_shaped(text: &str, s: usize, end: usize) -> bool {
    let word = &text.as_bytes()[s..end];
    word.len() >= 16
        || word.iter().any(u8::is_ascii_digit)
        || word.len() == 1 && text.as_bytes().get(end) == Some(&b'-')
}

/// The first position at or after `pos` where a rule can start: a letter or digit, "+" (an
/// international phone number) or "(" (an area code).
fn next_rule_start(text: &str, pos: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = pos;
    while i < b.len() {
        if b[i].is_ascii() {
            if b[i].is_ascii_alphanumeric() || b[i] == b'+' || b[i] == b'(' {
                return Some(i);
            }
            i += 1;
            continue;
        }
        let c = text[i..].chars().next()?;
        if c.is_alphanumeric() {
            return Some(i);
        }
        i += c.len_utf8();
    }
    None
}

fn build(src: &str) -> Result<Regex, PatternError> {
    regex::RegexBuilder::new(src)
        .size_limit(64 << 20)
        .dfa_size_limit(64 << 20)
        .build()
        .map_err(|e| PatternError::Regex(e.to_string()))
}

impl Shapes {
    pub fn new(lang: Lang, lex: &'static Lexicon) -> Result<Self, PatternError> {
        let srcs = rule_sources(lang, lex);
        let any = build(&anchored_union(&srcs, |_| true))?;
        // Codes open with any letters ("RSSMRA85...", "GB82WEST..."), so they are left out of
        // the table and found by their shape instead (`code_shaped`).
        let openings = Openings::new(&anchored_union(&srcs, |k| !is_code(k)));
        let rules = srcs
            .iter()
            .map(|(k, s)| {
                let src = format!("^(?:{s})");
                Ok(Rule {
                    kind: *k,
                    re: build(&src)?,
                    openings: Openings::new(&src),
                })
            })
            .collect::<Result<Vec<_>, PatternError>>()?;
        // An extension after the number: a word for it, or an `x` touching its digits ("x12").
        let ext = build(
            r"^[ ]*(?:(?i:ext\.?|extensión|extension|int\.?|toestel|mellék)[ .:]*[0-9]{1,5}|[xX][0-9]{1,5}\b)",
        )?;
        let conj = build(&format!(
            r"^[ ]+(?:y|e|a|al|hasta|and|to|until|tot|en|és|-)[ ]+[^\n.;]{{0,20}}?\b(?:19|20){D}{{2}}\b"
        ))?;
        let (months, month_abbr) = crate::dates::month_spellings(lang);
        Ok(Shapes {
            lang,
            lex,
            months,
            month_abbr,
            any,
            openings,
            rules,
            ext,
            conj,
        })
    }

    /// Anchored reading of one rule at `s` (used by triggers for dates).
    pub fn read_at(&self, kind: Kind, text: &str, s: usize) -> Option<Cand> {
        self.rules
            .iter()
            .filter(|r| r.kind == kind)
            .find_map(|rule| {
                let m = rule.re.find(&text[s..])?;
                self.accept(kind, text, s, s + m.end(), true)
            })
    }

    /// A postcode of the language starting at `s`, read as if announced by a field name.
    pub fn zip_at(&self, text: &str, s: usize) -> Option<Cand> {
        [Kind::ZipNl, Kind::ZipUk, Kind::Zip5, Kind::Zip4]
            .iter()
            .find_map(|&k| self.read_at(k, text, s))
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let mut pos = 0;
        while let Some(s) = next_rule_start(text, pos) {
            // A "+" or "(" that starts nothing leaves the word after it to be tried on its own.
            let mut next = if text.as_bytes()[s].is_ascii_punctuation() {
                s + 1
            } else {
                token_end(text, s)
            };
            if starts_token(text, s)
                && (self.openings.may_start(&text.as_bytes()[s..]) || code_shaped(text, s, next))
                && self.any.is_match(&text[s..])
            {
                let rest = &text[s..];
                for rule in &self.rules {
                    if !rule.openings.may_start(rest.as_bytes()) {
                        continue;
                    }
                    if let Some(rm) = rule.re.find(rest) {
                        if let Some(c) = self.accept(rule.kind, text, s, s + rm.end(), false) {
                            next = c.end.max(next);
                            out.push(c);
                            break;
                        }
                    }
                }
            }
            pos = super::text::ceil_char_boundary(text, next);
        }
    }

    /// Validates a raw rule match `s..e`; may shorten it. `triggered` relaxes context checks.
    fn accept(&self, kind: Kind, text: &str, s: usize, e: usize, triggered: bool) -> Option<Cand> {
        let raw = &text[s..e];
        let lab = |c, st| Label::new(c, st);
        match kind {
            Kind::Iban => {
                let mut end = e;
                loop {
                    let cand = &text[s..end];
                    if checksum::iban_valid(cand) && ends_token(text, end) {
                        return Some(Cand::new(
                            s,
                            end,
                            lab(Category::Id, Subtype::Account),
                            "iban",
                            0.95,
                        ));
                    }
                    let cut = cand.trim_end().len();
                    if cut <= 15 {
                        return None;
                    }
                    end = s + cut - 1;
                    end = s + text[s..end].trim_end().len();
                }
            }
            Kind::CodiceFiscale => (ends_token(text, e) && checksum::codice_fiscale_valid(raw))
                .then(|| {
                    Cand::new(
                        s,
                        e,
                        lab(Category::Id, Subtype::Ssn),
                        "codice_fiscale",
                        0.95,
                    )
                }),
            Kind::DniNie => (ends_token(text, e) && checksum::dni_nie_valid(raw))
                .then(|| Cand::new(s, e, lab(Category::Id, Subtype::Ssn), "dni_nie", 0.95)),
            Kind::Ipv4 => (ends_token(text, e) && raw.parse::<std::net::Ipv4Addr>().is_ok())
                .then(|| Cand::new(s, e, lab(Category::Contact, Subtype::Ipaddr), "ipv4", 0.9)),
            Kind::DateNum => (ends_token(text, e) && numeric_date_ok(raw, self.lang == Lang::En))
                .then(|| Cand::new(s, e, lab(Category::Date, Subtype::Date), "date", 0.85)),
            Kind::DateWritten => self.written_date(text, s, e),
            Kind::Nass => {
                if !ends_token(text, e) {
                    return None;
                }
                if checksum::nass_valid(raw) {
                    Some(Cand::new(
                        s,
                        e,
                        lab(Category::Id, Subtype::Healthplan),
                        "nass",
                        0.9,
                    ))
                } else if raw.len() > 12 {
                    // "28 12345678 90": the separated NASS layout is distinctive on its own.
                    Some(Cand::new(
                        s,
                        e,
                        lab(Category::Id, Subtype::Healthplan),
                        "nass_shape",
                        0.6,
                    ))
                } else {
                    None
                }
            }
            Kind::Bsn => (ends_token(text, e) && checksum::bsn_valid(raw))
                .then(|| Cand::new(s, e, lab(Category::Id, Subtype::Ssn), "bsn", 0.9)),
            Kind::Taj => (ends_token(text, e) && checksum::taj_valid(raw))
                .then(|| Cand::new(s, e, lab(Category::Id, Subtype::Ssn), "taj", 0.9)),
            Kind::Nhs => (ends_token(text, e) && !raw.contains('-') && checksum::nhs_valid(raw))
                .then(|| Cand::new(s, e, lab(Category::Id, Subtype::Ssn), "nhs", 0.9)),
            Kind::PhoneIntl | Kind::PhoneLocal => self.phone(kind, text, s, e, triggered),
            Kind::AgeAdj => (ends_token(text, e) && age_value_ok(raw))
                .then(|| Cand::new(s, e, lab(Category::Age, Subtype::Age), "age", 0.85)),
            Kind::AgeUnit => {
                if !ends_token(text, e) || !age_value_ok(raw) {
                    return None;
                }
                (triggered || self.age_context(text, s, e))
                    .then(|| Cand::new(s, e, lab(Category::Age, Subtype::Age), "age", 0.8))
            }
            Kind::YearSuffix => Some(Cand::new(
                s,
                e,
                lab(Category::Date, Subtype::Date),
                "year",
                0.7,
            )),
            Kind::Year => {
                if !ends_token(text, e) {
                    return None;
                }
                let year_first = raw.as_bytes()[0].is_ascii_digit();
                let y: u32 = raw[raw.len() - 4..].parse().ok()?;
                // Past 2039 only a year whose last two digits no clock reads (2060-2099,
                // 2160-2199): notes shifted by MIMIC's scheme date so ("quit 2081"), and
                // "since 2045" is a time of day.
                let shifted = self.lang == Lang::En && y % 100 >= 60;
                if !((1900..=2039).contains(&y) || shifted) {
                    return None;
                }
                let parens = text[..s].ends_with('(') && text[e..].starts_with([')', ' ', ',']);
                let ok = triggered
                    || parens
                    || !year_first
                    || words_before(text, s, 1)
                        .first()
                        .is_some_and(|w| self.lex.year_preps.contains(&w.as_str()))
                    || after_procedure(text, s, e, self.lex.procedure_marks);
                ok.then(|| Cand::new(s, e, lab(Category::Date, Subtype::Date), "year", 0.6))
            }
            Kind::ZipNl => {
                let letters = &raw[raw.len() - 2..];
                (ends_token(text, e) && !matches!(letters, "SA" | "SD" | "SS"))
                    .then(|| Cand::new(s, e, lab(Category::Location, Subtype::Zip), "zip", 0.8))
            }
            Kind::ZipUk => ends_token(text, e)
                .then(|| Cand::new(s, e, lab(Category::Location, Subtype::Zip), "zip", 0.8)),
            Kind::Zip5 | Kind::Zip4 => {
                if !ends_token(text, e) {
                    return None;
                }
                let digits = raw.trim_start_matches(|c: char| !c.is_ascii_digit());
                if kind == Kind::Zip4 && !raw.starts_with("H-") && !triggered {
                    let y: u32 = digits.parse().ok()?;
                    if (1900..=2039).contains(&y) {
                        return None;
                    }
                }
                (triggered || city_follows(text, e))
                    .then(|| Cand::new(s, e, lab(Category::Location, Subtype::Zip), "zip", 0.75))
            }
        }
    }

    /// English notes date by an abbreviated month and a day ("Jan 5", "Sept. 12th", or day
    /// first: "14-Nov", "3rd Dec"): written so and not before a dose, it is a date without a
    /// year or a full month name. The month is capitalized, or in capitals in a line without
    /// lower-case letters ("UNTIL DEC 19"), or in lower case right after a date word ("next
    /// visit dec 29"; alone, "dec" is decreased). Only English: in the other languages the
    /// abbreviations double as names ("Jan" in Dutch).
    fn abbreviated_month_day(&self, text: &str, s: usize, e: usize) -> bool {
        if self.lang != Lang::En {
            return false;
        }
        let raw = &text[s..e];
        // The line around the date, read only for a month in capitals and within a bounded
        // window, so that a long one-line document stays linear.
        let capitals_line = || {
            let (lo, hi) = (
                line_start_within(text, s, LINE_WINDOW),
                line_end_within(text, s, LINE_WINDOW),
            );
            !text[lo..hi].chars().any(char::is_lowercase)
        };
        let after_date_word = || {
            words_before(text, s, 1)
                .first()
                .is_some_and(|w| super::short_date::date_words(Lang::En).contains(&w.as_str()))
        };
        let capitalized_month = |word: &str| {
            let mut chars = word.chars();
            let written = match chars.next() {
                Some(c) if c.is_uppercase() && chars.clone().all(char::is_lowercase) => true,
                Some(c) if c.is_uppercase() => chars.all(char::is_uppercase) && capitals_line(),
                Some(c) if c.is_lowercase() => chars.all(char::is_lowercase) && after_date_word(),
                _ => false,
            };
            written && self.month_abbr.contains(&word.to_lowercase().as_str())
        };
        let day_ok = |day: &str| day.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d));
        if raw.starts_with(|c: char| c.is_ascii_digit()) {
            let day_len = raw.find(|c: char| !c.is_ascii_digit()).unwrap_or(raw.len());
            let (day, rest) = raw.split_at(day_len);
            let word = rest
                .trim_start_matches(|c: char| c.is_ascii_lowercase())
                .trim_start_matches(['-', ' ', '.']);
            return day_ok(day) && capitalized_month(word.trim_end_matches('.'));
        }
        let word_len = raw.find(|c: char| !c.is_alphabetic()).unwrap_or(raw.len());
        let (word, rest) = raw.split_at(word_len);
        let day = rest
            .trim_start_matches(['.', ' '])
            .trim_end_matches(|c: char| c.is_ascii_alphabetic());
        capitalized_month(word)
            && day_ok(day)
            && !crate::recognize::dose_context::before_dose(text, s + word_len)
    }

    fn written_date(&self, text: &str, s: usize, e: usize) -> Option<Cand> {
        let raw = &text[s..e];
        // Trailing "." belongs to an abbreviation only when no year follows; keep it out.
        let mut raw_t = raw.trim_end_matches([' ', ',', '-', '/']);
        // A period after a month that ends the date ("op 12 maart.", "on 14-Nov.") is the
        // sentence's or the abbreviation's; the date is the same without it.
        if let Some(head) = raw_t.strip_suffix('.') {
            let last = &head[super::text::run_start(head, char::is_alphabetic)..];
            let last = last.to_lowercase();
            if self.months.contains(&last.as_str()) || self.month_abbr.contains(&last.as_str()) {
                raw_t = head;
            }
        }
        let e = s + raw_t.len();
        if !ends_token(text, e) {
            return None;
        }
        if !raw_t.bytes().any(|b| b.is_ascii_digit()) {
            // "marzo y abril de 2000": a bare month joined to a dated one.
            return (self.conj.is_match(&text[e..])
                && self.months.iter().any(|m| raw_t.eq_ignore_ascii_case(m)))
            .then(|| Cand::new(s, e, Label::new(Category::Date, Subtype::Date), "date", 0.8));
        }
        let lower = raw_t.to_lowercase();
        let b = lower.as_bytes();
        let short_year = b.len() > 3
            && matches!(b[b.len() - 3], b'-' | b'/' | b'\'')
            && !b[..b.len() - 3].iter().any(u8::is_ascii_digit);
        let has_year = has_digit_run(&lower, 4) || short_year;
        let full = self
            .months
            .iter()
            .any(|m| lower.contains(m) && word_in(&lower, m));
        if !full && !has_year && !self.abbreviated_month_day(text, s, e) {
            return None;
        }
        if self.lang == Lang::En && !has_year && lower.contains("may") && !raw_t.contains("May") {
            return None;
        }
        // "Hospital 12 de Octubre" is a name, not a date.
        if words_before(text, s, 1)
            .iter()
            .any(|w| matches!(w.as_str(), "hospital" | "h" | "ospedale" | "universitario"))
        {
            return None;
        }
        if let Some(y) = raw_t
            .split(|c: char| !c.is_ascii_digit())
            .find(|r| r.len() == 4)
            .and_then(|r| r.parse::<u32>().ok())
        {
            if !DATE_YEARS.contains(&y) {
                return None;
            }
        }
        // Day numbers must be plausible: any 1-2 digit run is a day (or a 2-digit year).
        let day_ok = raw_t
            .split(|c: char| !c.is_ascii_digit())
            .filter(|r| !r.is_empty() && r.len() <= 2)
            .all(|r| {
                r.parse::<u32>()
                    .is_ok_and(|d| (1..=31).contains(&d) || has_year || r.len() == 2)
            });
        day_ok.then(|| {
            Cand::new(
                s,
                e,
                Label::new(Category::Date, Subtype::Date),
                "date",
                0.85,
            )
        })
    }

    fn phone(&self, kind: Kind, text: &str, s: usize, e: usize, triggered: bool) -> Option<Cand> {
        // "Atty. Keel (508-555-0119)": parentheses around the whole number are the sentence's;
        // only an area code is enclosed in them ("(508) 555-0119").
        let s = if matches!(kind, Kind::PhoneLocal | Kind::PhoneIntl)
            && encloses_whole_number(&text[s..e])
        {
            s + 1
        } else {
            s
        };
        let raw = &text[s..e];
        // No national plan has a local number under eight digits; the short extensions the
        // pattern also reads are numbers only after a trigger.
        if kind == Kind::PhoneLocal && !triggered && raw.len() < 8 {
            return None;
        }
        // Candidate ends: after each digit group, longest first.
        let mut ends: Vec<usize> = raw
            .char_indices()
            .filter(|&(i, c)| {
                c.is_ascii_digit()
                    && raw[i + 1..]
                        .chars()
                        .next()
                        .is_none_or(|n| !n.is_ascii_digit())
            })
            .map(|(i, _)| s + i + 1)
            .collect();
        if raw.ends_with(')') && raw.contains('(') {
            ends.push(e);
        }
        ends.sort_unstable();
        for &end in ends.iter().rev() {
            let cand = &text[s..end];
            if !ends_token(text, end) {
                continue;
            }
            let digits: String = cand.chars().filter(char::is_ascii_digit).collect();
            let ok = match kind {
                Kind::PhoneIntl => (9..=15).contains(&digits.len()),
                // After "phone" or "pager" a hospital's internal extension is a number too.
                _ if triggered => (4..=13).contains(&digits.len()),
                _ => local_phone_ok(self.lang, cand, &digits),
            };
            if ok {
                let mut end = end;
                if let Some(m) = self.ext.find(&text[end..]) {
                    end += m.end();
                }
                return Some(Cand::new(
                    s,
                    end,
                    Label::new(Category::Contact, Subtype::Phone),
                    "phone",
                    0.8,
                ));
            }
        }
        None
    }

    /// "Varón de 53 años", "tenía 53 años", "53 años de edad".
    fn age_context(&self, text: &str, s: usize, e: usize) -> bool {
        let lex = self.lex;
        let before = words_before(text, s, 4);
        let first = before.first().map(String::as_str);
        if first.is_some_and(|w| lex.age_verbs.contains(&w) || lex.person_nouns.contains(&w)) {
            return true;
        }
        if first.is_some_and(|w| lex.age_links.contains(&w))
            && before[1..]
                .iter()
                .any(|w| lex.person_nouns.contains(&w.as_str()))
        {
            return true;
        }
        if before.len() >= 2 {
            let pair = format!("{} {}", before[0], before[1]);
            let unit = text[s..e].rsplit(' ').next().unwrap_or("").to_lowercase();
            if lex.age_at.contains(&pair.as_str()) && lex.year_units.contains(&unit.as_str()) {
                return true;
            }
        }
        if self.apposition(text, s, e) {
            return true;
        }
        // Only a short window: lowercasing the rest of the document per candidate is quadratic.
        let after: String = text[e..]
            .trim_start_matches([' ', ','])
            .chars()
            .take(40)
            .collect::<String>()
            .to_lowercase();
        lex.age_tails.iter().any(|t| {
            after.starts_with(t)
                && !after[t.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric())
        })
    }
}

impl Shapes {
    /// An age in apposition to a name: "Sra. Romero (62 años)", "Mevrouw Jacobs, 65 jaar, werd",
    /// "Lucía Navarro, de 44 años, ingresó". Reads a bounded window before `s`.
    fn apposition(&self, text: &str, s: usize, e: usize) -> bool {
        let start = super::text::floor_char_boundary(text, s.saturating_sub(60));
        let mut head = text[start..s].trim_end_matches(' ');
        let after = text[e..].trim_start_matches(' ');
        if let Some(h) = head.strip_suffix('(') {
            if !after.starts_with(')') {
                return false;
            }
            head = h;
        } else {
            let last = &head[super::text::run_start(head, char::is_alphabetic)..];
            if !last.is_empty() && self.lex.age_links.contains(&last.to_lowercase().as_str()) {
                head = head[..head.len() - last.len()].trim_end_matches(' ');
            }
            match head.strip_suffix(',') {
                Some(h) if after.starts_with(',') => head = h,
                _ => return false,
            }
        }
        let head = head.trim_end_matches(' ');
        is_title_word(&head[super::text::run_start(head, char::is_alphabetic)..])
    }
}

/// Whether the year `s..e` closes a past procedure: a mark ("s/p") one to three words before
/// it in the same clause, and the clause ends after it ("s/p CABG 2005, AVR"; not "s/p IVF
/// 2000 cc").
fn after_procedure(text: &str, s: usize, e: usize, marks: &[&str]) -> bool {
    if marks.is_empty() {
        return false;
    }
    let rest = text[e..].trim_start_matches(' ');
    if !(rest.is_empty() || rest.starts_with([',', '.', ';', ')', '\n'])) {
        return false;
    }
    let lo = super::text::floor_char_boundary(text, s.saturating_sub(60));
    let before = &text[lo..s];
    let clause = before
        .rfind([',', ';', '(', ':', '\n'])
        .map_or(before, |k| &before[k + 1..])
        .to_lowercase();
    marks.iter().any(|mark| {
        clause.match_indices(mark).any(|(k, _)| {
            let opens = clause[..k]
                .chars()
                .next_back()
                .is_none_or(|ch| !ch.is_alphanumeric());
            let between = clause[k + mark.len()..].split_whitespace().count();
            opens && (1..=3).contains(&between)
        })
    })
}

fn has_digit_run(s: &str, n: usize) -> bool {
    s.split(|c: char| !c.is_ascii_digit()).any(|r| r.len() == n)
}

fn word_in(hay: &str, w: &str) -> bool {
    hay.match_indices(w).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + w.len()..].chars().next();
        !before.is_some_and(char::is_alphabetic) && !after.is_some_and(char::is_alphabetic)
    })
}

fn numeric_date_ok(raw: &str, us_order: bool) -> bool {
    // Both separators alike ("12/03/2019", "2019.03.12."), not "1-14/21".
    let seps: Vec<char> = raw
        .chars()
        .filter(|c| matches!(c, '/' | '-' | '.'))
        .collect();
    if seps.len() >= 2 && seps.iter().filter(|&&c| c != seps[0]).count() > 0 {
        return false;
    }
    let groups: Vec<&str> = raw
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .collect();
    let n = |g: &str| g.parse::<u32>().unwrap_or(0);
    match groups.as_slice() {
        [y, m, d] if y.len() == 4 => {
            DATE_YEARS.contains(&n(y)) && (1..=12).contains(&n(m)) && (1..=31).contains(&n(d))
        }
        [d, m, y] => {
            let year_ok = y.len() == 2 || DATE_YEARS.contains(&n(y));
            // Month-first ("03/15/1996") is accepted everywhere: such slips occur in any language.
            let _ = us_order;
            let dm = (1..=31).contains(&n(d)) && (1..=12).contains(&n(m));
            let md = (1..=12).contains(&n(d)) && (1..=31).contains(&n(m));
            year_ok && (dm || md)
        }
        [m, y] => y.len() == 4 && (1..=12).contains(&n(m)) && DATE_YEARS.contains(&n(y)),
        _ => false,
    }
}

fn age_value_ok(raw: &str) -> bool {
    let d: String = raw.chars().take_while(char::is_ascii_digit).collect();
    d.is_empty() || d.parse::<u32>().is_ok_and(|v| v <= 130)
}

/// A title-case word follows (after spaces or a comma): "28046 Madrid", "00184, Roma".
fn city_follows(text: &str, e: usize) -> bool {
    let rest = text[e..].trim_start_matches([' ', ',', '\t', '.', '-', '–']);
    if rest.len() + 3 < text.len() - e {
        return false;
    }
    let word_end = rest
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(rest.len());
    is_title_word(&rest[..word_end]) || next_char(rest, 0).is_some_and(|c| c == '(')
}

/// Untriggered local numbers, per national numbering plan.
fn local_phone_ok(lang: Lang, raw: &str, d: &str) -> bool {
    let b = d.as_bytes();
    let n = b.len();
    let has_sep = raw.contains([' ', '-', '.', '(']);
    match lang {
        Lang::Es => n == 9 && matches!(b[0], b'6'..=b'9'),
        Lang::Nl => n == 10 && b[0] == b'0' && b[1] != b'0',
        Lang::Hu => {
            // "06 20 123 4567" (mobile), "06-52-123-456" and "06 1 234 5678" (landline),
            // "(52) 123-456" (area code in brackets).
            (n == 11 && d.starts_with("06"))
                || (n == 10 && d.starts_with("06") && (has_sep || d.starts_with("061")))
                || (n == 8 && raw.starts_with('('))
                || (n == 9
                    && has_sep
                    && ["20", "30", "31", "50", "70"]
                        .iter()
                        .any(|p| d.starts_with(p)))
        }
        Lang::It => (n == 10 && b[0] == b'3') || (b[0] == b'0' && (8..=11).contains(&n)),
        Lang::En => {
            (n == 11 && b[0] == b'0' && matches!(b[1], b'1'..=b'3' | b'7' | b'8'))
                || (n == 10 && has_sep && us_shape(raw))
        }
    }
}

/// "(555) 123-4567", "555-123-4567", "555.123.4567".
fn us_shape(raw: &str) -> bool {
    let groups: Vec<usize> = raw
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .map(str::len)
        .collect();
    groups == [3, 3, 4]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The opening table only skips starts where no rule can match: over synthetic notes of
    /// every language (numbers, dates, codes, phones) and a line of codes that open with
    /// letters, every word start the full pattern matches at passes the cheap test.
    #[test]
    fn openings_never_skip_a_start_the_rules_match() {
        let codes = "RSSMRA85T10A562S GB82 WEST 1234 5698 7654 32 X-1234567-L SW1A 1AA E-28001 \
                     H-1051 on March 3, the 3rd of May, twenty-one years, +31 (0)20 1234567";
        for lang in Lang::ALL {
            let shapes = Shapes::new(lang, super::super::lexicon::lexicon(lang)).unwrap();
            let mut docs: Vec<String> = crate::synth::generate(lang, 60, 7)
                .into_iter()
                .map(|d| d.text)
                .collect();
            docs.push(codes.to_string());
            let (mut matched, mut asked) = (0, 0);
            for text in &docs {
                let mut pos = 0;
                while let Some(s) = next_rule_start(text, pos) {
                    pos = super::super::text::ceil_char_boundary(text, s + 1);
                    if !starts_token(text, s) {
                        continue;
                    }
                    let end = token_end(text, s);
                    let cheap = code_shaped(text, s, end)
                        || shapes.openings.may_start(&text.as_bytes()[s..]);
                    if shapes.any.is_match(&text[s..]) {
                        matched += 1;
                        assert!(cheap, "{lang}: a match at {s} would be skipped: {text}");
                    }
                    asked += usize::from(cheap);
                }
            }
            assert!(matched > 100, "{lang}: too few matches to test ({matched})");
            assert!(asked > matched, "{lang}");
        }
    }
}
