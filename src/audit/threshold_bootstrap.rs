//! The interval of TPR at a target FPR that counts the threshold's own noise: members and
//! non-members are resampled (whole documents when examples are clustered) and the threshold
//! is chosen again in each resample. The exact interval at the chosen threshold holds the
//! threshold fixed, though it was read off the same few highest non-member scores.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Resamples per interval: the 2.5% and 97.5% quantiles then rest on 50 resamples each.
pub const RESAMPLES: usize = 2000;

/// Fixed, so one set of scores always gives one report.
const SEED: u64 = 0x7e5a_b007;

/// TPR of `members` at the most permissive threshold whose FPR on `non_members` stays at or
/// below `target` (the rule of [`super::metrics::TprAtFpr`]): the share of members scoring
/// above the (k+1)-th highest non-member, k the most false positives the target allows.
/// `non_members` is reordered.
pub fn tpr_at_fpr(members: &[f64], non_members: &mut [f64], target: f64) -> f64 {
    let n = non_members.len();
    let allowed = (0..=n)
        .rev()
        .find(|&fp| fp as f64 / n as f64 <= target)
        .expect("0 false positives meet any target");
    if allowed == n {
        return 1.0;
    }
    let (_, &mut cut, _) = non_members.select_nth_unstable_by(allowed, |a, b| b.total_cmp(a));
    members.iter().filter(|&&s| s > cut).count() as f64 / members.len() as f64
}

/// 95% percentile intervals of TPR at each of `targets`, one per target, widened where needed
/// to hold `estimates` (the point values on the full data). Each side's scores are grouped by
/// `clusters` (None: every example alone); a resample draws as many groups as there are, with
/// replacement, on each side.
pub fn tpr_intervals(
    members: &[f64],
    non_members: &[f64],
    clusters: Option<(&[usize], &[usize])>,
    targets: &[f64],
    estimates: &[f64],
) -> Vec<[f64; 2]> {
    let (member_groups, non_member_groups) = match clusters {
        Some((cm, cn)) => (grouped(members, cm), grouped(non_members, cn)),
        None => (singletons(members), singletons(non_members)),
    };
    let draws: Vec<Vec<f64>> = (0..RESAMPLES)
        .into_par_iter()
        .map(|b| {
            let mut rng = ChaCha8Rng::seed_from_u64(SEED);
            rng.set_stream(b as u64);
            let m = resample(&member_groups, &mut rng);
            let mut n = resample(&non_member_groups, &mut rng);
            targets.iter().map(|&t| tpr_at_fpr(&m, &mut n, t)).collect()
        })
        .collect();
    targets
        .iter()
        .zip(estimates)
        .enumerate()
        .map(|(i, (_, &estimate))| {
            let mut values: Vec<f64> = draws.iter().map(|d| d[i]).collect();
            values.sort_by(f64::total_cmp);
            [
                quantile(&values, 0.025).min(estimate),
                quantile(&values, 0.975).max(estimate),
            ]
        })
        .collect()
}

fn grouped(scores: &[f64], clusters: &[usize]) -> Vec<Vec<f64>> {
    assert_eq!(scores.len(), clusters.len());
    let mut by: std::collections::BTreeMap<usize, Vec<f64>> = Default::default();
    for (s, c) in scores.iter().zip(clusters) {
        by.entry(*c).or_default().push(*s);
    }
    by.into_values().collect()
}

fn singletons(scores: &[f64]) -> Vec<Vec<f64>> {
    scores.iter().map(|&s| vec![s]).collect()
}

fn resample(groups: &[Vec<f64>], rng: &mut ChaCha8Rng) -> Vec<f64> {
    let mut out = Vec::new();
    for _ in 0..groups.len() {
        out.extend_from_slice(&groups[rng.gen_range(0..groups.len())]);
    }
    out
}

/// Linear interpolation between order statistics (Hyndman and Fan's type 7); `sorted` ascending.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let h = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpr_counts_members_above_the_first_disallowed_non_member() {
        let members = [5.0, 4.0, 3.0, 1.0];
        // FPR 0.2 of five allows one false positive: the cut is the second highest, 2.0.
        let mut non = [4.0, 2.0, 0.0, -1.0, -2.0];
        assert_eq!(tpr_at_fpr(&members, &mut non, 0.2), 0.75);
        assert_eq!(tpr_at_fpr(&members, &mut non, 0.0), 0.25);
        assert_eq!(tpr_at_fpr(&members, &mut non, 1.0), 1.0);
        // A member tied with the cut is not above it.
        assert_eq!(tpr_at_fpr(&[2.0, 2.5], &mut non, 0.2), 0.5);
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.0);
        assert_eq!(quantile(&v, 0.125), 0.5);
        assert_eq!(quantile(&v, 1.0), 4.0);
    }

    #[test]
    fn whole_documents_widen_the_interval() {
        // Twenty documents a side of ten identical sentences: the information of twenty
        // examples, so resampling documents gives a wider interval than resampling sentences.
        let base_m: Vec<f64> = (0..20).map(|i| ((i * 7) % 20) as f64 + 0.5).collect();
        let base_n: Vec<f64> = (0..20).map(|i| ((i * 3) % 20) as f64).collect();
        let rep = |xs: &[f64]| xs.iter().flat_map(|x| [*x; 10]).collect::<Vec<_>>();
        let ids: Vec<usize> = (0..200).map(|i| i / 10).collect();
        let (m, n) = (rep(&base_m), rep(&base_n));
        let mut sorted_n = n.clone();
        let est = tpr_at_fpr(&m, &mut sorted_n, 0.1);
        let clustered = tpr_intervals(&m, &n, Some((&ids, &ids)), &[0.1], &[est])[0];
        let naive = tpr_intervals(&m, &n, None, &[0.1], &[est])[0];
        assert!(
            clustered[0] <= est && est <= clustered[1],
            "{clustered:?} {est}"
        );
        assert!(
            clustered[1] - clustered[0] > 1.5 * (naive[1] - naive[0]),
            "{clustered:?} {naive:?}"
        );
        // The same scores give the same interval (the seed is fixed).
        assert_eq!(tpr_intervals(&m, &n, None, &[0.1], &[est])[0], naive);
    }
}
