//! English: a trade union's local by its number ("IBEW Local 103", "Teamsters Local 25", "Local
//! 1199 SEIU"), the employer of a social history's worker: a local is a few hundred members of
//! one trade in one town. Only with a union's abbreviation or trade beside it: "Local 3" alone,
//! or after any capitalized word ("FROM LOCAL 103" in capitals), is not read.

use super::Cand;
use crate::labels::{Category, Label, Subtype};
use regex::Regex;

const SCORE: f32 = 0.7;

/// Unions by their abbreviation or their trade's name, in any case; `SMART` and `UA` only in
/// capitals, as they are also words ("smart", a urinalysis's "ua").
const UNIONS: &str = r"(?:(?i:ibew|seiu|ufcw|afscme|uaw|iuoe|iam|atu|cwa|aft|usw|iatse|ila|ilwu|nalc|apwu|iupat|opeiu|liuna|teamsters|ironworkers|iron workers|carpenters|laborers|pipefitters|plumbers|painters|bricklayers|boilermakers|electricians|electrical workers|sheet metal workers|steelworkers|machinists|longshoremen)|SMART|UA)";

pub struct UnionLocals {
    re: Regex,
}

impl UnionLocals {
    pub fn new() -> Result<Self, regex::Error> {
        let number = r"(?i:local)\s+(?:#\s*|(?i:no\.?)\s*)?\d{1,5}";
        let re = Regex::new(&format!(
            r"\b(?:{UNIONS}\s+{number}|{number}\s+(?:(?i:of the)\s+)?{UNIONS})\b"
        ))?;
        Ok(UnionLocals { re })
    }

    /// Appends the union locals of `text`.
    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        let label = Label::new(Category::Location, Subtype::Organization);
        for m in self.re.find_iter(text) {
            out.push(Cand::new(m.start(), m.end(), label, "union_local", SCORE));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        UnionLocals::new().unwrap().find(text, &mut out);
        out.iter().map(|c| &text[c.start..c.end]).collect()
    }

    #[test]
    fn a_unions_local_with_its_number_is_an_organization() {
        assert_eq!(
            found("Former electrician, IBEW Local 103."),
            ["IBEW Local 103"]
        );
        assert_eq!(
            found("RETIRED FROM TEAMSTERS LOCAL 25, DROVE FOR 30 YRS"),
            ["TEAMSTERS LOCAL 25"]
        );
        assert_eq!(
            found("member of local 1199 seiu, works nights"),
            ["local 1199 seiu"]
        );
        assert_eq!(found("pipefitter, UA Local #537"), ["UA Local #537"]);
        assert_eq!(
            found("Local 2 of the Iron Workers"),
            ["Local 2 of the Iron Workers"]
        );
    }

    #[test]
    fn a_local_without_its_union_or_a_word_is_none() {
        assert!(found("RETIRED FROM LOCAL 103").is_empty());
        assert!(found("local 3 tabs of oxycodone; ua local 2").is_empty());
        assert!(found("IBEW Local shop, Local 44").is_empty());
        assert!(found("smart local 12").is_empty());
    }
}
