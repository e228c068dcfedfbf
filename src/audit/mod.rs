//! Leakage audit of a masked LM: the spec, member and non-member examples, the attacks (blind
//! baseline, loss, pseudo-log-likelihood, reference ratio), canary exposure, their metrics and
//! the gate.

pub mod blind;
pub mod evidence;
pub mod examples;
pub mod metrics;
pub mod run;
pub mod spec;
pub mod stage;
pub mod threshold_bootstrap;

pub use blind::blind_scores;
pub use metrics::{
    attack_metrics, attack_metrics_clustered, roc_curve, AttackMetrics, Estimate, RocPoint,
    TprAtFpr,
};
pub use spec::{AuditSpec, Unit};
