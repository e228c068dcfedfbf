//! Note templates: loading `wordlists/<lang>/synth/notes.txt`, splitting templates into text and
//! placeholders, and the label of each placeholder.

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::wordlists;
use rand::Rng;
use rand::RngCore;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Kinds of synthetic notes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoteKind {
    Discharge,
    Referral,
    Radiology,
    Nursing,
}

impl NoteKind {
    pub const ALL: [NoteKind; 4] = [
        NoteKind::Discharge,
        NoteKind::Referral,
        NoteKind::Radiology,
        NoteKind::Nursing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NoteKind::Discharge => "discharge",
            NoteKind::Referral => "referral",
            NoteKind::Radiology => "radiology",
            NoteKind::Nursing => "nursing",
        }
    }
}

/// The templates one note kind in one language draws from (kind-specific plus `any`).
#[derive(Debug, Default)]
pub struct Templates {
    pub title: Vec<&'static str>,
    pub head: Vec<&'static str>,
    pub open: Vec<&'static str>,
    pub body: Vec<&'static str>,
    pub sign: Vec<&'static str>,
}

/// Templates for `kind` in `lang`, parsed once. A malformed built-in file is a packaging bug
/// (the tests load every language), so it panics naming the file and line.
pub fn for_kind(lang: Lang, kind: NoteKind) -> &'static Templates {
    static ALL: OnceLock<HashMap<(Lang, NoteKind), Templates>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let mut m = HashMap::new();
        for l in Lang::ALL {
            let rel = format!("{}/synth/notes.txt", l.code());
            let text = wordlists::builtin(&rel)
                .unwrap_or_else(|| panic!("built-in wordlists/{rel} is missing from this build"));
            for k in NoteKind::ALL {
                m.insert((l, k), parse(text, k, &rel));
            }
        }
        m
    });
    &all[&(lang, kind)]
}

fn parse(text: &'static str, kind: NoteKind, rel: &str) -> Templates {
    let mut t = Templates::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, '|');
        let (Some(k), Some(section), Some(template)) = (parts.next(), parts.next(), parts.next())
        else {
            panic!("wordlists/{rel}:{}: expected kind|section|template", n + 1);
        };
        if k != "any" && NoteKind::ALL.iter().all(|x| x.as_str() != k) {
            panic!("wordlists/{rel}:{}: unknown note kind", n + 1);
        }
        if k != "any" && k != kind.as_str() {
            continue;
        }
        let slot = match section {
            "title" => &mut t.title,
            "head" => &mut t.head,
            "open" => &mut t.open,
            "body" => &mut t.body,
            "sign" => &mut t.sign,
            _ => panic!("wordlists/{rel}:{}: unknown section", n + 1),
        };
        slot.push(template);
    }
    t
}

/// A piece of a template.
#[derive(Debug, PartialEq)]
pub enum Piece<'a> {
    Text(&'a str),
    Slot { key: &'static str, upper: bool },
}

/// Splits a template into text (with `\n` escapes turned into line breaks) and placeholders.
pub fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        push_text(&rest[..open], &mut out);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        let (name, upper) = match inner.strip_suffix(":upper") {
            Some(n) => (n, true),
            None => (inner, false),
        };
        let key = PLACEHOLDERS
            .iter()
            .find(|(k, _, _)| *k == name)
            .map(|(k, _, _)| *k)
            .unwrap_or("?");
        out.push(Piece::Slot { key, upper });
        rest = &rest[open + close + 1..];
    }
    push_text(rest, &mut out);
    out
}

fn push_text<'a>(s: &'a str, out: &mut Vec<Piece<'a>>) {
    let mut first = true;
    for part in s.split("\\n") {
        if !first {
            out.push(Piece::Text("\n"));
        }
        first = false;
        if !part.is_empty() {
            out.push(Piece::Text(part));
        }
    }
}

/// Every placeholder and the gold label of the value written for it.
const PLACEHOLDERS: &[(&str, Category, Subtype)] = &[
    ("PATIENT", Category::Name, Subtype::Patient),
    ("PATIENT_FIRST", Category::Name, Subtype::Patient),
    ("PATIENT_LAST", Category::Name, Subtype::Patient),
    ("DOCTOR", Category::Name, Subtype::Doctor),
    ("DOCTOR_LAST", Category::Name, Subtype::Doctor),
    ("DOCTOR2", Category::Name, Subtype::Doctor),
    ("DOCTOR2_LAST", Category::Name, Subtype::Doctor),
    ("STAFF", Category::Name, Subtype::Doctor),
    ("RELATIVE", Category::Name, Subtype::Relative),
    ("USERNAME", Category::Name, Subtype::Username),
    ("ROLE", Category::Profession, Subtype::Profession),
    ("PROFESSION", Category::Profession, Subtype::Profession),
    ("HOSPITAL", Category::Location, Subtype::Hospital),
    ("HOSPITAL2", Category::Location, Subtype::Hospital),
    ("ORG", Category::Location, Subtype::Organization),
    ("STREET", Category::Location, Subtype::Street),
    ("CITY", Category::Location, Subtype::City),
    ("CITY2", Category::Location, Subtype::City),
    ("ZIP", Category::Location, Subtype::Zip),
    ("COUNTRY", Category::Location, Subtype::Country),
    ("AGE", Category::Age, Subtype::Age),
    ("DATE", Category::Date, Subtype::Date),
    ("BIRTHDATE", Category::Date, Subtype::Birthdate),
    ("PHONE", Category::Contact, Subtype::Phone),
    ("FAX", Category::Contact, Subtype::Fax),
    ("EMAIL", Category::Contact, Subtype::Email),
    ("URL", Category::Contact, Subtype::Url),
    ("IP", Category::Contact, Subtype::Ipaddr),
    ("SSN", Category::Id, Subtype::Ssn),
    ("MRN", Category::Id, Subtype::Medicalrecord),
    ("HEALTHPLAN", Category::Id, Subtype::Healthplan),
    ("IBAN", Category::Id, Subtype::Account),
    ("LICENSE", Category::Id, Subtype::License),
];

