//! A state's code after a place found in the same line and a comma ("Nashua, NH") or, for the
//! codes that are no word or clinical abbreviation, one space ("ALBANY NY"), and the
//! ZIP code after that code or right after the place ("LOWELL, MA 01852", "Boston 02116"); after
//! a place in lower case the code in lower case too, where its clause ends or it is no word
//! ("lives in nashua, nh.", "from lynn, ma, admitted", "portsmouth, nh on"), in
//! the languages with a `state_codes.txt` (US postal codes in English). Alone the codes are
//! ordinary abbreviations (`MD`, `PA`, `CO`, `OR`) and five digits are anything, so only the
//! place before them makes them a state and a ZIP code.

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::span::Entity;
use crate::wordlists::{ListSources, VocabError};
use std::collections::HashMap;

const SOURCE: &str = "context:state_code";
const ZIP_SOURCE: &str = "context:zip";

/// The state codes of a language, matched as written, each with whether it may follow its
/// place after a space alone (not marked `comma` in the list).
pub struct StateCodes {
    codes: HashMap<String, bool>,
}

impl StateCodes {
    /// The codes of `lang`'s `state_codes` lists (built-in and `--lists`); `None` when it has
    /// none, and the step does not run.
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Option<Self>, VocabError> {
        let mut codes = HashMap::new();
        for (n, line) in lists.load_optional(lang, "state_codes")?.iter().enumerate() {
            let (code, flag) = line.split_once('\t').unwrap_or((line, ""));
            let spaced = match flag.trim() {
                "" => true,
                "comma" => false,
                other => {
                    let msg = format!("unknown flag '{other}' (entry {})", n + 1);
                    return Err(VocabError::bad_line(lang, "state_codes", n + 1, msg));
                }
            };
            codes.insert(code.trim().to_string(), spaced);
        }
        Ok((!codes.is_empty()).then_some(StateCodes { codes }))
    }

    /// The state codes (`LOCATION/STATE`) and ZIP codes (`LOCATION/ZIP`) that follow a place of
    /// `found` (sorted by start, not overlapping), where no other entity stands.
    pub fn after_places(&self, text: &str, found: &[Entity]) -> Vec<Entity> {
        let mut out = Vec::new();
        for (i, place) in found.iter().enumerate() {
            // What follows the place is free up to the next entity found.
            let free = |end: usize| found.get(i + 1).is_none_or(|next| next.start >= end);
            if place.label.category != Category::Location
                || matches!(
                    place.label.subtype,
                    Some(
                        Subtype::Hospital
                            | Subtype::Organization
                            | Subtype::Department
                            | Subtype::Room
                            | Subtype::Zip
                    )
                )
            {
                continue;
            }
            let mut end = place.end;
            let lower = !text[place.start..place.end].contains(char::is_uppercase);
            if place.label.subtype != Some(Subtype::State) {
                if let Some((start, code_end)) = self.code_after(text, end, lower) {
                    // A code that is a word too, in a line in capitals, ends its clause
                    // ("PORTLAND, OR."; not "MELROSE, IN A SECOND FLOOR WALK-UP"); before a
                    // word in lower case it is no word ("Portland, OR and asked").
                    let code = text[start..code_end].to_uppercase();
                    let word = self.codes.get(&code) == Some(&false);
                    let next_in_capitals = text[code_end..]
                        .strip_prefix(' ')
                        .and_then(|rest| rest.split(|c: char| !c.is_alphabetic()).next())
                        .is_some_and(|w| !w.is_empty() && !w.chars().any(char::is_lowercase));
                    // In lower case no case tells the code from the word ("portland, or and").
                    let in_lower = text[start..code_end].contains(char::is_lowercase);
                    let ok = !word || clause_ends(text, code_end) || !in_lower && !next_in_capitals;
                    if free(code_end) && ok {
                        let label = Label::new(Category::Location, Subtype::State);
                        out.push(Entity::new(start, code_end, label, SOURCE, 0.5));
                        end = code_end;
                    }
                }
            }
            if let Some((start, zip_end)) = zip_after(text, end) {
                if free(zip_end) {
                    let label = Label::new(Category::Location, Subtype::Zip);
                    out.push(Entity::new(start, zip_end, label, ZIP_SOURCE, 0.5));
                }
            }
        }
        out
    }

