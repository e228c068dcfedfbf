//! Word-list support for the all-caps NAME and LOCATION spans of a per-language tagger (shipped,
//! or `--models`): "RESP" or "NSR" is kept only if a word of it is a listed name or place
//! ("HENDERSON", "SON JIM").
//!
//! Those taggers learned names from news and social media, where a capital letter is strong
//! evidence; in all-caps nursing notes and headings every abbreviation has one. Spans with a
//! lower-case letter ("Smith", "dr smith"), spans without letters (numbers) and other labels
//! pass untouched. A `--model` trained on the user's own notes is not gated: its spans are
//! what its training measured.

use crate::error::{StageContext, StageResult as Result};
use crate::labels::Category;
use crate::lang::Lang;
use crate::wordlists::ListSources;
use std::collections::HashSet;

/// Built-in lists whose entries support a caseless span (names and places).
const SUPPORT_LISTS: &[&str] = &[
    "first_names",
    "surnames",
    "first_names_open",
    "surnames_open",
    "cities",
    "countries",
    "regions",
    "places_open",
];

pub struct CaselessGate {
    /// Listed names and places, lower case (multi-word entries whole, as one string).
    listed: HashSet<String>,
}

impl CaselessGate {
    /// The gate of `lang`, from its built-in name and place lists. Fails closed if a list
    /// cannot load.
    pub fn new(lang: Lang) -> Result<Self> {
        let lists = ListSources::default();
        let mut listed = HashSet::new();
        for name in SUPPORT_LISTS {
            for line in lists
                .load_optional(lang, name)
                .stage_context("a name or place list")?
            {
                let entry = line.split('\t').next().unwrap_or("").trim();
                if !entry.is_empty() {
                    listed.insert(entry.to_lowercase());
                }
            }
        }
        Ok(CaselessGate { listed })
    }

    /// Whether a span of `category` reading `surface` is kept: it is not a name or place, it
    /// has a lower-case letter or no letter at all, or it has a listed word (or is a listed
    /// multi-word entry).
    pub fn keeps(&self, category: Category, surface: &str) -> bool {
        if !matches!(category, Category::Name | Category::Location)
            || !surface.chars().any(char::is_alphabetic)
        {
            return true;
        }
        let words: Vec<&str> = surface
            .split(|c: char| c.is_whitespace() || c == '-' || c == '/')
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| !w.is_empty())
            .collect();
        // Lower-case text (tweets, some notes) keeps the tagger's word: names are written so
        // there, and gating it too cost 0.04 of WNUT-17 dev person recall.
        if words.iter().any(|w| w.chars().any(char::is_lowercase)) {
            return true;
        }
        // Two capitals are an abbreviation ("GU", "PO") far more often than a name.
        let listed = |w: &str| w.chars().count() > 2 && self.listed.contains(w);
        listed(&words.join(" ").to_lowercase())
            || words.iter().any(|w| {
                let lower = w.to_lowercase();
                // English possessives ("SMITH'S") keep the name's support.
                let stem = lower
                    .strip_suffix("'s")
                    .or_else(|| lower.strip_suffix("’s"))
                    .unwrap_or(&lower);
                listed(stem)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caseless_spans_need_a_listed_word() {
        let gate = CaselessGate::new(Lang::En).unwrap();
        // A lower-case letter passes on the tagger's word alone.
        for kept in ["Zorbleck", "Dr Zorbleck", "zorbleck", "McKAY"] {
            assert!(gate.keeps(Category::Name, kept), "{kept} dropped");
        }
        // All-caps abbreviations do not.
        for dropped in ["RESP", "NSR", "PERRLA", "ZORBLECK", "GI/NG", "GU"] {
            assert!(!gate.keeps(Category::Name, dropped), "{dropped} kept");
        }
        // Other labels and spans without letters are not the gate's business.
        assert!(gate.keeps(Category::Id, "NHS"));
        assert!(gate.keeps(Category::Name, "12345"));
        // Listed names and places do, possessives and multi-word entries included.
        for kept in [
            "SMITH",
            "SON JIM",
            "HENDERSON'S",
            "MARY-JANE",
            "NEW YORK",
            "LONDON",
        ] {
            assert!(gate.keeps(Category::Name, kept), "{kept} dropped");
        }
    }
}