/// The gold label of a placeholder name, `None` for unknown names.
pub fn placeholder_label(key: &str) -> Option<Label> {
    PLACEHOLDERS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|&(_, c, s)| Label::new(c, s))
}

/// Length of the age unit at the start of `next` (the template text after `{AGE}`), with the
/// one space or hyphen before it: 6 for " años, vecina", 9 for "-year-old woman", 0 for ", who".
/// Units come from `wordlists/<lang>/synth/age_units.txt`; the longest one that ends a word wins.
pub fn age_unit_len(lang: Lang, next: &str) -> usize {
    static UNITS: OnceLock<HashMap<Lang, Vec<&'static str>>> = OnceLock::new();
    let units = UNITS.get_or_init(|| {
        Lang::ALL
            .iter()
            .map(|&l| {
                let rel = format!("{}/synth/age_units.txt", l.code());
                let text = wordlists::builtin(&rel).unwrap_or_else(|| {
                    panic!("built-in wordlists/{rel} is missing from this build")
                });
                (l, wordlists::parse_list(text).collect())
            })
            .collect()
    });
    let sep = usize::from(next.starts_with([' ', '-']));
    let rest = &next[sep..];
    units[&lang]
        .iter()
        .filter(|u| {
            rest.starts_with(**u)
                && !rest[u.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric)
        })
        .map(|u| sep + u.len())
        .max()
        .unwrap_or(0)
}

/// A staff role for signatures ("Logopedist").
pub fn staff_role(lang: Lang, rng: &mut dyn RngCore) -> String {
    let rel = format!("{}/synth/staff_roles.txt", lang.code());
    let roles: Vec<&str> = wordlists::builtin(&rel)
        .map(|t| wordlists::parse_list(t).collect())
        .unwrap_or_default();
    assert!(
        !roles.is_empty(),
        "built-in wordlists/{rel} is missing or empty"
    );
    roles[rng.gen_range(0..roles.len())].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses_with_known_placeholders() {
        for lang in Lang::ALL {
            for kind in NoteKind::ALL {
                let t = for_kind(lang, kind);
                assert!(!t.title.is_empty() && !t.open.is_empty() && !t.sign.is_empty());
                assert!(t.head.len() >= 10, "{lang} {kind:?}");
                assert!(t.body.len() >= 10, "{lang} {kind:?}");
                let all = t
                    .title
                    .iter()
                    .chain(&t.head)
                    .chain(&t.open)
                    .chain(&t.body)
                    .chain(&t.sign);
                for tpl in all {
                    for p in pieces(tpl) {
                        if let Piece::Slot { key, .. } = p {
                            assert_ne!(key, "?", "{lang}: unknown placeholder in a template");
                        }
                    }
                    assert_eq!(tpl.matches('{').count(), tpl.matches('}').count());
                }
            }
        }
    }

    #[test]
    fn age_units_follow_the_age() {
        let cases = [
            (Lang::Es, " años, vecina", " años".len()),
            (Lang::Es, " años de edad.", " años de edad".len()),
            (Lang::En, "-year-old woman", "-year-old".len()),
            (Lang::En, " year old with", " year old".len()),
            (Lang::En, " years) settled", " years".len()),
            (Lang::En, ", who lives", 0),
            (Lang::Nl, "-jarige patiënt", "-jarige".len()),
            (Lang::Nl, " jaarlijks", 0),
            (Lang::Hu, " éves) betegünk", " éves".len()),
            (Lang::It, " anni) è", " anni".len()),
            (Lang::It, ", è", 0),
        ];
        for (lang, next, want) in cases {
            assert_eq!(age_unit_len(lang, next), want, "{lang} {next:?}");
        }
    }

    #[test]
    fn pieces_split_text_and_slots() {
        let p = pieces("Naam: {PATIENT:upper}\\nTel {PHONE}.");
        assert_eq!(
            p,
            vec![
                Piece::Text("Naam: "),
                Piece::Slot {
                    key: "PATIENT",
                    upper: true
                },
                Piece::Text("\n"),
                Piece::Text("Tel "),
                Piece::Slot {
                    key: "PHONE",
                    upper: false
                },
                Piece::Text("."),
            ]
        );
    }
}
