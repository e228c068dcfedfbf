//! Metrics of a membership-inference attack from its scores on members and non-members (higher
//! score = "member"): ROC curve, AUC with a DeLong 95% interval, TPR at fixed FPR with exact
//! and bootstrap intervals, attacker advantage, and the empirical epsilon lower bound. Examples may come in
//! clusters (sentences of one document): the AUC interval then accounts for their correlation.

use serde::{Deserialize, Deserializer, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use super::threshold_bootstrap::tpr_intervals;
use crate::stats::{clopper_pearson, Proportion};

/// A value with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub lower: f64,
    pub upper: f64,
}

/// One operating point: predict "member" when the score is at least `threshold`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RocPoint {
    /// +∞ at the curve's first point (JSON `null`).
    #[serde(deserialize_with = "null_as_infinity")]
    pub threshold: f64,
    pub fpr: f64,
    pub tpr: f64,
}

/// The true-positive rate at the most permissive threshold whose false-positive rate stays at or
/// below `target_fpr`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TprAtFpr {
    pub target_fpr: f64,
    /// +∞ when only the empty prediction keeps the FPR low enough (JSON `null`).
    #[serde(deserialize_with = "null_as_infinity")]
    pub threshold: f64,
    /// The TPR with its exact interval at this threshold (the threshold held fixed).
    pub tpr: Proportion,
    pub fpr: Proportion,
    /// 95% bootstrap interval of the TPR with the threshold chosen again in each resample
    /// (documents resampled whole when clustered): the interval to compare runs by. Absent from
    /// reports written before anonlm measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpr_bootstrap: Option<[f64; 2]>,
    /// Whether there are enough non-members to tell the target from zero (n ≥ 1/target).
    pub resolvable: bool,
}

/// Everything measured about one attack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttackMetrics {
    pub members: u64,
    pub non_members: u64,
    /// Distinct clusters (documents) behind the members and non-members, when the examples
    /// were clustered; the AUC interval is then the clustered one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<[u64; 2]>,
    /// Area under the ROC curve (ties count half), DeLong 95% interval clipped to [0, 1]
    /// (Obuchowski's clustered form when `clusters` is set).
    pub auc: Estimate,
    pub tpr_at_fpr: Vec<TprAtFpr>,
    /// max over thresholds of TPR − FPR; the interval combines the two rates' 97.5% exact
    /// intervals at that threshold (the threshold is chosen on the same scores: optimistic).
    pub advantage: Estimate,
    /// Largest ε that, at some threshold, the one-sided 97.5% exact bounds of TPR (lower) and
    /// FPR (upper), jointly 95%, show any ε-DP (δ = 0) claim about this training would have to
    /// reach; 0 when none. Thresholds are scanned on the same scores: optimistic.
    pub epsilon_lower_bound: f64,
    /// The ROC curve, thinned to at most a few hundred points for plots.
    pub roc: Vec<RocPoint>,
}

/// JSON has no infinity: serde_json writes +∞ as `null`; read it back as +∞.
fn null_as_infinity<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

/// Points of the ROC curve at every distinct score, from (0, 0) to (1, 1).
pub fn roc_curve(members: &[f64], non_members: &[f64]) -> Vec<RocPoint> {
    let (m, n) = (members.len() as f64, non_members.len() as f64);
    let mut all: Vec<(f64, bool)> = members
        .iter()
        .map(|&s| (s, true))
        .chain(non_members.iter().map(|&s| (s, false)))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut points = vec![RocPoint {
        threshold: f64::INFINITY,
        fpr: 0.0,
        tpr: 0.0,
    }];
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut i = 0;
    while i < all.len() {
        let t = all[i].0;
        while i < all.len() && all[i].0 == t {
            if all[i].1 {
                tp += 1;
            } else {
                fp += 1;
            }
            i += 1;
        }
        points.push(RocPoint {
            threshold: t,
            fpr: fp as f64 / n,
            tpr: tp as f64 / m,
        });
    }
    points
}

/// The metrics of an attack; `target_fprs` such as `[0.01, 0.001]`. Scores must be finite;
/// both sets must be non-empty. Every example is taken as independent.
pub fn attack_metrics(members: &[f64], non_members: &[f64], target_fprs: &[f64]) -> AttackMetrics {
    attack_metrics_clustered(members, non_members, None, target_fprs)
}

