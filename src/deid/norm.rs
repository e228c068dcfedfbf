//! Normalized forms of original values, the identity behind consistent replacements: two
//! spellings that normalize alike get the same surrogate or pseudonym.

use crate::labels::{Category, Label, Subtype};

/// The comparison form of `original` under `label`.
///
/// - IDs, phone and fax numbers, IP addresses: letters and digits only, lowercased
///   (`123-45-6789` and `123 45 6789` are one number).
/// - e-mail and URLs: lowercased, trimmed.
/// - everything else: lowercased words joined by single spaces, without edge punctuation
///   (`García,` and `GARCÍA` are one name).
pub fn normalize(label: Label, original: &str) -> String {
    let compact = matches!(label.category, Category::Id)
        || matches!(
            label.subtype,
            Some(Subtype::Phone | Subtype::Fax | Subtype::Ipaddr)
        );
    if compact {
        return original
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
    }
    if matches!(label.subtype, Some(Subtype::Email | Subtype::Url)) {
        return original.trim().to_lowercase();
    }
    let mut out = String::with_capacity(original.len());
    for word in name_tokens(original) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Whitespace-separated tokens of a name or phrase, stripped of edge punctuation
/// (hyphens and apostrophes inside a token are kept); empty tokens dropped.
pub fn name_tokens(s: &str) -> impl Iterator<Item = &str> {
    s.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Category as C;

    #[test]
    fn normalizes_by_label() {
        let name = Label::category_only(C::Name);
        let ssn = Label::new(C::Id, Subtype::Ssn);
        let phone = Label::new(C::Contact, Subtype::Phone);
        let email = Label::new(C::Contact, Subtype::Email);
        let cases = [
            (name, "  GARCÍA  López, ", "garcía lópez"),
            (name, "O'Neill-Smith", "o'neill-smith"),
            (ssn, "123-45-6789", "123456789"),
            (ssn, "AB 12.34", "ab1234"),
            (phone, "+31 (0)6 1234", "31061234"),
            (email, " Ana.Ruiz@Example.ORG ", "ana.ruiz@example.org"),
        ];
        for (label, input, want) in cases {
            assert_eq!(normalize(label, input), want, "{input}");
        }
    }
}
