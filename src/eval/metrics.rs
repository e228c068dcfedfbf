//! Micro precision/recall/F1 of predicted spans against gold: entity strict, entity overlap
//! (greedy one-to-one by largest overlap) and token level, each at three label levels.

use super::{checked_spans, pair_documents, Counts, EvalError, EvalOptions, Key, Level, Score};
use crate::corpus::Document;
use crate::text::{alnum_runs, intersecting};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

const STRICT: usize = 0;
const OVERLAP: usize = 1;
const TOKEN: usize = 2;

/// One span reduced to what a level compares.
type KSpan = (usize, usize, Key);

/// Scores of one criterion at the three levels.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelScores {
    pub binary: Score,
    pub category: Score,
    pub subcategory: Score,
}

impl LevelScores {
    pub fn get(&self, level: Level) -> &Score {
        match level {
            Level::Binary => &self.binary,
            Level::Category => &self.category,
            Level::Subcategory => &self.subcategory,
        }
    }

    fn get_mut(&mut self, level: Level) -> &mut Score {
        match level {
            Level::Binary => &mut self.binary,
            Level::Category => &mut self.category,
            Level::Subcategory => &mut self.subcategory,
        }
    }
}

/// Scores for one category or subcategory. `support`/`predicted` count entities; token scores
/// count tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelRow {
    pub label: String,
    pub support: usize,
    pub predicted: usize,
    pub strict: Score,
    pub overlap: Score,
    pub token: Score,
}

/// The full comparison. The six levels of the Italian seed paper are `entity_strict` and
/// `token` at binary, category and subcategory level; `entity_overlap` is the lenient variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub documents: usize,
    /// Entities after exclusions.
    pub gold_entities: usize,
    pub predicted_entities: usize,
    /// Tokens (alphanumeric runs) in the gold texts.
    pub tokens: usize,
    pub excluded: Vec<String>,
    pub entity_strict: LevelScores,
    pub entity_overlap: LevelScores,
    pub token: LevelScores,
    /// Sorted by support (descending), then label.
    pub per_category: Vec<LabelRow>,
    pub per_subcategory: Vec<LabelRow>,
}

#[derive(Default)]
struct Tally {
    /// Per key: counts for strict, overlap, token.
    counts: BTreeMap<Key, [Counts; 3]>,
    /// Per key: gold and predicted entity counts.
    support: BTreeMap<Key, (usize, usize)>,
}

impl Tally {
    fn bump(&mut self, crit: usize, key: Key, c: Counts) {
        self.counts.entry(key).or_default()[crit].add(c);
    }
}

const TP: Counts = Counts {
    tp: 1,
    fp: 0,
    fn_: 0,
};
const FP: Counts = Counts {
    tp: 0,
    fp: 1,
    fn_: 0,
};
const FN: Counts = Counts {
    tp: 0,
    fp: 0,
    fn_: 1,
};

/// Compares predictions with gold, documents matched by id (each must be on both sides once,
/// with the same text).
pub fn evaluate(
    gold: &[Document],
    pred: &[Document],
    opts: &EvalOptions,
) -> Result<EvalReport, EvalError> {
    let pairs = pair_documents(gold, pred, "predictions")?;
    let mut tally = Tally::default();
    let (mut n_gold, mut n_pred, mut n_tokens) = (0, 0, 0);
    for (g, p) in pairs {
        if g.text != p.text {
            return Err(EvalError::TextMismatch {
                id: g.id.clone(),
                side: "predictions",
                gold_len: g.text.len(),
                other_len: p.text.len(),
            });
        }
        let gs = checked_spans(g, "gold", opts)?;
        let ps = checked_spans(p, "predictions", opts)?;
        let tokens = alnum_runs(&g.text);
        n_gold += gs.len();
        n_pred += ps.len();
        n_tokens += tokens.len();
        for level in Level::ALL {
            let key = |v: &Vec<(usize, usize, crate::Label)>| -> Vec<KSpan> {
                v.iter().map(|&(s, e, l)| (s, e, level.key(l))).collect()
            };
            let (gk, pk) = (key(&gs), key(&ps));
            for &(_, _, k) in &gk {
                tally.support.entry(k).or_default().0 += 1;
            }
            for &(_, _, k) in &pk {
                tally.support.entry(k).or_default().1 += 1;
            }
            strict(&gk, &pk, &mut tally);
            overlap(&gk, &pk, &mut tally);
            token(&tokens, &gk, &pk, &mut tally);
        }
    }
    Ok(build_report(
        gold.len(),
        n_gold,
        n_pred,
        n_tokens,
        opts,
        &tally,
    ))
}

