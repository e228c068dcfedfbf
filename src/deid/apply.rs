//! Applying a policy to one document: operator choice per span, the rewritten text, the ops
//! log (offsets and labels, no raw values unless asked) and the coordinate map.

use super::coords::{CoordMap, Edit};
use super::date_shift::DateShift;
use super::norm::name_tokens;
use super::policy::{OperatorKind, Policy, SurrogateScope};
use super::pseudonym::Pseudonym;
use super::redact::Redact;
use super::surrogate::{Surrogate, SurrogateMemo};
use super::tag::Tag;
use super::{OpContext, Operator};
use crate::keys::Key;
use crate::labels::{Category, Subtype};
use crate::lang::Lang;
use crate::span::{resolve_overlaps, Entity};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;

#[derive(Debug, thiserror::Error)]
pub enum DeidError {
    #[error(
        "policy {source_name} needs a key ({why}); give --key-file (create one with `anonlm keygen --out FILE`)"
    )]
    KeyRequired { source_name: String, why: String },
}

/// One replacement in the ops log. Offsets are bytes: `start`/`end` in the input (for
/// multi-pass output: the original text), `out_start`/`out_end` in the output. Raw values
/// appear only when the deidentifier was built with `include_values(true)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpRecord {
    pub label: Category,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<Subtype>,
    pub start: usize,
    pub end: usize,
    pub out_start: usize,
    pub out_end: usize,
    /// The operator that produced the replacement.
    pub operator: String,
    /// The operator the policy asked for, when it handed the value on (date-shift → surrogate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_from: Option<String>,
    /// The recognizer that found the span.
    pub source: String,
    /// 1-based pass number.
    pub pass: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
}

/// The result of one pass over one document.
#[derive(Clone, Debug)]
pub struct DeidOutput {
    pub text: String,
    pub ops: Vec<OpRecord>,
    /// Input → output byte map.
    pub map: CoordMap,
}

/// Per-document state kept across passes: the RNG stream and the surrogate memo.
pub(crate) struct DocState {
    rng: ChaCha20Rng,
    memo: SurrogateMemo,
}

/// Applies a validated policy with its operators; shareable across threads.
pub struct Deidentifier {
    policy: Policy,
    seed: u64,
    include_values: bool,
    tag: Tag,
    redact: Redact,
    surrogate: Surrogate,
    pseudonym: Option<Pseudonym>,
    date_shift: Option<DateShift>,
}

impl Deidentifier {
    /// Builds the operators the policy names. Fails before any document is touched when the
    /// policy needs a key (pseudonym, date-shift, corpus-scope surrogates) and none is given.
    pub fn new(policy: Policy, key: Option<Key>, seed: u64) -> Result<Self, DeidError> {
        if let (Some(why), None) = (policy.key_requirement(), &key) {
            return Err(DeidError::KeyRequired {
                source_name: policy.source.clone(),
                why,
            });
        }
        let corpus_key = match policy.surrogate_scope {
            SurrogateScope::Corpus => key.clone(),
            SurrogateScope::Document => None,
        };
        let used = policy.operators_used();
        let pseudonym = used.contains(&OperatorKind::Pseudonym).then(|| Pseudonym {
            key: key.clone().expect("checked above"),
            hex_len: policy.pseudonym_hex,
        });
        let date_shift = used.contains(&OperatorKind::DateShift).then(|| DateShift {
            key: key.clone().expect("checked above"),
            min_days: policy.date_shift_min_days,
            max_days: policy.date_shift_max_days,
            fallback: Surrogate {
                key: corpus_key.clone(),
            },
        });
        Ok(Deidentifier {
            tag: Tag {
                style: policy.tag_style.clone(),
            },
            redact: Redact {
                fill: policy.redact_fill,
                remove: policy.redact_remove,
            },
            surrogate: Surrogate { key: corpus_key },
            pseudonym,
            date_shift,
            policy,
            seed,
            include_values: false,
        })
    }

