//! Probe metrics per set (seen, unseen, user): how often a model predicts name-like tokens at
//! name slots and how high, and whether it recovers the original; counts with exact 95%
//! intervals, never a token or a name.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::recovery::Recovery;
use super::run::{ProbeResult, RankedPrediction};
use crate::stats::{sign_test, Proportion};

/// The figures of one set of slots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetMetrics {
    /// `seen`, `unseen`, `user`, or `all` (every slot of every set).
    pub set: String,
    pub slots: u64,
    /// Most predictions counted at one slot (the k of top-k).
    pub top_k: usize,
    /// Name-like predictions among all predictions counted (the paper's "share of name-like
    /// predictions in the top-k").
    pub name_like_predictions: Proportion,
    /// Slots with at least one name-like prediction.
    pub slots_with_name_like: Proportion,
    /// Slots whose first prediction is name-like.
    pub top1_name_like: Proportion,
    /// Best (lowest) rank of a name-like prediction over the set.
    pub best_name_like_rank: Option<usize>,
    /// Median over slots with a name-like prediction of that slot's best rank.
    pub median_best_name_like_rank: Option<f64>,
    /// Distinct vocabulary entries among the name-like predictions.
    pub distinct_name_like_tokens: usize,
    /// Present when some slot of the set carries recovery figures (`probe run --originals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<RecoveryMetrics>,
}

/// Recovery of the original name over the slots that carry recovery figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveryMetrics {
    pub slots: u64,
    /// The original is one of the counted predictions.
    pub in_top_k: Proportion,
    /// Slots whose original the vocabulary can spell (those with a PLL rank).
    pub ranked: u64,
    /// The original has the best pseudo-log-likelihood of all candidates.
    pub pll_rank_first: Proportion,
    /// What `pll_rank_first` would be if all candidates were equally likely: the mean of
    /// 1 / candidates. Candidates differ in length and frequency, so a model that never saw
    /// the names can beat it: compare with a reference model (`reference`).
    pub uniform_rank_first: Option<f64>,
    pub median_pll_rank: Option<f64>,
    pub median_candidates: Option<f64>,
    /// Mean of (rank − 1) / (candidates − 1): 0 when the original always ranks first, about
    /// 0.5 when the model knows nothing about it.
    pub mean_rank_percentile: Option<f64>,
    /// The same slots in a run of a reference model (one that never saw the names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceComparison>,
}

/// The original's PLL rank under the probed model against a reference model, slot by slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceComparison {
    /// Slots ranked by both models.
    pub slots: u64,
    /// The reference model's rate of ranking the original first on those slots.
    pub reference_rank_first: Proportion,
    /// The probed model's rate on the same slots.
    pub model_rank_first: Proportion,
    /// Slots where the probed model ranks the original better than the reference does.
    pub model_better: u64,
    pub reference_better: u64,
    pub ties: u64,
    /// Exact two-sided sign test of `model_better` against `reference_better`.
    pub sign_test_p: Option<f64>,
}

/// What the metrics are computed with.
pub struct MetricsSettings<'a> {
    /// Count only predictions of this rank or better.
    pub top_k: Option<usize>,
    /// Whether a predicted vocabulary entry is name-like.
    pub name_like: &'a dyn Fn(&RankedPrediction) -> bool,
    /// Recovery figures of a reference model's run, by slot id (empty: no comparison).
    pub reference: &'a HashMap<String, Recovery>,
}

/// Metrics per set present in `results` (seen, unseen, user order), then `all` when there is
/// more than one set.
pub fn probe_metrics(results: &[ProbeResult], settings: &MetricsSettings<'_>) -> Vec<SetMetrics> {
    let mut by_set: BTreeMap<_, Vec<&ProbeResult>> = BTreeMap::new();
    for r in results {
        by_set.entry(r.set).or_default().push(r);
    }
    let mut out: Vec<SetMetrics> = by_set
        .iter()
        .map(|(set, rs)| set_metrics(set.as_str(), rs, settings))
        .collect();
    if by_set.len() > 1 {
        let all: Vec<&ProbeResult> = results.iter().collect();
        out.push(set_metrics("all", &all, settings));
    }
    out
}

