//! The `pseudonym` operator: a stable keyed code per value, like `PERSON-3f9a2c1b`.

use super::norm::normalize;
use super::{OpContext, Operator, Replaced};
use crate::keys::{encode_hex, Key};
use crate::labels::{Category, Label};

/// Shortest and longest allowed hex part.
pub const HEX_RANGE: std::ops::RangeInclusive<usize> = 4..=64;

/// `PREFIX-hex` where hex is the first `hex_len` digits of
/// HMAC-SHA256(key, "pseudonym", category, normalized original): the same value gets the same
/// pseudonym everywhere under one key and an unrelated one under another.
pub struct Pseudonym {
    pub key: Key,
    pub hex_len: usize,
}

/// The prefix for a category: NAME → `PERSON` (reads as a person in running text), every
/// other category its own name (`LOCATION`, `DATE`, `ID`, ...).
pub fn prefix(category: Category) -> &'static str {
    match category {
        Category::Name => "PERSON",
        c => c.as_str(),
    }
}

impl Operator for Pseudonym {
    fn name(&self) -> &'static str {
        "pseudonym"
    }

    fn replace(&self, original: &str, label: Label, _ctx: &mut OpContext) -> Replaced {
        let norm = normalize(label, original);
        let cat = label.category.as_str();
        let mac = self
            .key
            .mac("pseudonym", &[cat.as_bytes(), norm.as_bytes()]);
        let mut hex = encode_hex(&mac);
        hex.truncate(self.hex_len.clamp(*HEX_RANGE.start(), *HEX_RANGE.end()));
        Replaced::by("pseudonym", format!("{}-{hex}", prefix(label.category)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deid::surrogate::SurrogateMemo;
    use crate::labels::Subtype;
    use crate::lang::Lang;
    use rand::SeedableRng;

    fn pseudo(key_byte: u8, hex_len: usize, doc: &str, original: &str, label: Label) -> String {
        let op = Pseudonym {
            key: Key::from_bytes(&[key_byte; 32]).unwrap(),
            hex_len,
        };
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(doc.len() as u64);
        let mut memo = SurrogateMemo::default();
        let mut ctx = OpContext {
            doc_id: doc,
            lang: Lang::Nl,
            patient: doc,
            rng: &mut rng,
            memo: &mut memo,
        };
        op.replace(original, label, &mut ctx).text
    }

    #[test]
    fn stable_per_key_and_distinct_across_keys() {
        let name = Label::new(Category::Name, Subtype::Patient);
        let bsn = Label::new(Category::Id, Subtype::Ssn);
        let a = pseudo(1, 8, "doc1", "Jan de Vries", name);
        assert!(
            a.starts_with("PERSON-") && a.len() == "PERSON-".len() + 8,
            "{a}"
        );
        assert!(a["PERSON-".len()..].chars().all(|c| c.is_ascii_hexdigit()));
        let cases = [
            (pseudo(1, 8, "doc2", "jan  de vries", name), true),
            (
                pseudo(
                    1,
                    8,
                    "doc1",
                    "Jan de Vries",
                    Label::category_only(Category::Name),
                ),
                true,
            ),
            (pseudo(2, 8, "doc1", "Jan de Vries", name), false),
            (pseudo(1, 8, "doc1", "Piet de Vries", name), false),
        ];
        for (i, (b, same)) in cases.iter().enumerate() {
            assert_eq!(&a == b, *same, "case {i}: {a} vs {b}");
        }
        let id = pseudo(1, 12, "d", "1234.56.782", bsn);
        assert_eq!(id, pseudo(1, 12, "e", "123456782", bsn));
        assert!(id.starts_with("ID-") && id.len() == 3 + 12, "{id}");
    }
}
