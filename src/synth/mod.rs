//! Synthetic clinical notes with gold PHI entities in nl/hu/es/it/en: discharge letters,
//! referral letters, radiology reports and nursing notes built from the templates in
//! `wordlists/<lang>/synth/notes.txt`, with every value drawn from the `surrogate` module.

pub mod job;
mod templates;

use crate::corpus::Document;
use crate::dates::{days_from_civil, days_in_month, example_formats, parse_date, ParsedDate};
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::span::Entity;
use crate::surrogate;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Map, Value};
use std::collections::HashMap;

pub use templates::{placeholder_label, NoteKind};

/// `docs` synthetic notes in `lang`, kinds in rotation, deterministic for `seed`.
/// Ids are `synth-<lang>-000001`…; meta holds `lang`, `kind` and `seed`.
pub fn generate(lang: Lang, docs: usize, seed: u64) -> Vec<Document> {
    (0..docs)
        .map(|i| {
            let kind = NoteKind::ALL[i % NoteKind::ALL.len()];
            let lang_index = Lang::ALL.iter().position(|&l| l == lang).unwrap_or(0) as u64;
            let mut rng =
                ChaCha20Rng::seed_from_u64(splitmix(seed ^ splitmix(lang_index << 40 | i as u64)));
            let (text, entities) = note(lang, kind, &mut rng);
            let mut meta = Map::new();
            meta.insert("lang".into(), Value::from(lang.code()));
            meta.insert("kind".into(), Value::from(kind.as_str()));
            meta.insert("seed".into(), Value::from(seed));
            Document {
                id: format!("synth-{}-{:06}", lang.code(), i + 1),
                text,
                entities,
                meta,
            }
        })
        .collect()
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Text under construction and the gold spans inserted into it.
struct NoteBuilder {
    text: String,
    entities: Vec<Entity>,
}

impl NoteBuilder {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
    }

    fn push_entity(&mut self, value: &str, label: Label) {
        let start = self.text.len();
        self.text.push_str(value);
        self.entities
            .push(Entity::new(start, self.text.len(), label, "gold", 1.0));
    }
}

/// A person in the note: written name plus its parts (for "Dr {DOCTOR_LAST}").
#[derive(Clone)]
struct Person {
    full: String,
    first: String,
    last: String,
}

fn person(lang: Lang, rng: &mut ChaCha20Rng) -> Person {
    let first = surrogate::first_name(lang, rng);
    let mut last = surrogate::surname(lang, rng);
    if lang == Lang::Es && rng.gen_bool(0.5) {
        last = format!("{last} {}", surrogate::surname(lang, rng));
    }
    let full = match lang {
        Lang::Hu => format!("{last} {first}"),
        _ => format!("{first} {last}"),
    };
    Person { full, first, last }
}

/// Values of one note: people and record fields stay the same wherever they recur; dates,
/// relatives and second hospitals are drawn afresh.
struct Filler<'r> {
    lang: Lang,
    rng: &'r mut ChaCha20Rng,
    cache: HashMap<&'static str, String>,
    patient: Person,
    doctor: Person,
    doctor2: Person,
    date_cursor: i64,
    date_format: ParsedDate,
    birth: String,
    age: i32,
}

/// Full day-month-year formats of a language without case suffixes, for note dates.
fn full_formats(lang: Lang) -> Vec<ParsedDate> {
    example_formats(lang)
        .iter()
        .filter(|ex| !ex.ends_with("én"))
        .filter_map(|ex| parse_date(ex, lang))
        .filter(|p| p.format.components() == (true, true, true))
        .collect()
}

impl<'r> Filler<'r> {
    fn new(lang: Lang, rng: &'r mut ChaCha20Rng) -> Self {
        let formats = full_formats(lang);
        let date_format = formats[rng.gen_range(0..formats.len())].clone();
        let birth_format = formats[rng.gen_range(0..formats.len())].clone();
        let (by, bm) = (rng.gen_range(1930..=2012), rng.gen_range(1..=12));
        let bd = rng.gen_range(1..=days_in_month(by, bm));
        let (vy, vm) = (rng.gen_range(2016..=2024), rng.gen_range(1..=12));
        let vd = rng.gen_range(1..=days_in_month(vy, vm));
        let age = vy - by - i32::from((vm, vd) < (bm, bd));
        let patient = person(lang, rng);
        let doctor = person(lang, rng);
        let doctor2 = person(lang, rng);
        Filler {
            lang,
            cache: HashMap::new(),
            patient,
            doctor,
            doctor2,
            date_cursor: days_from_civil(vy, vm, vd) - rng.gen_range(60..=400),
            birth: birth_format.render(by, bm, bd),
            date_format,
            age,
            rng,
        }
    }

    fn sample(&mut self, c: Category, s: Subtype) -> String {
        surrogate::sample(Label::new(c, s), self.lang, self.rng)
    }

