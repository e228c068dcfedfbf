//! Check digits of national and hospital identifiers: validation for recognizers and
//! completion for surrogates (so fake IDs carry valid checksums).
//!
//! Every `*_valid` function takes the identifier as written (separators allowed where the
//! format has them); every `*_check` function computes the check part from the payload.

fn digits(s: &str) -> Vec<u32> {
    s.chars().filter_map(|c| c.to_digit(10)).collect()
}

fn only_digits_and(s: &str, seps: &[char]) -> bool {
    s.chars().all(|c| c.is_ascii_digit() || seps.contains(&c))
}

/// Dutch BSN, "11-proef": 9 digits, weights 9..2 and -1, sum divisible by 11, not all zero.
pub fn bsn_valid(s: &str) -> bool {
    if !only_digits_and(s, &[' ', '.', '-']) {
        return false;
    }
    let d = digits(s);
    if d.len() != 9 || d.iter().all(|&x| x == 0) {
        return false;
    }
    let sum: i64 = d[..8]
        .iter()
        .enumerate()
        .map(|(i, &x)| (9 - i as i64) * x as i64)
        .sum::<i64>()
        - d[8] as i64;
    sum % 11 == 0
}

/// Last BSN digit for 8 leading digits; `None` when no digit 0-9 satisfies the 11-proef.
pub fn bsn_check(first8: &[u32]) -> Option<u32> {
    let sum: u32 = first8
        .iter()
        .enumerate()
        .map(|(i, &x)| (9 - i as u32) * x)
        .sum();
    let c = sum % 11;
    (c <= 9).then_some(c)
}

/// Hungarian TAJ (social security) number: 9 digits, CDV = (3·odd + 7·even positions) mod 10.
pub fn taj_valid(s: &str) -> bool {
    if !only_digits_and(s, &[' ', '-']) {
        return false;
    }
    let d = digits(s);
    d.len() == 9 && taj_check(&d[..8]) == d[8]
}

/// TAJ check digit for the first 8 digits.
pub fn taj_check(first8: &[u32]) -> u32 {
    first8
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % 2 == 0 { 3 * x } else { 7 * x })
        .sum::<u32>()
        % 10
}

const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// Control letter of a Spanish DNI number (also NIE after prefix substitution).
pub fn dni_letter(number: u32) -> char {
    DNI_LETTERS[(number % 23) as usize] as char
}

/// Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter), hyphen or space allowed.
pub fn dni_nie_valid(s: &str) -> bool {
    let compact: String = s
        .chars()
        .filter(|c| *c != '-' && *c != ' ' && *c != '.')
        .collect::<String>()
        .to_ascii_uppercase();
    if compact.len() != 9 || !compact.is_ascii() {
        return false;
    }
    let (body, letter) = compact.split_at(8);
    let body = match body.as_bytes()[0] {
        b'X' => format!("0{}", &body[1..]),
        b'Y' => format!("1{}", &body[1..]),
        b'Z' => format!("2{}", &body[1..]),
        _ => body.to_string(),
    };
    match body.parse::<u32>() {
        Ok(n) if body.bytes().all(|b| b.is_ascii_digit()) => dni_letter(n).to_string() == letter,
        _ => false,
    }
}

/// Two control digits of a Spanish social security number (NASS) for province + number.
pub fn nass_check(province: u64, number: u64) -> u64 {
    let value = if number < 10_000_000 {
        province * 10_000_000 + number
    } else {
        province * 100_000_000 + number
    };
    value % 97
}

/// Spanish NASS: 12 digits (2 province, 8 number, 2 control), separators `/`, `-`, space allowed.
pub fn nass_valid(s: &str) -> bool {
    if !only_digits_and(s, &[' ', '/', '-']) {
        return false;
    }
    let d = digits(s);
    if d.len() != 12 {
        return false;
    }
    let num = |r: &[u32]| r.iter().fold(0u64, |a, &x| a * 10 + x as u64);
    let province = num(&d[..2]);
    let known_province = (1..=53).contains(&province) || province == 66;
    known_province && nass_check(province, num(&d[2..10])) == num(&d[10..])
}

fn cf_odd_value(c: u8) -> Option<u32> {
    const ODD: [u32; 26] = [
        1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24,
        23,
    ];
    match c {
        b'0'..=b'9' => Some(ODD[(c - b'0') as usize]),
        b'A'..=b'Z' => Some(ODD[(c - b'A') as usize]),
        _ => None,
    }
}

fn cf_even_value(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u32),
        b'A'..=b'Z' => Some((c - b'A') as u32),
        _ => None,
    }
}

/// Control character of an Italian codice fiscale from its first 15 characters.
pub fn codice_fiscale_check(first15: &str) -> Option<char> {
    let b = first15.as_bytes();
    if b.len() != 15 {
        return None;
    }
    let mut sum = 0;
    for (i, &c) in b.iter().enumerate() {
        let c = c.to_ascii_uppercase();
        // Positions are 1-based in the specification: index 0 is an odd position.
        sum += if i % 2 == 0 {
            cf_odd_value(c)?
        } else {
            cf_even_value(c)?
        };
    }
    Some((b'A' + (sum % 26) as u8) as char)
}

