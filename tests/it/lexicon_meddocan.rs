//! MEDDOCAN dev (Spanish) read in place: token-level recall per label and binary precision of the
//! lookup + context recognizers, with floors; plus an ignored speed measurement.
//!
//! Skips (with a note) when `../shared/data/meddocan/dev` is absent. Tokens are maximal runs of
//! alphanumeric characters; a token counts as found when any predicted span overlaps it.

use anonlm::corpus::brat::{list_documents, read_document};
use anonlm::recognize::context::ContextRecognizer;
use anonlm::recognize::lookup::LookupRecognizer;
use anonlm::recognize::Recognizer;
use anonlm::span::{merge_adjacent, resolve_overlaps};
use anonlm::text::alnum_runs;
use anonlm::wordlists::ListSources;
use anonlm::{Category, Document, Entity, Label, Lang, Subtype};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The MEDDOCAN labels this part covers (the table in the data set's README).
const MINE: &[(&str, Category, Option<Subtype>)] = &[
    (
        "NOMBRE_SUJETO_ASISTENCIA",
        Category::Name,
        Some(Subtype::Patient),
    ),
    (
        "NOMBRE_PERSONAL_SANITARIO",
        Category::Name,
        Some(Subtype::Doctor),
    ),
    (
        "FAMILIARES_SUJETO_ASISTENCIA",
        Category::Name,
        Some(Subtype::Relative),
    ),
    ("TERRITORIO", Category::Location, Some(Subtype::City)),
    ("PAIS", Category::Location, Some(Subtype::Country)),
    ("HOSPITAL", Category::Location, Some(Subtype::Hospital)),
    ("CENTRO_SALUD", Category::Location, Some(Subtype::Hospital)),
    (
        "INSTITUCION",
        Category::Location,
        Some(Subtype::Organization),
    ),
    ("PROFESION", Category::Profession, Some(Subtype::Profession)),
];

/// Every other MEDDOCAN label: PHI for precision, outside this part for recall.
const OTHERS: &[&str] = &[
    "FECHAS",
    "EDAD_SUJETO_ASISTENCIA",
    "SEXO_SUJETO_ASISTENCIA",
    "CALLE",
    "ID_SUJETO_ASISTENCIA",
    "CORREO_ELECTRONICO",
    "ID_TITULACION_PERSONAL_SANITARIO",
    "ID_ASEGURAMIENTO",
    "ID_CONTACTO_ASISTENCIAL",
    "NUMERO_TELEFONO",
    "NUMERO_FAX",
    "OTROS_SUJETO_ASISTENCIA",
    "ID_EMPLEO_PERSONAL_SANITARIO",
];

fn mine(raw: &str) -> Result<Option<Label>, anonlm::error::ValueError> {
    if let Some((_, c, s)) = MINE.iter().find(|(n, _, _)| *n == raw) {
        return Ok(Some(Label {
            category: *c,
            subtype: *s,
        }));
    }
    if OTHERS.contains(&raw) {
        return Ok(None);
    }
    Err("not a MEDDOCAN label".into())
}

/// Any PHI except SEXO (scored apart): the reference for binary precision.
fn any_phi(raw: &str) -> Result<Option<Label>, anonlm::error::ValueError> {
    if raw == "SEXO_SUJETO_ASISTENCIA" {
        return Ok(None);
    }
    match mine(raw)? {
        Some(l) => Ok(Some(l)),
        None => Ok(Some(Label::new(Category::Other, Subtype::Other))),
    }
}

fn dev_dir() -> Option<PathBuf> {
    // LEXICON_MEDDOCAN_SPLIT=train studies the training split instead (for error analysis).
    let split = std::env::var("LEXICON_MEDDOCAN_SPLIT").unwrap_or_else(|_| "dev".into());
    crate::util::meddocan_split(&split)
}

fn covered(spans: &[Entity], tok: (usize, usize)) -> bool {
    spans.iter().any(|e| e.start < tok.1 && tok.0 < e.end)
}

fn recognizers() -> (LookupRecognizer, ContextRecognizer) {
    let lists = ListSources::default();
    (
        LookupRecognizer::new(Lang::Es, &lists).expect("lookup lists load"),
        ContextRecognizer::new(Lang::Es, &lists).expect("context lists load"),
    )
}

fn predict(l: &LookupRecognizer, c: &ContextRecognizer, text: &str) -> Vec<Entity> {
    let mut cands = Vec::new();
    l.find(text, &mut cands);
    c.find(text, &mut cands);
    merge_adjacent(text, resolve_overlaps(cands))
}

#[derive(Default)]
struct Tally {
    gold: usize,
    found: usize,
}

impl Tally {
    fn recall(&self) -> f64 {
        if self.gold == 0 {
            1.0
        } else {
            self.found as f64 / self.gold as f64
        }
    }
}

#[test]
fn meddocan_dev_names_places_institutions() {
    let Some(dir) = dev_dir() else { return };
    let (l, c) = recognizers();
    let dump = std::env::var_os("LEXICON_MEDDOCAN_DUMP").is_some();
    let mut per_label: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut pred_tokens, mut pred_true) = (0usize, 0usize);
    let (mut mine_pred, mut mine_true) = (0usize, 0usize);
    let mut fps: BTreeMap<String, usize> = BTreeMap::new();
    let mut fns: BTreeMap<String, usize> = BTreeMap::new();
    for path in list_documents(&dir).expect("dev lists") {
        let gold_mine: Document = read_document(&path, &mine).expect("dev document reads");
        let gold_all = read_document(&path, &any_phi).expect("dev document reads");
        let text = &gold_mine.text;
        let pred = predict(&l, &c, text);
        for tok in alnum_runs(text) {
            let in_pred = covered(&pred, tok);
            for g in gold_mine
                .entities
                .iter()
                .filter(|g| g.start < tok.1 && tok.0 < g.end)
            {
                let mut key = g.label.tag_form();
                if g.label.subtype == Some(Subtype::City)
                    && text[tok.0..tok.1].chars().all(|ch| ch.is_ascii_digit())
                {
                    key = "LOCATION_CITY(postcode)".into();
                }
                let t = per_label.entry(key.clone()).or_default();
                t.gold += 1;
                t.found += in_pred as usize;
                if !in_pred && dump && !key.contains("postcode") {
                    *fns.entry(format!("{} {}", g.label.tag_form(), &text[tok.0..tok.1]))
                        .or_default() += 1;
                }
            }
            if in_pred {
                pred_tokens += 1;
                let truth = covered(&gold_all.entities, tok);
                pred_true += truth as usize;
                if !truth && dump {
                    *fps.entry(text[tok.0..tok.1].to_string()).or_default() += 1;
                }
                let p_mine = pred.iter().any(|e| {
                    e.start < tok.1
                        && tok.0 < e.end
                        && matches!(
                            e.label.category,
                            Category::Name | Category::Location | Category::Profession
                        )
                });
                if p_mine {
                    mine_pred += 1;
                    mine_true += truth as usize;
                }
            }
        }
    }
    if dump {
        let mut v: Vec<_> = fps.into_iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        eprintln!("FP tokens: {:?}", &v[..v.len().min(150)]);
        let mut v: Vec<_> = fns.into_iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        eprintln!("FN tokens: {:?}", &v[..v.len().min(150)]);
    }
    let precision = pred_true as f64 / pred_tokens.max(1) as f64;
    eprintln!(
        "{:<28} {:>6} {:>6} {:>7}",
        "label (tokens)", "gold", "found", "recall"
    );
    for (k, t) in &per_label {
        eprintln!("{k:<28} {:>6} {:>6} {:>7.3}", t.gold, t.found, t.recall());
    }
    eprintln!(
        "binary precision of all predicted tokens: {precision:.3} ({pred_true}/{pred_tokens}); \
         of NAME/LOCATION/PROFESSION predictions: {:.3}",
        mine_true as f64 / mine_pred.max(1) as f64
    );
    let floors = [
        // Floors a little under the measured values on dev (word tokens; postcodes are not ours).
        ("NAME_PATIENT", 0.97),
        ("NAME_DOCTOR", 0.97),
        ("LOCATION_CITY", 0.91),
        ("LOCATION_COUNTRY", 0.97),
        ("LOCATION_HOSPITAL", 0.95),
        ("LOCATION_ORGANIZATION", 0.5),
        ("NAME_RELATIVE", 0.6),
    ];
    for (k, floor) in floors {
        let r = per_label.get(k).map_or(0.0, Tally::recall);
        assert!(r >= floor, "{k} token recall {r:.3} fell below {floor}");
    }
    assert!(
        precision >= 0.95,
        "binary precision {precision:.3} fell below the floor"
    );
}
