//! Gold-span regression sentences in `testsets/regression/`: every gold span must be covered by
//! the rule pipeline, negatives must stay empty, and `known_failures.txt` may only shrink.

use anonlm::lang::{Lang, LangChoice};
use anonlm::recognize::build::build_pipeline;
use anonlm::wordlists::ListSources;
use anonlm::Label;
use std::collections::BTreeSet;

/// Strips `[[surface|LABEL]]` markup; returns the text and the gold byte spans.
fn parse_marked(line: &str) -> (String, Vec<(usize, usize, Label)>) {
    let mut text = String::new();
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find("[[") {
        text.push_str(&rest[..open]);
        let close = rest[open..].find("]]").expect("unclosed [[") + open;
        let (surface, label) = rest[open + 2..close]
            .rsplit_once('|')
            .expect("missing |label");
        let start = text.len();
        text.push_str(surface);
        spans.push((start, text.len(), Label::parse(label).expect("valid label")));
        rest = &rest[close + 2..];
    }
    text.push_str(rest);
    (text, spans)
}

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
