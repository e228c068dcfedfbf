//! Realistic fake values by PHI type and language, shared by the `surrogate` operator and `synth`.

use crate::labels::Label;
use crate::lang::Lang;
use rand::RngCore;

/// A fake value of the same type (and, where it has one, the same format) as `original`,
/// never equal to it. PROVISIONAL placeholder body until the surrogate module lands.
pub fn generate(label: Label, lang: Lang, original: &str, rng: &mut dyn RngCore) -> String {
    let _ = (label, lang, rng);
    format!("X{}", original.len())
}
