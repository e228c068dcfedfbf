//! Month and weekday names: the one home of these words (full and abbreviated, with and
//! without accents), the connector words between date parts and the Hungarian day suffixes.

use super::*;

// The date rules of `recognize::pattern` are built from the same tables, so every month a rule
// finds is one this module parses. The first spelling listed for a month/day is the one rendered.

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

/// The full weekday names of `lang` (lower case): "friday", "viernes", "péntek". Capitalized,
/// they are never part of a name or a place ("Ireland Friday 12/4").
pub fn weekday_full_names(lang: Lang) -> Vec<&'static str> {
    weekday_names(lang)
        .iter()
        .filter(|e| !e.2)
        .map(|e| e.0)
        .collect()
}

/// The abbreviated weekday spellings of `lang` (lower case): "tues", "wed", "ma".
pub fn weekday_abbreviations(lang: Lang) -> Vec<&'static str> {
    weekday_names(lang)
        .iter()
        .filter(|e| e.2)
        .map(|e| e.0)
        .collect()
}

/// (spelling, value, abbreviated)
pub(super) type NameTable = &'static [(&'static str, u32, bool)];

#[rustfmt::skip]
pub(super) fn month_names(lang: Lang) -> NameTable {
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
pub(super) fn weekday_names(lang: Lang) -> NameTable {
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
pub(super) fn connector_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Es => &["de", "del"],
        Lang::It => &["del"],
        Lang::En => &["of", "the"],
        Lang::Nl | Lang::Hu => &[],
    }
}

/// Hungarian case endings written after a hyphen on the day ("március 12-én", "12-i").
pub(super) const HU_SUFFIXES: &[&str] = &[
    "án", "én", "jén", "ján", "i", "ig", "től", "tól", "e", "a", "je", "ja", "áig", "éig",
];

pub(super) fn lookup(table: NameTable, word: &str) -> Option<(u32, bool)> {
    let lower = word.to_lowercase();
    table
        .iter()
        .find(|(w, _, _)| *w == lower)
        .map(|&(_, v, a)| (v, a))
}

pub(super) fn canonical(table: NameTable, value: u32, abbr: bool) -> &'static str {
    table
        .iter()
        .find(|(_, v, a)| *v == value && *a == abbr)
        .or_else(|| table.iter().find(|(_, v, _)| *v == value))
        .map(|(w, _, _)| *w)
        .unwrap_or("")
}
