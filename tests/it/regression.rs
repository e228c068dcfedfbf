//! Gold-span regression sentences in `testsets/regression/`: every gold span must be covered by
//! the rule pipeline, negatives must stay empty, and `known_failures.txt` may only shrink.

use crate::util::parse_marked;
use anonlm::lang::{Lang, LangChoice};
use anonlm::recognize::build::build_pipeline;
use anonlm::wordlists::ListSources;
use std::collections::BTreeSet;

#[test]
fn regression_sentences_hold() {
    let known: BTreeSet<String> = include_str!("../../testsets/regression/known_failures.txt")
        .lines()
        .map(|l| l.split('#').next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    let mut failures = BTreeSet::new();
    for lang in Lang::ALL {
        let path = format!("testsets/regression/{}.txt", lang.code());
        let body = std::fs::read_to_string(&path).unwrap();
        let pipeline =
            build_pipeline(LangChoice::Fixed(lang), lang, &ListSources::default()).unwrap();
        for (i, line) in body.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (text, gold) = parse_marked(line);
            let (_, found) = pipeline.recognize(&text);
            let covered = |s: usize, e: usize| {
                text[s..e].char_indices().all(|(o, c)| {
                    c.is_whitespace() || found.iter().any(|f| f.start <= s + o && s + o < f.end)
                })
            };
            let ok = if gold.is_empty() {
                found.is_empty()
            } else {
                gold.iter().all(|&(s, e, _)| covered(s, e))
            };
            if !ok {
                let id = format!("{}:{}", lang.code(), i + 1);
                eprintln!(
                    "FAIL {id}: gold {:?}, found {:?}",
                    gold,
                    found
                        .iter()
                        .map(|f| (f.start, f.end, f.label.to_string(), &f.source))
                        .collect::<Vec<_>>()
                );
                failures.insert(id);
            }
        }
    }
    let new: Vec<_> = failures.difference(&known).collect();
    let fixed: Vec<_> = known.difference(&failures).collect();
    assert!(
        new.is_empty(),
        "regressions (not in known_failures.txt): {new:?}"
    );
    assert!(
        fixed.is_empty(),
        "now passing, remove from known_failures.txt: {fixed:?}"
    );
}