fn set_metrics(set: &str, results: &[&ProbeResult], settings: &MetricsSettings<'_>) -> SetMetrics {
    let (top_k, name_like) = (settings.top_k, settings.name_like);
    let mut counted = 0u64;
    let mut name_like_count = 0u64;
    let mut slots_with = 0u64;
    let mut top1 = 0u64;
    let mut most = 0usize;
    let mut best_ranks: Vec<f64> = Vec::new();
    let mut distinct: HashSet<u32> = HashSet::new();
    for r in results {
        let kept: Vec<&RankedPrediction> = r
            .predictions
            .iter()
            .filter(|p| top_k.is_none_or(|k| p.rank <= k))
            .collect();
        most = most.max(kept.len());
        counted += kept.len() as u64;
        let mut best: Option<usize> = None;
        for p in kept {
            if name_like(p) {
                name_like_count += 1;
                distinct.insert(p.id);
                best = Some(best.map_or(p.rank, |b| b.min(p.rank)));
            }
        }
        if let Some(b) = best {
            slots_with += 1;
            best_ranks.push(b as f64);
            if b == 1 {
                top1 += 1;
            }
        }
    }
    let slots = results.len() as u64;
    SetMetrics {
        set: set.to_string(),
        slots,
        top_k: most,
        name_like_predictions: Proportion::new(name_like_count, counted),
        slots_with_name_like: Proportion::new(slots_with, slots),
        top1_name_like: Proportion::new(top1, slots),
        best_name_like_rank: best_ranks.iter().map(|&r| r as usize).min(),
        median_best_name_like_rank: median(&mut best_ranks),
        distinct_name_like_tokens: distinct.len(),
        recovery: recovery_metrics(results, top_k, settings.reference),
    }
}

fn recovery_metrics(
    results: &[&ProbeResult],
    top_k: Option<usize>,
    reference: &HashMap<String, Recovery>,
) -> Option<RecoveryMetrics> {
    let with: Vec<&ProbeResult> = results
        .iter()
        .copied()
        .filter(|r| r.recovery.is_some())
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut in_top_k = 0u64;
    let mut first = 0u64;
    let mut ranks = Vec::new();
    let mut candidates = Vec::new();
    let mut chance = Vec::new();
    let mut percentiles = Vec::new();
    for r in &with {
        let rec = r.recovery.as_ref().expect("filtered");
        // With a smaller k the original counts only when it is a kept prediction; files
        // written before ranks were recorded count it at any k.
        let found = rec.in_top_k
            && match (top_k, rec.top_k_rank) {
                (Some(k), Some(rank)) => rank <= k,
                _ => true,
            };
        in_top_k += u64::from(found);
        if let Some(rank) = rec.pll_rank {
            first += u64::from(rank == 1);
            ranks.push(rank as f64);
            let n = rec.n_candidates.max(1);
            candidates.push(n as f64);
            chance.push(1.0 / n as f64);
            if n > 1 {
                percentiles.push((rank - 1) as f64 / (n - 1) as f64);
            }
        }
    }
    Some(RecoveryMetrics {
        slots: with.len() as u64,
        in_top_k: Proportion::new(in_top_k, with.len() as u64),
        ranked: ranks.len() as u64,
        pll_rank_first: Proportion::new(first, ranks.len() as u64),
        uniform_rank_first: mean(&chance),
        median_pll_rank: median(&mut ranks),
        median_candidates: median(&mut candidates),
        mean_rank_percentile: mean(&percentiles),
        reference: compare_with_reference(&with, reference),
    })
}

