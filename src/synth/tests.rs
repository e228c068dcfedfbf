//! Tests of the synthetic corpus: determinism, offsets, coverage of PHI types, valid IDs.

use super::*;
use crate::checksum::*;
use std::collections::BTreeSet;

/// The PHI types every language must produce.
fn required() -> Vec<Label> {
    use Category as C;
    use Subtype as S;
    [
        (C::Name, S::Patient),
        (C::Name, S::Doctor),
        (C::Name, S::Relative),
        (C::Name, S::Username),
        (C::Profession, S::Profession),
        (C::Location, S::Hospital),
        (C::Location, S::Organization),
        (C::Location, S::Street),
        (C::Location, S::City),
        (C::Location, S::Zip),
        (C::Location, S::Country),
        (C::Age, S::Age),
        (C::Date, S::Date),
        (C::Date, S::Birthdate),
        (C::Contact, S::Phone),
        (C::Contact, S::Fax),
        (C::Contact, S::Email),
        (C::Contact, S::Url),
        (C::Contact, S::Ipaddr),
        (C::Id, S::Ssn),
        (C::Id, S::Medicalrecord),
        (C::Id, S::Healthplan),
        (C::Id, S::Account),
        (C::Id, S::License),
    ]
    .into_iter()
    .map(|(c, s)| Label::new(c, s))
    .collect()
}

#[test]
fn same_seed_same_corpus_other_seed_other_corpus() {
    for lang in Lang::ALL {
        let a = generate(lang, 8, 7);
        let b = generate(lang, 8, 7);
        let c = generate(lang, 8, 8);
        assert_eq!(a, b);
        assert_ne!(
            a.iter().map(|d| &d.text).collect::<Vec<_>>(),
            c.iter().map(|d| &d.text).collect::<Vec<_>>()
        );
        assert_eq!(a[0].id, format!("synth-{}-000001", lang.code()));
        assert_eq!(a[0].meta["lang"], lang.code());
        assert_eq!(a[2].meta["kind"], "radiology");
        assert_eq!(a[0].meta["seed"], 7);
        // Documents differ from each other, not only between seeds.
        let texts: BTreeSet<&str> = a.iter().map(|d| d.text.as_str()).collect();
        assert_eq!(texts.len(), a.len());
    }
}

#[test]
fn entities_sit_on_char_boundaries_and_do_not_overlap() {
    for lang in Lang::ALL {
        for d in generate(lang, 40, 3) {
            let mut prev_end = 0;
            for e in &d.entities {
                assert!(e.start < e.end && e.end <= d.text.len(), "{}", d.id);
                assert!(d.text.is_char_boundary(e.start) && d.text.is_char_boundary(e.end));
                assert!(e.start >= prev_end, "{}: overlapping gold spans", d.id);
                prev_end = e.end;
                let v = &d.text[e.start..e.end];
                assert_eq!(v, v.trim(), "{}: span with outer whitespace", d.id);
                assert_eq!(e.source, "gold");
            }
            let n = d.text.chars().count();
            assert!((500..=2500).contains(&n), "{}: {} chars", d.id, n);
        }
    }
}

#[test]
fn every_language_and_kind_covers_the_phi_types() {
    for lang in Lang::ALL {
        let docs = generate(lang, 120, 11);
        let seen: BTreeSet<Label> = docs
            .iter()
            .flat_map(|d| d.entities.iter().map(|e| e.label))
            .collect();
        for want in required() {
            assert!(seen.contains(&want), "{lang}: no {want} in 120 notes");
        }
        for kind in NoteKind::ALL {
            let of_kind: Vec<&Document> = docs
                .iter()
                .filter(|d| d.meta["kind"] == kind.as_str())
                .collect();
            assert!(!of_kind.is_empty());
            for d in of_kind {
                let labels: BTreeSet<Label> = d.entities.iter().map(|e| e.label).collect();
                assert!(
                    labels.len() >= 5,
                    "{}: only {} PHI types",
                    d.id,
                    labels.len()
                );
                assert!(
                    labels.contains(&Label::new(Category::Name, Subtype::Doctor)),
                    "{}",
                    d.id
                );
                assert!(
                    labels.contains(&Label::new(Category::Date, Subtype::Date))
                        || labels.contains(&Label::new(Category::Date, Subtype::Birthdate)),
                    "{}",
                    d.id
                );
            }
        }
    }
}

#[test]
fn ids_in_notes_pass_their_checksums_and_dates_parse() {
    for lang in Lang::ALL {
        for d in generate(lang, 60, 5) {
            for e in &d.entities {
                let v = &d.text[e.start..e.end];
                match e.label.subtype {
                    Some(Subtype::Ssn) => {
                        let ok = match lang {
                            Lang::Nl => bsn_valid(v),
                            Lang::Hu => taj_valid(v),
                            Lang::Es => dni_nie_valid(v) || nass_valid(v),
                            Lang::It => codice_fiscale_valid(v),
                            Lang::En => nhs_valid(v),
                        };
                        assert!(
                            ok,
                            "{}: national id at {}..{} fails its check",
                            d.id, e.start, e.end
                        );
                    }
                    Some(Subtype::Account) => assert!(iban_valid(v), "{}: IBAN", d.id),
                    Some(Subtype::Date | Subtype::Birthdate) => {
                        assert!(
                            crate::dates::parse_date(v, lang).is_some(),
                            "{}: date {v}",
                            d.id
                        )
                    }
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn gold_ages_take_their_unit() {
    for lang in Lang::ALL {
        let (mut with_unit, mut total) = (0, 0);
        for d in generate(lang, 40, 5) {
            for e in d
                .entities
                .iter()
                .filter(|e| e.label.category == Category::Age)
            {
                let v = &d.text[e.start..e.end];
                let digits = v.bytes().take_while(u8::is_ascii_digit).count();
                assert!(
                    digits > 0,
                    "{lang} {}: age span must start with the number",
                    d.id
                );
                let unit = v[digits..].trim_start_matches([' ', '-']);
                assert_eq!(
                    templates::age_unit_len(lang, &v[digits..]),
                    v.len() - digits,
                    "{lang} {}: age span holds more than number and unit",
                    d.id
                );
                total += 1;
                with_unit += usize::from(!unit.is_empty());
            }
        }
        assert!(
            total > 0 && with_unit * 2 > total,
            "{lang}: {with_unit}/{total} ages with unit"
        );
    }
}
