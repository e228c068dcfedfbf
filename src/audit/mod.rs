//! Leakage audit of a masked LM: membership-inference metrics over attack scores (and, as they
//! land, the attacks, canary exposure and the audit spec).

pub mod blind;
pub mod metrics;

pub use blind::blind_scores;
pub use metrics::{attack_metrics, roc_curve, AttackMetrics, Estimate, RocPoint, TprAtFpr};
