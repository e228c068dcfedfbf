//! The town written before its country ("from Praia, Cape Verde", "born in Lagos, Nigeria"): a
//! capitalized word after a lower-case one, right before a comma and a found country, is a
//! town, whether no list holds it or a name list read it ("Verde" is a surname too). Towns of
//! a million or more are listed; the smaller ones abroad are not, and a note names them so.

use crate::labels::{Category, Label, Subtype};
use crate::span::Entity;

const SOURCE: &str = "context:town_before_country";
const SCORE: f32 = 0.55;

/// The byte range of the capitalized word that ends right before `at` (a `", "`), when a
/// lower-case word stands before it on the same line.
fn town_before(text: &str, at: usize) -> Option<(usize, usize)> {
    let head = text[..at].strip_suffix(", ")?;
    let start = head
        .rfind(|c: char| !(c.is_alphabetic() || c == '-' || c == '\''))
        .map_or(0, |i| {
            i + head[i..].chars().next().map_or(1, char::len_utf8)
        });
    let word = &head[start..];
    let mut chars = word.chars();
    let capitalized = chars.next().is_some_and(char::is_uppercase)
        && word.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && chars.any(char::is_lowercase)
        && !word.chars().skip(1).any(char::is_uppercase);
    let before = head[..start].strip_suffix(' ')?;
    let previous = before.rsplit(|c: char| !c.is_alphabetic()).next()?;
    let after_lower_case = !previous.is_empty() && previous.chars().all(char::is_lowercase);
    (capitalized && after_lower_case).then_some((start, head.len()))
}

/// Adds or relabels the towns before the countries of `found` (in text order, not
/// overlapping), keeping the order.
pub fn mark(text: &str, found: &mut Vec<Entity>) {
    let city = Label::new(Category::Location, Subtype::City);
    let mut added = Vec::new();
    for i in 0..found.len() {
        let e = &found[i];
        if e.label.category != Category::Location || e.label.subtype != Some(Subtype::Country) {
            continue;
        }
        let Some((s, end)) = town_before(text, e.start) else {
            continue;
        };
        match i.checked_sub(1).filter(|&p| found[p].end > s) {
            None => added.push(Entity::new(s, end, city, SOURCE, SCORE)),
            // A list's name on the very word ("Verde", "Lowell"), not a title's or a trigger's.
            Some(p) => {
                let before = &mut found[p];
                if before.start == s
                    && before.end == end
                    && before.source.starts_with("lookup:")
                    && before.label.category == Category::Name
                {
                    before.label = city;
                    before.source = SOURCE.to_string();
                }
            }
        }
    }
    if !added.is_empty() {
        found.extend(added);
        found.sort_by_key(|e| e.start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn towns(text: &str) -> Option<&str> {
        let at = text.find(", ")? + 2;
        town_before(text, at).map(|(s, e)| &text[s..e])
    }

    #[test]
    fn a_capitalized_word_after_a_lower_case_one_before_a_comma_is_the_town() {
        assert_eq!(towns("Pt from Praia, Cape Verde"), Some("Praia"));
        assert_eq!(towns("born in Mindelo, Cape Verde"), Some("Mindelo"));
        // At a sentence's start, after a title, in capitals, or too short.
        for text in [
            "Praia, Cape Verde",
            "seen by Dr. Okafor, Nigeria",
            "lives in LAGOS, Nigeria",
            "from Ba, Fiji",
        ] {
            assert_eq!(towns(text), None, "{text}");
        }
    }

    #[test]
    fn the_town_is_added_or_a_lists_name_relabelled() {
        let country = Label::new(Category::Location, Subtype::Country);
        let name = Label::category_only(Category::Name);
        let text = "Pt from Praia, Cape Verde; sister from Ribeira, Brazil.";
        let cv = text.find("Cape Verde").unwrap();
        let br = text.find("Brazil").unwrap();
        let ribeira = text.find("Ribeira").unwrap();
        let mut found = vec![
            Entity::new(cv, cv + 10, country, "lookup:countries", 0.6),
            Entity::new(ribeira, ribeira + 7, name, "lookup:surnames", 0.45),
            Entity::new(br, br + 6, country, "lookup:countries", 0.6),
        ];
        mark(text, &mut found);
        let got: Vec<(&str, Category)> = found
            .iter()
            .map(|e| (&text[e.start..e.end], e.label.category))
            .collect();
        assert_eq!(
            got,
            [
                ("Praia", Category::Location),
                ("Cape Verde", Category::Location),
                ("Ribeira", Category::Location),
                ("Brazil", Category::Location),
            ]
        );
    }
}