/// As [`attack_metrics`], with `clusters` = (cluster of each member, cluster of each
/// non-member), e.g. the document of each sentence: the AUC interval then follows
/// Obuchowski (1997) and the TPR bootstrap resamples whole clusters, so correlated sentences
/// of one note do not narrow either interval. Clusters never
/// hold both members and non-members (a document is one or the other).
pub fn attack_metrics_clustered(
    members: &[f64],
    non_members: &[f64],
    clusters: Option<(&[usize], &[usize])>,
    target_fprs: &[f64],
) -> AttackMetrics {
    assert!(!members.is_empty() && !non_members.is_empty());
    assert!(
        members.iter().chain(non_members).all(|s| s.is_finite()),
        "scores must be finite"
    );
    let (m, n) = (members.len() as u64, non_members.len() as u64);
    let curve = roc_curve(members, non_members);
    // Counts at each point, to put exact intervals on the rates.
    let counts = |p: &RocPoint| {
        (
            (p.tpr * m as f64).round() as u64,
            (p.fpr * n as f64).round() as u64,
        )
    };
    // The point of each target on the curve, then the bootstrap interval around its TPR.
    let points: Vec<&RocPoint> = target_fprs
        .iter()
        .map(|&target| {
            curve
                .iter()
                .rev()
                .find(|p| p.fpr <= target)
                .expect("the curve starts at fpr 0")
        })
        .collect();
    let estimates: Vec<f64> = points.iter().map(|p| p.tpr).collect();
    let intervals = tpr_intervals(members, non_members, clusters, target_fprs, &estimates);
    let tpr_at_fpr = target_fprs
        .iter()
        .zip(points)
        .zip(intervals)
        .map(|((&target, p), interval)| {
            let (tp, fp) = counts(p);
            TprAtFpr {
                target_fpr: target,
                threshold: p.threshold,
                tpr: Proportion::new(tp, m),
                fpr: Proportion::new(fp, n),
                tpr_bootstrap: Some(interval),
                resolvable: n as f64 * target >= 1.0,
            }
        })
        .collect();
    let best = curve
        .iter()
        .max_by(|a, b| (a.tpr - a.fpr).total_cmp(&(b.tpr - b.fpr)))
        .expect("non-empty curve");
    let (tp, fp) = counts(best);
    let (tpr_lo, tpr_hi) = clopper_pearson(tp, m, 0.975).expect("members");
    let (fpr_lo, fpr_hi) = clopper_pearson(fp, n, 0.975).expect("non-members");
    let advantage = Estimate {
        value: best.tpr - best.fpr,
        lower: (tpr_lo - fpr_hi).max(-1.0),
        upper: (tpr_hi - fpr_lo).min(1.0),
    };
    let singletons = |k: usize| (0..k).collect::<Vec<usize>>();
    let (cm, cn) = match clusters {
        Some((cm, cn)) => {
            assert!(cm.len() == members.len() && cn.len() == non_members.len());
            (cm.to_vec(), cn.to_vec())
        }
        None => (singletons(members.len()), singletons(non_members.len())),
    };
    AttackMetrics {
        members: m,
        non_members: n,
        clusters: clusters.map(|_| [distinct(&cm), distinct(&cn)]),
        auc: delong_auc(members, non_members, &cm, &cn),
        tpr_at_fpr,
        advantage,
        epsilon_lower_bound: epsilon_lower_bound(&curve, m, n),
        roc: thin(&curve, 400),
    }
}

/// max over thresholds of ln(TPR_lo / FPR_hi) and ln((1 − FPR_hi) / (1 − TPR_lo)), the bounds
/// taken from each rate's 95% two-sided exact interval (one-sided 97.5% each, 95% together).
fn epsilon_lower_bound(curve: &[RocPoint], m: u64, n: u64) -> f64 {
    let mut best = 0.0f64;
    for p in curve {
        let tp = (p.tpr * m as f64).round() as u64;
        let fp = (p.fpr * n as f64).round() as u64;
        let (tpr_lo, _) = clopper_pearson(tp, m, 0.95).expect("members");
        let (_, fpr_hi) = clopper_pearson(fp, n, 0.95).expect("non-members");
        if tpr_lo > 0.0 && fpr_hi > 0.0 {
            best = best.max((tpr_lo / fpr_hi).ln());
        }
        if tpr_lo < 1.0 && fpr_hi < 1.0 {
            best = best.max(((1.0 - fpr_hi) / (1.0 - tpr_lo)).ln());
        }
    }
    best
}

