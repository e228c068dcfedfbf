//! Person names and user names: same number of tokens, initials stay initials, titles and
//! particles stay, first names become first names and surnames surnames, case is kept.

use super::places::list;
use super::text::{fold_ascii, match_case, random_digit, random_upper, same_value};
use crate::lang::Lang;
use rand::{Rng, RngCore};

/// Titles and name particles kept verbatim (compared lowercased, without a trailing period).
const KEEP: &[&str] = &[
    "dr", "drs", "prof", "mr", "mrs", "ms", "miss", "dhr", "mevr", "mw", "sr", "sra", "srta",
    "dña", "don", "doña", "dott", "dott.ssa", "ssa", "sig", "sig.ra", "ra", "ing", "ifj", "id",
    "özv", "van", "der", "den", "de", "del", "della", "dei", "di", "da", "la", "le", "von", "ten",
    "ter", "het", "y", "i", "e", "st", "mc", "né",
];

/// An entry unlike `avoid`, one word long (so the name keeps its token count).
fn pick_other(items: &[&'static str], avoid: &str, rng: &mut dyn RngCore) -> &'static str {
    let mut choice = items[rng.gen_range(0..items.len())];
    for _ in 0..16 {
        if !same_value(choice, avoid) && !choice.contains(char::is_whitespace) {
            break;
        }
        choice = items[rng.gen_range(0..items.len())];
    }
    choice
}

pub fn first_name(lang: Lang, rng: &mut dyn RngCore) -> String {
    let l = list(lang, "first_names");
    l[rng.gen_range(0..l.len())].to_string()
}

pub fn surname(lang: Lang, rng: &mut dyn RngCore) -> String {
    let l = list(lang, "surnames");
    l[rng.gen_range(0..l.len())].to_string()
}

/// A full name in the language's usual order (Hungarian: surname first; Spanish: often two
/// surnames).
pub fn full_name(lang: Lang, rng: &mut dyn RngCore) -> String {
    let f = first_name(lang, rng);
    let s = surname(lang, rng);
    match lang {
        Lang::Hu => format!("{s} {f}"),
        Lang::Es if rng.gen_bool(0.5) => format!("{f} {s} {}", surname(lang, rng)),
        _ => format!("{f} {s}"),
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphabetic() || c == '\'' || c == '’'
}

/// A name shaped like `original`.
pub fn like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let firsts = list(lang, "first_names");
    let lasts = list(lang, "surnames");
    let mut out = String::with_capacity(original.len() + 8);
    let mut rest = original;
    while let Some(c) = rest.chars().next() {
        let len = if is_word_char(c) {
            rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len())
        } else {
            rest.find(is_word_char).unwrap_or(rest.len())
        };
        let (tok, tail) = rest.split_at(len);
        rest = tail;
        if !is_word_char(c) {
            out.push_str(tok);
            continue;
        }
        let lower = tok.to_lowercase();
        if KEEP.contains(&lower.as_str()) && (tok.chars().count() > 1 || c.is_lowercase()) {
            out.push_str(tok);
        } else if tok.chars().count() == 1 {
            // An initial: another letter, same case.
            let mut l = random_upper(rng);
            while tok.eq_ignore_ascii_case(&l.to_string()) {
                l = random_upper(rng);
            }
            out.push(if c.is_lowercase() {
                l.to_ascii_lowercase()
            } else {
                l
            });
        } else {
            let is_first = firsts.iter().any(|f| f.to_lowercase() == lower);
            let pool = if is_first { firsts } else { lasts };
            out.push_str(&match_case(tok, pick_other(pool, tok, rng)));
        }
    }
    out
}

/// A user name shaped like `original`: letters from a new name, digits re-drawn, separators
/// kept.
pub fn username_like(original: &str, rng: &mut dyn RngCore) -> String {
    let lang = Lang::ALL[rng.gen_range(0..Lang::ALL.len())];
    let letters = fold_ascii(&format!(
        "{}{}",
        first_name(lang, rng).chars().next().unwrap_or('x'),
        surname(lang, rng)
    ))
    .to_lowercase();
    let mut pool = letters.chars().cycle();
    let mut out = String::with_capacity(original.len());
    for c in original.chars() {
        if c.is_ascii_digit() {
            out.push(random_digit(rng));
        } else if c.is_alphabetic() {
            let n = pool.next().unwrap_or('x');
            out.push(if c.is_uppercase() {
                n.to_ascii_uppercase()
            } else {
                n
            });
        } else {
            out.push(c);
        }
    }
    out
}

/// A fresh user name: initial + surname, sometimes with digits.
pub fn username(lang: Lang, rng: &mut dyn RngCore) -> String {
    let f = fold_ascii(&first_name(lang, rng)).to_lowercase();
    let s = fold_ascii(&surname(lang, rng)).to_lowercase();
    let initial = f.chars().next().unwrap_or('x');
    match rng.gen_range(0..3) {
        0 => format!("{initial}{s}"),
        1 => format!("{s}{initial}{}", rng.gen_range(1..100)),
        _ => format!("{}{:04}", s.to_uppercase(), rng.gen_range(0..10_000)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn shape_is_kept() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let cases: &[(&str, Lang)] = &[
            ("Dr. J. Jansen", Lang::Nl),
            ("KOVÁCS János", Lang::Hu),
            ("García, María", Lang::Es),
            ("U.Burgio", Lang::It),
            ("dott.ssa Rossi", Lang::It),
            ("van der Berg", Lang::Nl),
            ("mary o'brien", Lang::En),
        ];
        for &(s, lang) in cases {
            for _ in 0..50 {
                let out = like(lang, s, &mut rng);
                let shape = |x: &str| -> Vec<(bool, usize)> {
                    x.split(|c: char| c.is_whitespace() || c == '.' || c == ',')
                        .filter(|t| !t.is_empty())
                        .map(|t| (t.chars().count() == 1, 0))
                        .collect()
                };
                assert_eq!(shape(&out), shape(s), "{s} -> {out}");
                assert_eq!(
                    out.chars().filter(|c| matches!(c, '.' | ',' | ' ')).count(),
                    s.chars().filter(|c| matches!(c, '.' | ',' | ' ')).count()
                );
            }
        }
        let out = like(Lang::Nl, "Dr. J. Jansen", &mut rng);
        assert!(out.starts_with("Dr. "), "{out}");
        let out = like(Lang::Hu, "KOVÁCS János", &mut rng);
        assert_eq!(
            out.split(' ').next().unwrap(),
            out.split(' ').next().unwrap().to_uppercase()
        );
    }

    #[test]
    fn usernames_keep_layout() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let out = username_like("jkovacs_12", &mut rng);
        assert_eq!(out.len(), 10);
        assert_eq!(&out[7..8], "_");
        assert!(out[8..].chars().all(|c| c.is_ascii_digit()));
    }
}
