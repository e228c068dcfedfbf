//! Drug names from an open dictionary (`wordlists/en/drugs_open.txt`, derived by
//! `scripts/build_drug_list.py`) and the short forms notes write (`drug_abbreviations.txt`):
//! a per-language tagger's name or place whose words are all drugs is a drug ("Coumadin
//! held", "Protonix, Colace per order", "Vanco trough").
//!
//! The dose rule ([`crate::recognize::dose_context`]) catches a drug followed by its dose; this
//! catches the drug named alone, as nursing notes mostly do. The list leaves out every word
//! that is also a name or a place (anonlm's lists, frequent US names), so a name never goes
//! for being a drug too. Languages without a list judge nothing.

use crate::error::{StageContext, StageResult as Result};
use crate::lang::Lang;
use crate::wordlists::ListSources;
use std::collections::HashSet;

/// Routes and schedules written after a drug's name (English abbreviations).
const ROUTES: &[&str] = &[
    "po", "iv", "im", "sq", "sc", "sl", "pr", "ng", "gtt", "prn", "bid", "tid", "qid", "qd", "qhs",
    "neb", "nebs", "inh", "drip", "pca", "patch", "pump",
];

pub struct DrugNames {
    /// Drug words, lower case.
    words: HashSet<String>,
}

impl DrugNames {
    /// The built-in drug list of `lang` (none for most languages). Fails closed if it cannot
    /// load.
    pub fn new(lang: Lang) -> Result<Self> {
        let lists = ListSources::default();
        let mut words = HashSet::new();
        for name in ["drugs_open", "drug_abbreviations"] {
            let entries = lists
                .load_optional(lang, name)
                .stage_context("the drug-name list")?;
            words.extend(
                entries
                    .iter()
                    .map(|line| line.split('\t').next().unwrap_or("").trim().to_lowercase())
                    .filter(|w| !w.is_empty()),
            );
        }
        Ok(DrugNames { words })
    }

    /// Whether every word of `surface` with letters is a listed drug (words with digits, such
    /// as a strength, single letters ("Zosyn D#3", its day) and the route or schedule of a dose
    /// ("Flagyl PO") count neither way; a span without drug words is no drug).
    pub fn all_drugs(&self, surface: &str) -> bool {
        let mut words = surface
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/' | ';' | '+'))
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| w.chars().any(char::is_alphabetic) && !w.chars().any(char::is_numeric))
            .filter(|w| w.chars().count() > 1 && !ROUTES.iter().any(|r| r.eq_ignore_ascii_case(w)))
            .peekable();
        words.peek().is_some() && words.all(|w| self.words.contains(&w.to_lowercase()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_of_listed_drugs_only_are_drugs() {
        let drugs = DrugNames::new(Lang::En).unwrap();
        for drug in [
            "Coumadin",
            "Protonix, Colace",
            "LASIX",
            "Zofran 4",
            "Neo-Synephrine",
            "Flagyl PO",
            "Zosyn D",
            "Vanco",
            "Dilaudid PCA",
        ] {
            assert!(drugs.all_drugs(drug), "{drug} not a drug");
        }
        // A name beside a drug, names that are also drug names, and places are not.
        for other in [
            "Coumadin Smith",
            "Allegra",
            "Camila",
            "Kendrick",
            "Boston",
            "Mary",
            "12",
            "",
            "PO",
        ] {
            assert!(!drugs.all_drugs(other), "{other} taken for a drug");
        }
    }

    #[test]
    fn a_language_without_a_list_judges_nothing() {
        let drugs = DrugNames::new(Lang::Nl).unwrap();
        assert!(!drugs.all_drugs("Coumadin"));
    }
}
