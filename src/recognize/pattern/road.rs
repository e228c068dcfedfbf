//! English numbered roads after a preposition of place ("found in car on Route 9", "crash on
//! I-95", "lives off Rte 1A"): a state or interstate highway narrows down where a patient was
//! found or lives as a street does, so it is a street. Without the preposition a route is as
//! often a drug's ("Route: PO") or a number of something else ("I-131 therapy"), and before a
//! word of papers it is a form ("on I-94 record"), so those are left alone.

use super::text::run_start;
use super::Cand;
use crate::labels::{Category, Label, Subtype};
use regex::Regex;

const SCORE: f32 = 0.7;

/// Words of place right before a road.
const PREPOSITIONS: &[&str] = &["on", "off", "along", "onto", "from", "via", "near", "at"];

/// Words after a number that make it a form or a document rather than a road ("on I-94
/// record": the arrival record of an immigrant).
const PAPERS: &[&str] = &[
    "record",
    "records",
    "form",
    "forms",
    "card",
    "visa",
    "status",
    "document",
    "documents",
];

pub struct Roads {
    re: Regex,
}

impl Roads {
    pub fn new() -> Result<Self, regex::Error> {
        let re = Regex::new(
            r"\b(?:[Rr]oute|ROUTE|[Hh]ighway|HIGHWAY|[Hh]wy\.?|HWY\.?|[Ii]nterstate|INTERSTATE|Rte\.?|RTE\.?) ?\d{1,3}[A-Za-z]?\b|\bI-\d{1,3}\b",
        )?;
        Ok(Roads { re })
    }

    /// Appends the numbered roads of `text` that follow a preposition of place.
    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        for m in self.re.find_iter(text) {
            let before = &text[..m.start()];
            let Some(head) = before.strip_suffix(' ') else {
                continue;
            };
            let word = &head[run_start(head, char::is_alphabetic)..];
            let next = text[m.end()..].strip_prefix(' ').map(|rest| {
                rest.split(|c: char| !c.is_alphabetic())
                    .next()
                    .unwrap_or("")
            });
            let paper = next.is_some_and(|w| PAPERS.iter().any(|p| p.eq_ignore_ascii_case(w)));
            if !paper && PREPOSITIONS.iter().any(|p| p.eq_ignore_ascii_case(word)) {
                let label = Label::new(Category::Location, Subtype::Street);
                out.push(Cand::new(m.start(), m.end(), label, "road", SCORE));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        Roads::new().unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn a_numbered_road_after_a_preposition_of_place_is_a_street() {
        assert_eq!(found("pt found in car on Route 9 in Natick"), ["Route 9"]);
        assert_eq!(found("MVC on I-95 northbound"), ["I-95"]);
        assert_eq!(found("lives off Rte. 1A, near the mall"), ["Rte. 1A"]);
        assert_eq!(found("CRASH ON HIGHWAY 3 AT 0200"), ["HIGHWAY 3"]);
        // A character of several bytes before the preposition is no word of it.
        assert_eq!(found("\u{201c}on Route 9\u{201d}, she said"), ["Route 9"]);
    }

    #[test]
    fn a_route_without_a_preposition_of_place_is_left_alone() {
        for text in [
            "Route 2 of administration changed",
            "I-131 therapy planned",
            "Route: PO",
            "switched to route 2",
            "on Route one",
            "A# on I-94 record",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }
}
