//! Identifiers: recognized national and bank formats are regenerated with valid check digits
//! in the original's layout; anything else gets digits → digits, letters → letters.

use super::text::{random_digit, random_upper, sex_sample, substitute_layout};
use crate::checksum::*;
use crate::labels::Subtype;
use crate::lang::Lang;
use rand::{Rng, RngCore};

/// Identifier formats whose check digits surrogates keep valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdScheme {
    Bsn,
    Taj,
    Nhs,
    DniNie,
    Nass,
    CodiceFiscale,
    Iban,
    Luhn,
}

impl IdScheme {
    pub fn is_valid(self, s: &str) -> bool {
        match self {
            IdScheme::Bsn => bsn_valid(s),
            IdScheme::Taj => taj_valid(s),
            IdScheme::Nhs => nhs_valid(s),
            IdScheme::DniNie => dni_nie_valid(s),
            IdScheme::Nass => nass_valid(s),
            IdScheme::CodiceFiscale => codice_fiscale_valid(s),
            IdScheme::Iban => iban_valid(s),
            IdScheme::Luhn => luhn_valid(s) && s.chars().filter(char::is_ascii_digit).count() >= 12,
        }
    }
}

/// The checksummed format `s` is valid in, preferring the language's own national number
/// when a 9-digit number passes more than one test.
pub fn looks_like(s: &str, lang: Lang) -> Option<IdScheme> {
    use IdScheme::*;
    let order: &[IdScheme] = match lang {
        Lang::Hu => &[Taj, Bsn, Nhs, DniNie, Nass, CodiceFiscale, Iban, Luhn],
        Lang::En => &[Nhs, Bsn, Taj, DniNie, Nass, CodiceFiscale, Iban, Luhn],
        _ => &[Bsn, Taj, Nhs, DniNie, Nass, CodiceFiscale, Iban, Luhn],
    };
    order.iter().copied().find(|sc| sc.is_valid(s))
}

/// `original` with its ASCII letters and digits replaced, in order, by `new` (letter case of
/// the original position kept).
fn fill_layout(original: &str, new: &[char]) -> String {
    let mut it = new.iter();
    original
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                let n = *it.next().unwrap_or(&c);
                if c.is_ascii_lowercase() {
                    n.to_ascii_lowercase()
                } else {
                    n
                }
            } else {
                c
            }
        })
        .collect()
}

fn digits(n: usize, rng: &mut dyn RngCore) -> Vec<u32> {
    (0..n).map(|_| rng.gen_range(0..10)).collect()
}

fn to_chars(d: &[u32]) -> Vec<char> {
    d.iter().map(|&x| char::from(b'0' + x as u8)).collect()
}

fn bsn_digits(rng: &mut dyn RngCore) -> Vec<char> {
    loop {
        let mut d = digits(8, rng);
        d[0] = rng.gen_range(1..10);
        if let Some(c) = bsn_check(&d) {
            d.push(c);
            return to_chars(&d);
        }
    }
}

fn taj_digits(rng: &mut dyn RngCore) -> Vec<char> {
    let mut d = digits(8, rng);
    d[0] = rng.gen_range(0..4); // TAJ numbers in use start with 0-3
    d.push(taj_check(&d));
    to_chars(&d)
}

fn nhs_digits(rng: &mut dyn RngCore) -> Vec<char> {
    loop {
        let mut d = digits(9, rng);
        d[0] = rng.gen_range(4..8);
        if let Some(c) = nhs_check(&d) {
            d.push(c);
            return to_chars(&d);
        }
    }
}

fn luhn_complete(mut d: Vec<u32>) -> Vec<char> {
    d.push(0);
    let s: String = to_chars(&d).into_iter().collect();
    for c in 0..10 {
        let mut t = s.clone();
        t.pop();
        t.push(char::from(b'0' + c as u8));
        if luhn_valid(&t) {
            return t.chars().collect();
        }
    }
    s.chars().collect()
}

/// Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter), as in `original`.
fn dni_nie_like(original: &str, rng: &mut dyn RngCore) -> String {
    let first = original
        .chars()
        .find(|c| c.is_ascii_alphanumeric())
        .unwrap_or('0')
        .to_ascii_uppercase();
    let (prefix, body_len) = if matches!(first, 'X' | 'Y' | 'Z') {
        let p = ['X', 'Y', 'Z'][rng.gen_range(0..3)];
        (Some(p), 7)
    } else {
        (None, 8)
    };
    let body = digits(body_len, rng);
    let mut number = body.iter().fold(0u32, |a, &x| a * 10 + x);
    if let Some(p) = prefix {
        number += (p as u32 - 'X' as u32) * 10_000_000;
    }
    let mut chars: Vec<char> = prefix.into_iter().collect();
    chars.extend(to_chars(&body));
    chars.push(dni_letter(number));
    fill_layout(original, &chars)
}

fn nass_digits(rng: &mut dyn RngCore) -> Vec<char> {
    let province = rng.gen_range(1..=52u64);
    let number = rng.gen_range(10_000_000..100_000_000u64);
    let check = nass_check(province, number);
    format!("{province:02}{number:08}{check:02}")
        .chars()
        .collect()
}

const CF_MONTHS: &[u8] = b"ABCDEHLMPRST";
const CF_CONSONANTS: &[u8] = b"BCDFGHLMNPRSTVZ";

/// A codice fiscale; the sex encoded in the day (women +40) follows the original.
fn codice_fiscale(female: bool, rng: &mut dyn RngCore) -> String {
    let mut s = String::with_capacity(16);
    for _ in 0..6 {
        s.push(char::from(
            CF_CONSONANTS[rng.gen_range(0..CF_CONSONANTS.len())],
        ));
    }
    s.push_str(&format!("{:02}", rng.gen_range(30..100)));
    s.push(char::from(CF_MONTHS[rng.gen_range(0..12)]));
    let day = rng.gen_range(1..=28) + if female { 40 } else { 0 };
    s.push_str(&format!("{day:02}"));
    s.push(char::from(b"ABCDEFGHILM"[rng.gen_range(0..11)]));
    s.push_str(&format!("{:03}", rng.gen_range(1..1000)));
    let check = codice_fiscale_check(&s).unwrap_or('X');
    s.push(check);
    s
}

/// An IBAN with the original's country code, BBAN layout and grouping, and valid check digits.
fn iban_like(original: &str, rng: &mut dyn RngCore) -> String {
    let compact: Vec<char> = original
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let country: String = compact[..2].iter().collect();
    let bban: String = compact[4..]
        .iter()
        .map(|c| {
            if c.is_ascii_digit() {
                random_digit(rng)
            } else {
                random_upper(rng)
            }
        })
        .collect();
    let check = iban_check(&country, &bban).unwrap_or(0);
    let all: Vec<char> = format!("{country}{check:02}{bban}").chars().collect();
    fill_layout(original, &all)
}

/// An identifier shaped like `original`, with valid check digits when its format is known.
pub fn id_like(lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    match looks_like(original, lang) {
        Some(IdScheme::Bsn) => fill_layout(original, &bsn_digits(rng)),
        Some(IdScheme::Taj) => fill_layout(original, &taj_digits(rng)),
        Some(IdScheme::Nhs) => fill_layout(original, &nhs_digits(rng)),
        Some(IdScheme::DniNie) => dni_nie_like(original, rng),
        Some(IdScheme::Nass) => fill_layout(original, &nass_digits(rng)),
        Some(IdScheme::CodiceFiscale) => {
            let day: u32 = original
                .get(9..11)
                .and_then(|d| d.parse().ok())
                .unwrap_or(0);
            let cf: Vec<char> = codice_fiscale(day > 40, rng).chars().collect();
            fill_layout(original, &cf)
        }
        Some(IdScheme::Iban) => iban_like(original, rng),
        Some(IdScheme::Luhn) => {
            let n = original.chars().filter(char::is_ascii_digit).count();
            let mut d = digits(n - 1, rng);
            d[0] = d[0].max(1);
            fill_layout(original, &luhn_complete(d))
        }
        None => substitute_layout(original, rng),
    }
}

