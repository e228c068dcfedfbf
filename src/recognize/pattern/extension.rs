//! A hospital's internal telephone extension written after an `x` without a space ("(x4-1187)",
//! "x41187"): one digit, a hyphen and four digits, or five digits. Shorter runs after an `x`
//! are counts and doses ("x2", "x4-5 days"), so they are left alone. The span is the whole
//! word, `x` included: written without a space, the marker and the number are one token, which
//! a surrogate replaces whole.

use super::Cand;
use crate::labels::{Category, Label, Subtype};

const SCORE: f32 = 0.8;

/// Appends the extensions of `text`.
pub fn extensions(text: &str, out: &mut Vec<Cand>) {
    let b = text.as_bytes();
    for i in memchr::memchr2_iter(b'x', b'X', b) {
        // The `x` opens a word: after the start, a blank or an opening bracket or comma.
        if i > 0 && !matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'(' | b',' | b';' | b'/') {
            continue;
        }
        let Some(len) = extension_len(&b[i + 1..]) else {
            continue;
        };
        let end = i + 1 + len;
        // A longer code goes on after it ("x4-11872", "x41187A").
        if b.get(end)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-')
        {
            continue;
        }
        let label = Label::new(Category::Contact, Subtype::Phone);
        out.push(Cand::new(i, end, label, "extension", SCORE));
    }
}

/// The length of an extension at the start of `b`: `D-DDDD` or `DDDDD`.
fn extension_len(b: &[u8]) -> Option<usize> {
    let digit = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
    if digit(0) && b.get(1) == Some(&b'-') && (2..6).all(digit) {
        Some(6)
    } else if (0..5).all(digit) {
        Some(5)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        extensions(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn an_extension_after_an_x_is_a_phone_number() {
        assert_eq!(found("case manager Felicity (x4-1187)."), ["x4-1187"]);
        assert_eq!(found("call X41187 with questions"), ["X41187"]);
        assert_eq!(found("pharmacy x6-5567, x4-1187"), ["x6-5567", "x4-1187"]);
    }

    #[test]
    fn counts_doses_and_codes_after_an_x_are_left_alone() {
        for text in [
            "ntg x1 with relief",
            "repeat x4-5 days",
            "AC 500x14",
            "x4-11872",
            "box41187",
            "x41187A",
            "x123",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }
}
