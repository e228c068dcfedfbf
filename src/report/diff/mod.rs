//! What changed between two reports (e.g. before and after retraining), metric by metric:
//! old and new value, delta with its 95% interval, and whether that interval excludes no change
//! ([`OUTSIDE_RULE`]); outcomes and identity hashes changed or not. The diff
//! informs, it does not gate. JSON schema `anonlm.report-diff/1`.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::model::{ModelIdentity, Report};
use super::text::{find_tpr, outcome_word};
use crate::audit::metrics::Estimate;
use crate::audit::run::AttackResult;
use crate::stats::Proportion;

/// Version of the diff JSON; bump on any incompatible change.
pub const DIFF_SCHEMA: &str = "anonlm.report-diff/1";

/// The rule for "outside", stated in every diff.
pub const OUTSIDE_RULE: &str = "outside: the 95% interval of the change (new minus old) \
     excludes 0; it is built from the two reports' 95% intervals by the method of variance \
     estimates recovery (MOVER: lower = delta - sqrt((new - new_lower)^2 + (old_upper - old)^2), \
     upper = delta + sqrt((new_upper - new)^2 + (old - old_lower)^2)), so each change has about \
     a 5% chance of being called outside when nothing changed; inside: the values differ but the \
     interval holds 0; intervals are DeLong for the AUC, exact Clopper-Pearson for proportions, \
     the combined exact interval for the advantage, and for TPR at a target FPR the bootstrap \
     interval that chooses the threshold again in each resample (a report without it gives \
     no_interval); epsilon, exposure, losses and counts have no interval (no_interval).";

/// How a value moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Equal in both reports (or absent from both).
    Unchanged,
    /// A text value (outcome, hash) differs.
    Changed,
    /// Differs, but not outside the intervals by the rule.
    Inside,
    /// Differs, outside the intervals by the rule.
    Outside,
    /// Differs; the metric has no interval to judge the change by.
    NoInterval,
    /// Only in the new report.
    Added,
    /// Only in the old report.
    Removed,
}

impl Change {
    pub fn word(self) -> &'static str {
        match self {
            Change::Unchanged => "unchanged",
            Change::Changed => "changed",
            Change::Inside => "inside",
            Change::Outside => "OUTSIDE",
            Change::NoInterval => "no interval",
            Change::Added => "added",
            Change::Removed => "removed",
        }
    }
}

/// How a metric's values are written in the text table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Count,
    /// AUC, rates, advantage: three decimals.
    Rate,
    /// A share: percent.
    Share,
    /// A loss in nats: three decimals.
    Loss,
    /// Epsilon, bits: two decimals.
    Plain,
}

/// One side of the diff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub file: String,
    pub title: String,
    pub tool: String,
    pub outcome: String,
}

/// A text value: an outcome or a hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextChange {
    pub item: String,
    pub old: Option<String>,
    pub new: Option<String>,
    pub change: Change,
}

/// One metric in both reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricChange {
    /// What the metric belongs to: `attack <name>`, `canaries <n>x`, `probe set <set>`, ...
    pub item: String,
    pub metric: String,
    pub kind: Kind,
    pub old: Option<f64>,
    pub new: Option<f64>,
    /// new − old when both are present.
    pub delta: Option<f64>,
    /// 95% interval of `delta` when both values have intervals (see [`OUTSIDE_RULE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_interval: Option<[f64; 2]>,
    pub old_interval: Option<[f64; 2]>,
    pub new_interval: Option<[f64; 2]>,
    pub change: Change,
}

/// The whole diff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportDiff {
    pub schema: String,
    pub rule: String,
    pub old: Side,
    pub new: Side,
    /// Rows whose change is not `unchanged`.
    pub changes: usize,
    /// The decision, each attack's, the canaries' and the probes' outcome, the unit.
    pub outcomes: Vec<TextChange>,
    pub identity: Vec<TextChange>,
    pub metrics: Vec<MetricChange>,
}

/// A value with its 95% interval when it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

impl Measure {
    fn plain(v: f64) -> Option<Self> {
        v.is_finite().then_some(Measure {
            value: v,
            interval: None,
        })
    }
    fn count(n: u64) -> Option<Self> {
        Measure::plain(n as f64)
    }
    fn estimate(e: &Estimate) -> Option<Self> {
        Some(Measure {
            value: e.value,
            interval: Some((e.lower, e.upper)),
        })
    }
    fn proportion(p: &Proportion) -> Option<Self> {
        Some(Measure {
            value: p.estimate?,
            interval: p.lower.zip(p.upper),
        })
    }
}

/// The 95% interval of new − old from the two 95% intervals (MOVER; Zou and Donner 2008,
/// Newcombe 1998 for proportions): each bound adds in quadrature the distances from each value
/// to the bound of its interval on the side the difference moves towards. Independent
/// estimates are assumed: two audits with their own samples.
pub fn difference_interval(old: Measure, new: Measure) -> Option<(f64, f64)> {
    let ((old_lo, old_hi), (new_lo, new_hi)) = (old.interval?, new.interval?);
    let delta = new.value - old.value;
    let reach = |a: f64, b: f64| (a.max(0.0).powi(2) + b.max(0.0).powi(2)).sqrt();
    Some((
        delta - reach(new.value - new_lo, old_hi - old.value),
        delta + reach(new_hi - new.value, old.value - old_lo),
    ))
}

/// The rule: the change's interval excludes 0 (a bound at 0 is inside).
pub fn is_outside(old: Measure, new: Measure) -> Option<bool> {
    let (lo, hi) = difference_interval(old, new)?;
    Some(lo > 0.0 || hi < 0.0)
}

/// How a metric changed between `old` and `new` (None: absent from that report).
pub fn classify(old: Option<Measure>, new: Option<Measure>) -> Change {
    match (old, new) {
        (None, None) => Change::Unchanged,
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Removed,
        (Some(o), Some(n)) if o.value == n.value => Change::Unchanged,
        (Some(o), Some(n)) => match is_outside(o, n) {
            Some(true) => Change::Outside,
            Some(false) => Change::Inside,
            None => Change::NoInterval,
        },
    }
}

mod compare;
mod render;
#[cfg(test)]
mod tests;

pub use compare::*;
pub use render::*;
