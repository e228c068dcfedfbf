//! Binomial proportions with exact (Clopper-Pearson) confidence intervals.

use serde::{Deserialize, Serialize};
use statrs::distribution::{Beta, Binomial, ContinuousCDF, DiscreteCDF};

/// `successes` out of `trials`, with its point estimate and a two-sided 95% Clopper-Pearson
/// interval (both `null` when there were no trials).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proportion {
    pub successes: u64,
    pub trials: u64,
    pub estimate: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

impl Proportion {
    /// The proportion with its 95% interval.
    pub fn new(successes: u64, trials: u64) -> Self {
        assert!(
            successes <= trials,
            "{successes} successes in {trials} trials"
        );
        let interval = clopper_pearson(successes, trials, 0.95);
        Proportion {
            successes,
            trials,
            estimate: (trials > 0).then(|| successes as f64 / trials as f64),
            lower: interval.map(|i| i.0),
            upper: interval.map(|i| i.1),
        }
    }

    /// `3/1500 = 0.20% [0.04%, 0.58%]`.
    pub fn describe(&self) -> String {
        match (self.estimate, self.lower, self.upper) {
            (Some(p), Some(lo), Some(hi)) => format!(
                "{}/{} = {} [{}, {}]",
                self.successes,
                self.trials,
                percent(p),
                percent(lo),
                percent(hi)
            ),
            _ => format!("{}/{}", self.successes, self.trials),
        }
    }
}

fn percent(p: f64) -> String {
    format!("{:.2}%", 100.0 * p)
}

/// The exact two-sided interval for a binomial proportion at `confidence` (e.g. 0.95):
/// the lower bound is the `α/2` quantile of Beta(x, n−x+1), the upper the `1−α/2` quantile of
/// Beta(x+1, n−x), with 0 and 1 at the edges. None when `trials` is 0.
pub fn clopper_pearson(successes: u64, trials: u64, confidence: f64) -> Option<(f64, f64)> {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "confidence {confidence} is not in (0, 1)"
    );
    if trials == 0 {
        return None;
    }
    let (x, n) = (successes as f64, trials as f64);
    let tail = (1.0 - confidence) / 2.0;
    let lower = if successes == 0 {
        0.0
    } else {
        beta_quantile(x, n - x + 1.0, tail)
    };
    let upper = if successes == trials {
        1.0
    } else {
        beta_quantile(x + 1.0, n - x, 1.0 - tail)
    };
    Some((lower, upper))
}

/// The exact two-sided sign test of paired comparisons: the chance, were both sides equally
/// likely to win, of a split at least as uneven as `wins` to `losses` (ties left out before).
/// None when there is no untied pair.
pub fn sign_test(wins: u64, losses: u64) -> Option<f64> {
    let n = wins + losses;
    if n == 0 {
        return None;
    }
    let fewer = wins.min(losses);
    let half = Binomial::new(0.5, n).expect("p = 0.5 is valid");
    Some((2.0 * half.cdf(fewer)).min(1.0))
}

fn beta_quantile(a: f64, b: f64, q: f64) -> f64 {
    Beta::new(a, b)
        .expect("shape parameters are positive")
        .inverse_cdf(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(X >= x) for X ~ Binomial(n, p), summed term by term (independent of the Beta route).
    fn upper_tail(x: u64, n: u64, p: f64) -> f64 {
        (x..=n).map(|k| binomial_pmf(k, n, p)).sum()
    }

    fn lower_tail(x: u64, n: u64, p: f64) -> f64 {
        (0..=x).map(|k| binomial_pmf(k, n, p)).sum()
    }

    fn binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
        let ln_choose: f64 = (1..=k)
            .map(|i| ((n - k + i) as f64).ln() - (i as f64).ln())
            .sum();
        (ln_choose + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
    }

    #[test]
    fn edges_have_closed_forms() {
        // x = 0: upper = 1 - (α/2)^(1/n); x = n: lower = (α/2)^(1/n).
        let (lo, hi) = clopper_pearson(0, 10, 0.95).unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - (1.0 - 0.025f64.powf(0.1))).abs() < 1e-9, "{hi}");
        let (lo, hi) = clopper_pearson(10, 10, 0.95).unwrap();
        assert_eq!(hi, 1.0);
        assert!((lo - 0.025f64.powf(0.1)).abs() < 1e-9, "{lo}");
    }

    #[test]
    fn matches_published_values() {
        // 5 of 10: the interval printed by R's binom.test, 0.1870860 to 0.8129140.
        let (lo, hi) = clopper_pearson(5, 10, 0.95).unwrap();
        assert!((lo - 0.187_086_0).abs() < 1e-6, "{lo}");
        assert!((hi - 0.812_914_0).abs() < 1e-6, "{hi}");
    }

    #[test]
    fn bounds_put_alpha_half_in_each_binomial_tail() {
        for &(x, n) in &[(1u64, 20u64), (3, 1500), (7, 40), (39, 40), (250, 1000)] {
            let (lo, hi) = clopper_pearson(x, n, 0.95).unwrap();
            assert!(
                (upper_tail(x, n, lo) - 0.025).abs() < 1e-7,
                "{x}/{n} lower {lo}"
            );
            assert!(
                (lower_tail(x, n, hi) - 0.025).abs() < 1e-7,
                "{x}/{n} upper {hi}"
            );
            let p = x as f64 / n as f64;
            assert!(lo < p && p < hi);
        }
    }

    #[test]
    fn sign_test_by_hand() {
        // 8 wins, 2 losses: 2 * (1 + 10 + 45) / 1024.
        let p = sign_test(8, 2).unwrap();
        assert!((p - 112.0 / 1024.0).abs() < 1e-12, "{p}");
        assert_eq!(sign_test(2, 8), sign_test(8, 2));
        assert_eq!(sign_test(5, 5), Some(1.0));
        // 10 to 0: 2 / 1024.
        assert!((sign_test(10, 0).unwrap() - 2.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(0, 0), None);
    }

    #[test]
    fn proportion_reports_estimate_and_interval() {
        let p = Proportion::new(3, 1500);
        assert_eq!(p.estimate, Some(0.002));
        assert!(p.lower.unwrap() < 0.002 && p.upper.unwrap() > 0.002);
        assert!(p.describe().starts_with("3/1500 = 0.20% ["));
        let empty = Proportion::new(0, 0);
        assert_eq!(
            (empty.estimate, empty.lower, empty.upper),
            (None, None, None)
        );
        assert_eq!(empty.describe(), "0/0");
    }
}
