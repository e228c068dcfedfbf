//! The whole rule pipeline (patterns, word lists, context rules; no training) on MEDDOCAN dev,
//! read in place from `../shared/data/meddocan/dev`: binary token recall of at least 0.90 at a
//! precision of at least 0.80 without SEXO_SUJETO_ASISTENCIA, and contact, ID and date recall of
//! at least 0.97. Skips when the data is absent. MEDDOCAN: CC BY 4.0, Secretaría de Estado para
//! el Avance Digital (SEAD), 2019.

use anonlm::corpus::{open_input, Document, Format, ReadOptions};
use anonlm::eval::{evaluate, EvalOptions};
use anonlm::labelmap::LabelMap;
use anonlm::lang::{Lang, LangChoice};
use anonlm::recognize::build::build_pipeline;
use anonlm::wordlists::ListSources;
use anonlm::Label;
use std::sync::Arc;

#[test]
fn rules_meet_the_meddocan_dev_floors() {
    let Some(dir) = crate::util::meddocan_split("dev") else {
        return;
    };
    let dir = dir.as_path();
    let map = Arc::new(LabelMap::builtin("meddocan").unwrap());
    let resolver = Arc::new(move |raw: &str| map.resolve(raw));
    let gold: Vec<Document> =
        open_input(Format::Brat, dir, &ReadOptions::default(), Some(resolver))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    assert_eq!(gold.len(), 250);
    let pipeline = build_pipeline(
        LangChoice::Fixed(Lang::Es),
        Lang::Es,
        &ListSources::default(),
    )
    .unwrap();
    let pred: Vec<Document> = gold
        .iter()
        .map(|g| {
            let mut d = Document::new(g.id.clone(), g.text.clone());
            d.entities = pipeline.recognize(&d.text).1;
            d
        })
        .collect();
    let opts = EvalOptions {
        exclude: vec![Label::parse("OTHER/SEX").unwrap()],
    };
    let report = evaluate(&gold, &pred, &opts).unwrap();
    eprintln!("{}", report.to_table());
    let binary = &report.token.binary;
    assert!(
        binary.recall >= 0.90,
        "binary token recall {:.4}",
        binary.recall
    );
    assert!(
        binary.precision >= 0.80,
        "binary token precision {:.4}",
        binary.precision
    );
    // Today: recall 0.970 at precision 0.990; the floors keep a margin for list changes.
    assert!(
        binary.recall >= 0.96 && binary.precision >= 0.98,
        "regressed: {binary:?}"
    );
    for cat in ["CONTACT", "ID", "DATE"] {
        let row = report.per_category.iter().find(|r| r.label == cat).unwrap();
        assert!(
            row.token.recall >= 0.97,
            "{cat} token recall {:.4}",
            row.token.recall
        );
    }
}
