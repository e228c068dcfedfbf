//! Drug context around a name: a word right before a dose, a drip or a dosing schedule is a
//! drug, not a person or a place ("Lasix 40mg", "Heparin gtt", "Zofran 4 mg IV", "Senna qhs");
//! read by the taggers' span filters (`crate::ner`) and the name lookup alike.
//!
//! News and social-media taggers read any capitalized word they do not know as a name, and
//! clinical notes name their drugs by capitalized brand names; a dose after the word is the
//! plainest sign of which it is. A percentage is not a dose ("Obama 52%"), nor a number without
//! a unit ("Apollo 11", "Windows 10"), nor a regnal number ("Henry IV").

use regex::Regex;
use std::sync::LazyLock;

/// A dose (a number and a unit of mass, volume or count), a drip, or a schedule, at the start
/// of the text after a span.
static DOSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)^[\ \t]*(?:
            \d+(?:[.,]\d+)?(?:-\d+(?:[.,]\d+)?)?[\ \t]*
                (?i:mg|mcg|µg|ug|g|gm|grams?|ml|cc|units?|iu|meq|mmol|tabs?|tablets?|caps?|puffs?|drops?)
                (?:/(?i:kg|hr?|min|day|d))*\b
          | (?i:gtt|drip|prn|qhs|qd|bid|tid|qid|q\d+h)\b
        )",
    )
    .expect("static pattern")
});

/// Whether the text right after byte `end` of `text` is a dose, a drip or a schedule.
pub fn before_dose(text: &str, end: usize) -> bool {
    DOSE.is_match(&text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_before_a_dose_drip_or_schedule_is_a_drug() {
        let after = |text: &str, word: &str| {
            let i = text.find(word).unwrap() + word.len();
            before_dose(text, i)
        };
        for (text, word) in [
            ("Lasix 40mg IV given", "Lasix"),
            ("Zofran 4 mg for nausea", "Zofran"),
            ("Levophed 0.05 mcg/kg/min", "Levophed"),
            ("Heparin gtt at 1000 units/hr", "Heparin"),
            ("Senna qhs", "Senna"),
            ("Morphine 2-4mg q2h", "Morphine"),
        ] {
            assert!(after(text, word), "{text}");
        }
        for (text, word) in [
            ("Obama 52% Romney 47%", "Obama"),
            ("Apollo 11 landed", "Apollo"),
            ("Henry IV was king", "Henry"),
            ("wife Mary called", "Mary"),
            ("Dr. Gill gave the talk", "Dr. Gill"),
            ("Smith 3 days ago", "Smith"),
        ] {
            assert!(!after(text, word), "{text}");
        }
    }
}
