//! The harvest: tokens predicted at name slots gathered per vocabulary id, judged for
//! name-likeness (`crate::vocab::namelike`) and turned into review rows a person can edit.

use std::collections::BTreeMap;

use super::ordinary::{is_alphabet_piece, OrdinaryUses};
use super::review::{Decision, ReviewRow};
use crate::vocab::namelike::{
    assess, Assessment, Evidence, InNameCounts, NameLists, SubwordKind, Surface, Weights,
};

/// One prediction at one probe slot.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictedToken {
    pub id: u32,
    pub token: String,
    /// 1 = the model's first choice.
    pub rank: usize,
    pub prob: f64,
}

/// A vocabulary entry the probes brought up, with what the probes said about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Harvested {
    pub id: u32,
    pub token: String,
    /// Slots at which it was among the top-k.
    pub slots: usize,
    pub best_rank: usize,
    pub max_prob: f64,
}

/// Gathers predictions by id (slots counted once per prediction line).
pub fn gather<'a>(predictions: impl IntoIterator<Item = &'a PredictedToken>) -> Vec<Harvested> {
    let mut by_id: BTreeMap<u32, Harvested> = BTreeMap::new();
    for p in predictions {
        let h = by_id.entry(p.id).or_insert_with(|| Harvested {
            id: p.id,
            token: p.token.clone(),
            slots: 0,
            best_rank: usize::MAX,
            max_prob: 0.0,
        });
        h.slots += 1;
        h.best_rank = h.best_rank.min(p.rank);
        h.max_prob = h.max_prob.max(p.prob);
    }
    by_id.into_values().collect()
}

/// What the judgement draws on.
pub struct Judge<'a> {
    pub kind: SubwordKind,
    /// Name lists; None switches list evidence off.
    pub lists: Option<&'a NameLists>,
    /// In-name counts of the original corpus; None when no corpus was given.
    pub counts: Option<&'a InNameCounts>,
    pub lowercased: bool,
    pub weights: Weights,
    /// Uses of each piece in ordinary words of the corpus; None when no corpus was given.
    pub ordinary: Option<&'a OrdinaryUses>,
}

impl Judge<'_> {
    /// The name-likeness of vocabulary entry `token` (id `id`) on the evidence at hand.
    pub fn assess(&self, id: u32, token: &str) -> Assessment {
        let surface = Surface::of(token, self.kind);
        let evidence = Evidence {
            list: self.lists.and_then(|l| l.lookup(&surface.text)),
            corpus: self.counts.map(|c| (c.get(id), c.log_ratio(id))),
            surface,
            lowercased: self.lowercased,
        };
        assess(&evidence, &self.weights)
    }

    /// A review row for a harvested token: score, evidence (terms and probe figures) and the
    /// proposed decision.
    pub fn review_row(&self, h: &Harvested) -> ReviewRow {
        let a = self.assess(h.id, &h.token);
        let needed = self.ordinary_need(h.id, &h.token);
        let probe = if h.slots > 0 {
            format!(
                "probe: {} slots, best rank {}, max p {:.3}",
                h.slots, h.best_rank, h.max_prob
            )
        } else {
            "probe: not predicted".to_string()
        };
        let terms = a.evidence_line();
        let mut evidence = if terms.is_empty() {
            probe
        } else {
            format!("{terms}; {probe}")
        };
        if let Some(why) = &needed {
            evidence = format!("kept: {why}; {evidence}");
        }
        ReviewRow {
            token: h.token.clone(),
            id: h.id,
            score: (a.score * 100.0).round() / 100.0,
            evidence,
            decision: if a.remove && needed.is_none() {
                Decision::Remove
            } else {
                Decision::Keep
            },
        }
    }

    /// Why ordinary words need this piece (so it is never proposed), or None.
    pub fn ordinary_need(&self, id: u32, token: &str) -> Option<String> {
        let surface = Surface::of(token, self.kind);
        if is_alphabet_piece(Some(&surface.text)) {
            return Some("a single character: ordinary words need it".into());
        }
        let uses = self.ordinary.map_or(0, |o| o.get(id));
        (uses > 0).then(|| format!("{uses} uses in ordinary words of the corpus"))
    }
}

/// Review rows, most name-like first (ties by id, so the file is deterministic).
pub fn review_rows(judge: &Judge<'_>, harvested: &[Harvested]) -> Vec<ReviewRow> {
    let mut rows: Vec<ReviewRow> = harvested.iter().map(|h| judge.review_row(h)).collect();
    rows.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: u32, token: &str, rank: usize, prob: f64) -> PredictedToken {
        PredictedToken {
            id,
            token: token.into(),
            rank,
            prob,
        }
    }

    #[test]
    fn gathers_by_id_and_ranks_name_like_first() {
        let preds = vec![
            p(7, "ĠJansen", 3, 0.1),
            p(9, "Ġ.", 1, 0.5),
            p(7, "ĠJansen", 1, 0.3),
            p(12, "Ġpatiënt", 2, 0.2),
        ];
        let h = gather(&preds);
        assert_eq!(h.len(), 3);
        assert_eq!((h[0].id, h[0].slots, h[0].best_rank), (7, 2, 1));
        assert!((h[0].max_prob - 0.3).abs() < 1e-12);
        let lists = NameLists::builtin().unwrap();
        let judge = Judge {
            kind: SubwordKind::ByteLevelBpe,
            lists: Some(&lists),
            counts: None,
            lowercased: false,
            weights: Weights::default(),
            ordinary: None,
        };
        let rows = review_rows(&judge, &h);
        assert_eq!(rows[0].id, 7);
        assert_eq!(rows[0].decision, Decision::Remove);
        assert!(rows[0].evidence.contains("probe: 2 slots, best rank 1"));
        assert!(rows[1..].iter().all(|r| r.decision == Decision::Keep));
    }

    #[test]
    fn pieces_ordinary_words_need_are_never_proposed() {
        let lists = NameLists::builtin().unwrap();
        let mut ordinary = OrdinaryUses::default();
        ordinary.add_for_test(7, 2);
        let judge = Judge {
            kind: SubwordKind::ByteLevelBpe,
            lists: Some(&lists),
            counts: None,
            lowercased: false,
            weights: Weights::default(),
            ordinary: Some(&ordinary),
        };
        let h = gather(&[
            p(7, "ĠJansen", 1, 0.4),
            p(8, "x", 1, 0.4),
            p(9, "ĠBakker", 1, 0.4),
        ]);
        let rows = review_rows(&judge, &h);
        let row = |id: u32| rows.iter().find(|r| r.id == id).unwrap();
        assert_eq!(row(7).decision, Decision::Keep);
        assert!(row(7)
            .evidence
            .starts_with("kept: 2 uses in ordinary words"));
        assert_eq!(row(8).decision, Decision::Keep);
        assert!(row(8).evidence.starts_with("kept: a single character"));
        assert_eq!(row(9).decision, Decision::Remove);
    }
}