    /// A value for a placeholder; `None` for names the template language does not define.
    fn value(&mut self, key: &'static str) -> Option<String> {
        use Category as C;
        use Subtype as S;
        // Drawn afresh at every use.
        match key {
            "DATE" => {
                // Dates move forward through the note, as events in a record do.
                self.date_cursor += self.rng.gen_range(0..=45);
                let (y, m, d) = crate::dates::civil_from_days(self.date_cursor);
                return Some(self.date_format.render(y, m, d));
            }
            "RELATIVE" | "STAFF" => return Some(person(self.lang, self.rng).full),
            "HOSPITAL2" => return Some(self.sample(C::Location, S::Hospital)),
            "CITY2" => return Some(self.sample(C::Location, S::City)),
            _ => {}
        }
        if let Some(v) = self.cache.get(key) {
            return Some(v.clone());
        }
        let v = match key {
            "PATIENT" => self.patient.full.clone(),
            "PATIENT_FIRST" => self.patient.first.clone(),
            "PATIENT_LAST" => self.patient.last.clone(),
            "DOCTOR" => self.doctor.full.clone(),
            "DOCTOR_LAST" => self.doctor.last.clone(),
            "DOCTOR2" => self.doctor2.full.clone(),
            "DOCTOR2_LAST" => self.doctor2.last.clone(),
            "BIRTHDATE" => self.birth.clone(),
            "AGE" => self.age.to_string(),
            "ROLE" => templates::staff_role(self.lang, self.rng),
            "PROFESSION" => self.sample(C::Profession, S::Profession),
            "HOSPITAL" => self.sample(C::Location, S::Hospital),
            "ORG" => self.sample(C::Location, S::Organization),
            "STREET" => self.sample(C::Location, S::Street),
            "CITY" => self.sample(C::Location, S::City),
            "ZIP" => self.sample(C::Location, S::Zip),
            "COUNTRY" => self.sample(C::Location, S::Country),
            "PHONE" => self.sample(C::Contact, S::Phone),
            "FAX" => self.sample(C::Contact, S::Fax),
            "EMAIL" => self.sample(C::Contact, S::Email),
            "URL" => self.sample(C::Contact, S::Url),
            "IP" => self.sample(C::Contact, S::Ipaddr),
            "USERNAME" => self.sample(C::Name, S::Username),
            "SSN" => self.sample(C::Id, S::Ssn),
            "MRN" => self.sample(C::Id, S::Medicalrecord),
            "HEALTHPLAN" => self.sample(C::Id, S::Healthplan),
            "IBAN" => self.sample(C::Id, S::Account),
            "LICENSE" => self.sample(C::Id, S::License),
            _ => return None,
        };
        self.cache.insert(key, v.clone());
        Some(v)
    }

    /// Writes `template` into `out`, each placeholder as a gold entity.
    /// An age takes the unit written after it into its span ("53 años", "67-year-old").
    fn render(&mut self, template: &str, out: &mut NoteBuilder) {
        let pieces = templates::pieces(template);
        // Bytes at the start of the next text piece already written as part of an entity.
        let mut taken = 0;
        for (i, piece) in pieces.iter().enumerate() {
            match *piece {
                templates::Piece::Text(t) => {
                    out.push(&t[taken..]);
                    taken = 0;
                }
                templates::Piece::Slot { key, upper } => {
                    let label = placeholder_label(key)
                        .unwrap_or_else(|| panic!("template placeholder {key} has no label"));
                    let v = self
                        .value(key)
                        .unwrap_or_else(|| panic!("template placeholder {key} has no value"));
                    let mut v = if upper { v.to_uppercase() } else { v };
                    if key == "AGE" {
                        if let Some(templates::Piece::Text(next)) = pieces.get(i + 1) {
                            taken = templates::age_unit_len(self.lang, next);
                            v.push_str(&next[..taken]);
                        }
                    }
                    out.push_entity(&v, label);
                }
            }
        }
    }
}

/// One note of `kind`: title, a header block, an opening, body paragraphs, a signature.
fn note(lang: Lang, kind: NoteKind, rng: &mut ChaCha20Rng) -> (String, Vec<Entity>) {
    let t = templates::for_kind(lang, kind);
    let mut out = NoteBuilder {
        text: String::with_capacity(1600),
        entities: Vec::new(),
    };
    // Choices first, so the filler can borrow the RNG for the rest of the note.
    let title = *t.title.choose(rng).expect("title templates");
    let n_head = rng.gen_range(6..=10).min(t.head.len());
    let mut head: Vec<&str> = t.head.choose_multiple(rng, n_head).copied().collect();
    if !head.iter().any(|h| h.contains("DATE}")) {
        // Every record carries at least one dated header line.
        let dated: Vec<&str> = t
            .head
            .iter()
            .copied()
            .filter(|h| h.contains("DATE}"))
            .collect();
        if let (Some(d), Some(last)) = (dated.choose(rng), head.last_mut()) {
            *last = d;
        }
    }
    if rng.gen_bool(0.7) {
        // Most records start with the patient's name.
        if let Some(i) = head.iter().position(|h| h.contains("{PATIENT")) {
            let h = head.remove(i);
            head.insert(0, h);
        }
    }
    let sep = *[": ", ":\t", " : ", ":  "].choose(rng).unwrap_or(&": ");
    let upper_keys = rng.gen_bool(0.3);
    let open = *t.open.choose(rng).expect("opening templates");
    let n_body = rng.gen_range(5..=9).min(t.body.len());
    let body: Vec<&str> = t.body.choose_multiple(rng, n_body).copied().collect();
    let split = rng.gen_range(1..=body.len());
    let sign = *t.sign.choose(rng).expect("signature templates");

    let mut f = Filler::new(lang, rng);
    f.render(title, &mut out);
    out.push("\n\n");
    for h in head {
        // Header style varies per note: separator, and sometimes capitalized keys.
        let (key, rest) = h.split_once(": ").unwrap_or(("", h));
        if key.is_empty() {
            f.render(h, &mut out);
        } else {
            out.push(&if upper_keys {
                key.to_uppercase()
            } else {
                key.to_string()
            });
            out.push(sep);
            f.render(rest, &mut out);
        }
        out.push("\n");
    }
    out.push("\n");
    f.render(open, &mut out);
    out.push("\n\n");
    for (i, b) in body.iter().enumerate() {
        if i == split {
            out.push("\n\n");
        } else if i > 0 {
            out.push(" ");
        }
        f.render(b, &mut out);
    }
    out.push("\n\n");
    f.render(sign, &mut out);
    out.push("\n");
    (out.text, out.entities)
}

#[cfg(test)]
mod tests;
