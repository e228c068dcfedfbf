//! An age written with the patient's sex glued to it at the start of a line, as English notes
//! open an admission ("92F admitted from ...", "67M w/ CP"): the number is the age. Elsewhere
//! such a shape is as often a temperature ("T 99F"), so only the line start reads it. The
//! letters are the language's (`Lexicon::sex_after_age`; English `F`, `M`).

use super::Cand;
use crate::labels::{Category, Label, Subtype};

const SCORE: f32 = 0.8;

/// Appends the ages of `text` written as `NNF` or `NNM` (one to three digits, 1 to 125, then
/// one of the `sex` letters) at the start of a line, before a blank, a comma or the end.
pub fn ages_with_sex(text: &str, sex: &[u8], out: &mut Vec<Cand>) {
    if sex.is_empty() {
        return;
    }
    let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1));
    for line in line_starts {
        let rest = &text[line..];
        let lead = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let start = line + lead;
        let b = &text.as_bytes()[start..];
        let digits = b.iter().take(4).take_while(|c| c.is_ascii_digit()).count();
        if !(1..=3).contains(&digits) || !b.get(digits).is_some_and(|c| sex.contains(c)) {
            continue;
        }
        let ends = b
            .get(digits + 1)
            .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\n' | b',' | b';' | b':'));
        let age: u32 = text[start..start + digits].parse().unwrap_or(0);
        if ends && (1..=125).contains(&age) {
            let label = Label::new(Category::Age, Subtype::Age);
            out.push(Cand::new(start, start + digits, label, "age_sex", SCORE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        ages_with_sex(text, b"FM", &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn an_age_with_the_sex_glued_to_it_opens_a_line() {
        assert_eq!(found("92F admitted from nursing home"), ["92"]);
        assert_eq!(found("Events:\n  67M w/ CP, ruled out"), ["67"]);
        assert_eq!(found("101M, DNR/DNI"), ["101"]);
    }

    #[test]
    fn temperatures_sizes_and_codes_are_left_alone() {
        for text in [
            "T 99F, HR 80",
            "Tmax 101F overnight",
            "99.5F at 0400",
            "14Fr foley",
            "0F",
            "200F",
            "92Fr",
            "5MG",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
        // A language whose notes do not write ages so reads none.
        let mut out = Vec::new();
        ages_with_sex("92F admitted", &[], &mut out);
        assert!(out.is_empty());
    }
}