    /// Records original and replacement text in the ops log (off by default: they are PII).
    pub fn include_values(mut self, yes: bool) -> Self {
        self.include_values = yes;
        self
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    fn operator(&self, kind: OperatorKind) -> &dyn Operator {
        match kind {
            OperatorKind::Tag => &self.tag,
            OperatorKind::Redact => &self.redact,
            OperatorKind::Surrogate => &self.surrogate,
            OperatorKind::Pseudonym => self.pseudonym.as_ref().expect("built when used"),
            OperatorKind::DateShift => self.date_shift.as_ref().expect("built when used"),
        }
    }

    /// Fresh per-document state; the RNG is seeded from (seed, doc id) only, so output does
    /// not depend on thread scheduling or document order.
    pub(crate) fn new_state(&self, doc_id: &str) -> DocState {
        let mut h = Sha256::new();
        h.update(b"anonlm-deid\0");
        h.update(self.seed.to_le_bytes());
        h.update(doc_id.as_bytes());
        DocState {
            rng: ChaCha20Rng::from_seed(h.finalize().into()),
            memo: SurrogateMemo::default(),
        }
    }

    /// De-identifies `text` given its entities (byte spans; sorted and non-overlapping is
    /// expected, anything else is repaired by widening, never by dropping coverage).
    /// `patient` keys the date shift; it defaults to the document id.
    pub fn deidentify(
        &self,
        doc_id: &str,
        lang: Lang,
        patient: Option<&str>,
        text: &str,
        entities: &[Entity],
    ) -> DeidOutput {
        let mut state = self.new_state(doc_id);
        let ents = clean_entities(text, entities);
        self.apply_pass(&mut state, doc_id, lang, patient, text, &ents, 1)
    }

    /// One pass with clean entities and shared document state.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply_pass(
        &self,
        state: &mut DocState,
        doc_id: &str,
        lang: Lang,
        patient: Option<&str>,
        text: &str,
        ents: &[Entity],
        pass: usize,
    ) -> DeidOutput {
        let mut ctx = OpContext {
            doc_id,
            lang,
            patient: patient.unwrap_or(doc_id),
            rng: &mut state.rng,
            memo: &mut state.memo,
        };
        // Multi-word names first, so a lone surname later in the text (or earlier) can reuse
        // the surname part of the full name's surrogate.
        let is_full_name = |e: &Entity| {
            e.label.category == Category::Name
                && name_tokens(&text[e.start..e.end]).nth(1).is_some()
        };
        let mut order: Vec<usize> = (0..ents.len())
            .filter(|&i| is_full_name(&ents[i]))
            .collect();
        order.extend((0..ents.len()).filter(|&i| !is_full_name(&ents[i])));
        let mut repl = vec![None; ents.len()];
        for i in order {
            let e = &ents[i];
            let op = self.operator(self.policy.operator_for(e.label));
            repl[i] = Some(op.replace(&text[e.start..e.end], e.label, &mut ctx));
        }
        let mut out = String::with_capacity(text.len() + 16 * ents.len());
        let mut ops = Vec::with_capacity(ents.len());
        let mut edits = Vec::with_capacity(ents.len());
        let mut cur = 0;
        for (e, r) in ents.iter().zip(repl) {
            let r = r.expect("every span replaced");
            out.push_str(&text[cur..e.start]);
            let out_start = out.len();
            out.push_str(&r.text);
            cur = e.end;
            edits.push(Edit {
                in_start: e.start,
                in_end: e.end,
                out_start,
                out_end: out.len(),
            });
            ops.push(OpRecord {
                label: e.label.category,
                subtype: e.label.subtype,
                start: e.start,
                end: e.end,
                out_start,
                out_end: out.len(),
                operator: r.operator.to_string(),
                fallback_from: r.fallback_from.map(str::to_string),
                source: e.source.clone(),
                pass,
                original: self
                    .include_values
                    .then(|| text[e.start..e.end].to_string()),
                replacement: self.include_values.then_some(r.text),
            });
        }
        out.push_str(&text[cur..]);
        DeidOutput {
            text: out,
            ops,
            map: CoordMap::from_edits(edits),
        }
    }
}

