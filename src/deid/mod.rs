//! De-identification: operators that replace recognized spans, chosen per label by a policy,
//! applied in one or more passes with an ops log and a coordinate map back to the input.

pub mod apply;
pub mod coords;
pub mod date_shift;
pub mod job;
pub mod norm;
pub mod passes;
pub mod policy;
pub mod pseudonym;
pub mod redact;
pub mod stats;
pub mod surrogate;
pub mod tag;

pub use apply::{DeidError, DeidOutput, Deidentifier, OpRecord};
pub use coords::{CoordMap, Edit};
pub use job::{run, DeidSettings, DeidStatsFile, DeidSummary};
pub use passes::MultiPassOutput;
pub use policy::{OperatorKind, Policy, PolicyError};
pub use stats::DeidStats;

use crate::labels::Label;
use crate::lang::Lang;
use rand_chacha::ChaCha20Rng;

/// What an operator knows about the span it replaces.
pub struct OpContext<'a> {
    pub doc_id: &'a str,
    pub lang: Lang,
    /// Patient identifier for per-patient keyed choices (date shift); defaults to the doc id.
    pub patient: &'a str,
    /// Per-document RNG, seeded from the run seed and the document id.
    pub rng: &'a mut ChaCha20Rng,
    /// Per-document surrogate memory, kept across passes so repeated values stay consistent.
    pub memo: &'a mut surrogate::SurrogateMemo,
}

/// An operator's result: the replacement text and which operator actually produced it
/// (date-shift hands unparseable dates to the surrogate operator and says so).
#[derive(Clone, Debug, PartialEq)]
pub struct Replaced {
    pub text: String,
    pub operator: &'static str,
    /// Set when the requested operator could not handle the value and another one did.
    pub fallback_from: Option<&'static str>,
}

impl Replaced {
    pub fn by(operator: &'static str, text: String) -> Self {
        Replaced {
            text,
            operator,
            fallback_from: None,
        }
    }
}

/// Replaces one span's text. Operators never see more of the document than the span.
pub trait Operator: Send + Sync {
    fn name(&self) -> &'static str;
    fn replace(&self, original: &str, label: Label, ctx: &mut OpContext) -> Replaced;
}
