//! MEDDOCAN dev, read in place: token-level recall/precision of the pattern recognizer per
//! MEDDOCAN label (tokens = maximal alphanumeric runs). Skips when the data is absent.

use anonlm::corpus::brat::{list_documents, read_document};
use anonlm::labels::{Category, Label, Subtype};
use anonlm::recognize::pattern::PatternRecognizer;
use anonlm::recognize::Recognizer;
use anonlm::span::Entity;
use anonlm::text::alnum_runs;
use anonlm::wordlists::ListSources;
use anonlm::Lang;
use std::collections::BTreeMap;
use std::path::Path;

/// MEDDOCAN labels this recognizer is responsible for, each to a distinct canonical label.
const LABELS: &[(&str, Category, Subtype)] = &[
    ("CORREO_ELECTRONICO", Category::Contact, Subtype::Email),
    ("NUMERO_TELEFONO", Category::Contact, Subtype::Phone),
    ("NUMERO_FAX", Category::Contact, Subtype::Fax),
    ("FECHAS", Category::Date, Subtype::Date),
    ("EDAD_SUJETO_ASISTENCIA", Category::Age, Subtype::Age),
    ("CALLE", Category::Location, Subtype::Street),
    ("ID_SUJETO_ASISTENCIA", Category::Id, Subtype::Medicalrecord),
    ("ID_ASEGURAMIENTO", Category::Id, Subtype::Healthplan),
    (
        "ID_TITULACION_PERSONAL_SANITARIO",
        Category::Id,
        Subtype::License,
    ),
    ("ID_CONTACTO_ASISTENCIAL", Category::Id, Subtype::Idnum),
    // Only its all-digit tokens (postcodes) are scored.
    ("TERRITORIO", Category::Location, Subtype::City),
];

/// Recall floors asserted on dev (category-correct token recall), a little under measured
/// (measured: CALLE 0.954, TERRITORIO postcodes 0.976, FAX 15/15 tokens, all others >= 0.985).
/// ID labels count only spans holding a digit (see `score_dir`).
const FLOORS: &[(&str, f64)] = &[
    ("CORREO_ELECTRONICO", 0.97),
    ("NUMERO_TELEFONO", 0.97),
    ("NUMERO_FAX", 0.93),
    ("FECHAS", 0.97),
    ("EDAD_SUJETO_ASISTENCIA", 0.97),
    ("CALLE", 0.93),
    ("ID_SUJETO_ASISTENCIA", 0.97),
    ("ID_ASEGURAMIENTO", 0.97),
    ("ID_TITULACION_PERSONAL_SANITARIO", 0.97),
    ("ID_CONTACTO_ASISTENCIAL", 0.97),
    ("TERRITORIO", 0.95),
];

/// Token precision floor for every label the recognizer predicts on dev (measured >= 0.966).
const PRECISION_FLOOR: f64 = 0.95;

fn resolver(raw: &str) -> Result<Option<Label>, anonlm::error::ValueError> {
    Ok(LABELS
        .iter()
        .find(|(n, _, _)| *n == raw)
        .map(|(_, c, s)| Label::new(*c, *s)))
}

fn name_of(l: Label) -> &'static str {
    LABELS
        .iter()
        .find(|(_, c, s)| Label::new(*c, *s) == l)
        .map_or("?", |(n, _, _)| n)
}

fn covering(spans: &[Entity], t: (usize, usize)) -> Option<&Entity> {
    spans.iter().find(|e| e.start <= t.0 && t.1 <= e.end)
}

#[derive(Default)]
struct Count {
    gold: usize,
    hit: usize,
    hit_any: usize,
    pred: usize,
    pred_ok: usize,
}