/// Entities as the applier needs them: in bounds, on character boundaries, non-empty, sorted
/// and non-overlapping. Borrowed when already so (the common case); otherwise repaired by
/// widening to character boundaries and merging overlaps (coverage is never reduced).
pub(crate) fn clean_entities<'a>(text: &str, entities: &'a [Entity]) -> Cow<'a, [Entity]> {
    let ok = entities.iter().all(|e| {
        e.start < e.end
            && e.end <= text.len()
            && text.is_char_boundary(e.start)
            && text.is_char_boundary(e.end)
    }) && entities.windows(2).all(|w| w[0].end <= w[1].start);
    if ok {
        return Cow::Borrowed(entities);
    }
    let fixed: Vec<Entity> = entities
        .iter()
        .cloned()
        .map(|mut e| {
            e.end = e.end.min(text.len());
            e.start = e.start.min(e.end);
            while !text.is_char_boundary(e.start) {
                e.start -= 1;
            }
            while !text.is_char_boundary(e.end) {
                e.end += 1;
            }
            e
        })
        .collect();
    Cow::Owned(resolve_overlaps(fixed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Label;

    pub(crate) fn ent(text: &str, needle: &str, label: &str) -> Entity {
        let start = text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {text}"));
        Entity::new(
            start,
            start + needle.len(),
            Label::parse(label).unwrap(),
            "test",
            1.0,
        )
    }

    fn policy(text: &str) -> Policy {
        Policy::from_toml(text, "test.toml").unwrap()
    }

    const TEXT: &str =
        "Patiënt Jan de Vries (BSN 123456782) op 12-03-2019 gezien door dr. Bakker in Utrecht.";

    fn ents() -> Vec<Entity> {
        vec![
            ent(TEXT, "Jan de Vries", "NAME/PATIENT"),
            ent(TEXT, "123456782", "ID/SSN"),
            ent(TEXT, "12-03-2019", "DATE"),
            ent(TEXT, "Bakker", "NAME/DOCTOR"),
            ent(TEXT, "Utrecht", "LOCATION/CITY"),
        ]
    }

    #[test]
    fn tag_styles_and_redaction_rewrite_text() {
        let cases = [
            ("tag_style = \"brackets\"", "Patiënt [NAME] (BSN [ID]) op [DATE] gezien door dr. [NAME] in [LOCATION]."),
            ("tag_style = \"brackets\"\ntag_subtype = true", "Patiënt [NAME_PATIENT] (BSN [ID_SSN]) op [DATE] gezien door dr. [NAME_DOCTOR] in [LOCATION_CITY]."),
            ("tag_style = \"medroberta\"", "Patiënt PERSON (BSN ID) op DATE gezien door dr. PERSON in GPE."),
            ("tag_style = \"deid\"", "Patiënt <DEID> (BSN <DEID>) op <DEID> gezien door dr. <DEID> in <DEID>."),
            ("tag_template = \"<{subtype}>\"", "Patiënt <PATIENT> (BSN <SSN>) op <> gezien door dr. <DOCTOR> in <CITY>."),
            ("default = \"redact\"", "Patiënt ************ (BSN *********) op ********** gezien door dr. ****** in *******."),
            ("default = \"redact\"\nredact_remove = true", "Patiënt  (BSN ) op  gezien door dr.  in ."),
            ("default = \"redact\"\nredact_char = \"#\"\n[labels]\nLOCATION = \"tag\"\n\"NAME/DOCTOR\" = \"tag\"", "Patiënt ############ (BSN #########) op ########## gezien door dr. [NAME] in [LOCATION]."),
        ];
        for (toml, want) in cases {
            let p = Policy::from_toml(toml, "t").unwrap();
            let d = Deidentifier::new(p, None, 1).unwrap();
            let out = d.deidentify("doc", Lang::Nl, None, TEXT, &ents());
            assert_eq!(out.text, want, "{toml}");
            assert_eq!(out.ops.len(), 5);
            for op in &out.ops {
                assert_eq!(
                    out.map.to_output(op.start, op.end),
                    (op.out_start, op.out_end)
                );
                if op.out_start < op.out_end {
                    assert_eq!(
                        out.map.to_input(op.out_start, op.out_end),
                        (op.start, op.end)
                    );
                }
            }
        }
    }

    #[test]
    fn ops_log_has_offsets_not_values() {
        let d = Deidentifier::new(policy("default = \"surrogate\""), None, 5).unwrap();
        let out = d.deidentify("doc-7", Lang::Nl, None, TEXT, &ents());
        assert_eq!(out.ops.len(), 5);
        let json = serde_json::to_string(&out.ops).unwrap();
        for e in ents() {
            let orig = &TEXT[e.start..e.end];
            assert!(!json.contains(orig), "raw value in ops log: {json}");
        }
        for op in &out.ops {
            let repl = &out.text[op.out_start..op.out_end];
            assert!(
                !json.contains(&format!("\"{repl}\"")),
                "replacement in ops log: {json}"
            );
        }
        let first: serde_json::Value = serde_json::to_value(&out.ops[0]).unwrap();
        assert_eq!(first["label"], "NAME");
        assert_eq!(first["subtype"], "PATIENT");
        assert_eq!(first["operator"], "surrogate");
        assert_eq!(first["pass"], 1);
        assert!(first.get("original").is_none());
        let back: Vec<OpRecord> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, out.ops);
        // With values asked for, they are there.
        let d = d.include_values(true);
        let out = d.deidentify("doc-7", Lang::Nl, None, TEXT, &ents());
        assert_eq!(out.ops[0].original.as_deref(), Some("Jan de Vries"));
        assert!(out.ops[0].replacement.is_some());
    }

    #[test]
    fn deterministic_per_seed_and_document() {
        let d = Deidentifier::new(policy("default = \"surrogate\""), None, 11).unwrap();
        let run = |d: &Deidentifier, id: &str| d.deidentify(id, Lang::Nl, None, TEXT, &ents()).text;
        assert_eq!(run(&d, "a"), run(&d, "a"));
        let texts: Vec<String> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4).map(|_| s.spawn(|| run(&d, "a"))).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(texts.iter().all(|t| *t == run(&d, "a")));
    }

    #[test]
    fn keys_are_required_before_any_document() {
        let cases = [
            ("[labels]\n\"ID/SSN\" = \"pseudonym\"", true),
            ("[labels]\nDATE = \"date-shift\"", true),
            (
                "surrogate_scope = \"corpus\"\ndefault = \"surrogate\"",
                true,
            ),
            ("default = \"surrogate\"", false),
            ("default = \"redact\"", false),
        ];
        for (toml, needs) in cases {
            let r = Deidentifier::new(policy(toml), None, 1);
            assert_eq!(r.is_err(), needs, "{toml}");
            if let Err(e) = r {
                assert!(e.to_string().contains("test.toml"), "{e}");
            }
            let key = Key::from_bytes(&[3u8; 32]);
            assert!(Deidentifier::new(policy(toml), key, 1).is_ok());
        }
    }

    #[test]
    fn pseudonyms_and_keyed_surrogates_agree_across_documents() {
        let toml =
            "default = \"surrogate\"\nsurrogate_scope = \"corpus\"\n[labels]\nID = \"pseudonym\"";
        let key = Key::from_bytes(&[4u8; 32]);
        let d = Deidentifier::new(policy(toml), key, 1).unwrap();
        let other = "BSN 123456782 van Jan de Vries.";
        let oe = [
            ent(other, "123456782", "ID/SSN"),
            ent(other, "Jan de Vries", "NAME"),
        ];
        let a = d.deidentify("doc-a", Lang::Nl, None, TEXT, &ents());
        let b = d.deidentify("doc-b", Lang::Nl, None, other, &oe);
        let val =
            |o: &DeidOutput, i: usize| o.text[o.ops[i].out_start..o.ops[i].out_end].to_string();
        assert_eq!(val(&a, 1), val(&b, 0), "pseudonym");
        assert!(val(&a, 1).starts_with("ID-"));
        assert_eq!(val(&a, 0), val(&b, 1), "keyed surrogate");
        let d2 = Deidentifier::new(policy(toml), Key::from_bytes(&[5u8; 32]), 1).unwrap();
        let c = d2.deidentify("doc-a", Lang::Nl, None, TEXT, &ents());
        assert_ne!(val(&a, 1), val(&c, 1), "another key, another pseudonym");
        assert_ne!(val(&a, 0), val(&c, 0), "another key, another surrogate");
    }

    #[test]
    fn lone_surname_reuses_the_full_names_surrogate() {
        let text = "García ingresó. Paciente Juan García López, 45 años. GARCÍA evoluciona bien.";
        let second = text.rfind("GARCÍA").unwrap();
        let es = vec![
            ent(text, "García", "NAME"),
            ent(text, "Juan García López", "NAME/PATIENT"),
            Entity::new(
                second,
                second + "GARCÍA".len(),
                Label::parse("NAME").unwrap(),
                "t",
                1.0,
            ),
        ];
        for seed in 0..20 {
            let d = Deidentifier::new(policy("default = \"surrogate\""), None, seed).unwrap();
            let out = d.deidentify("doc", Lang::Es, None, text, &es);
            let vals: Vec<&str> = out
                .ops
                .iter()
                .map(|o| &out.text[o.out_start..o.out_end])
                .collect();
            let full: Vec<&str> = vals[1].split_whitespace().collect();
            assert_eq!(full.len(), 3, "{}", vals[1]);
            assert_eq!(vals[0], full[1], "seed {seed}: {}", out.text);
            assert_eq!(vals[2], full[1].to_uppercase(), "seed {seed}: {}", out.text);
            assert!(
                !out.text.contains("García") && !out.text.contains("López"),
                "{}",
                out.text
            );
        }
    }

    #[test]
    fn date_shift_is_per_patient_across_documents() {
        let toml = "[labels]\nDATE = \"date-shift\"";
        let d = Deidentifier::new(policy(toml), Key::from_bytes(&[7u8; 32]), 1).unwrap();
        let t1 = "Ingreso el 03/02/2020.";
        let t2 = "Alta el 13/02/2020.";
        let shifted = |doc: &str, patient: &str, t: &str| {
            let s = t.find(char::is_numeric).unwrap();
            let e = Entity::new(s, s + 10, Label::parse("DATE").unwrap(), "t", 1.0);
            let out = d.deidentify(doc, Lang::Es, Some(patient), t, &[e]);
            assert_eq!(out.ops[0].operator, "date-shift");
            let v = &out.text[out.ops[0].out_start..out.ops[0].out_end];
            let p = crate::dates::parse_date(v, Lang::Es).unwrap();
            crate::dates::days_from_civil(p.year.unwrap(), p.month.unwrap(), p.day.unwrap())
        };
        assert_eq!(shifted("b", "P1", t2) - shifted("a", "P1", t1), 10);
        let offsets: std::collections::HashSet<i64> = (0..10)
            .map(|p| shifted("a", &format!("P{p}"), t1))
            .collect();
        assert!(offsets.len() >= 8, "patients get their own shifts");
    }

    #[test]
    fn messy_entities_are_repaired_without_losing_coverage() {
        let text = "Éva Kovács és Anna";
        let label = Label::parse("NAME").unwrap();
        let messy = vec![
            Entity::new(5, 12, label, "b", 0.5),  // "Kovács", out of order
            Entity::new(1, 4, label, "a", 0.9),   // starts inside 'É'
            Entity::new(3, 8, label, "x", 0.2),   // overlaps both
            Entity::new(17, 99, label, "c", 0.9), // "Anna", runs past the end
        ];
        let d = Deidentifier::new(Policy::default(), None, 1).unwrap();
        let out = d.deidentify("m", Lang::Hu, None, text, &messy);
        assert_eq!(out.text, "[NAME] és [NAME]");
        let covered: usize = out.ops.iter().map(|o| o.end - o.start).sum();
        assert_eq!(covered, "Éva Kovács".len() + "Anna".len());
    }

    /// MEDDOCAN's scheme, from its README table (test-only; the real label maps live in wordlists/).
    fn meddocan_label(raw: &str) -> Result<Option<Label>, crate::error::ValueError> {
        let canonical = match raw {
            "TERRITORIO" => "LOCATION/CITY",
            "FECHAS" => "DATE/DATE",
            "EDAD_SUJETO_ASISTENCIA" => "AGE/AGE",
            "NOMBRE_SUJETO_ASISTENCIA" => "NAME/PATIENT",
            "NOMBRE_PERSONAL_SANITARIO" => "NAME/DOCTOR",
            "SEXO_SUJETO_ASISTENCIA" => "OTHER/SEX",
            "CALLE" => "LOCATION/STREET",
            "PAIS" => "LOCATION/COUNTRY",
            "ID_SUJETO_ASISTENCIA" => "ID/MEDICALRECORD",
            "CORREO_ELECTRONICO" => "CONTACT/EMAIL",
            "ID_TITULACION_PERSONAL_SANITARIO" => "ID/LICENSE",
            "ID_ASEGURAMIENTO" => "ID/HEALTHPLAN",
            "HOSPITAL" | "CENTRO_SALUD" => "LOCATION/HOSPITAL",
            "FAMILIARES_SUJETO_ASISTENCIA" => "NAME/RELATIVE",
            "INSTITUCION" => "LOCATION/ORGANIZATION",
            "NUMERO_TELEFONO" => "CONTACT/PHONE",
            "NUMERO_FAX" => "CONTACT/FAX",
            "PROFESION" => "PROFESSION/PROFESSION",
            "OTROS_SUJETO_ASISTENCIA" => "OTHER/OTHER",
            _ => "ID/IDNUM",
        };
        Label::parse(canonical).map(Some)
    }

    #[test]
    fn meddocan_gold_spans_round_trip() {
        use crate::corpus::brat::{list_documents, read_document};
        let Some(dir) = crate::testdata::meddocan_split("dev") else {
            return;
        };
        let dir = dir.as_path();
        let key = Key::from_bytes(&[2u8; 32]);
        let d = Deidentifier::new(Policy::builtin("keyed").unwrap(), key, 3).unwrap();
        let mut stats = super::super::DeidStats::default();
        let mut gold_spans = 0;
        for path in list_documents(dir).unwrap().iter().take(80) {
            let doc = read_document(path, &meddocan_label).unwrap();
            let ents = resolve_overlaps(doc.entities.clone());
            gold_spans += ents.len();
            let out = d.deidentify(&doc.id, Lang::Es, None, &doc.text, &ents);
            // Text between replacements is untouched; every replacement differs from its source.
            let (mut i, mut o) = (0, 0);
            for op in &out.ops {
                assert_eq!(
                    &doc.text[i..op.start],
                    &out.text[o..op.out_start],
                    "{}",
                    doc.id
                );
                let label = crate::labels::Label {
                    category: op.label,
                    subtype: op.subtype,
                };
                let (orig, repl) = (
                    &doc.text[op.start..op.end],
                    &out.text[op.out_start..op.out_end],
                );
                assert_ne!(
                    super::super::norm::normalize(label, orig),
                    super::super::norm::normalize(label, repl),
                    "{} {label} at {}..{}",
                    doc.id,
                    op.start,
                    op.end
                );
                (i, o) = (op.end, op.out_end);
            }
            assert_eq!(&doc.text[i..], &out.text[o..], "{}", doc.id);
            stats.add_document(&out.ops);
        }
        assert_eq!(stats.spans as usize, gold_spans);
        let shifted = stats.by_operator.get("date-shift").copied().unwrap_or(0);
        let fell = stats
            .fallbacks
            .get("date-shift->surrogate")
            .copied()
            .unwrap_or(0);
        eprintln!(
            "MEDDOCAN dev: {} docs, {gold_spans} spans, dates shifted {shifted}, fell back {fell}",
            stats.documents
        );
        assert!(shifted > 0, "some gold dates parse and shift");
    }
}
