//! Values drawn from the built-in lists (cities, streets, hospitals, organizations, countries,
//! provinces, professions) and values with a numeric core: street addresses, postcodes, ages,
//! dates.

use super::text::{match_case, random_digit, random_upper, same_value, substitute_layout};
use crate::dates::{days_in_month, example_formats, parse_date};
use crate::lang::Lang;
use crate::wordlists;
use rand::{Rng, RngCore};
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::OnceLock;

/// Entries of a built-in list: `first_names`/`surnames` at `wordlists/<lang>/`, the rest at
/// `wordlists/<lang>/synth/`. Parsed once. Panics only if the build lacks a list this module
/// ships (a packaging bug, caught by the tests).
pub fn list(lang: Lang, name: &str) -> &'static [&'static str] {
    static LISTS: OnceLock<HashMap<String, Vec<&'static str>>> = OnceLock::new();
    let lists = LISTS.get_or_init(|| {
        let mut m = HashMap::new();
        for l in Lang::ALL {
            for n in [
                "first_names",
                "surnames",
                "cities",
                "streets",
                "hospitals",
                "organizations",
                "countries",
                "provinces",
                "professions",
                "email_domains",
                "departments",
            ] {
                let rel = match n {
                    "first_names" | "surnames" => format!("{}/{n}.txt", l.code()),
                    _ => format!("{}/synth/{n}.txt", l.code()),
                };
                let entries: Vec<&'static str> = wordlists::builtin(&rel)
                    .map(|t| wordlists::parse_list(t).collect())
                    .unwrap_or_default();
                m.insert(format!("{}/{n}", l.code()), entries);
            }
        }
        m
    });
    match lists.get(&format!("{}/{name}", lang.code())) {
        Some(v) if !v.is_empty() => v,
        _ => panic!("built-in list {}/{name} is missing or empty", lang.code()),
    }
}

/// A random entry of a list with `{CITY}` filled in.
pub fn pick(lang: Lang, name: &str, rng: &mut dyn RngCore) -> String {
    let l = list(lang, name);
    expand(lang, l[rng.gen_range(0..l.len())], rng)
}

fn expand(lang: Lang, entry: &str, rng: &mut dyn RngCore) -> String {
    if entry.contains("{CITY}") {
        let cities = list(lang, "cities");
        entry.replace("{CITY}", cities[rng.gen_range(0..cities.len())])
    } else {
        entry.to_string()
    }
}

/// A list entry different from `original`, in the original's letter case.
pub fn from_list_like(lang: Lang, name: &str, original: &str, rng: &mut dyn RngCore) -> String {
    let mut v = pick(lang, name, rng);
    for _ in 0..8 {
        if !same_value(&v, original) {
            break;
        }
        v = pick(lang, name, rng);
    }
    match_case(original, &v)
}

/// Digits → random digits (leading non-zero kept non-zero); nothing else changes.
fn substitute_digits(original: &str, rng: &mut dyn RngCore) -> String {
    let mut out = String::with_capacity(original.len());
    let mut prev_digit = false;
    for c in original.chars() {
        if c.is_ascii_digit() {
            out.push(if !prev_digit && c != '0' {
                char::from(b'1' + rng.gen_range(0..9u8))
            } else {
                random_digit(rng)
            });
            prev_digit = true;
        } else {
            out.push(c);
            prev_digit = false;
        }
    }
    out
}

