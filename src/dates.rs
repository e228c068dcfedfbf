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
}

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic.

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`].
pub fn civil_from_days(z: i64) -> (i32, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y as i32, m, d)
}

pub fn is_leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// ISO weekday, 1 = Monday … 7 = Sunday.
pub fn weekday(y: i32, m: u32, d: u32) -> u32 {
    // 1970-01-01 was a Thursday (4).
    ((days_from_civil(y, m, d) + 3).rem_euclid(7) + 1) as u32
}

// ---------------------------------------------------------------------------------------------
// Month and weekday names: the one home of these words. The date rules of `recognize::pattern`
// are built from the same tables, so every month a rule finds is one this module parses. The
// first spelling listed for a month/day is the one rendered.

/// The month spellings of `lang` (lower case): full names, and abbreviations that are not also
/// a full name ("may" is full only).
pub fn month_spellings(lang: Lang) -> (Vec<&'static str>, Vec<&'static str>) {
    let table = month_names(lang);
    let full: Vec<&str> = table.iter().filter(|e| !e.2).map(|e| e.0).collect();
    let mut abbr: Vec<&str> = table
        .iter()
        .filter(|e| e.2 && !full.contains(&e.0))
        .map(|e| e.0)
        .collect();
    abbr.dedup();
    (full, abbr)
}

/// Every weekday spelling of `lang` (lower case), full and abbreviated.
pub fn weekday_spellings(lang: Lang) -> Vec<&'static str> {
    weekday_names(lang).iter().map(|e| e.0).collect()
}

/// (spelling, value, abbreviated)
type NameTable = &'static [(&'static str, u32, bool)];

#[rustfmt::skip]
fn month_names(lang: Lang) -> NameTable {
    match lang {
        Lang::Nl => &[
            ("januari", 1, false), ("februari", 2, false), ("maart", 3, false),
            ("april", 4, false), ("mei", 5, false), ("juni", 6, false), ("juli", 7, false),
            ("augustus", 8, false), ("september", 9, false), ("oktober", 10, false),
            ("november", 11, false), ("december", 12, false), ("jan", 1, true), ("feb", 2, true),
            ("mrt", 3, true), ("apr", 4, true), ("mei", 5, true), ("jun", 6, true),
            ("jul", 7, true), ("aug", 8, true), ("sep", 9, true), ("sept", 9, true),
            ("okt", 10, true), ("nov", 11, true), ("dec", 12, true), ("febr", 2, true),
            ("maa", 3, true),
        ],
        Lang::Hu => &[
            ("január", 1, false), ("február", 2, false), ("március", 3, false),
            ("április", 4, false), ("május", 5, false), ("június", 6, false),
            ("július", 7, false), ("augusztus", 8, false), ("szeptember", 9, false),
            ("október", 10, false), ("november", 11, false), ("december", 12, false),
            ("jan", 1, true), ("febr", 2, true), ("márc", 3, true), ("ápr", 4, true),
            ("máj", 5, true), ("jún", 6, true), ("júl", 7, true), ("aug", 8, true),
            ("szept", 9, true), ("okt", 10, true), ("nov", 11, true), ("dec", 12, true),
            ("feb", 2, true), ("szep", 9, true),
            // Written without accents.
            ("januar", 1, false), ("februar", 2, false), ("marcius", 3, false),
            ("aprilis", 4, false), ("majus", 5, false), ("junius", 6, false),
            ("julius", 7, false), ("oktober", 10, false), ("marc", 3, true), ("apr", 4, true),
            ("maj", 5, true), ("jun", 6, true), ("jul", 7, true),
        ],
        Lang::Es => &[
            ("enero", 1, false), ("febrero", 2, false), ("marzo", 3, false), ("abril", 4, false),
            ("mayo", 5, false), ("junio", 6, false), ("julio", 7, false), ("agosto", 8, false),
            ("septiembre", 9, false), ("octubre", 10, false), ("noviembre", 11, false),
            ("diciembre", 12, false), ("setiembre", 9, false), ("ene", 1, true), ("feb", 2, true),
            ("mar", 3, true), ("abr", 4, true), ("may", 5, true), ("jun", 6, true),
            ("jul", 7, true), ("ago", 8, true), ("sep", 9, true), ("oct", 10, true),
            ("nov", 11, true), ("dic", 12, true), ("sept", 9, true), ("set", 9, true),
        ],
        Lang::It => &[
            ("gennaio", 1, false), ("febbraio", 2, false), ("marzo", 3, false),
            ("aprile", 4, false), ("maggio", 5, false), ("giugno", 6, false),
            ("luglio", 7, false), ("agosto", 8, false), ("settembre", 9, false),
            ("ottobre", 10, false), ("novembre", 11, false), ("dicembre", 12, false),
            ("gen", 1, true), ("feb", 2, true), ("mar", 3, true), ("apr", 4, true),
            ("mag", 5, true), ("giu", 6, true), ("lug", 7, true), ("ago", 8, true),
            ("set", 9, true), ("ott", 10, true), ("nov", 11, true), ("dic", 12, true),
            ("sett", 9, true),
        ],
        Lang::En => &[
            ("january", 1, false), ("february", 2, false), ("march", 3, false),
            ("april", 4, false), ("may", 5, false), ("june", 6, false), ("july", 7, false),
            ("august", 8, false), ("september", 9, false), ("october", 10, false),
            ("november", 11, false), ("december", 12, false), ("jan", 1, true), ("feb", 2, true),
            ("mar", 3, true), ("apr", 4, true), ("may", 5, true), ("jun", 6, true),
            ("jul", 7, true), ("aug", 8, true), ("sep", 9, true), ("oct", 10, true),
            ("nov", 11, true), ("dec", 12, true), ("sept", 9, true),
        ],
    }
}

#[rustfmt::skip]
fn weekday_names(lang: Lang) -> NameTable {
    // Abbreviations only where they cannot be confused with month abbreviations or words.
    match lang {
        Lang::Nl => &[
            ("maandag", 1, false), ("dinsdag", 2, false), ("woensdag", 3, false),
            ("donderdag", 4, false), ("vrijdag", 5, false), ("zaterdag", 6, false),
            ("zondag", 7, false), ("ma", 1, true), ("di", 2, true), ("wo", 3, true),
            ("do", 4, true), ("vr", 5, true), ("za", 6, true), ("zo", 7, true),
        ],
        Lang::Hu => &[
            ("hétfő", 1, false), ("kedd", 2, false), ("szerda", 3, false),
            ("csütörtök", 4, false), ("péntek", 5, false), ("szombat", 6, false),
            ("vasárnap", 7, false),
        ],
        Lang::Es => &[
            ("lunes", 1, false), ("martes", 2, false), ("miércoles", 3, false),
            ("jueves", 4, false), ("viernes", 5, false), ("sábado", 6, false),
            ("domingo", 7, false), ("miercoles", 3, false), ("sabado", 6, false),
        ],
        Lang::It => &[
            ("lunedì", 1, false), ("martedì", 2, false), ("mercoledì", 3, false),
            ("giovedì", 4, false), ("venerdì", 5, false), ("sabato", 6, false),
            ("domenica", 7, false), ("lunedi", 1, false), ("martedi", 2, false),
            ("mercoledi", 3, false), ("giovedi", 4, false), ("venerdi", 5, false),
        ],
        Lang::En => &[
            ("monday", 1, false), ("tuesday", 2, false), ("wednesday", 3, false),
            ("thursday", 4, false), ("friday", 5, false), ("saturday", 6, false),
            ("sunday", 7, false), ("mon", 1, true), ("tue", 2, true), ("tues", 2, true),
            ("wed", 3, true), ("thu", 4, true), ("thurs", 4, true), ("fri", 5, true),
            ("sat", 6, true), ("sun", 7, true),
        ],
    }
}

/// Words that may stand between date components ("3 de mayo de 2010", "12th of March").
fn connector_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Es => &["de", "del"],
        Lang::It => &["del"],
        Lang::En => &["of", "the"],
        Lang::Nl | Lang::Hu => &[],
    }
}

/// Hungarian case endings written after a hyphen on the day ("március 12-én", "12-i").
const HU_SUFFIXES: &[&str] = &[
    "án", "én", "jén", "ján", "i", "ig", "től", "tól", "e", "a", "je", "ja", "áig", "éig",
];

fn lookup(table: NameTable, word: &str) -> Option<(u32, bool)> {
    let lower = word.to_lowercase();
    table
        .iter()
        .find(|(w, _, _)| *w == lower)
        .map(|&(_, v, a)| (v, a))
}

fn canonical(table: NameTable, value: u32, abbr: bool) -> &'static str {
    table
        .iter()
        .find(|(_, v, a)| *v == value && *a == abbr)
        .or_else(|| table.iter().find(|(_, v, _)| *v == value))
        .map(|(w, _, _)| *w)
        .unwrap_or("")
}

// ---------------------------------------------------------------------------------------------
// Parsing.

#[derive(Debug)]
enum Tok<'a> {
    Num(&'a str),
    Word(&'a str),
    Sep(&'a str),
}

fn tokenize(s: &str) -> Vec<Tok<'_>> {
    #[derive(PartialEq, Clone, Copy)]
    enum K {
        D,
        W,
        S,
    }
    let kind = |c: char| {
        if c.is_ascii_digit() {
            K::D
        } else if c.is_alphabetic() {
            K::W
        } else {
            K::S
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut cur: Option<K> = None;
    for (i, c) in s.char_indices() {
        let k = kind(c);
        if cur != Some(k) {
            if let Some(p) = cur {
                out.push(make_tok(p == K::D, p == K::W, &s[start..i]));
            }
            start = i;
            cur = Some(k);
        }
    }
    if let Some(p) = cur {
        out.push(make_tok(p == K::D, p == K::W, &s[start..]));
    }
    out
}

fn make_tok(digit: bool, word: bool, s: &str) -> Tok<'_> {
    if digit {
        Tok::Num(s)
    } else if word {
        Tok::Word(s)
    } else {
        Tok::Sep(s)
    }
}

fn sep_ok(s: &str) -> bool {
    s.chars().count() <= 3
        && s.chars()
            .all(|c| c.is_whitespace() || matches!(c, '.' | ',' | '/' | '-'))
}

/// Two-digit years: 00-29 → 2000s, 30-99 → 1900s.
fn expand_year(yy: i32) -> i32 {
    if yy <= 29 {
        2000 + yy
    } else {
        1900 + yy
    }
}

/// Parses a date written in `lang`; `None` unless the whole string is a plausible date.
pub fn parse_date(s: &str, lang: Lang) -> Option<ParsedDate> {
    let toks = tokenize(s);
    if toks.is_empty() || matches!(toks[0], Tok::Sep(_)) {
        return None;
    }
    // Slot per token: None = literal, Some(kind) = component to be decided.
    enum Slot {
        Lit(String),
        Num(String),
        Ordinal(String),
        Month(NameStyle),
        Weekday(NameStyle),
    }
    let mut slots: Vec<Slot> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            Tok::Num(n) => {
                if n.len() > 4 {
                    return None;
                }
                // English ordinals "1st", "12th".
                if let (Lang::En, Some(Tok::Word(w))) = (lang, toks.get(i + 1)) {
                    if matches!(*w, "st" | "nd" | "rd" | "th") && n.len() <= 2 {
                        let v: u32 = n.parse().ok()?;
                        if ordinal_suffix(v) != *w {
                            return None;
                        }
                        slots.push(Slot::Ordinal(n.to_string()));
                        i += 2;
                        continue;
                    }
                }
                slots.push(Slot::Num(n.to_string()));
            }
            Tok::Sep(sep) => {
                if !sep_ok(sep) {
                    return None;
                }
                slots.push(Slot::Lit(sep.to_string()));
            }
            Tok::Word(w) => {
                if let Some((v, abbr)) = lookup(month_names(lang), w) {
                    slots.push(Slot::Month(NameStyle {
                        abbr,
                        case: Case::of(w),
                        value: v,
                        original: w.to_string(),
                    }));
                } else if let Some((v, abbr)) = lookup(weekday_names(lang), w) {
                    slots.push(Slot::Weekday(NameStyle {
                        abbr,
                        case: Case::of(w),
                        value: v,
                        original: w.to_string(),
                    }));
                } else if connector_words(lang).contains(&w.to_lowercase().as_str())
                    || (lang == Lang::Hu
                        && HU_SUFFIXES.contains(&w)
                        && i >= 2
                        && matches!(toks[i - 1], Tok::Sep("-"))
                        && matches!(toks[i - 2], Tok::Num(_)))
                {
                    slots.push(Slot::Lit(w.to_string()));
                } else {
                    return None;
                }
            }
        }
        i += 1;
    }
    // No leading literal; a trailing one is only the Hungarian / abbreviation period or a
    // Hungarian case suffix.
    if matches!(slots.first(), Some(Slot::Lit(_))) {
        return None;
    }
    if let Some(Slot::Lit(l)) = slots.last() {
        let ok = match toks.last() {
            Some(Tok::Word(_)) => lang == Lang::Hu,
            _ => l == ".",
        };
        if !ok {
            return None;
        }
    }

    let nums: Vec<usize> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Slot::Num(_) | Slot::Ordinal(_)))
        .map(|(i, _)| i)
        .collect();
    let months: Vec<usize> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Slot::Month(_)))
        .map(|(i, _)| i)
        .collect();
    let weekdays = slots
        .iter()
        .filter(|s| matches!(s, Slot::Weekday(_)))
        .count();
    if months.len() > 1 || weekdays > 1 || nums.is_empty() || nums.len() > 3 {
        return None;
    }
    let num_text = |i: usize| match &slots[i] {
        Slot::Num(n) | Slot::Ordinal(n) => n.as_str(),
        _ => "",
    };
    let is_ord = |i: usize| matches!(slots[i], Slot::Ordinal(_));

    // Roles: (slot index, role) with role 'd', 'm', 'y'.
    let mut roles: Vec<(usize, char)> = Vec::new();
    if let Some(&mi) = months.first() {
        match nums.as_slice() {
            [a] => {
                let t = num_text(*a);
                if t.len() == 4 && !is_ord(*a) {
                    roles.push((*a, 'y'));
                } else if t.len() <= 2 {
                    roles.push((*a, 'd'));
                } else {
                    return None;
                }
            }
            [a, b] => {
                let (ta, tb) = (num_text(*a), num_text(*b));
                let (day, year) = if ta.len() == 4 {
                    (*b, *a)
                } else if tb.len() == 4 {
                    (*a, *b)
                } else if lang == Lang::Hu {
                    (*b, *a)
                } else {
                    (*a, *b)
                };
                if num_text(day).len() > 2 || is_ord(year) {
                    return None;
                }
                // The month name sits next to the day or between day and year.
                let _ = mi;
                roles.push((day, 'd'));
                roles.push((year, 'y'));
            }
            _ => return None,
        }
    } else {
        if weekdays > 0 && nums.len() < 3 {
            return None;
        }
        if nums.iter().any(|&i| is_ord(i)) {
            return None;
        }
        let seps_between: Vec<&str> = nums
            .windows(2)
            .map(|w| {
                let between = &slots[w[0] + 1..w[1]];
                match between {
                    [Slot::Lit(l)] => l.as_str(),
                    _ => "\u{0}",
                }
            })
            .collect();
        // Numeric dates: one of . / - between components (Hungarian adds a space after '.').
        let numeric_sep = |s: &str| {
            let t = s.trim_end();
            t.len() == 1 && matches!(t, "." | "/" | "-") && (t == "." || t == s)
        };
        if !seps_between.iter().all(|s| numeric_sep(s)) {
            return None;
        }
        if seps_between.windows(2).any(|w| w[0] != w[1]) {
            return None;
        }
        let lens: Vec<usize> = nums.iter().map(|&i| num_text(i).len()).collect();
        match lens.as_slice() {
            [4, m, d] if *m <= 2 && *d <= 2 => {
                roles = vec![(nums[0], 'y'), (nums[1], 'm'), (nums[2], 'd')];
            }
            [a, b, y] if *a <= 2 && *b <= 2 && (*y == 4 || *y == 2) => {
                let first: u32 = num_text(nums[0]).parse().ok()?;
                let second: u32 = num_text(nums[1]).parse().ok()?;
                let us = lang == Lang::En && first <= 12 && second > 12;
                roles = if us {
                    vec![(nums[0], 'm'), (nums[1], 'd'), (nums[2], 'y')]
                } else {
                    vec![(nums[0], 'd'), (nums[1], 'm'), (nums[2], 'y')]
                };
            }
            [4, m] if *m <= 2 => roles = vec![(nums[0], 'y'), (nums[1], 'm')],
            [m, 4] if *m <= 2 => roles = vec![(nums[0], 'm'), (nums[1], 'y')],
            [4] if slots.len() == 1 => roles = vec![(nums[0], 'y')],
            _ => return None,
        }
    }

    // Values.
    let mut year = None;
    let mut month = months.first().map(|&i| match &slots[i] {
        Slot::Month(st) => st.value,
        _ => 0,
    });
    let mut day = None;
    let mut year_two = false;
    for &(i, r) in &roles {
        let t = num_text(i);
        let v: u32 = t.parse().ok()?;
        match r {
            'y' => {
                year_two = t.len() == 2;
                year = Some(if year_two {
                    expand_year(v as i32)
                } else if t.len() == 4 {
                    v as i32
                } else {
                    return None;
                });
            }
            'm' => month = Some(v),
            _ => day = Some(v),
        }
    }
    if let Some(y) = year {
        if !(1800..=2199).contains(&y) {
            return None;
        }
    }
    if let Some(m) = month {
        if !(1..=12).contains(&m) {
            return None;
        }
    }
    if let Some(d) = day {
        let max = days_in_month(year.unwrap_or(2000), month?);
        if d == 0 || d > max {
            return None;
        }
    }
    // A weekday must agree with the date it names.
    let weekday_style = slots.iter().find_map(|s| match s {
        Slot::Weekday(st) => Some(st.value),
        _ => None,
    });
    if let Some(w) = weekday_style {
        match (year, month, day) {
            (Some(y), Some(m), Some(d)) if weekday(y, m, d) == w => {}
            _ => return None,
        }
    }

    // Zero padding: a leading zero proves it; otherwise follow the other numeric component,
    // and default to padded for all-numeric dates, unpadded for written ones.
    let numeric = months.is_empty();
    let padded_hint = roles
        .iter()
        .filter(|(_, r)| *r != 'y')
        .any(|&(i, _)| num_text(i).len() == 2 && num_text(i).starts_with('0'));
    let unpadded_hint = roles
        .iter()
        .filter(|(_, r)| *r != 'y')
        .any(|&(i, _)| num_text(i).len() == 1);
    let pad_for = |i: usize| {
        let t = num_text(i);
        if t.len() == 1 {
            false
        } else if t.starts_with('0') || padded_hint {
            true
        } else if unpadded_hint {
            false
        } else {
            numeric
        }
    };

    let pads: Vec<bool> = (0..slots.len()).map(pad_for).collect();
    let mut parts = Vec::with_capacity(slots.len());
    for (i, s) in slots.into_iter().enumerate() {
        let role = roles.iter().find(|(j, _)| *j == i).map(|(_, r)| *r);
        parts.push(match (s, role) {
            (Slot::Lit(l), _) => Part::Lit(l),
            (Slot::Month(st), _) => Part::MonthName(st),
            (Slot::Weekday(st), _) => Part::Weekday(st),
            (Slot::Ordinal(_), _) => Part::Day {
                pad: false,
                ordinal: true,
            },
            (Slot::Num(_), Some('y')) => Part::Year {
                two_digit: year_two,
            },
            (Slot::Num(_), Some('m')) => Part::MonthNum { pad: pads[i] },
            (Slot::Num(_), Some('d')) => Part::Day {
                pad: pads[i],
                ordinal: false,
            },
            (Slot::Num(_), _) => return None,
        });
    }
    Some(ParsedDate {
        year,
        month,
        day,
        format: DateFormat { parts, lang },
    })
}

fn ordinal_suffix(d: u32) -> &'static str {
    match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering.

impl DateFormat {
    /// The language whose month and weekday names this format uses.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// Which components the format writes: (year, month, day).
    pub fn components(&self) -> (bool, bool, bool) {
        let mut c = (false, false, false);
        for p in &self.parts {
            match p {
                Part::Year { .. } => c.0 = true,
                Part::MonthNum { .. } | Part::MonthName(_) => c.1 = true,
                Part::Day { .. } => c.2 = true,
                _ => {}
            }
        }
        c
    }

    /// Writes `y-m-d` in this format (components the format lacks are left out).
    /// `m` and `d` must form a valid date with `y`.
    pub fn render(&self, y: i32, m: u32, d: u32) -> String {
        let mut out = String::with_capacity(24);
        for p in &self.parts {
            match p {
                Part::Lit(l) => out.push_str(l),
                Part::Day { pad, ordinal } => {
                    if *pad {
                        out.push_str(&format!("{d:02}"));
                    } else {
                        out.push_str(&d.to_string());
                    }
                    if *ordinal {
                        out.push_str(ordinal_suffix(d));
                    }
                }
                Part::MonthNum { pad } => {
                    if *pad {
                        out.push_str(&format!("{m:02}"));
                    } else {
                        out.push_str(&m.to_string());
                    }
                }
                Part::Year { two_digit } => {
                    if *two_digit {
                        out.push_str(&format!("{:02}", y.rem_euclid(100)));
                    } else {
                        out.push_str(&format!("{y:04}"));
                    }
                }
                Part::MonthName(st) => out.push_str(&name(st, month_names(self.lang), m)),
                Part::Weekday(st) => {
                    out.push_str(&name(st, weekday_names(self.lang), weekday(y, m, d)))
                }
            }
        }
        out
    }
}

fn name(st: &NameStyle, table: NameTable, value: u32) -> String {
    if value == st.value {
        st.original.clone()
    } else {
        st.case.apply(canonical(table, value, st.abbr))
    }
}

impl ParsedDate {
    /// Writes another date in exactly this date's format.
    pub fn render(&self, y: i32, m: u32, d: u32) -> String {
        self.format.render(y, m, d)
    }

    /// The date's own text again (byte-identical to what was parsed).
    pub fn text(&self) -> String {
        let (y, m, d) = self.anchor();
        self.format.render(y, m, d)
    }

    /// A full calendar date standing for this (possibly partial) one: missing day → 15th,
    /// missing month → July, missing year → 2000 (a leap year, so 29 February survives).
    pub fn anchor(&self) -> (i32, u32, u32) {
        (
            self.year.unwrap_or(2000),
            self.month.unwrap_or(7),
            self.day.unwrap_or(15),
        )
    }

    /// The date moved by `days` and written in the same format; `None` when the result falls
    /// outside the years this module parses or cannot be written in the format (2-digit years
    /// outside 1930-2029).
    pub fn shift_days(&self, days: i64) -> Option<String> {
        let (y, m, d) = self.anchor();
        let (ny, nm, nd) = civil_from_days(days_from_civil(y, m, d) + days);
        if !(1800..=2199).contains(&ny) {
            return None;
        }
        let two_digit = self
            .format
            .parts
            .iter()
            .any(|p| matches!(p, Part::Year { two_digit: true }));
        if two_digit && expand_year(ny.rem_euclid(100)) != ny {
            return None;
        }
        Some(self.format.render(ny, nm, nd))
    }
}

/// Example formats per language, one per style the synthetic generator and tests use. Each
/// example parses; render another date through `parse_date(example).render(y, m, d)`.
pub fn example_formats(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Nl => &[
            "12-03-2019",
            "12/03/2019",
            "12.03.2019",
            "2019-03-12",
            "3-4-2019",
            "12-03-19",
            "12 maart 2019",
            "12 mrt 2019",
            "12 mrt. 2019",
            "maart 2019",
            "dinsdag 12 maart 2019",
            "12 maart",
        ],
        Lang::Hu => &[
            "2019.03.12.",
            "2019. 03. 12.",
            "2019-03-12",
            "2019. március 12.",
            "2019. márc. 12.",
            "március 12.",
            "2019. március 12., kedd",
            "2019. március",
            "2019.03.",
            "március 12-én",
            "2019. március 12-én",
        ],
        Lang::Es => &[
            "12/03/2019",
            "12-03-2019",
            "12/3/2019",
            "12/03/19",
            "2019-03-12",
            "12.03.2019",
            "12 de marzo de 2019",
            "12 de marzo del 2019",
            "marzo de 2019",
            "12-mar-2019",
            "martes, 12 de marzo de 2019",
            "12 de marzo",
            "03/2019",
        ],
        Lang::It => &[
            "12/03/2019",
            "12-03-2019",
            "12.03.2019",
            "12/3/19",
            "2019-03-12",
            "12 marzo 2019",
            "12 mar 2019",
            "marzo 2019",
            "martedì 12 marzo 2019",
            "12 Marzo 2019",
            "12 marzo",
        ],
        Lang::En => &[
            "03/25/2019",
            "12/03/2019",
            "2019-03-12",
            "March 12, 2019",
            "12 March 2019",
            "12th March 2019",
            "12th of March 2019",
            "Mar 12, 2019",
            "12-MAR-2019",
            "Tuesday, March 12, 2019",
            "March 2019",
            "Tue 12 Mar 2019",
            "12.03.2019",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn civil_round_trip_and_known_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(weekday(2019, 3, 12), 2); // a Tuesday
        assert_eq!(weekday(2024, 2, 29), 4); // a Thursday
        for z in (-200_000i64..200_000).step_by(37) {
            let (y, m, d) = civil_from_days(z);
            assert!(d >= 1 && d <= days_in_month(y, m));
            assert_eq!(days_from_civil(y, m, d), z);
        }
    }

    #[test]
    fn table_of_parses() {
        use Lang::*;
        type Ymd = (Option<i32>, Option<u32>, Option<u32>);
        let cases: &[(&str, Lang, Option<Ymd>)] = &[
            ("12/03/2019", Es, Some((Some(2019), Some(3), Some(12)))),
            ("3-4-19", Nl, Some((Some(2019), Some(4), Some(3)))),
            ("12.03.2019", It, Some((Some(2019), Some(3), Some(12)))),
            ("2019-03-12", En, Some((Some(2019), Some(3), Some(12)))),
            ("2019.03.12.", Hu, Some((Some(2019), Some(3), Some(12)))),
            (
                "2019. március 12.",
                Hu,
                Some((Some(2019), Some(3), Some(12))),
            ),
            (
                "2019. márc. 12-én",
                Hu,
                Some((Some(2019), Some(3), Some(12))),
            ),
            (
                "3 de mayo de 2010",
                Es,
                Some((Some(2010), Some(5), Some(3))),
            ),
            ("mayo de 2010", Es, Some((Some(2010), Some(5), None))),
            ("12 maart 2019", Nl, Some((Some(2019), Some(3), Some(12)))),
            ("12 mrt 2019", Nl, Some((Some(2019), Some(3), Some(12)))),
            ("12 marzo 2019", It, Some((Some(2019), Some(3), Some(12)))),
            ("March 12, 2019", En, Some((Some(2019), Some(3), Some(12)))),
            ("12th March 2019", En, Some((Some(2019), Some(3), Some(12)))),
            ("03/25/2019", En, Some((Some(2019), Some(3), Some(25)))),
            (
                "Tuesday, March 12, 2019",
                En,
                Some((Some(2019), Some(3), Some(12))),
            ),
            ("2019", Nl, Some((Some(2019), None, None))),
            // Rejections: impossible dates, wrong weekday, stray words, mixed separators.
            ("31/02/2019", Es, None),
            ("Monday, March 12, 2019", En, None),
            ("12 foo 2019", Nl, None),
            ("12/03-2019", Es, None),
            ("03/25/2019", Es, None),
            ("12th March 2019", Es, None),
            ("1st", En, None),
            ("12", Nl, None),
            ("123456", Nl, None),
            ("2th March 2019", En, None),
            ("", Nl, None),
            ("12/03/2019 foo", Es, None),
        ];
        for (s, lang, want) in cases {
            let got = parse_date(s, *lang).map(|p| (p.year, p.month, p.day));
            assert_eq!(got, *want, "{s} ({lang})");
            if let Some(p) = parse_date(s, *lang) {
                assert_eq!(p.text(), *s, "round trip of {s}");
            }
        }
    }

    #[test]
    fn render_keeps_style() {
        type Case<'a> = (&'a str, Lang, (i32, u32, u32), &'a str);
        let cases: &[Case] = &[
            ("12/03/2019", Lang::Es, (2020, 11, 5), "05/11/2020"),
            ("3-4-19", Lang::Nl, (2021, 12, 25), "25-12-21"),
            ("12 MRT 2019", Lang::Nl, (2019, 5, 1), "1 MEI 2019"),
            ("12 mrt. 2019", Lang::Nl, (2019, 10, 1), "1 okt. 2019"),
            (
                "2019. március 12.",
                Lang::Hu,
                (2018, 1, 30),
                "2018. január 30.",
            ),
            ("March 12, 2019", Lang::En, (2019, 8, 2), "August 2, 2019"),
            (
                "12th March 2019",
                Lang::En,
                (2019, 8, 22),
                "22nd August 2019",
            ),
            (
                "Tuesday, March 12, 2019",
                Lang::En,
                (2019, 3, 13),
                "Wednesday, March 13, 2019",
            ),
            (
                "martes, 12 de marzo de 2019",
                Lang::Es,
                (2019, 3, 14),
                "jueves, 14 de marzo de 2019",
            ),
            ("Sept 3, 2019", Lang::En, (2019, 9, 30), "Sept 30, 2019"),
        ];
        for (s, lang, (y, m, d), want) in cases {
            let p = parse_date(s, *lang).unwrap_or_else(|| panic!("parse {s}"));
            assert_eq!(p.render(*y, *m, *d), *want);
        }
    }

    #[test]
    fn shift_days_crosses_months_and_leap_years() {
        let p = parse_date("28/02/2020", Lang::Es).unwrap();
        assert_eq!(p.shift_days(1).unwrap(), "29/02/2020");
        assert_eq!(p.shift_days(2).unwrap(), "01/03/2020");
        assert_eq!(p.shift_days(-365).unwrap(), "28/02/2019");
        let p = parse_date("31 december 2019", Lang::Nl).unwrap();
        assert_eq!(p.shift_days(1).unwrap(), "1 januari 2020");
        let p = parse_date("5-1-99", Lang::Nl).unwrap();
        assert_eq!(p.year, Some(1999));
        assert_eq!(p.shift_days(365).unwrap(), "5-1-00");
        assert!(p.shift_days(-365 * 80).is_none());
    }

    /// Property: every example style, every language, random dates: render → parse → same
    /// components, and render(parse(s)) == s byte for byte.
    #[test]
    fn round_trip_over_generated_dates() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for lang in Lang::ALL {
            for ex in example_formats(lang) {
                let fmt = parse_date(ex, lang).unwrap_or_else(|| panic!("example {ex} ({lang})"));
                assert_eq!(fmt.text(), *ex);
                let (has_y, has_m, has_d) = fmt.format.components();
                for _ in 0..300 {
                    let y = rng.gen_range(1930..=2029);
                    let m = rng.gen_range(1..=12);
                    let d = rng.gen_range(1..=days_in_month(y, m));
                    let s = fmt.render(y, m, d);
                    let back = parse_date(&s, lang)
                        .unwrap_or_else(|| panic!("{s} from {ex} ({lang}) did not parse"));
                    assert_eq!(back.text(), s);
                    assert_eq!(back.year, has_y.then_some(y), "{s}");
                    // US month-first with day <= 12 reads day-first: skip those ambiguous ones.
                    if ex == &"03/25/2019" && d <= 12 {
                        continue;
                    }
                    assert_eq!(back.month, has_m.then_some(m), "{s}");
                    assert_eq!(back.day, has_d.then_some(d), "{s}");
                }
            }
        }
    }
}
