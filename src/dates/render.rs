//! Rendering another date in a parsed format, shifting a parsed date by days, and the example
//! formats per language.

use super::*;

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

pub(super) fn name(st: &NameStyle, table: NameTable, value: u32) -> String {
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
    /// missing month → July, missing year → the year its weekday names, else 2000 (a leap
    /// year, so 29 February survives).
    pub fn anchor(&self) -> (i32, u32, u32) {
        (
            self.year.or(self.weekday_year).unwrap_or(2000),
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
