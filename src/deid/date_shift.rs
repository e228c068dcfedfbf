//! The `date-shift` operator: moves every date of a patient by the same keyed number of days,
//! keeping the written format, so intervals between one patient's dates survive.
//!
//! The offset is HMAC-SHA256(key, "date-shift", patient) mapped to ±[min_days, max_days]
//! (never 0). Dates are parsed and re-rendered by `crate::dates`. A value that cannot be
//! parsed or shifted, or whose shifted rendering equals the original (a year alone moved by a
//! few days), goes to the surrogate operator instead; it is never passed through, and the
//! result says `fallback_from: "date-shift"` so the ops log records it.

use super::surrogate::Surrogate;
use super::{OpContext, Operator, Replaced};
use crate::keys::Key;
use crate::labels::{Category, Label};

/// Shifts dates by a per-patient keyed offset.
pub struct DateShift {
    pub key: Key,
    /// Smallest and largest magnitude of the shift, in days (1 <= min <= max).
    pub min_days: u32,
    pub max_days: u32,
    /// Where unparseable dates go.
    pub fallback: Surrogate,
}

impl DateShift {
    /// The patient's shift in days: same key and patient, same offset; never 0.
    pub fn offset_days(&self, patient: &str) -> i64 {
        let mac = self.key.mac("date-shift", &[patient.as_bytes()]);
        let x = u64::from_le_bytes(mac[..8].try_into().expect("8 bytes"));
        let lo = self.min_days.max(1) as u64;
        let hi = (self.max_days as u64).max(lo);
        let magnitude = (lo + x % (hi - lo + 1)) as i64;
        if mac[8] & 1 == 1 {
            -magnitude
        } else {
            magnitude
        }
    }
}

impl Operator for DateShift {
    fn name(&self) -> &'static str {
        "date-shift"
    }

    fn replace(&self, original: &str, label: Label, ctx: &mut OpContext) -> Replaced {
        let shifted = (label.category == Category::Date)
            .then(|| crate::dates::parse_date(original, ctx.lang))
            .flatten()
            .and_then(|d| d.shift_days(self.offset_days(ctx.patient)))
            .filter(|s| s != original);
        match shifted {
            Some(s) => Replaced::by("date-shift", s),
            None => {
                let mut r = self.fallback.replace(original, label, ctx);
                r.fallback_from = Some("date-shift");
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deid::surrogate::SurrogateMemo;
    use crate::labels::Subtype;
    use crate::lang::Lang;
    use rand::SeedableRng;

    fn op(key_byte: u8) -> DateShift {
        DateShift {
            key: Key::from_bytes(&[key_byte; 32]).unwrap(),
            min_days: 1,
            max_days: 365,
            fallback: Surrogate { key: None },
        }
    }

    fn shift(op: &DateShift, patient: &str, lang: Lang, original: &str) -> Replaced {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let mut memo = SurrogateMemo::default();
        let mut ctx = OpContext {
            doc_id: "doc",
            lang,
            patient,
            rng: &mut rng,
            memo: &mut memo,
        };
        op.replace(
            original,
            Label::new(Category::Date, Subtype::Date),
            &mut ctx,
        )
    }

    fn day_number(s: &str, lang: Lang) -> i64 {
        let d = crate::dates::parse_date(s, lang).expect("shifted date parses");
        crate::dates::days_from_civil(d.year.unwrap(), d.month.unwrap(), d.day.unwrap())
    }

    #[test]
    fn offsets_are_keyed_per_patient_and_never_zero() {
        let (a, b) = (op(1), op(2));
        let mut distinct = std::collections::HashSet::new();
        for p in 0..200 {
            let patient = format!("patient-{p}");
            let off = a.offset_days(&patient);
            assert!((1..=365).contains(&off.abs()), "{off}");
            assert_eq!(off, a.offset_days(&patient));
            distinct.insert(off);
        }
        assert!(distinct.len() > 100, "offsets spread: {}", distinct.len());
        assert!(distinct.iter().any(|&d| d < 0) && distinct.iter().any(|&d| d > 0));
        let differ = (0..20)
            .filter(|p| a.offset_days(&format!("p{p}")) != b.offset_days(&format!("p{p}")))
            .count();
        assert!(differ >= 18, "another key gives other offsets");
        let narrow = DateShift {
            min_days: 5,
            max_days: 5,
            ..op(1)
        };
        assert_eq!(narrow.offset_days("x").abs(), 5);
    }

    #[test]
    fn keeps_intervals_and_format_per_patient() {
        let o = op(7);
        let cases = [
            (Lang::Es, "12/03/2019", "02/04/2019", 21),
            (Lang::Nl, "1 januari 2020", "1 maart 2020", 60),
            (Lang::En, "March 1, 2019", "2019-03-08", 7),
            (Lang::Hu, "2019.03.12.", "2019.03.14.", 2),
        ];
        for (lang, first, second, interval) in cases {
            let (s1, s2) = (shift(&o, "P1", lang, first), shift(&o, "P1", lang, second));
            assert_eq!(s1.operator, "date-shift", "{first}");
            assert_eq!(s2.operator, "date-shift", "{second}");
            assert_ne!(s1.text, first);
            let (d1, d2) = (day_number(&s1.text, lang), day_number(&s2.text, lang));
            assert_eq!(d2 - d1, interval, "{lang} {first}..{second}");
            assert_eq!(d1 - day_number(first, lang), o.offset_days("P1"));
            // Same written shape: digits where digits were, separators unchanged.
            let shape = |s: &str| {
                s.chars()
                    .filter(|c| !c.is_alphanumeric())
                    .collect::<String>()
            };
            assert_eq!(shape(&s1.text), shape(first), "{first} -> {}", s1.text);
        }
        let (p1, p2) = (o.offset_days("P1"), o.offset_days("P2"));
        let a = shift(&o, "P1", Lang::Es, "12/03/2019").text;
        let b = shift(&o, "P2", Lang::Es, "12/03/2019").text;
        assert_eq!(a == b, p1 == p2, "other patient, other shift");
    }

    #[test]
    fn unparseable_dates_fall_back_to_surrogate() {
        let o = op(7);
        for text in ["the day before yesterday", "31/02/2019", "Q3"] {
            let r = shift(&o, "P1", Lang::En, text);
            assert_eq!(r.fallback_from, Some("date-shift"), "{text}");
            assert_ne!(r.operator, "date-shift");
            assert_ne!(r.text, text);
        }
    }
}
