//! Realistic fake values by PHI type and language, shared by the `surrogate` operator and `synth`.
//!
//! [`generate`] keeps the shape of the original (name tokens and initials, date format, phone
//! grouping, ID layout with valid check digits) and never returns the original; [`sample`]
//! makes a fresh value of a type in a language's usual format. Both are pure functions of
//! their arguments and the RNG state, so seeding the RNG makes replacement consistent.

mod contact;
mod ids;
mod names;
mod places;
mod text;

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use rand::{Rng, RngCore};

pub use ids::{looks_like, IdScheme};
pub use text::same_value;

/// Attempts of a generator before the deterministic perturbation takes over.
const ATTEMPTS: usize = 16;

/// The subtype a label is generated as; category-only labels get the usual one for their shape.
fn effective_subtype(label: Label, original: &str) -> Subtype {
    if let Some(s) = label.subtype {
        return s;
    }
    match label.category {
        Category::Name => Subtype::Patient,
        Category::Profession => Subtype::Profession,
        Category::Location => {
            if original.chars().any(|c| c.is_ascii_digit()) {
                Subtype::Street
            } else {
                Subtype::City
            }
        }
        Category::Age => Subtype::Age,
        Category::Date => Subtype::Date,
        Category::Contact => contact::guess_kind(original),
        Category::Id => Subtype::Idnum,
        Category::Other => Subtype::Other,
    }
}

/// A fake value of the same type, language and (where it has one) format as `original`, never
/// equal to it ignoring case and whitespace.
pub fn generate(label: Label, lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let sub = effective_subtype(label, original);
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        last = generate_once(sub, lang, original, rng);
        if !last.trim().is_empty() && !same_value(&last, original) {
            return last;
        }
    }
    text::perturb(
        if last.trim().is_empty() {
            original
        } else {
            &last
        },
        original,
    )
}

fn generate_once(sub: Subtype, lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    use Subtype::*;
    match sub {
        Patient | Doctor | Relative | Other => names::like(lang, original, rng),
        Username => names::username_like(original, rng),
        Profession => places::from_list_like(lang, "professions", original, rng),
        Hospital => places::from_list_like(lang, "hospitals", original, rng),
        Organization => places::from_list_like(lang, "organizations", original, rng),
        Department | Room => places::room_like(lang, original, rng),
        City => places::from_list_like(lang, "cities", original, rng),
        State => places::from_list_like(lang, "provinces", original, rng),
        Country => places::from_list_like(lang, "countries", original, rng),
        Street => places::street_like(lang, original, rng),
        Zip => places::zip_like(lang, original, rng),
        Age => places::age_like(lang, original, rng),
        Date | Birthdate => places::date_like(lang, original, sub == Birthdate, rng),
        Phone | Fax => contact::phone_like(original, rng),
        Email => contact::email_like(lang, original, rng),
        Url => contact::url_like(lang, original, rng),
        Ipaddr => contact::ip_like(original, rng),
        Ssn | Medicalrecord | Healthplan | Account | License | Vehicle | Device | Bioid | Idnum => {
            ids::id_like(lang, original, rng)
        }
        Sex => text::sex_like(lang, original, rng),
    }
}

/// A fresh value of `label` in `lang`'s usual formats (used by the synthetic generator).
pub fn sample(label: Label, lang: Lang, rng: &mut dyn RngCore) -> String {
    use Subtype::*;
    let sub = effective_subtype(label, "");
    match sub {
        Patient | Doctor | Relative | Other => names::full_name(lang, rng),
        Username => names::username(lang, rng),
        Profession => places::pick(lang, "professions", rng),
        Hospital => places::pick(lang, "hospitals", rng),
        Organization => places::pick(lang, "organizations", rng),
        City => places::pick(lang, "cities", rng),
        State => places::pick(lang, "provinces", rng),
        Country => places::pick(lang, "countries", rng),
        Street => places::street(lang, rng),
        Zip => places::zip(lang, rng),
        Age => rng.gen_range(1..=99).to_string(),
        Date => places::date(lang, 2015..=2024, false, rng),
        Birthdate => places::date(lang, 1930..=2010, true, rng),
        Phone | Fax => contact::phone(lang, rng),
        Email => contact::email(lang, rng),
        Url => contact::url(lang, rng),
        Ipaddr => contact::ip(rng),
        Ssn => ids::national_id(lang, rng),
        Account => ids::iban(lang, rng),
        Department => places::pick(lang, "departments", rng),
        Medicalrecord | Healthplan | License | Vehicle | Device | Bioid | Idnum | Room | Sex => {
            ids::layout_sample(sub, lang, rng)
        }
    }
}

#[cfg(test)]
mod tests;
