//! A state's code after a place found in the same line and a comma ("Nashua, NH", "LOWELL, MA
//! 01852"), from the language's `state_codes.txt` (US postal codes in English). Alone the codes
//! are ordinary abbreviations (`MD`, `PA`, `CO`, `OR`), so only the place before them makes them
//! a state.

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::span::Entity;
use crate::wordlists::{ListSources, VocabError};
use std::collections::HashSet;

const SOURCE: &str = "context:state_code";

/// The state codes of a language, matched as written.
pub struct StateCodes {
    codes: HashSet<String>,
}

impl StateCodes {
    /// The codes of `lang`'s `state_codes` lists (built-in and `--lists`); `None` when it has
    /// none, and the step does not run.
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Option<Self>, VocabError> {
        let codes: HashSet<String> = lists
            .load_optional(lang, "state_codes")?
            .into_iter()
            .collect();
        Ok((!codes.is_empty()).then_some(StateCodes { codes }))
    }

    /// The state codes that follow a place of `found` (sorted by start, not overlapping) as
    /// `LOCATION/STATE` entities.
    pub fn after_places(&self, text: &str, found: &[Entity]) -> Vec<Entity> {
        let mut out = Vec::new();
        for (i, place) in found.iter().enumerate() {
            if place.label.category != Category::Location
                || place.label.subtype == Some(Subtype::State)
            {
                continue;
            }
            let Some(rest) = text[place.end..].strip_prefix(", ") else {
                continue;
            };
            let start = place.end + 2;
            let len = rest
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(rest.len());
            let (code, after) = rest.split_at(len);
            let end = start + len;
            let taken = found.get(i + 1).is_some_and(|next| next.start < end);
            if !after.starts_with('\'') && !taken && self.codes.contains(code) {
                let label = Label::new(Category::Location, Subtype::State);
                out.push(Entity::new(start, end, label, SOURCE, 0.5));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes() -> StateCodes {
        StateCodes::new(Lang::En, &ListSources::default())
            .unwrap()
            .expect("English lists its state codes")
    }

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
            let found = codes().after_places(text, &[city(text, place)]);
            assert_eq!(found.len(), 1, "{text}");
            let code = &text[found[0].start..found[0].end];
            assert!(["NH", "MA", "OR"].contains(&code), "{text}");
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
        assert!(codes()
            .after_places(text, &[name, city(text, "Nashua")])
            .is_empty());
    }

    #[test]
    fn only_languages_with_a_list_read_codes() {
        for lang in [Lang::Nl, Lang::Es, Lang::It, Lang::Hu] {
            assert!(StateCodes::new(lang, &ListSources::default())
                .unwrap()
                .is_none());
        }
    }
}
