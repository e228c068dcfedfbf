//! A US state's two-letter postal code after a place found in the same line and a comma
//! ("Nashua, NH", "LOWELL, MA 01852"). Alone the codes are ordinary abbreviations (`MD`, `PA`,
//! `CO`, `OR`), so only the place before them makes them a state.

use crate::labels::{Category, Label, Subtype};
use crate::span::Entity;

/// The 50 states and the District of Columbia.
const CODES: &[&str] = &[
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY",
];

const SOURCE: &str = "context:state_code";

/// The state codes that follow a place of `found` (sorted by start, not overlapping) as
/// `LOCATION/STATE` entities.
pub fn after_places(text: &str, found: &[Entity]) -> Vec<Entity> {
    let mut out = Vec::new();
    for (i, place) in found.iter().enumerate() {
        if place.label.category != Category::Location || place.label.subtype == Some(Subtype::State)
        {
            continue;
        }
        let Some(rest) = text[place.end..].strip_prefix(", ") else {
            continue;
        };
        let start = place.end + 2;
        let Some(code) = rest.get(..2) else {
            continue;
        };
        let ends_word = !rest[2..].starts_with(|c: char| c.is_alphanumeric() || c == '\'');
        let taken = found.get(i + 1).is_some_and(|next| next.start < start + 2);
        if CODES.contains(&code) && ends_word && !taken {
            let label = Label::new(Category::Location, Subtype::State);
            out.push(Entity::new(start, start + 2, label, SOURCE, 0.5));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn city(text: &str, word: &str) -> Entity {
        let s = text.find(word).unwrap();
        Entity::new(
            s,
            s + word.len(),
            Label::category_only(Category::Location),
            "t",
            1.0,
        )
    }

    #[test]
    fn a_code_after_a_place_and_a_comma_is_a_state() {
        for (text, place) in [
            ("Lives in Nashua, NH with her son.", "Nashua"),
            ("LOWELL, MA 01852", "LOWELL"),
            ("moved from Portland, OR.", "Portland"),
        ] {
            let found = after_places(text, &[city(text, place)]);
            assert_eq!(found.len(), 1, "{text}");
            let code = &text[found[0].start..found[0].end];
            assert!(CODES.contains(&code), "{text}");
            assert_eq!(found[0].label.subtype, Some(Subtype::State));
        }
    }

    #[test]
    fn a_code_without_a_place_before_it_is_left_alone() {
        let text = "Seen by Dr. Lowe, MD in Nashua, NHS trust; Nashua, Nh; Nashua,NH";
        let name_s = text.find("Lowe").unwrap();
        let name = Entity::new(
            name_s,
            name_s + 4,
            Label::category_only(Category::Name),
            "t",
            1.0,
        );
        assert!(after_places(text, &[name, city(text, "Nashua")]).is_empty());
    }
}