    /// Names and institutions that a list or a tagger read where a town stands: a name of one
    /// capitalized word, found without a title or trigger, before a comma and a code that is no
    /// word or clinical abbreviation, which ends its clause ("Lynn, MA.", "from Nashua, NH,
    /// asking"; not "Dr. Lowe, MD" nor "wife Sharon, MA"), and a tagger's organization of one
    /// such word before such a code after a comma or a space, where the clause ends or goes on
    /// in lower case ("called from Providence RI for update"). They become cities, so the code
    /// after them is a state.
    pub fn towns_read_as_names(&self, text: &str, found: &mut [Entity]) {
        for e in found.iter_mut() {
            let name = e.label.category == Category::Name
                && !e.source.starts_with("context:")
                && text[e.end..].starts_with(", ");
            let organization =
                e.label.subtype == Some(Subtype::Organization) && e.source.starts_with("ner:");
            if !name && !organization {
                continue;
            }
            let word = &text[e.start..e.end];
            let one_word = word.starts_with(char::is_uppercase)
                && word.chars().all(char::is_alphabetic)
                && word.chars().skip(1).any(char::is_lowercase);
            let Some((code_start, code_end)) = self.code_after(text, e.end, false) else {
                continue;
            };
            let spaced = self.codes.get(&text[code_start..code_end]) == Some(&true);
            let lower_case_after = organization
                && text[code_end..]
                    .strip_prefix(' ')
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_lowercase()));
            if one_word && spaced && (clause_ends(text, code_end) || lower_case_after) {
                e.label = Label::new(Category::Location, Subtype::City);
                e.source = "context:town_before_state".to_string();
            }
        }
    }

    /// The byte range of a listed code after `", "` at `at`, or after `" "` when the code may
    /// stand so, ending its word; in lower case too where `lower` (the place is).
    fn code_after(&self, text: &str, at: usize, lower: bool) -> Option<(usize, usize)> {
        let (rest, comma) = match text[at..].strip_prefix(", ") {
            Some(rest) => (rest, true),
            None => (text[at..].strip_prefix(' ')?, false),
        };
        let len = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        let (code, after) = rest.split_at(len);
        let code = if lower && code.chars().all(|c| c.is_ascii_lowercase()) {
            code.to_uppercase()
        } else {
            code.to_string()
        };
        let ok = !after.starts_with('\'')
            && self.codes.get(&code).is_some_and(|&spaced| comma || spaced);
        let start = text.len() - rest.len();
        ok.then_some((start, start + len))
    }
}

/// Whether the clause ends at byte `at`, after a state's code: the text ends, a punctuation
/// mark or a line end follows, or a ZIP code.
fn clause_ends(text: &str, at: usize) -> bool {
    let rest = text[at..].trim_start_matches(' ');
    rest.is_empty() || rest.starts_with([',', '.', ';', ')', '\n']) || zip_after(text, at).is_some()
}