/// An address shaped like `original`: the longest run of words becomes a street name, other
/// capitalized words become a city, single letters (doors, blocks) other letters, numbers
/// other numbers of the same length; lowercase words ("piso", "bis"), the words of a floor or
/// unit in any case ("Apt", "Unit") and punctuation stay.
pub fn street_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    // Word groups: maximal runs of letters joined by single spaces, dots, hyphens, apostrophes.
    let chars: Vec<(usize, char)> = original.char_indices().collect();
    let mut groups: Vec<(usize, usize)> = Vec::new(); // byte ranges
    let mut i = 0;
    while i < chars.len() {
        if chars[i].1.is_alphabetic() {
            let start = chars[i].0;
            let mut j = i;
            let mut end = start;
            while j < chars.len() {
                let c = chars[j].1;
                if c.is_alphabetic() {
                    end = chars[j].0 + c.len_utf8();
                    j += 1;
                } else if matches!(c, ' ' | '.' | '-' | '\'' | '/')
                    && chars.get(j + 1).is_some_and(|n| n.1.is_alphabetic())
                {
                    j += 1;
                } else if c == '.' {
                    // "krt." keeps its abbreviation period.
                    end = chars[j].0 + 1;
                    j += 1;
                    break;
                } else {
                    break;
                }
            }
            groups.push((start, end));
            i = j;
        } else {
            i += 1;
        }
    }
    let longest = groups
        .iter()
        .enumerate()
        .max_by_key(|(_, (s, e))| original[*s..*e].chars().count())
        .map(|(k, _)| k);
    let mut out = String::with_capacity(original.len() + 16);
    let mut pos = 0;
    for (k, &(s, e)) in groups.iter().enumerate() {
        out.push_str(&substitute_digits(&original[pos..s], rng));
        let g = &original[s..e];
        let letters = g.chars().filter(|c| c.is_alphabetic()).count();
        let next = original[e..].chars().next();
        let abbreviation = letters <= 3 && (g.ends_with('.') || next == Some('/'));
        if Some(k) == longest && letters > 2 {
            let mut street = from_list_like(lang, "streets", g, rng);
            // "Av. del Puerto", "C/ Colón": the street type is already written; drop the new one's.
            let typed = k > 0 && {
                let (ps, pe) = groups[k - 1];
                let p = &original[ps..pe];
                p.chars().filter(|c| c.is_alphabetic()).count() <= 3
                    && (p.ends_with('.') || original[pe..].starts_with('/'))
            };
            if typed {
                if let Some((_, rest)) = street.split_once(' ') {
                    street = rest.to_string();
                }
            }
            out.push_str(&match_case(g, &street));
        } else if abbreviation || crate::recognize::pattern::is_unit_word(g) {
            out.push_str(g);
        } else if letters == 1 {
            out.push_str(&substitute_layout(g, rng));
        } else if g.chars().next().is_some_and(char::is_uppercase) && letters > 2 {
            out.push_str(&from_list_like(lang, "cities", g, rng));
        } else {
            out.push_str(g);
        }
        pos = e;
    }
    out.push_str(&substitute_digits(&original[pos..], rng));
    out
}

/// A room or department: numbers and single letters re-drawn, words kept ("kamer 12",
/// "Ward 7"); a name without digits becomes another department of the language.
pub fn room_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    if !original.chars().any(|c| c.is_ascii_digit()) {
        return from_list_like(lang, "departments", original, rng);
    }
    let mut out = String::with_capacity(original.len());
    let mut word = String::new();
    let flush = |w: &mut String, out: &mut String, rng: &mut dyn RngCore| {
        if w.chars().count() == 1 {
            out.push_str(&substitute_layout(w, rng));
        } else {
            out.push_str(w);
        }
        w.clear();
    };
    for c in original.chars() {
        if c.is_alphabetic() {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out, rng);
        out.push_str(&substitute_digits(&c.to_string(), rng));
    }
    flush(&mut word, &mut out, rng);
    out
}

/// A fresh street address in the language's usual shape.
pub fn street(lang: Lang, rng: &mut dyn RngCore) -> String {
    let s = pick(lang, "streets", rng);
    let n = rng.gen_range(1..200);
    match (lang, rng.gen_range(0..3)) {
        (Lang::Nl, 0) => format!("{s} {n}{}", random_upper(rng).to_ascii_lowercase()),
        (Lang::Nl, _) => format!("{s} {n}"),
        (Lang::Hu, 0) => format!("{s} {n}. {}/{}", rng.gen_range(1..10), rng.gen_range(1..30)),
        (Lang::Hu, _) => format!("{s} {n}."),
        (Lang::Es, 0) => format!("{s}, {n}, {}º {}", rng.gen_range(1..12), random_upper(rng)),
        (Lang::Es, 1) => format!("{s} {n}"),
        (Lang::Es, _) => format!("{s}, nº {n}"),
        (Lang::It, 0) => format!("{s}, {n}"),
        (Lang::It, _) => format!("{s} {n}"),
        (Lang::En, 0) => format!("Flat {}, {n} {s}", rng.gen_range(1..40)),
        (Lang::En, _) => format!("{n} {s}"),
    }
}