/// Exact (start, end, key) matches, as multisets.
fn strict(gold: &[KSpan], pred: &[KSpan], tally: &mut Tally) {
    let mut open: HashMap<KSpan, usize> = HashMap::with_capacity(gold.len());
    for g in gold {
        *open.entry(*g).or_default() += 1;
    }
    for p in pred {
        match open.get_mut(p) {
            Some(n) if *n > 0 => {
                *n -= 1;
                tally.bump(STRICT, p.2, TP);
            }
            _ => tally.bump(STRICT, p.2, FP),
        }
    }
    for (g, n) in open {
        for _ in 0..n {
            tally.bump(STRICT, g.2, FN);
        }
    }
}

/// Same key and any character overlap; pairs taken greedily by largest overlap, each side used
/// at most once.
fn overlap(gold: &[KSpan], pred: &[KSpan], tally: &mut Tally) {
    let mut order: Vec<usize> = (0..pred.len()).collect();
    order.sort_by_key(|&i| pred[i].0);
    let max_len = pred.iter().map(|p| p.1 - p.0).max().unwrap_or(0);
    let mut cands: Vec<(usize, usize, usize)> = Vec::new();
    for (gi, g) in gold.iter().enumerate() {
        // A prediction overlapping g starts after g.start - max_len and before g.end.
        let lo = order.partition_point(|&i| pred[i].0 + max_len <= g.0);
        for &pi in order[lo..].iter().take_while(|&&i| pred[i].0 < g.1) {
            let p = &pred[pi];
            let ov = g.1.min(p.1).saturating_sub(g.0.max(p.0));
            if ov > 0 && p.2 == g.2 {
                cands.push((ov, gi, pi));
            }
        }
    }
    cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut g_used = vec![false; gold.len()];
    let mut p_used = vec![false; pred.len()];
    for (_, gi, pi) in cands {
        if !g_used[gi] && !p_used[pi] {
            g_used[gi] = true;
            p_used[pi] = true;
            tally.bump(OVERLAP, gold[gi].2, TP);
        }
    }
    for (g, used) in gold.iter().zip(&g_used) {
        if !used {
            tally.bump(OVERLAP, g.2, FN);
        }
    }
    for (p, used) in pred.iter().zip(&p_used) {
        if !used {
            tally.bump(OVERLAP, p.2, FP);
        }
    }
}