fn score_dir(dir: &Path, show_misses: bool) -> BTreeMap<String, Count> {
    let rec = PatternRecognizer::new(Lang::Es, &ListSources::default()).unwrap();
    let mut counts: BTreeMap<String, Count> = BTreeMap::new();
    for path in list_documents(dir).unwrap() {
        let doc = read_document(&path, &resolver).unwrap();
        let mut pred = Vec::new();
        rec.find(&doc.text, &mut pred);
        for t in alnum_runs(&doc.text) {
            let g = covering(&doc.entities, t);
            let p = covering(&pred, t);
            if let Some(g) = g {
                let mut name = name_of(g.label).to_string();
                // MEDDOCAN marks some descriptions ("Lactante", "raza blanca") as
                // ID_SUJETO_ASISTENCIA; no pattern can find those, so they are scored apart.
                if name.starts_with("ID_")
                    && !doc.text[g.start..g.end].bytes().any(|b| b.is_ascii_digit())
                {
                    name.push_str(" (no digit)");
                }
                if name == "TERRITORIO" && !doc.text[t.0..t.1].bytes().all(|b| b.is_ascii_digit()) {
                    continue;
                }
                let c = counts.entry(name.clone()).or_default();
                c.gold += 1;
                if let Some(p) = p {
                    c.hit_any += 1;
                    let same = p.label.category == g.label.category
                        || (name == "TERRITORIO" && p.label.category == Category::Location);
                    if same {
                        c.hit += 1;
                    }
                } else if show_misses {
                    let mut ctx_s = g.start.saturating_sub(30);
                    while !doc.text.is_char_boundary(ctx_s) {
                        ctx_s -= 1;
                    }
                    let mut ctx_e = (g.end + 20).min(doc.text.len());
                    while !doc.text.is_char_boundary(ctx_e) {
                        ctx_e += 1;
                    }
                    eprintln!(
                        "MISS {name}: {:?} in {:?}",
                        &doc.text[g.start..g.end],
                        &doc.text[ctx_s..ctx_e]
                    );
                }
            }
            if let Some(p) = p {
                let key = format!("pred {}", p.label);
                let c = counts.entry(key).or_default();
                c.pred += 1;
                if g.is_some() {
                    c.pred_ok += 1;
                } else if show_misses {
                    eprintln!(
                        "FP {} {}: {:?}",
                        p.label,
                        p.source,
                        &doc.text[p.start..p.end]
                    );
                }
            }
        }
    }
    counts
}

#[test]
fn meddocan_dev_recall_floors() {
    // MEDDOCAN_SPLIT=train scores the training split instead (used for tuning; floors are dev's).
    let split = std::env::var("MEDDOCAN_SPLIT").unwrap_or_else(|_| "dev".into());
    let Some(dir_buf) = crate::util::meddocan_split(&split) else {
        return;
    };
    let dir = dir_buf.as_path();
    let show = std::env::var_os("SHOW_MISSES").is_some();
    let counts = score_dir(dir, show);
    println!(
        "{:<34} {:>6} {:>8} {:>8}",
        "label (gold tokens)", "gold", "recall", "any"
    );
    for (name, c) in counts.iter().filter(|(_, c)| c.gold > 0) {
        println!(
            "{:<34} {:>6} {:>8.4} {:>8.4}",
            name,
            c.gold,
            c.hit as f64 / c.gold as f64,
            c.hit_any as f64 / c.gold as f64
        );
    }
    println!(
        "{:<34} {:>6} {:>8}",
        "predicted label (tokens)", "pred", "prec"
    );
    for (name, c) in counts.iter().filter(|(_, c)| c.pred > 0) {
        println!(
            "{:<34} {:>6} {:>8.4}",
            name,
            c.pred,
            c.pred_ok as f64 / c.pred as f64
        );
    }
    if split != "dev" {
        return;
    }
    for (name, floor) in FLOORS {
        let c = &counts[*name];
        let r = c.hit as f64 / c.gold as f64;
        assert!(r >= *floor, "{name}: recall {r:.4} below {floor}");
    }
    for (name, c) in counts.iter().filter(|(_, c)| c.pred > 0) {
        let p = c.pred_ok as f64 / c.pred as f64;
        assert!(
            p >= PRECISION_FLOOR,
            "{name}: precision {p:.4} below {PRECISION_FLOOR}"
        );
    }
}
