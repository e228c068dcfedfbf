//! De-identification: operators that replace recognized spans, chosen per label by a policy.

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
}

/// Replaces one span's text. Operators never see more of the document than the span.
pub trait Operator: Send + Sync {
    fn name(&self) -> &'static str;
    fn replace(&self, original: &str, label: Label, ctx: &mut OpContext) -> String;
}
