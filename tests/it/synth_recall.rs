//! Recall floors of the pattern recognizer on synthetic notes in every language: CONTACT, ID
//! and DATE must be found (token level and entity overlap) with token precision to match.

use anonlm::corpus::Document;
use anonlm::eval::{evaluate, EvalOptions, EvalReport};
use anonlm::lang::Lang;
use anonlm::recognize::pattern::PatternRecognizer;
use anonlm::recognize::Recognizer;
use anonlm::span::resolve_overlaps;
use anonlm::wordlists::ListSources;

const CATEGORIES: [&str; 3] = ["CONTACT", "ID", "DATE"];
const MIN_RECALL: f64 = 0.97;
const MIN_TOKEN_PRECISION: f64 = 0.95;

fn predict(r: &PatternRecognizer, gold: &[Document]) -> Vec<Document> {
    gold.iter()
        .map(|g| {
            let mut found = Vec::new();
            r.find(&g.text, &mut found);
            Document {
                entities: resolve_overlaps(found),
                ..g.clone()
            }
        })
        .collect()
}

/// Failures of one language's report against the floors, as readable lines.
fn shortfalls(lang: Lang, seed: u64, report: &EvalReport) -> Vec<String> {
    let mut out = Vec::new();
    for cat in CATEGORIES {
        let Some(row) = report.per_category.iter().find(|r| r.label == cat) else {
            out.push(format!("{lang} seed {seed}: no {cat} row"));
            continue;
        };
        let checks = [
            ("token recall", row.token.recall, MIN_RECALL),
            ("overlap recall", row.overlap.recall, MIN_RECALL),
            ("token precision", row.token.precision, MIN_TOKEN_PRECISION),
        ];
        for (what, got, floor) in checks {
            if got < floor {
                out.push(format!(
                    "{lang} seed {seed}: {cat} {what} {got:.4} < {floor}"
                ));
            }
        }
    }
    out
}

#[test]
fn contact_id_date_recall_on_synthetic_notes() {
    let mut failures = Vec::new();
    for lang in Lang::ALL {
        let r = PatternRecognizer::new(lang, &ListSources::default()).expect("pattern rules");
        for seed in [11, 29] {
            let gold = anonlm::synth::generate(lang, 60, seed);
            let pred = predict(&r, &gold);
            let report = evaluate(&gold, &pred, &EvalOptions::default()).expect("evaluate");
            let short = shortfalls(lang, seed, &report);
            if !short.is_empty() {
                eprintln!("{lang} seed {seed}:\n{}", report.to_table());
            }
            failures.extend(short);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