/// A postcode in the original's layout; Spanish province prefixes stay in 01-52.
pub fn zip_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let mut out = substitute_layout(original, rng);
    let digits: String = original.chars().filter(char::is_ascii_digit).collect();
    if lang == Lang::Es && digits.len() == 5 && original.trim().len() == 5 {
        out = format!("{:02}{:03}", rng.gen_range(1..=52), rng.gen_range(0..1000));
    }
    out
}

/// A fresh postcode in the language's country format.
pub fn zip(lang: Lang, rng: &mut dyn RngCore) -> String {
    match lang {
        Lang::Nl => format!(
            "{} {}{}",
            rng.gen_range(1000..10_000),
            random_upper(rng),
            random_upper(rng)
        ),
        Lang::Hu => rng.gen_range(1011..10_000).to_string(),
        Lang::Es => format!("{:02}{:03}", rng.gen_range(1..=52), rng.gen_range(0..1000)),
        Lang::It => format!("{:05}", rng.gen_range(10..98_200)),
        Lang::En => {
            let area: String = (0..rng.gen_range(1..=2))
                .map(|_| random_upper(rng))
                .collect();
            format!(
                "{area}{} {}{}{}",
                rng.gen_range(1..30),
                rng.gen_range(0..10),
                random_upper(rng),
                random_upper(rng)
            )
        }
    }
}

fn number_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Nl => &[
            "een", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen", "tien",
        ],
        Lang::Hu => &[
            "egy", "kettő", "három", "négy", "öt", "hat", "hét", "nyolc", "kilenc", "tíz",
        ],
        Lang::Es => &[
            "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
        ],
        Lang::It => &[
            "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove", "dieci",
        ],
        Lang::En => &[
            "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        ],
    }
}

/// A nearby age with the same wording ("45 jaar" → "48 jaar", "sei" → "sette").
pub fn age_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    if let Some(start) = original.find(|c: char| c.is_ascii_digit()) {
        let end = original[start..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(original.len(), |e| start + e);
        let v: i64 = original[start..end].parse().unwrap_or(40);
        let mut n = v;
        while n == v {
            n = (v + rng.gen_range(-5..=5)).clamp(1, 115);
        }
        return format!("{}{n}{}", &original[..start], &original[end..]);
    }
    let words = number_words(lang);
    let lower = original.to_lowercase();
    for (i, w) in words.iter().enumerate() {
        if lower.split(|c: char| !c.is_alphabetic()).any(|t| t == *w) {
            let mut j = i;
            while j == i {
                j = (i as i64 + rng.gen_range(-2..=2)).clamp(0, words.len() as i64 - 1) as usize;
            }
            let replaced: Vec<String> = original
                .split(' ')
                .map(|t| {
                    if t.to_lowercase() == *w {
                        match_case(t, words[j])
                    } else {
                        t.to_string()
                    }
                })
                .collect();
            return replaced.join(" ");
        }
    }
    substitute_layout(original, rng)
}