fn compare_with_reference(
    results: &[&ProbeResult],
    reference: &HashMap<String, Recovery>,
) -> Option<ReferenceComparison> {
    let pairs: Vec<(usize, usize)> = results
        .iter()
        .filter_map(|r| {
            let model = r.recovery.as_ref()?.pll_rank?;
            let reference = reference.get(&r.slot_id)?.pll_rank?;
            Some((model, reference))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as u64;
    let count = |f: &dyn Fn(&(usize, usize)) -> bool| pairs.iter().filter(|p| f(p)).count() as u64;
    let model_better = count(&|(m, r)| m < r);
    let reference_better = count(&|(m, r)| m > r);
    Some(ReferenceComparison {
        slots: n,
        reference_rank_first: Proportion::new(count(&|p| p.1 == 1), n),
        model_rank_first: Proportion::new(count(&|p| p.0 == 1), n),
        model_better,
        reference_better,
        ties: n - model_better - reference_better,
        sign_test_p: sign_test(model_better, reference_better),
    })
}

fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{Recovery, SetKind};

    fn pred(rank: usize, token: &str) -> RankedPrediction {
        RankedPrediction {
            rank,
            token: token.into(),
            id: token.bytes().map(u32::from).sum(),
            text: token.into(),
            prob: 0.1,
        }
    }

    fn slot(set: SetKind, tokens: &[&str], recovery: Option<Recovery>) -> ProbeResult {
        ProbeResult {
            slot_id: format!("d#{}", tokens.join("")),
            set,
            doc_id: Some("d".into()),
            label: None,
            subtype: None,
            predictions: tokens
                .iter()
                .enumerate()
                .map(|(i, t)| pred(i + 1, t))
                .collect(),
            recovery,
        }
    }

    fn rec(top_k_rank: Option<usize>, pll_rank: Option<usize>, n: usize) -> Option<Recovery> {
        Some(Recovery {
            in_top_k: top_k_rank.is_some(),
            top_k_rank,
            pll_rank,
            n_candidates: n,
            n_pieces: 1,
        })
    }

    /// Upper-case first letter = name-like, for these tests.
    fn capital(p: &RankedPrediction) -> bool {
        p.text.starts_with(|c: char| c.is_uppercase())
    }

    fn none() -> HashMap<String, Recovery> {
        HashMap::new()
    }

    fn settings(
        top_k: Option<usize>,
        reference: &HashMap<String, Recovery>,
    ) -> MetricsSettings<'_> {
        MetricsSettings {
            top_k,
            name_like: &capital,
            reference,
        }
    }

    #[test]
    fn counts_by_hand() {
        let results = vec![
            slot(
                SetKind::Seen,
                &["de", "Jan", "het", "Piet"],
                rec(Some(2), Some(1), 11),
            ),
            slot(
                SetKind::Seen,
                &["Anna", "de", "een", "zijn"],
                rec(None, Some(6), 11),
            ),
            slot(
                SetKind::Seen,
                &["de", "een", "het", "zijn"],
                rec(None, None, 11),
            ),
            slot(SetKind::Unseen, &["de", "een", "het", "zijn"], None),
            slot(SetKind::Unseen, &["de", "een", "het", "Jan"], None),
        ];
        let m = probe_metrics(&results, &settings(None, &none()));
        assert_eq!(
            m.iter().map(|s| s.set.as_str()).collect::<Vec<_>>(),
            ["seen", "unseen", "all"]
        );
        let seen = &m[0];
        assert_eq!((seen.slots, seen.top_k), (3, 4));
        // Jan, Piet, Anna: 3 of 12 predictions; 2 of 3 slots; one slot with a name first.
        assert_eq!(seen.name_like_predictions.successes, 3);
        assert_eq!(seen.name_like_predictions.trials, 12);
        assert_eq!(seen.name_like_predictions.estimate, Some(0.25));
        assert_eq!(
            (
                seen.slots_with_name_like.successes,
                seen.top1_name_like.successes
            ),
            (2, 1)
        );
        assert_eq!(seen.best_name_like_rank, Some(1));
        // Best ranks per slot 2 and 1: median 1.5.
        assert_eq!(seen.median_best_name_like_rank, Some(1.5));
        assert_eq!(seen.distinct_name_like_tokens, 3);
        let r = seen.recovery.as_ref().unwrap();
        assert_eq!((r.slots, r.in_top_k.successes, r.ranked), (3, 1, 2));
        assert_eq!(r.pll_rank_first.successes, 1);
        assert_eq!(r.median_pll_rank, Some(3.5));
        assert_eq!(r.uniform_rank_first, Some(1.0 / 11.0));
        assert!(r.reference.is_none());
        // (0/10 + 5/10) / 2
        assert_eq!(r.mean_rank_percentile, Some(0.25));

        let unseen = &m[1];
        assert_eq!(unseen.name_like_predictions.successes, 1);
        assert_eq!(unseen.best_name_like_rank, Some(4));
        assert!(unseen.recovery.is_none());
        let all = &m[2];
        assert_eq!((all.slots, all.name_like_predictions.trials), (5, 20));
        assert_eq!(all.name_like_predictions.successes, 4);
        assert_eq!(all.distinct_name_like_tokens, 3);
    }

    #[test]
    fn a_smaller_k_drops_lower_ranks_and_recoveries_found_there() {
        let results = vec![
            slot(
                SetKind::Seen,
                &["de", "Jan", "het", "Piet"],
                rec(Some(4), Some(1), 11),
            ),
            slot(SetKind::Seen, &["de", "een", "het", "zijn"], None),
        ];
        let m = probe_metrics(&results, &settings(Some(2), &none()));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].top_k, 2);
        assert_eq!(m[0].name_like_predictions.successes, 1);
        assert_eq!(m[0].name_like_predictions.trials, 4);
        assert_eq!(m[0].recovery.as_ref().unwrap().in_top_k.successes, 0);
        let m = probe_metrics(&results, &settings(Some(4), &none()));
        assert_eq!(m[0].recovery.as_ref().unwrap().in_top_k.successes, 1);
    }

    #[test]
    fn no_name_like_prediction_gives_zero_with_an_upper_bound() {
        let results: Vec<ProbeResult> = (0..50)
            .map(|_| slot(SetKind::User, &["de", "een"], None))
            .collect();
        let m = probe_metrics(&results, &settings(None, &none()));
        let p = &m[0].name_like_predictions;
        assert_eq!((p.successes, p.trials, p.estimate), (0, 100, Some(0.0)));
        assert_eq!(p.lower, Some(0.0));
        assert!(p.upper.unwrap() > 0.03 && p.upper.unwrap() < 0.04);
        assert_eq!(m[0].best_name_like_rank, None);
        assert_eq!(m[0].median_best_name_like_rank, None);
    }

    #[test]
    fn reference_comparison_pairs_slots_by_id() {
        let results: Vec<ProbeResult> = (0..12)
            .map(|i| {
                let mut r = slot(SetKind::Seen, &["de"], rec(None, Some(1 + i % 3), 10));
                r.slot_id = format!("d#{i}");
                r
            })
            .collect();
        // Reference ranks: 2 everywhere but slot 0 (no rank: unspellable) and slot 11 (absent).
        let mut reference = HashMap::new();
        for i in 0..11 {
            let pll = if i == 0 { None } else { Some(2) };
            reference.insert(format!("d#{i}"), rec(None, pll, 10).unwrap());
        }
        let m = probe_metrics(&results, &settings(None, &reference));
        let c = m[0].recovery.as_ref().unwrap().reference.clone().unwrap();
        // Slots 1..=10, model ranks 2,3,1,2,3,1,2,3,1,2 against 2.
        assert_eq!(c.slots, 10);
        assert_eq!((c.model_better, c.reference_better, c.ties), (3, 3, 4));
        assert_eq!(c.model_rank_first.successes, 3);
        assert_eq!(c.reference_rank_first.successes, 0);
        assert_eq!(c.sign_test_p, Some(1.0));
    }
}
