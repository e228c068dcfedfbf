//! Parsing a written date into its components and the exact format it was written in.

use super::*;

#[derive(Debug)]
pub(super) enum Tok<'a> {
    Num(&'a str),
    Word(&'a str),
    Sep(&'a str),
}

pub(super) fn tokenize(s: &str) -> Vec<Tok<'_>> {
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

pub(super) fn make_tok(digit: bool, word: bool, s: &str) -> Tok<'_> {
    if digit {
        Tok::Num(s)
    } else if word {
        Tok::Word(s)
    } else {
        Tok::Sep(s)
    }
}

pub(super) fn sep_ok(s: &str) -> bool {
    s.chars().count() <= 3
        && s.chars()
            .all(|c| c.is_whitespace() || matches!(c, '.' | ',' | '/' | '-'))
}

/// Two-digit years: 00-29 → 2000s, 30-99 → 1900s.
pub(super) fn expand_year(yy: i32) -> i32 {
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
        if weekdays > 0 && nums.len() < 2 {
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
            // A day and a month without a year ("7/22", "22-7"; the recognizers take these
            // only where a date is meant): English puts the month first when it can be one.
            [a, b] if *a <= 2 && *b <= 2 && seps_between[0] != "." => {
                let first: u32 = num_text(nums[0]).parse().ok()?;
                let second: u32 = num_text(nums[1]).parse().ok()?;
                let month_first = if lang == Lang::En {
                    first <= 12 && second <= 31
                } else {
                    first <= 12 && second > 12
                };
                roles = if month_first {
                    vec![(nums[0], 'm'), (nums[1], 'd')]
                } else {
                    vec![(nums[0], 'd'), (nums[1], 'm')]
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
    // Without a year, the weekday picks one of the 28 years of the calendar's cycle in which
    // it falls on that day (a 29 February on one of its 7 leap years).
    let mut weekday_year = None;
    if let Some(w) = weekday_style {
        match (year, month, day) {
            (Some(y), Some(m), Some(d)) if weekday(y, m, d) == w => {}
            (None, Some(m), Some(d)) => {
                weekday_year =
                    (2000..2028).find(|&y| d <= days_in_month(y, m) && weekday(y, m, d) == w);
                weekday_year?;
            }
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
        weekday_year,
    })
}

pub(super) fn ordinal_suffix(d: u32) -> &'static str {
    match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}