/// Italian codice fiscale: 16 characters, shape AAAAAA99A99A999A (omocodia letters allowed in digit places).
pub fn codice_fiscale_valid(s: &str) -> bool {
    let u = s.to_ascii_uppercase();
    if u.len() != 16 || !u.bytes().all(|c| c.is_ascii_alphanumeric()) {
        return false;
    }
    let b = u.as_bytes();
    let letters_ok = [0, 1, 2, 3, 4, 5, 8, 11, 15]
        .iter()
        .all(|&i| b[i].is_ascii_alphabetic());
    letters_ok && codice_fiscale_check(&u[..15]) == Some(b[15] as char)
}

/// Remainder mod 97 of an IBAN-style string (letters count as 10..35), digit by digit.
fn mod97(chars: impl Iterator<Item = char>) -> Option<u32> {
    let mut r: u32 = 0;
    for c in chars {
        let v = c.to_digit(36)?;
        r = if v >= 10 {
            (r * 100 + v) % 97
        } else {
            (r * 10 + v) % 97
        };
    }
    Some(r)
}

/// IBAN (ISO 13616): country, two check digits, BBAN; mod 97 of the rearranged string is 1.
pub fn iban_valid(s: &str) -> bool {
    let compact: String = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_uppercase();
    if !(15..=34).contains(&compact.len()) || !compact.is_ascii() {
        return false;
    }
    let (head, bban) = compact.split_at(4);
    if !head[..2].bytes().all(|b| b.is_ascii_uppercase())
        || !head[2..].bytes().all(|b| b.is_ascii_digit())
    {
        return false;
    }
    mod97(bban.chars().chain(head.chars())) == Some(1)
}

/// The two IBAN check digits for a country code and BBAN.
pub fn iban_check(country: &str, bban: &str) -> Option<u32> {
    let r = mod97(bban.chars().chain(country.chars()).chain("00".chars()))?;
    Some(98 - r)
}

/// UK NHS number: 10 digits, weights 10..2, check = 11 - sum mod 11 (11 → 0, 10 invalid).
pub fn nhs_valid(s: &str) -> bool {
    if !only_digits_and(s, &[' ', '-']) {
        return false;
    }
    let d = digits(s);
    d.len() == 10 && nhs_check(&d[..9]) == Some(d[9])
}

/// NHS check digit for the first 9 digits; `None` when the number cannot be completed.
pub fn nhs_check(first9: &[u32]) -> Option<u32> {
    let sum: u32 = first9
        .iter()
        .enumerate()
        .map(|(i, &x)| (10 - i as u32) * x)
        .sum();
    match 11 - sum % 11 {
        11 => Some(0),
        10 => None,
        c => Some(c),
    }
}

/// Luhn check (payment cards, some hospital numbers).
pub fn luhn_valid(s: &str) -> bool {
    let d = digits(s);
    if d.len() < 2 || !only_digits_and(s, &[' ', '-']) {
        return false;
    }
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| {
            if i % 2 == 1 {
                let y = x * 2;
                if y > 9 {
                    y - 9
                } else {
                    y
                }
            } else {
                x
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Validator = fn(&str) -> bool;

    #[test]
    fn table_of_known_identifiers() {
        // Values constructed by hand from each specification's arithmetic.
        let cases: &[(&str, Validator, bool)] = &[
            ("111222333", bsn_valid, true), // 9+8+7+12+10+8+9+6-3 = 66 = 6·11
            ("111222334", bsn_valid, false),
            ("000000000", bsn_valid, false),
            ("12345678Z", dni_nie_valid, true), // 12345678 mod 23 = 14 → Z
            ("12345678A", dni_nie_valid, false),
            ("X1234567L", dni_nie_valid, true), // 01234567 mod 23 = 19 → L
            ("GB82 WEST 1234 5698 7654 32", iban_valid, true),
            ("GB82 WEST 1234 5698 7654 33", iban_valid, false),
            ("NL91ABNA0417164300", iban_valid, true),
            ("943 476 5919", nhs_valid, true),
            ("943 476 5918", nhs_valid, false),
            ("4539 1488 0343 6467", luhn_valid, true),
        ];
        for (s, f, want) in cases {
            assert_eq!(f(s), *want, "{s}");
        }
    }

    #[test]
    fn taj_check_matches_hand_sum() {
        // 1·3 + 2·7 + 3·3 + 4·7 + 5·3 + 6·7 + 7·3 + 8·7 = 188 → 8
        assert_eq!(taj_check(&[1, 2, 3, 4, 5, 6, 7, 8]), 8);
        assert!(taj_valid("123 456 788"));
        assert!(!taj_valid("123456789"));
    }

    #[test]
    fn codice_fiscale_round_trip() {
        let body = "RSSMRA85T10A562";
        let c = codice_fiscale_check(body).unwrap();
        assert_eq!(c, 'S'); // the well-known specimen RSSMRA85T10A562S
        assert!(codice_fiscale_valid("RSSMRA85T10A562S"));
        assert!(!codice_fiscale_valid("RSSMRA85T10A562T"));
    }

    #[test]
    fn nass_and_iban_completion() {
        let cc = nass_check(28, 12345678);
        let s = format!("28/12345678/{cc:02}");
        assert!(nass_valid(&s), "{s}");
        let bad = format!("28/12345678/{:02}", (cc + 1) % 97);
        assert!(!nass_valid(&bad));
        let check = iban_check("NL", "ABNA0417164300").unwrap();
        assert_eq!(check, 91);
        assert_eq!(bsn_check(&[1, 1, 1, 2, 2, 2, 3, 3]), Some(3));
    }
}