/// A fresh national identifier of the language's country.
pub fn national_id(lang: Lang, rng: &mut dyn RngCore) -> String {
    let layout = |d: Vec<char>, layouts: &[&str], rng: &mut dyn RngCore| {
        fill_layout(layouts[rng.gen_range(0..layouts.len())], &d)
    };
    match lang {
        Lang::Nl => layout(
            bsn_digits(rng),
            &["000000000", "0000.00.000", "000 000 000"],
            rng,
        ),
        Lang::Hu => layout(
            taj_digits(rng),
            &["000 000 000", "000-000-000", "000000000"],
            rng,
        ),
        Lang::En => layout(
            nhs_digits(rng),
            &["000 000 0000", "0000000000", "000-000-0000"],
            rng,
        ),
        Lang::It => codice_fiscale(rng.gen_bool(0.5), rng),
        Lang::Es => match rng.gen_range(0..4) {
            0 => dni_nie_like("X0000000A", rng),
            1 => layout(
                nass_digits(rng),
                &["00/00000000/00", "000000000000", "00 00000000 00"],
                rng,
            ),
            2 => dni_nie_like("00000000-A", rng),
            _ => dni_nie_like("00000000A", rng),
        },
    }
}

/// A fresh IBAN of the language's country, grouped by four or compact.
pub fn iban(lang: Lang, rng: &mut dyn RngCore) -> String {
    // Country, BBAN layout (A = letter, 0 = digit).
    let (cc, bban) = match lang {
        Lang::Nl => ("NL", "AAAA0000000000"),
        Lang::Hu => ("HU", "000000000000000000000000"),
        Lang::Es => ("ES", "00000000000000000000"),
        Lang::It => ("IT", "A0000000000000000000000"),
        Lang::En => ("GB", "AAAA00000000000000"),
    };
    let compact = format!("{cc}00{bban}");
    let grouped: String = if rng.gen_bool(0.6) {
        compact
            .as_bytes()
            .chunks(4)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        compact
    };
    iban_like(&grouped, rng)
}

/// Per-language layouts of identifiers without a public check digit (`0` digit, `A` letter).
fn layouts(sub: Subtype, lang: Lang) -> &'static [&'static str] {
    use Subtype::*;
    match (sub, lang) {
        (Medicalrecord, Lang::Nl) => &["0000000", "00-00-000", "000000000"],
        (Medicalrecord, Lang::Hu) => &["000000000", "0000000", "000 000 000"],
        (Medicalrecord, Lang::Es) => &["0000000", "00.000.000", "000000"],
        (Medicalrecord, Lang::It) => &["0000000000", "AA0000000", "00/000000"],
        (Medicalrecord, Lang::En) => &["A0000000", "000 000 0000", "0000000"],
        (Healthplan, Lang::Nl) => &["000000000", "AA0000000000"],
        (Healthplan, Lang::Hu) => &["000-000-000", "AA-000000"],
        (Healthplan, Lang::Es) => &["AAAA000000000000", "AAAA 0000000000 00"],
        (Healthplan, Lang::It) => &["80380000000000000000", "0000 0000 0000 0000 0000"],
        (Healthplan, Lang::En) => &["AAA000000000", "AAA 000 000 000"],
        (License, Lang::Nl) => &["00000000000", "000000000"],
        (License, Lang::Hu) => &["00000", "000000"],
        (License, Lang::Es) => &["00/00000", "000000000", "000000"],
        (License, Lang::It) => &["00000", "AA-0000"],
        (License, Lang::En) => &["0000000", "AB00000"],
        (Vehicle, Lang::Nl) => &["AA-000-A", "00-AAA-0"],
        (Vehicle, Lang::Hu) => &["AAA-000", "AA AA-000"],
        (Vehicle, Lang::Es) => &["0000 AAA", "0000-AAA"],
        (Vehicle, Lang::It) => &["AA 000AA", "AA000AA"],
        (Vehicle, Lang::En) => &["AA00 AAA", "AA00AAA"],
        (Device, _) => &["SN-00000000", "AA0000-000000", "0000-0000-0000"],
        (Bioid, _) => &["AA000000", "00-0000000"],
        (Department | Room, _) => &["000", "A-000", "0.00", "0A"],
        (_, Lang::Nl) => &["AA0000000", "AAA000000"],
        (_, Lang::Hu) => &["000000AA", "AA000000"],
        (_, Lang::Es) => &["AAA000000", "AA0000000"],
        (_, Lang::It) => &["AA0000000", "AA 0000000"],
        (_, Lang::En) => &["000000000", "A00000000"],
    }
}

