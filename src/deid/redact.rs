//! The `redact` operator: overwrites a span with a fill character, or removes it.

use super::{OpContext, Operator, Replaced};
use crate::labels::Label;

/// Replaces a span with `fill` repeated once per character of the original (so line lengths
/// and layout survive), or with nothing when `remove` is set.
pub struct Redact {
    pub fill: char,
    pub remove: bool,
}

impl Default for Redact {
    fn default() -> Self {
        Redact {
            fill: '*',
            remove: false,
        }
    }
}

impl Operator for Redact {
    fn name(&self) -> &'static str {
        "redact"
    }

    fn replace(&self, original: &str, _label: Label, _ctx: &mut OpContext) -> Replaced {
        let text = if self.remove {
            String::new()
        } else {
            std::iter::repeat_n(self.fill, original.chars().count()).collect()
        };
        Replaced::by("redact", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deid::surrogate::SurrogateMemo;
    use crate::labels::Category;
    use crate::lang::Lang;
    use rand::SeedableRng;

    #[test]
    fn fills_by_characters_or_removes() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut memo = SurrogateMemo::default();
        let mut ctx = OpContext {
            doc_id: "d",
            lang: Lang::Hu,
            patient: "d",
            rng: &mut rng,
            memo: &mut memo,
        };
        let label = Label::category_only(Category::Name);
        let cases = [
            ('*', false, "Kovács Éva", "**********"),
            ('X', false, "Ana", "XXX"),
            ('█', false, "Zoë", "███"),
            ('*', true, "Kovács Éva", ""),
        ];
        for (fill, remove, input, want) in cases {
            let op = Redact { fill, remove };
            assert_eq!(op.replace(input, label, &mut ctx).text, want, "{input}");
        }
    }
}