/// The byte range of a ZIP code (five digits, or ZIP+4: `02116-3301`) after one space at `at`,
/// ending its word.
fn zip_after(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = text[at..].strip_prefix(' ')?.as_bytes();
    let digits = |from: usize, n: usize| {
        (from..from + n).all(|k| rest.get(k).is_some_and(u8::is_ascii_digit))
    };
    if !digits(0, 5) {
        return None;
    }
    let len = if rest.get(5) == Some(&b'-') && digits(6, 4) {
        10
    } else {
        5
    };
    let ends_word = rest
        .get(len)
        .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'-');
    ends_word.then_some((at + 1, at + 1 + len))
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
            ("CALLED FROM ALBANY NY 2300", "ALBANY"),
            ("Lives in Quincy MA with wife.", "Quincy"),
        ] {
            let found = codes().after_places(text, &[city(text, place)]);
            assert_eq!(found.len(), 1 + text.ends_with("01852") as usize, "{text}");
            let code = &text[found[0].start..found[0].end];
            assert!(["NH", "MA", "OR", "NY"].contains(&code), "{text}");
            assert_eq!(found[0].label.subtype, Some(Subtype::State));
        }
    }

    #[test]
    fn in_lower_case_a_code_after_a_place_in_lower_case_is_a_state_where_its_clause_ends() {
        for (text, code) in [
            ("daughter lives in nashua, nh. will call her", "nh"),
            ("91 yo woman from lynn, ma, admitted 3/4", "ma"),
            ("driving home to portsmouth, nh on thanksgiving", "nh"),
            ("moved from portland, or.", "or"),
        ] {
            let place = text.split(", ").next().unwrap().rsplit(' ').next().unwrap();
            let found = codes().after_places(text, &[city(text, place)]);
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(&text[found[0].start..found[0].end], code, "{text}");
        }
        // A code that is a word goes on as one; a place in capitals takes no lower-case code.
        for (text, place) in [
            ("son called from portland, or and asked", "portland"),
            ("wife in nashua, ok with plan", "nashua"),
            ("Wife in Nashua, ma says", "Nashua"),
        ] {
            assert!(
                codes().after_places(text, &[city(text, place)]).is_empty(),
                "{text}"
            );
        }
    }

    #[test]
    fn a_code_that_is_a_word_before_a_word_in_capitals_is_no_state() {
        for text in [
            "LIVES AT 14 ELM ST, DEDHAM, IN A FIRST FLOOR UNIT.",
            "WIFE IN NASHUA, OK WITH PLAN.",
        ] {
            let place = if text.contains("DEDHAM") {
                "DEDHAM"
            } else {
                "NASHUA"
            };
            assert!(
                codes().after_places(text, &[city(text, place)]).is_empty(),
                "{text}"
            );
        }
        let text = "Son called from Portland, OR and asked for an update.";
        assert_eq!(
            codes().after_places(text, &[city(text, "Portland")]).len(),
            1
        );
    }

    fn name(text: &str, word: &str, source: &str) -> Entity {
        let s = text.find(word).unwrap();
        let label = Label::new(Category::Name, Subtype::Patient);
        Entity::new(s, s + word.len(), label, source, 0.5)
    }

    #[test]
    fn a_name_read_before_a_state_code_is_a_town() {
        for (text, word) in [
            ("Lives in Lynn, MA.", "Lynn"),
            ("called from Nashua, NH, asking", "Nashua"),
            ("SHARON, MA 02067", "SHARON"),
        ] {
            let mut found = [name(text, word, "lookup:first_names")];
            codes().towns_read_as_names(text, &mut found);
            let want = !word.chars().all(char::is_uppercase);
            assert_eq!(
                found[0].label.category == Category::Location,
                want,
                "{text}"
            );
        }
        // A tagger's institution of one word before a code after a space.
        for (text, town) in [
            ("called from Providence RI for update", true),
            ("lives near Providence, RI.", true),
            ("called from Providence RI ER", false),
            ("called from Providence MD for update", false),
        ] {
            let s = text.find("Providence").unwrap();
            let label = Label::new(Category::Location, Subtype::Organization);
            let mut found = [Entity::new(s, s + 10, label, "ner:bilstm-crf", 0.9)];
            codes().towns_read_as_names(text, &mut found);
            assert_eq!(
                found[0].label.subtype == Some(Subtype::City),
                town,
                "{text}"
            );
        }
        for (text, word, source) in [
            ("Seen by Dr. Lowe, MD today.", "Lowe", "lookup:surnames"),
            ("wife Sharon, MA.", "Sharon", "context:trigger"),
            ("Lisa, MA was here", "Lisa", "ner:bilstm-crf"),
            ("Report to Carla, PA.", "Carla", "ner:bilstm-crf"),
        ] {
            let mut found = [name(text, word, source)];
            codes().towns_read_as_names(text, &mut found);
            assert_eq!(found[0].label.category, Category::Name, "{text}");
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
        // After a space alone, codes that read as a word or an abbreviation are not states.
        for text in [
            "Boston CT scan neg",
            "from Lowell OR Lynn",
            "Boston VA",
            "Quincy  MA",
        ] {
            let place = text
                .split(' ')
                .nth(text.starts_with("from") as usize)
                .unwrap();
            assert!(
                codes().after_places(text, &[city(text, place)]).is_empty(),
                "{text}"
            );
        }
    }

    #[test]
    fn a_zip_code_after_a_state_code_or_a_place_is_a_zip() {
        for (text, place, zip) in [
            ("LOWELL, MA 01852", "LOWELL", "01852"),
            (
                "227 Commonwealth Ave, apt 4, Boston 02116.",
                "Boston",
                "02116",
            ),
            ("Boston, MA 02116-3301, USA", "Boston", "02116-3301"),
        ] {
            let found = codes().after_places(text, &[city(text, place)]);
            let zips: Vec<&str> = found
                .iter()
                .filter(|e| e.label.subtype == Some(Subtype::Zip))
                .map(|e| &text[e.start..e.end])
                .collect();
            assert_eq!(zips, [zip], "{text}");
        }
        for text in [
            "Boston 021163",
            "Boston 0211",
            "Boston 02116A",
            "Boston  02116",
            "Boston 02116-33",
        ] {
            let found = codes().after_places(text, &[city(text, "Boston")]);
            assert!(
                found.iter().all(|e| e.label.subtype != Some(Subtype::Zip)),
                "{text}"
            );
        }
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