/// A fresh identifier of a type without a national checksum format.
pub fn layout_sample(sub: Subtype, lang: Lang, rng: &mut dyn RngCore) -> String {
    if sub == Subtype::Sex {
        return sex_sample(lang, rng);
    }
    let l = layouts(sub, lang);
    let layout = l[rng.gen_range(0..l.len())];
    // Literal letters in a layout ("SN-", "AB") are kept; 'A' and '0' are drawn.
    let mut out = String::with_capacity(layout.len());
    let mut prev_literal = false;
    for c in layout.chars() {
        match c {
            'A' if !prev_literal => out.push(random_upper(rng)),
            '0' => out.push(random_digit(rng)),
            _ => {
                out.push(c);
                prev_literal = c.is_ascii_alphabetic();
                continue;
            }
        }
        prev_literal = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn recognized_formats_stay_valid_and_keep_layout() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let cf = codice_fiscale(false, &mut rng);
        let nass = format!("28/12345678/{:02}", nass_check(28, 12345678));
        let cases: Vec<(String, Lang, IdScheme)> = vec![
            ("111222333".into(), Lang::Nl, IdScheme::Bsn),
            ("1112.22.333".into(), Lang::Nl, IdScheme::Bsn),
            ("123 456 788".into(), Lang::Hu, IdScheme::Taj),
            ("943 476 5919".into(), Lang::En, IdScheme::Nhs),
            ("12345678Z".into(), Lang::Es, IdScheme::DniNie),
            ("X1234567L".into(), Lang::Es, IdScheme::DniNie),
            ("12345678-z".into(), Lang::Es, IdScheme::DniNie),
            (nass, Lang::Es, IdScheme::Nass),
            ("RSSMRA85T10A562S".into(), Lang::It, IdScheme::CodiceFiscale),
            (cf, Lang::It, IdScheme::CodiceFiscale),
            (
                "GB82 WEST 1234 5698 7654 32".into(),
                Lang::En,
                IdScheme::Iban,
            ),
            ("NL91ABNA0417164300".into(), Lang::Nl, IdScheme::Iban),
            ("4539 1488 0343 6467".into(), Lang::En, IdScheme::Luhn),
        ];
        for (s, lang, scheme) in &cases {
            assert_eq!(looks_like(s, *lang), Some(*scheme), "{s}");
            for _ in 0..300 {
                let out = id_like(*lang, s, &mut rng);
                assert!(scheme.is_valid(&out), "{s} -> {out}");
                assert_eq!(out.len(), s.len());
                for (a, b) in s.chars().zip(out.chars()) {
                    if !a.is_ascii_alphanumeric() {
                        assert_eq!(a, b, "{s} -> {out}");
                    }
                    assert_eq!(a.is_ascii_lowercase(), b.is_ascii_lowercase());
                }
            }
        }
    }

    #[test]
    fn fresh_ids_pass_their_checks() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..500 {
            assert!(bsn_valid(&national_id(Lang::Nl, &mut rng)));
            assert!(taj_valid(&national_id(Lang::Hu, &mut rng)));
            assert!(nhs_valid(&national_id(Lang::En, &mut rng)));
            assert!(codice_fiscale_valid(&national_id(Lang::It, &mut rng)));
            let es = national_id(Lang::Es, &mut rng);
            assert!(dni_nie_valid(&es) || nass_valid(&es), "{es}");
            for lang in Lang::ALL {
                let i = iban(lang, &mut rng);
                assert!(iban_valid(&i), "{i}");
            }
        }
    }
}