/// A token is positive for a key when it intersects a span with that key.
fn token(tokens: &[(usize, usize)], gold: &[KSpan], pred: &[KSpan], tally: &mut Tally) {
    let positives = |spans: &[KSpan]| {
        let mut v: Vec<(usize, Key)> = spans
            .iter()
            .flat_map(|&(s, e, k)| intersecting(tokens, s, e).map(move |t| (t, k)))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (g, p) = (positives(gold), positives(pred));
    let (mut i, mut j) = (0, 0);
    while i < g.len() || j < p.len() {
        match (g.get(i), p.get(j)) {
            (Some(a), Some(b)) if a == b => {
                tally.bump(TOKEN, a.1, TP);
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a < b => {
                tally.bump(TOKEN, a.1, FN);
                i += 1;
            }
            (Some(a), None) => {
                tally.bump(TOKEN, a.1, FN);
                i += 1;
            }
            (_, Some(b)) => {
                tally.bump(TOKEN, b.1, FP);
                j += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
}

fn build_report(
    documents: usize,
    gold_entities: usize,
    predicted_entities: usize,
    tokens: usize,
    opts: &EvalOptions,
    tally: &Tally,
) -> EvalReport {
    let mut micro: [[Counts; 3]; 3] = Default::default();
    for (key, counts) in &tally.counts {
        let level = key.level() as usize;
        for crit in [STRICT, OVERLAP, TOKEN] {
            micro[crit][level].add(counts[crit]);
        }
    }
    let scores = |crit: usize| {
        let mut s = LevelScores::default();
        for level in Level::ALL {
            *s.get_mut(level) = Score::of(micro[crit][level as usize]);
        }
        s
    };
    let rows = |level: Level| {
        let mut rows: Vec<LabelRow> = tally
            .counts
            .iter()
            .filter(|(k, _)| k.level() == level)
            .map(|(k, c)| {
                let (support, predicted) = tally.support.get(k).copied().unwrap_or_default();
                LabelRow {
                    label: k.to_string(),
                    support,
                    predicted,
                    strict: Score::of(c[STRICT]),
                    overlap: Score::of(c[OVERLAP]),
                    token: Score::of(c[TOKEN]),
                }
            })
            .collect();
        rows.sort_by(|a, b| b.support.cmp(&a.support).then(a.label.cmp(&b.label)));
        rows
    };
    EvalReport {
        documents,
        gold_entities,
        predicted_entities,
        tokens,
        excluded: opts.exclude.iter().map(|l| l.to_string()).collect(),
        entity_strict: scores(STRICT),
        entity_overlap: scores(OVERLAP),
        token: scores(TOKEN),
        per_category: rows(Level::Category),
        per_subcategory: rows(Level::Subcategory),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category as C, Label, Subtype as S};
    use crate::span::Entity;

    /// A document with entities given as (surface, occurrence, label).
    fn doc(id: &str, text: &str, spans: &[(&str, usize, Label)]) -> Document {
        let mut d = Document::new(id, text);
        for &(surface, nth, label) in spans {
            let start = text
                .match_indices(surface)
                .nth(nth)
                .unwrap_or_else(|| panic!("{surface}"))
                .0;
            d.entities
                .push(Entity::new(start, start + surface.len(), label, "t", 1.0));
        }
        d
    }

    const PAT: Label = Label::new(C::Name, S::Patient);
    const DOC: Label = Label::new(C::Name, S::Doctor);
    const CITY: Label = Label::new(C::Location, S::City);
    const DATE: Label = Label::new(C::Date, S::Date);
    const DATE_ANY: Label = Label::category_only(C::Date);
    const SEX: Label = Label::new(C::Other, S::Sex);

    fn counts(s: &Score) -> (usize, usize, usize) {
        (s.tp, s.fp, s.fn_)
    }

    #[test]
    fn strict_overlap_and_token_differ_at_every_level() {
        let text = "Ana Ruiz vive en Madrid desde 2020.";
        let gold = doc(
            "d1",
            text,
            &[("Ana Ruiz", 0, PAT), ("Madrid", 0, CITY), ("2020", 0, DATE)],
        );
        let pred = doc(
            "d1",
            text,
            &[
                ("Ruiz", 0, DOC),
                ("Madrid", 0, CITY),
                ("desde 2020", 0, DATE_ANY),
            ],
        );
        let r = evaluate(&[gold], &[pred], &EvalOptions::default()).unwrap();
        use Level::*;
        // (criterion, level, (tp, fp, fn)), worked out by hand.
        let want: &[(&LevelScores, Level, (usize, usize, usize))] = &[
            (&r.entity_strict, Binary, (1, 2, 2)),
            (&r.entity_strict, Category, (1, 2, 2)),
            (&r.entity_strict, Subcategory, (1, 2, 2)),
            (&r.entity_overlap, Binary, (3, 0, 0)),
            (&r.entity_overlap, Category, (3, 0, 0)),
            // NAME/PATIENT vs NAME/DOCTOR, and DATE/DATE vs unspecified DATE, do not match.
            (&r.entity_overlap, Subcategory, (1, 2, 2)),
            // Tokens: gold Ana Ruiz Madrid 2020; predicted Ruiz Madrid desde 2020.
            (&r.token, Binary, (3, 1, 1)),
            (&r.token, Category, (3, 1, 1)),
            (&r.token, Subcategory, (1, 3, 3)),
        ];
        for (i, (scores, level, c)) in want.iter().enumerate() {
            assert_eq!(counts(scores.get(*level)), *c, "row {i} ({level:?})");
        }
        let s = r.token.binary;
        assert!((s.precision - 0.75).abs() < 1e-12 && (s.f1 - 0.75).abs() < 1e-12);
        let s = r.entity_strict.binary;
        assert!((s.precision - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!((r.gold_entities, r.predicted_entities, r.tokens), (3, 3, 7));

        // Per-label rows: ties in support are ordered by label.
        let cats: Vec<(&str, usize, usize)> = r
            .per_category
            .iter()
            .map(|row| (row.label.as_str(), row.support, row.predicted))
            .collect();
        assert_eq!(cats, [("DATE", 1, 1), ("LOCATION", 1, 1), ("NAME", 1, 1)]);
        let name = &r.per_category[2];
        assert_eq!(counts(&name.strict), (0, 1, 1));
        assert_eq!(counts(&name.overlap), (1, 0, 0));
        assert_eq!(counts(&name.token), (1, 0, 1));
        let subs: Vec<(&str, usize, usize)> = r
            .per_subcategory
            .iter()
            .map(|row| (row.label.as_str(), row.support, row.predicted))
            .collect();
        assert_eq!(
            subs,
            [
                ("DATE/DATE", 1, 0),
                ("LOCATION/CITY", 1, 1),
                ("NAME/PATIENT", 1, 0),
                ("DATE/UNSPECIFIED", 0, 1),
                ("NAME/DOCTOR", 0, 1),
            ]
        );
        let unspecified = &r.per_subcategory[3];
        assert_eq!(counts(&unspecified.token), (0, 2, 0));
        assert_eq!(counts(&unspecified.overlap), (0, 1, 0));
    }

    #[test]
    fn overlap_matching_is_one_to_one_and_greedy_by_largest_overlap() {
        let text = "Ana Ruiz Gil";
        // One prediction across two gold names: one match, one miss.
        let gold = doc("a", text, &[("Ana", 0, PAT), ("Ruiz", 0, PAT)]);
        let pred = doc("a", text, &[("Ana Ruiz", 0, PAT)]);
        let r = evaluate(
            std::slice::from_ref(&gold),
            std::slice::from_ref(&pred),
            &EvalOptions::default(),
        )
        .unwrap();
        assert_eq!(counts(&r.entity_overlap.subcategory), (1, 0, 1));
        assert_eq!(counts(&r.entity_strict.subcategory), (0, 1, 2));
        assert_eq!(counts(&r.token.subcategory), (2, 0, 0));
        // Swapped roles: two predictions inside one gold name.
        let r = evaluate(&[pred], &[gold], &EvalOptions::default()).unwrap();
        assert_eq!(counts(&r.entity_overlap.subcategory), (1, 1, 0));

        // Greedy by size: P2 takes A (overlap 7), so P1 can take B (overlap 3) instead of A.
        let text = "abcdefghijklmn";
        let span = |s: usize, e: usize| Entity::new(s, e, CITY, "t", 1.0);
        let mut g = Document::new("b", text);
        g.entities = vec![span(0, 8), span(8, 11)];
        let mut p = Document::new("b", text);
        p.entities = vec![span(6, 11), span(0, 7)];
        let r = evaluate(&[g], &[p], &EvalOptions::default()).unwrap();
        assert_eq!(counts(&r.entity_overlap.binary), (2, 0, 0));
    }

    #[test]
    fn exclusions_remove_labels_from_both_sides() {
        let text = "Mujer de 40 años, Ana Ruiz, atendida por Gil.";
        let gold = doc(
            "x",
            text,
            &[("Mujer", 0, SEX), ("Ana Ruiz", 0, PAT), ("Gil", 0, DOC)],
        );
        let pred = doc(
            "x",
            text,
            &[("Ana Ruiz", 0, PAT), ("Gil", 0, DOC), ("40", 0, SEX)],
        );
        let plain = evaluate(
            std::slice::from_ref(&gold),
            std::slice::from_ref(&pred),
            &EvalOptions::default(),
        )
        .unwrap();
        assert_eq!(counts(&plain.entity_strict.binary), (2, 1, 1));
        let no_sex = EvalOptions { exclude: vec![SEX] };
        let r = evaluate(
            std::slice::from_ref(&gold),
            std::slice::from_ref(&pred),
            &no_sex,
        )
        .unwrap();
        assert_eq!(counts(&r.entity_strict.subcategory), (2, 0, 0));
        assert_eq!(counts(&r.token.binary), (3, 0, 0));
        assert_eq!(r.excluded, ["OTHER/SEX"]);
        assert!(r.per_category.iter().all(|row| row.label != "OTHER"));
        // A category-only label drops the whole category.
        let no_names = EvalOptions {
            exclude: vec![Label::category_only(C::Name)],
        };
        let r = evaluate(
            std::slice::from_ref(&gold),
            std::slice::from_ref(&pred),
            &no_names,
        )
        .unwrap();
        assert_eq!((r.gold_entities, r.predicted_entities), (1, 1));
        assert_eq!(counts(&r.entity_strict.binary), (0, 1, 1));
        // A subtype label drops only that subtype.
        let no_doctors = EvalOptions { exclude: vec![DOC] };
        let r = evaluate(&[gold], &[pred], &no_doctors).unwrap();
        assert_eq!((r.gold_entities, r.predicted_entities), (2, 2));
    }

    #[test]
    fn multiple_documents_sum_and_unpaired_documents_fail() {
        let a = doc("a", "Ana vino.", &[("Ana", 0, PAT)]);
        let b = doc("b", "Gil vino.", &[("Gil", 0, DOC)]);
        let b_empty = Document::new("b", "Gil vino.");
        // Prediction order does not matter.
        let r = evaluate(
            &[a.clone(), b.clone()],
            &[b_empty.clone(), a.clone()],
            &EvalOptions::default(),
        )
        .unwrap();
        assert_eq!(r.documents, 2);
        assert_eq!(counts(&r.entity_strict.binary), (1, 0, 1));
        assert!((r.entity_strict.binary.recall - 0.5).abs() < 1e-12);

        let opts = EvalOptions::default();
        let cases: Vec<(Vec<Document>, Vec<Document>, &str)> = vec![
            (
                vec![a.clone(), b.clone()],
                vec![a.clone()],
                "'b' is in the gold set but not",
            ),
            (
                vec![a.clone()],
                vec![a.clone(), b.clone()],
                "'b' is in the predictions but not",
            ),
            (
                vec![a.clone(), a.clone()],
                vec![a.clone()],
                "'a' appears more than once",
            ),
            (
                vec![a.clone()],
                vec![Document::new("a", "Eva vino.")],
                "gold text and predictions text differ",
            ),
        ];
        for (g, p, want) in cases {
            let e = evaluate(&g, &p, &opts).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        let text = "Pérez vino.";
        let mut bad = Document::new("c", text);
        bad.entities.push(Entity::new(0, 2, PAT, "t", 1.0)); // inside 'é'
        let e = evaluate(&[Document::new("c", text)], &[bad], &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'c' (predictions): span 0-2"), "{e}");
        assert!(!e.contains("Pérez"), "no text in errors: {e}");
    }

    #[test]
    fn empty_inputs_give_zero_scores_and_the_table_prints() {
        let r = evaluate(&[], &[], &EvalOptions::default()).unwrap();
        assert_eq!(r.entity_strict.binary, Score::default());
        let text = "Ana vino.";
        let g = doc("a", text, &[("Ana", 0, PAT)]);
        let r = evaluate(
            std::slice::from_ref(&g),
            std::slice::from_ref(&g),
            &EvalOptions { exclude: vec![SEX] },
        )
        .unwrap();
        let table = r.to_table();
        assert!(
            table.contains("entity strict    subcategory  1.0000 1.0000 1.0000"),
            "{table}"
        );
        assert!(table.contains("NAME/PATIENT"), "{table}");
        assert!(table.contains("excluded: OTHER/SEX"), "{table}");
        assert!(!table.contains("Ana"), "no text in the table");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["entity_strict"]["binary"]["fn"], 0);
        assert_eq!(json["per_category"][0]["label"], "NAME");
        let back: EvalReport = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
    }

    /// MEDDOCAN dev gold, read in place: against itself, then against predictable perturbations.
    #[test]
    fn meddocan_dev_gold_against_itself_and_perturbed() {
        let Some(dir) = crate::testdata::meddocan_split("dev") else {
            return;
        };
        let dir = dir.as_path();
        let map = crate::labelmap::LabelMap::builtin("meddocan").unwrap();
        let resolver = map.resolver();
        let gold: Vec<Document> = crate::corpus::brat::list_documents(dir)
            .unwrap()
            .iter()
            .map(|p| crate::corpus::brat::read_document(p, &resolver).unwrap())
            .collect();
        let opts = EvalOptions { exclude: vec![SEX] };
        let n: usize = gold
            .iter()
            .flat_map(|d| &d.entities)
            .filter(|e| e.label != SEX)
            .count();
        assert!(n > 5000, "{n} entities");

        let all = |r: &EvalReport, want: f64| {
            for s in [&r.entity_strict, &r.entity_overlap, &r.token] {
                for level in Level::ALL {
                    let sc = s.get(level);
                    assert_eq!(
                        (sc.precision, sc.recall, sc.f1),
                        (want, want, want),
                        "{level:?}"
                    );
                }
            }
        };
        let r = evaluate(&gold, &gold, &opts).unwrap();
        all(&r, 1.0);
        assert_eq!(r.gold_entities, n);
        assert_eq!(
            r.per_category.iter().map(|row| row.support).sum::<usize>(),
            n
        );

        let perturb = |f: &dyn Fn(usize, &str, &mut Entity) -> bool| -> (Vec<Document>, usize) {
            let mut changed = 0;
            let mut i = 0;
            let docs = gold
                .iter()
                .map(|d| {
                    let mut d = d.clone();
                    let text = d.text.clone();
                    d.entities.retain_mut(|e| {
                        if e.label == SEX {
                            return true;
                        }
                        i += 1;
                        let before = e.clone();
                        let keep = f(i, &text, e);
                        changed += usize::from(!keep || *e != before);
                        keep
                    });
                    d
                })
                .collect();
            (docs, changed)
        };

        // Patients called doctors: only the subcategory level notices.
        let (pred, p) = perturb(&|_, _, e| {
            if e.label == PAT {
                e.label = DOC;
            }
            true
        });
        let r = evaluate(&gold, &pred, &opts).unwrap();
        assert!(p > 400, "{p}");
        for s in [&r.entity_strict, &r.entity_overlap] {
            assert_eq!(counts(&s.subcategory), (n - p, p, p));
            assert_eq!(s.category.f1, 1.0);
            assert_eq!(s.binary.f1, 1.0);
        }
        assert_eq!(r.token.category.f1, 1.0);
        assert!(r.token.subcategory.f1 < 1.0);

        // Every 7th entity dropped: recall falls by exactly the dropped share; precision stays.
        let (pred, d) = perturb(&|i, _, _| i % 7 != 0);
        assert_eq!(d, n / 7);
        let r = evaluate(&gold, &pred, &opts).unwrap();
        for s in [&r.entity_strict, &r.entity_overlap] {
            for level in Level::ALL {
                assert_eq!(counts(s.get(level)), (n - d, 0, d), "{level:?}");
            }
        }
        assert_eq!(r.token.subcategory.precision, 1.0);
        assert!(r.token.subcategory.recall < 1.0);

        // Every 5th entity of 2+ characters starts one character later: strict fails on exactly
        // those, overlap still matches all of them.
        let (pred, s) = perturb(&|i, text, e| {
            if i % 5 == 0 {
                if let Some(c) = text[e.start..e.end].chars().next() {
                    if e.start + c.len_utf8() < e.end {
                        e.start += c.len_utf8();
                    }
                }
            }
            true
        });
        assert!(s > 900, "{s}");
        let r = evaluate(&gold, &pred, &opts).unwrap();
        for level in Level::ALL {
            assert_eq!(
                counts(r.entity_strict.get(level)),
                (n - s, s, s),
                "{level:?}"
            );
            assert_eq!(counts(r.entity_overlap.get(level)), (n, 0, 0), "{level:?}");
        }
    }
}