/// AUC (Mann-Whitney, ties half) with DeLong's variance: the structural components from
/// mid-ranks, summed per cluster (Obuchowski 1997; with one example per cluster this is
/// DeLong's), a normal 95% interval clipped to [0, 1].
fn delong_auc(
    members: &[f64],
    non_members: &[f64],
    member_clusters: &[usize],
    non_member_clusters: &[usize],
) -> Estimate {
    let (m, n) = (members.len(), non_members.len());
    let combined: Vec<f64> = members.iter().chain(non_members).copied().collect();
    let r_all = midranks(&combined);
    let r_m = midranks(members);
    let r_n = midranks(non_members);
    // Share of non-members below each member; share of members above each non-member.
    let v10: Vec<f64> = (0..m).map(|i| (r_all[i] - r_m[i]) / n as f64).collect();
    let v01: Vec<f64> = (0..n)
        .map(|j| 1.0 - (r_all[m + j] - r_n[j]) / m as f64)
        .collect();
    let auc = v10.iter().sum::<f64>() / m as f64;
    let var = clustered_variance(&v10, member_clusters, auc)
        + clustered_variance(&v01, non_member_clusters, auc);
    let z = Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(0.975);
    let half = z * var.max(0.0).sqrt();
    Estimate {
        value: auc,
        lower: (auc - half).max(0.0),
        upper: (auc + half).min(1.0),
    }
}

/// 1-based ranks, ties given the mean of their ranks.
fn midranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = mid;
        }
        i = j + 1;
    }
    ranks
}

/// Variance of the mean of `components` around `theta` with clusters:
/// K / ((K − 1) N²) Σ_k (S_k − N_k θ)², S_k the sum and N_k the count of cluster k. With
/// singleton clusters it is the sample variance over N. 0 for fewer than two clusters.
fn clustered_variance(components: &[f64], clusters: &[usize], theta: f64) -> f64 {
    // Ordered, so the sum is taken in the same order on every run: the report must not change
    // in its last digits when nothing else did.
    let mut sums: std::collections::BTreeMap<usize, (f64, f64)> = Default::default();
    for (v, c) in components.iter().zip(clusters) {
        let e = sums.entry(*c).or_default();
        e.0 += v;
        e.1 += 1.0;
    }
    let k = sums.len() as f64;
    if k < 2.0 {
        return 0.0;
    }
    let n = components.len() as f64;
    let ss: f64 = sums.values().map(|(s, c)| (s - c * theta).powi(2)).sum();
    k / ((k - 1.0) * n * n) * ss
}

fn distinct(clusters: &[usize]) -> u64 {
    let mut c = clusters.to_vec();
    c.sort_unstable();
    c.dedup();
    c.len() as u64
}

