//! Clinical vocabulary known by its form: a word built on a suffix of diseases, findings or
//! procedures ("hyperkalemia", "pancreatitis", "cholecystectomy", "splenomegaly") is no name
//! and no place, in any of the five languages (the suffixes are Greek and Latin).
//!
//! So is a device or test written with capitals inside after a lower-case letter ("BiPAP",
//! "CoNS"): names have at most one capital inside ("McDonald", "DeVries"); and so is a lab
//! value or test abbreviated without a vowel ("Hgb", "Hct").
//!
//! News taggers meet such words rarely and sometimes take them for names; nursing notes write
//! them on every line. A word a name or place list holds is left to the lists.

/// Suffixes of conditions, findings, procedures and bacteria ("Meningococcal vaccine",
/// "Enterococcus", "Acinetobacter"), lower case. Not `-uria` (hematuria): names
/// end so too (the Basque Uria, a handle on WNUT-17 dev).
const SUFFIXES: &[&str] = &[
    "emia", "aemia", "itis", "osis", "ectomy", "otomy", "ostomy", "plasty", "scopy", "ology",
    "opathy", "algia", "penia", "megaly", "rrhea", "rrhoea", "plegia", "paresis", "phrenia",
    "coccal", "coccus", "bacter",
];

/// Words of course and extent beside a clinical term ("chronic cholecystitis", "acute
/// pancreatitis", "bilateral pneumonitis"), lower case.
const MODIFIERS: &[&str] = &[
    "acute",
    "chronic",
    "subacute",
    "severe",
    "mild",
    "moderate",
    "bilateral",
    "recurrent",
    "diffuse",
    "focal",
    "partial",
    "total",
];

/// Whether `word` (letters only, seven or more) ends in one of the suffixes.
pub fn is_clinical_term(word: &str) -> bool {
    let lower = word.to_lowercase();
    lower.chars().count() >= 7
        && lower.chars().all(char::is_alphabetic)
        && SUFFIXES.iter().any(|s| lower.ends_with(s))
}

/// Whether `word` has a lower-case letter followed by two capitals ("BiPAP").
fn has_inner_capitals(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars
        .windows(3)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase() && w[2].is_uppercase())
}

/// Whether `word` is an abbreviation written with a lower-case letter and no vowel ("Hgb",
/// "Hct", "BMBx"): no name or place of the five languages is written so (all its letters
/// ASCII, three or more, none of `aeiouy`).
fn vowelless_abbreviation(word: &str) -> bool {
    word.len() >= 3
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && !word.chars().any(|c| "aeiouyAEIOUY".contains(c))
}

/// Whether every word of `surface` with letters is a clinical term that `listed` (a name or
/// place list) does not hold, a short abbreviation in capitals beside one ("Appendectomy POD
/// 0", "Hepatitis B"), or a word of its course ("chronic cholecystitis"); a span without a
/// clinical term is none.
pub fn all_clinical_terms(surface: &str, listed: impl Fn(&str) -> bool) -> bool {
    let words: Vec<&str> = surface
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let clinical = |w: &str| {
        (is_clinical_term(w) || has_inner_capitals(w) || vowelless_abbreviation(w))
            && !listed(&w.to_lowercase())
    };
    let short_caps = |w: &str| w.chars().count() <= 4 && !w.chars().any(char::is_lowercase);
    let modifier = |w: &str| MODIFIERS.contains(&w.to_lowercase().as_str());
    words.iter().any(|w| clinical(w))
        && words
            .iter()
            .all(|w| clinical(w) || short_caps(w) || modifier(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_conditions_and_procedures_are_known_by_their_suffix() {
        let none = |_: &str| false;
        for term in [
            "hyperkalemia",
            "Hyperlipidemia",
            "pancreatitis",
            "Cholecystectomy",
            "splenomegaly",
            "neutropenia",
            "schizophrenia",
            "BiPAP",
            "Hgb",
            "Hct 28",
            "BMBx",
            "Appendectomy POD 0",
            "chronic cholecystitis",
            "Meningococcal",
            "Enterococcus",
        ] {
            assert!(all_clinical_terms(term, none), "{term}");
        }
        for other in [
            "Mary",
            "Osis",
            "walker",
            "Smith emia",
            "12",
            "",
            "McDonald",
            "DeVries",
            "NYC",
            "Glyn",
            "Mrs Smith",
            "POD",
            "chronic",
            "Severe Smith",
        ] {
            assert!(!all_clinical_terms(other, none), "{other}");
        }
        // A listed name or place is left to the lists.
        assert!(!all_clinical_terms("Hyperkalemia", |w| w == "hyperkalemia"));
    }
}
