//! Number, interval and outcome formatting shared by the Markdown, HTML and diff renderings:
//! three decimals for AUC and rates, percents for shares, "not measured" for absent values.

use crate::audit::metrics::{Estimate, TprAtFpr};
use crate::audit::run::Outcome;
use crate::stats::Proportion;

/// What an absent optional value or section is called.
pub const NOT_MEASURED: &str = "not measured";

/// `PASS`, `FAIL` or `INVALID`.
pub fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "PASS",
        Outcome::Fail => "FAIL",
        Outcome::Invalid => "INVALID",
    }
}

/// The outcome in a sentence a reader who skips everything else understands.
pub fn outcome_sentence(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => {
            "PASS: no attack and no evidence exceeded its threshold; the model may be released \
             once signed off."
        }
        Outcome::Fail => {
            "FAIL: at least one attack or piece of evidence exceeded its threshold; the model \
             must not be released as it is."
        }
        Outcome::Invalid => {
            "INVALID: the audit cannot tell leakage from chance or from differences between the \
             sets (see the reasons); no release decision can be taken on it."
        }
    }
}

/// Three decimals, or `n/a` for a non-finite value.
pub fn num3(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "n/a".into()
    }
}

/// Two decimals (epsilon, bits, losses), or `n/a`.
pub fn num2(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        "n/a".into()
    }
}

/// A share as a percent with two decimals: `0.20%`.
pub fn percent(p: f64) -> String {
    if p.is_finite() {
        format!("{:.2}%", 100.0 * p)
    } else {
        "n/a".into()
    }
}

/// `0.512 [0.480, 0.544]`.
pub fn estimate(e: &Estimate) -> String {
    format!("{} [{}, {}]", num3(e.value), num3(e.lower), num3(e.upper))
}

/// A rate with three decimals and its exact interval: `0.250 [0.180, 0.331] (25/100)`.
pub fn rate(p: &Proportion) -> String {
    match (p.estimate, p.lower, p.upper) {
        (Some(v), Some(lo), Some(hi)) => format!(
            "{} [{}, {}] ({}/{})",
            num3(v),
            num3(lo),
            num3(hi),
            p.successes,
            p.trials
        ),
        _ => format!("{}/{} (no trials)", p.successes, p.trials),
    }
}

/// A share in percent with its exact interval: `3/1500 = 0.20% [0.04%, 0.58%]`.
pub fn share(p: &Proportion) -> String {
    if p.trials == 0 {
        format!("{} (no trials)", p.describe())
    } else {
        p.describe()
    }
}

/// TPR at a target FPR with its exact interval at the chosen threshold and, when measured, the
/// bootstrap interval that also counts the threshold's choice; or why it cannot be told from
/// zero.
pub fn tpr_at(t: Option<&TprAtFpr>, non_members: u64) -> String {
    match t {
        None => NOT_MEASURED.into(),
        Some(t) if !t.resolvable => format!(
            "not resolvable with {non_members} non-members (needs at least {:.0}; measured {})",
            (1.0 / t.target_fpr).ceil(),
            rate(&t.tpr)
        ),
        Some(t) => {
            let at = format!(
                "{} at FPR {}",
                rate(&t.tpr),
                num3(t.fpr.estimate.unwrap_or(0.0))
            );
            match t.tpr_bootstrap {
                Some([lo, hi]) => format!(
                    "{at}, exact at this threshold; [{}, {}] with the threshold chosen again \
                     (bootstrap)",
                    num3(lo),
                    num3(hi)
                ),
                None => at,
            }
        }
    }
}

/// TPR at a target FPR in a table cell: the bootstrap interval when measured (it counts the
/// threshold's choice), else the exact one.
pub fn tpr_cell(t: &TprAtFpr) -> String {
    match t.tpr_bootstrap {
        Some([lo, hi]) => rate(&Proportion {
            lower: Some(lo),
            upper: Some(hi),
            ..t.tpr
        }),
        None => rate(&t.tpr),
    }
}

/// The entry of `target` (e.g. 0.01) in an attack's TPR-at-FPR list.
pub fn find_tpr(list: &[TprAtFpr], target: f64) -> Option<&TprAtFpr> {
    list.iter().find(|t| (t.target_fpr - target).abs() < 1e-12)
}

/// A hash or `absent`.
pub fn opt_hash(h: Option<&str>) -> String {
    h.map_or_else(|| "absent".into(), str::to_string)
}

/// An optional number with three decimals, or "not measured".
pub fn opt_num3(x: Option<f64>) -> String {
    x.map_or_else(|| NOT_MEASURED.into(), num3)
}

/// A signed difference with three decimals: `+0.128`.
pub fn signed3(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.3}")
    } else {
        "n/a".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_consistently() {
        assert_eq!(num3(0.5), "0.500");
        assert_eq!(num3(f64::INFINITY), "n/a");
        assert_eq!(percent(0.002), "0.20%");
        assert_eq!(signed3(0.1284), "+0.128");
        assert_eq!(signed3(-0.1), "-0.100");
        let p = Proportion::new(25, 100);
        assert!(rate(&p).starts_with("0.250 ["), "{}", rate(&p));
        assert!(rate(&p).ends_with("(25/100)"));
        assert_eq!(share(&Proportion::new(0, 0)), "0/0 (no trials)");
    }
}