/// Another date in the same format (any of the five languages' formats is recognized; the
/// original's language first). Unparseable dates get their digits re-drawn.
pub fn date_like(lang: Lang, original: &str, birth: bool, rng: &mut dyn RngCore) -> String {
    let parsed = parse_date(original, lang).or_else(|| {
        Lang::ALL
            .iter()
            .filter(|&&l| l != lang)
            .find_map(|&l| parse_date(original, l))
    });
    let Some(p) = parsed else {
        // Not a date this module reads ("ieri", "Q3"): keep the layout, re-draw the characters.
        return substitute_layout(original, rng);
    };
    let (has_y, has_m, has_d) = p.format.components();
    let unit: i64 = if has_d {
        1
    } else if has_m {
        31
    } else {
        366
    };
    let span: i64 = if has_d {
        if birth {
            2000
        } else {
            400
        }
    } else if has_m {
        24
    } else {
        6
    };
    let _ = has_y;
    for _ in 0..8 {
        let k = rng.gen_range(1..=span) * if rng.gen_bool(0.5) { 1 } else { -1 };
        if let Some(s) = p.shift_days(k * unit) {
            if !same_value(&s, original) {
                return s;
            }
        }
    }
    // Near the edges of the format's range: step one unit towards the middle.
    let toward = if p.year.unwrap_or(2000) > 2000 { -1 } else { 1 };
    p.shift_days(toward * unit)
        .unwrap_or_else(|| substitute_digits(original, rng))
}

/// A fresh date in one of the language's usual formats; `full` asks for day, month and year.
pub fn date(lang: Lang, years: RangeInclusive<i32>, full: bool, rng: &mut dyn RngCore) -> String {
    let formats: Vec<&str> = example_formats(lang)
        .iter()
        .copied()
        .filter(|ex| {
            !full
                || parse_date(ex, lang).is_some_and(|p| p.format.components() == (true, true, true))
        })
        .collect();
    let ex = formats[rng.gen_range(0..formats.len())];
    let y = rng.gen_range(years);
    let m = rng.gen_range(1..=12);
    let d = rng.gen_range(1..=days_in_month(y, m));
    match parse_date(ex, lang) {
        Some(p) => p.render(y, m, d),
        None => format!("{d:02}/{m:02}/{y}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_list_is_present_for_every_language() {
        for lang in Lang::ALL {
            for n in [
                "first_names",
                "surnames",
                "cities",
                "streets",
                "hospitals",
                "organizations",
                "countries",
                "provinces",
                "professions",
                "email_domains",
                "departments",
            ] {
                assert!(list(lang, n).len() >= 7, "{lang}/{n}");
            }
        }
    }

    #[test]
    fn addresses_keep_numbers_and_punctuation() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let cases: &[(&str, Lang)] = &[
            ("Calle Mayor 12, 3º B", Lang::Es),
            ("4032 Debrecen, Nagyerdei krt. 98.", Lang::Hu),
            ("Kerkstraat 14a", Lang::Nl),
            ("12 High Street", Lang::En),
        ];
        for &(s, lang) in cases {
            let out = street_like(lang, s, &mut rng);
            let digits = |x: &str| x.chars().filter(char::is_ascii_digit).count();
            let punct = |x: &str| x.chars().filter(|c| matches!(c, ',' | 'º')).count();
            assert_eq!(digits(&out), digits(s), "{s} -> {out}");
            assert_eq!(punct(&out), punct(s), "{s} -> {out}");
            assert!(!same_value(&out, s));
        }
        let hu = street_like(Lang::Hu, "4032 Debrecen, Nagyerdei krt. 98.", &mut rng);
        assert!(
            !hu.contains("Debrecen") && !hu.contains("Nagyerdei"),
            "{hu}"
        );
        // The unit keeps its word, not a city's name in its place.
        let en = street_like(Lang::En, "14 Elmwood Rd, Apt 3", &mut rng);
        assert!(en.contains(", Apt "), "{en}");
        assert!(!en.contains("Elmwood"), "{en}");
    }

    #[test]
    fn ages_stay_near_with_their_unit() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for _ in 0..200 {
            let a = age_like(Lang::Es, "45 años", &mut rng);
            let (n, unit) = a.split_once(' ').unwrap();
            let n: i64 = n.parse().unwrap();
            assert!((40..=50).contains(&n) && n != 45);
            assert_eq!(unit, "años");
            let w = age_like(Lang::It, "sei", &mut rng);
            assert!(number_words(Lang::It).contains(&w.as_str()) && w != "sei");
        }
    }
}
