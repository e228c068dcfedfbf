//! Payment card numbers: 13 to 19 digits, written solid or in groups split by single spaces or
//! hyphens, that pass the Luhn check and start like a card (2–6). A digit or letter right
//! before or after the run rules it out (part of a longer code).

use super::Cand;
use crate::labels::{Category, Label, Subtype};

const SCORE: f32 = 0.8;

/// Whether `digits` (ASCII digits only) pass the Luhn check.
pub fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.iter().rev().enumerate() {
        let mut v = (d - b'0') as u32;
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum.is_multiple_of(10)
}

pub fn cards(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut digits = Vec::with_capacity(19);
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        // Read digit groups joined by one space or hyphen (the same separator throughout).
        let start = i;
        let mut j = i;
        let mut sep: Option<u8> = None;
        digits.clear();
        let mut end = i;
        while j < b.len() {
            if b[j].is_ascii_digit() {
                digits.push(b[j]);
                j += 1;
                end = j;
            } else if (b[j] == b' ' || b[j] == b'-')
                && sep.is_none_or(|s| s == b[j])
                && j + 1 < b.len()
                && b[j + 1].is_ascii_digit()
                && digits.len() < 19
            {
                sep = Some(b[j]);
                j += 1;
            } else {
                break;
            }
        }
        let clean_edge = end >= b.len() || !b[end].is_ascii_alphanumeric();
        if (13..=19).contains(&digits.len())
            && clean_edge
            && (b'2'..=b'6').contains(&digits[0])
            && luhn(&digits)
        {
            out.push(Cand::new(
                start,
                end,
                Label::new(Category::Id, Subtype::Account),
                "card",
                SCORE,
            ));
        }
        i = end.max(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_valid_card_shapes_only() {
        // Numbers made up for this test; the valid ones were given a Luhn check digit.
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Betaald met kaart 4000 1234 5678 9017 gisteren.",
                Some("4000 1234 5678 9017"),
            ),
            (
                "card no. 5500-0000-0000-0004 on file",
                Some("5500-0000-0000-0004"),
            ),
            ("tarjeta 4111111111111111.", Some("4111111111111111")),
            ("tarjeta 4111111111111112.", None),
            ("lotto 4000 1234 5678 9011", None),
            ("code AB4111111111111111", None),
            ("mixed 4111-1111 1111 1111", None),
            ("short 4242 4242 42", None),
        ];
        for (text, want) in cases {
            let mut out = Vec::new();
            cards(text, &mut out);
            let got: Vec<&str> = out.iter().map(|c| &text[c.start..c.end]).collect();
            assert_eq!(got, want.iter().copied().collect::<Vec<_>>(), "{text}");
        }
    }
}
