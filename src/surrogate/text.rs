//! Character-level helpers for surrogates: equality as the reader sees it, letter case,
//! layout-preserving substitution, ASCII folding, and the last-resort perturbation.

use crate::lang::Lang;
use rand::{Rng, RngCore};

/// Equal ignoring case and whitespace: the sense in which a surrogate must differ.
pub fn same_value(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    norm(a) == norm(b)
}

/// Letter case of a word or phrase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Lower,
    Upper,
    /// Anything else (Title Case, mixed): the replacement keeps its own spelling.
    Natural,
}

pub fn case_of(s: &str) -> Case {
    let letters = s.chars().filter(|c| c.is_alphabetic()).count();
    if letters == 0 {
        return Case::Natural;
    }
    if s.chars().all(|c| !c.is_uppercase()) {
        Case::Lower
    } else if letters > 1 && s.chars().all(|c| !c.is_lowercase()) {
        Case::Upper
    } else {
        Case::Natural
    }
}

/// `new` written in the case of `original` (all-caps stays all-caps, lower stays lower).
pub fn match_case(original: &str, new: &str) -> String {
    match case_of(original) {
        Case::Lower => new.to_lowercase(),
        Case::Upper => new.to_uppercase(),
        Case::Natural => new.to_string(),
    }
}

/// Removes diacritics from Latin letters (for e-mail addresses and URLs).
pub fn fold_ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let r = match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => "a",
            'é' | 'è' | 'ê' | 'ë' => "e",
            'í' | 'ì' | 'î' | 'ï' => "i",
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ő' => "o",
            'ú' | 'ù' | 'û' | 'ü' | 'ű' => "u",
            'ñ' => "n",
            'ç' => "c",
            'ß' => "ss",
            'Á' | 'À' | 'Â' | 'Ä' | 'Ã' | 'Å' => "A",
            'É' | 'È' | 'Ê' | 'Ë' => "E",
            'Í' | 'Ì' | 'Î' | 'Ï' => "I",
            'Ó' | 'Ò' | 'Ô' | 'Ö' | 'Õ' | 'Ő' => "O",
            'Ú' | 'Ù' | 'Û' | 'Ü' | 'Ű' => "U",
            'Ñ' => "N",
            'Ç' => "C",
            c if c.is_ascii_alphanumeric() => {
                out.push(c);
                continue;
            }
            _ => continue,
        };
        out.push_str(r);
    }
    out
}

pub fn random_digit(rng: &mut dyn RngCore) -> char {
    char::from(b'0' + rng.gen_range(0..10u8))
}

pub fn random_upper(rng: &mut dyn RngCore) -> char {
    char::from(b'A' + rng.gen_range(0..26u8))
}

/// Digits → random digits (a leading non-zero digit stays non-zero), letters → random letters
/// of the same case, everything else kept: the layout of IDs, rooms and codes survives.
pub fn substitute_layout(original: &str, rng: &mut dyn RngCore) -> String {
    let mut out = String::with_capacity(original.len());
    let mut prev_digit = false;
    for c in original.chars() {
        if c.is_ascii_digit() {
            let d = if !prev_digit && c != '0' {
                char::from(b'1' + rng.gen_range(0..9u8))
            } else {
                random_digit(rng)
            };
            out.push(d);
            prev_digit = true;
            continue;
        }
        prev_digit = false;
        if c.is_alphabetic() {
            let l = random_upper(rng);
            out.push(if c.is_lowercase() {
                l.to_ascii_lowercase()
            } else {
                l
            });
        } else {
            out.push(c);
        }
    }
    out
}

/// Last resort when every attempt equalled the original: change the last digit or letter of
/// `candidate` so the result differs from `original`. Deterministic, never a fixed string.
pub fn perturb(candidate: &str, original: &str) -> String {
    let mut chars: Vec<char> = candidate.chars().collect();
    for i in (0..chars.len()).rev() {
        let c = chars[i];
        let next = if c.is_ascii_digit() {
            Some(char::from(b'0' + (c as u8 - b'0' + 1) % 10))
        } else if c.is_ascii_lowercase() {
            Some(char::from(b'a' + (c as u8 - b'a' + 1) % 26))
        } else if c.is_ascii_uppercase() {
            Some(char::from(b'A' + (c as u8 - b'A' + 1) % 26))
        } else {
            None
        };
        if let Some(n) = next {
            chars[i] = n;
            let s: String = chars.iter().collect();
            if !same_value(&s, original) {
                return s;
            }
        }
    }
    // No ASCII letter or digit to change: append one derived from the length.
    let mut s: String = candidate.chars().collect();
    s.push(char::from(b'a' + (candidate.len() % 26) as u8));
    s
}

/// Words for sex/gender per language, in pairs (female, male).
fn sex_words(lang: Lang) -> &'static [(&'static str, &'static str)] {
    match lang {
        Lang::Nl => &[("vrouw", "man"), ("V", "M"), ("vrouwelijk", "mannelijk")],
        Lang::Hu => &[("nő", "férfi"), ("N", "F")],
        Lang::Es => &[("mujer", "varón"), ("M", "H"), ("femenino", "masculino")],
        Lang::It => &[("donna", "uomo"), ("F", "M"), ("femmina", "maschio")],
        Lang::En => &[("female", "male"), ("F", "M"), ("woman", "man")],
    }
}

/// The other sex in the original's wording; unknown wording gets a layout substitution.
pub fn sex_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let t = original.trim();
    for &(f, m) in sex_words(lang) {
        if t.eq_ignore_ascii_case(f) || t.to_lowercase() == f.to_lowercase() {
            return match_case(original, m);
        }
        if t.eq_ignore_ascii_case(m) || t.to_lowercase() == m.to_lowercase() {
            return match_case(original, f);
        }
    }
    substitute_layout(original, rng)
}

/// A sex word of the language.
pub fn sex_sample(lang: Lang, rng: &mut dyn RngCore) -> String {
    let words = sex_words(lang);
    let (f, m) = words[rng.gen_range(0..words.len())];
    if rng.gen_bool(0.5) { f } else { m }.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn sameness_and_perturbation() {
        assert!(same_value("Jan  Jansen", "jan jansen"));
        assert!(!same_value("Jan Jansen", "Jan Janssen"));
        for s in ["a", "Z", "9", "zz99", "--", "É"] {
            let p = perturb(s, s);
            assert!(!same_value(&p, s), "{s} -> {p}");
        }
    }

    #[test]
    fn layout_is_kept() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for s in ["AB-123/x", "0012 ab", "Kamer 3.14"] {
            let out = substitute_layout(s, &mut rng);
            assert_eq!(out.chars().count(), s.chars().count());
            for (a, b) in s.chars().zip(out.chars()) {
                assert_eq!(a.is_ascii_digit(), b.is_ascii_digit());
                assert_eq!(a.is_uppercase(), b.is_uppercase());
                if !a.is_alphanumeric() {
                    assert_eq!(a, b);
                }
            }
        }
        assert_eq!(fold_ascii("Őrsi-Kiss Ábel"), "OrsiKissAbel");
        assert_eq!(match_case("KOVÁCS", "Nagy"), "NAGY");
    }
}