/// At most about `max` points, always keeping the first and last.
fn thin(curve: &[RocPoint], max: usize) -> Vec<RocPoint> {
    if curve.len() <= max {
        return curve.to_vec();
    }
    let step = curve.len().div_ceil(max);
    let mut out: Vec<RocPoint> = curve.iter().step_by(step).copied().collect();
    if out.last() != curve.last() {
        out.push(*curve.last().expect("non-empty"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn auc_and_delong_interval_by_hand() {
        // Pairs: 0.9 beats 3; 0.8 beats 2 and ties 1; 0.7 beats 2: 7.5 / 9.
        let members = [0.9, 0.8, 0.7];
        let non = [0.6, 0.8, 0.1];
        let m = attack_metrics(&members, &non, &[0.01]);
        assert!(close(m.auc.value, 7.5 / 9.0, 1e-12));
        // V10 = 1, 5/6, 2/3 (variance 1/36); V01 = 1, 1/2, 1 (variance 1/12);
        // var = (1/36)/3 + (1/12)/3 = 1/27.
        let half = 1.959_963_984_540_054 * (1.0f64 / 27.0).sqrt();
        assert!(close(m.auc.lower, 7.5 / 9.0 - half, 1e-9), "{:?}", m.auc);
        assert_eq!(m.auc.upper, 1.0);
    }

    #[test]
    fn clustered_auc_interval_by_hand() {
        // As above, members in documents {0, 0, 1}, non-members in {0, 1, 1}.
        // V10 = 1, 5/6, 2/3; θ = 5/6; cluster sums minus N_k θ: 1/6, −1/6 → (2/1) · (1/18) / 9.
        // V01 = 1, 1/2, 1: 1/6, −1/6 → the same 1/81. Variance 2/81.
        let m = attack_metrics_clustered(
            &[0.9, 0.8, 0.7],
            &[0.6, 0.8, 0.1],
            Some((&[0, 0, 1], &[7, 9, 9])),
            &[0.01],
        );
        assert!(close(m.auc.value, 7.5 / 9.0, 1e-12));
        let half = 1.959_963_984_540_054 * (2.0f64 / 81.0).sqrt();
        assert!(close(m.auc.lower, 7.5 / 9.0 - half, 1e-9), "{:?}", m.auc);
        assert_eq!(m.clusters, Some([2, 2]));
        // Singleton clusters give DeLong's interval.
        let singles = attack_metrics_clustered(
            &[0.9, 0.8, 0.7],
            &[0.6, 0.8, 0.1],
            Some((&[0, 1, 2], &[0, 1, 2])),
            &[0.01],
        );
        let plain = attack_metrics(&[0.9, 0.8, 0.7], &[0.6, 0.8, 0.1], &[0.01]);
        assert!(close(singles.auc.lower, plain.auc.lower, 1e-12));
        assert_eq!(plain.clusters, None);
    }

    #[test]
    fn correlated_sentences_widen_the_interval() {
        // Ten documents a side, each sentence repeated five times: the same information as ten
        // examples, so the clustered interval matches ten singletons, not fifty.
        let m10: Vec<f64> = (0..10).map(|i| (i * 7 % 10) as f64 + 0.5).collect();
        let n10: Vec<f64> = (0..10).map(|i| (i * 3 % 10) as f64).collect();
        let rep = |xs: &[f64]| xs.iter().flat_map(|x| [*x; 5]).collect::<Vec<_>>();
        let ids: Vec<usize> = (0..50).map(|i| i / 5).collect();
        let clustered =
            attack_metrics_clustered(&rep(&m10), &rep(&n10), Some((&ids, &ids)), &[0.01]);
        let naive = attack_metrics(&rep(&m10), &rep(&n10), &[0.01]);
        let ten = attack_metrics(&m10, &n10, &[0.01]);
        let width = |e: Estimate| e.upper - e.lower;
        assert!(close(clustered.auc.value, ten.auc.value, 1e-12));
        assert!(width(naive.auc) < 0.6 * width(clustered.auc));
        // K/(K−1) versus n/(n−1) aside, the clustered variance is the ten-document one.
        assert!((width(clustered.auc) / width(ten.auc) - 1.0).abs() < 0.02);
    }

    #[test]
    fn roc_points_and_tpr_at_fpr() {
        let members = [5.0, 4.0, 3.0, 1.0];
        let non = [4.0, 2.0, 0.0, -1.0, -2.0];
        let curve = roc_curve(&members, &non);
        let pts: Vec<(f64, f64, f64)> = curve.iter().map(|p| (p.threshold, p.fpr, p.tpr)).collect();
        assert_eq!(pts[0].1, 0.0);
        assert_eq!(pts[1], (5.0, 0.0, 0.25));
        assert_eq!(pts[2], (4.0, 0.2, 0.5));
        assert_eq!(pts[3], (3.0, 0.2, 0.75));
        assert_eq!(*pts.last().unwrap(), (-2.0, 1.0, 1.0));
        let m = attack_metrics(&members, &non, &[0.0, 0.2, 0.01]);
        // FPR 0: only the threshold 5 -> TPR 1/4. FPR 0.2: threshold 3 -> TPR 3/4.
        assert_eq!(m.tpr_at_fpr[0].tpr.successes, 1);
        assert_eq!(m.tpr_at_fpr[1].threshold, 3.0);
        assert_eq!(m.tpr_at_fpr[1].tpr.successes, 3);
        assert_eq!(m.tpr_at_fpr[1].fpr.successes, 1);
        assert!(m.tpr_at_fpr[1].resolvable);
        // 5 non-members cannot resolve 1%.
        assert!(!m.tpr_at_fpr[2].resolvable);
        // Advantage: best TPR − FPR is 0.75 − 0.2 = 0.55 (threshold 3); also at 1.0: 1 − 0.4.
        assert!(close(m.advantage.value, 0.6, 1e-12), "{:?}", m.advantage);
    }

    #[test]
    fn perfect_separation_bounds_epsilon_by_the_exact_intervals() {
        let members = vec![1.0; 100];
        let non = vec![0.0; 100];
        let m = attack_metrics(&members, &non, &[0.01]);
        assert_eq!(m.auc.value, 1.0);
        // TPR 100/100: lower bound (α/2)^(1/n) with α = 0.05; FPR 0/100: upper 1 − that.
        let lo = 0.025f64.powf(0.01);
        let expected = (lo / (1.0 - lo)).ln();
        assert!(
            close(m.epsilon_lower_bound, expected, 1e-6),
            "{} vs {expected}",
            m.epsilon_lower_bound
        );
        assert!(m.advantage.value == 1.0 && m.advantage.lower > 0.9);
    }

    #[test]
    fn identical_distributions_give_auc_near_half_and_no_epsilon() {
        // Interleaved scores from one sequence: members and non-members alike.
        let members: Vec<f64> = (0..400).map(|i| ((i * 37) % 101) as f64).collect();
        let non: Vec<f64> = (0..400).map(|i| ((i * 37 + 18) % 101) as f64).collect();
        let m = attack_metrics(&members, &non, &[0.01, 0.001]);
        assert!(m.auc.lower < 0.5 && m.auc.upper > 0.5, "{:?}", m.auc);
        assert_eq!(m.epsilon_lower_bound, 0.0);
        assert!(m.advantage.lower < 0.0);
    }

    #[test]
    fn midranks_average_ties() {
        assert_eq!(midranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
    }
}
