//! Fixed-width text tables for evaluation and residual reports (labels and counts only).

use super::{EvalReport, Level, LevelScores, ResidualReport, Score};
use std::fmt::{self, Write};

/// The excluded labels of a report, or `none`.
pub(super) fn excluded_list(excluded: &[String]) -> String {
    if excluded.is_empty() {
        "none".to_string()
    } else {
        excluded.join(", ")
    }
}

fn prf(s: &Score) -> String {
    format!("{:>6.4} {:>6.4} {:>6.4}", s.precision, s.recall, s.f1)
}

impl EvalReport {
    /// Levels x P/R/F1 with counts, then per-category and per-subcategory rows by support.
    pub fn to_table(&self) -> String {
        let mut o = String::new();
        let excluded = excluded_list(&self.excluded);
        let _ = writeln!(
            o,
            "{} documents, {} gold entities, {} predicted entities, {} tokens; excluded: {excluded}",
            self.documents, self.gold_entities, self.predicted_entities, self.tokens
        );
        let _ = writeln!(
            o,
            "\n{:<16} {:<12} {:>6} {:>6} {:>6} {:>8} {:>8} {:>8}",
            "criterion", "level", "P", "R", "F1", "TP", "FP", "FN"
        );
        let criteria: [(&str, &LevelScores); 3] = [
            ("entity strict", &self.entity_strict),
            ("entity overlap", &self.entity_overlap),
            ("token", &self.token),
        ];
        for (name, scores) in criteria {
            for level in Level::ALL {
                let s = scores.get(level);
                let _ = writeln!(
                    o,
                    "{:<16} {:<12} {} {:>8} {:>8} {:>8}",
                    name,
                    level.as_str(),
                    prf(s),
                    s.tp,
                    s.fp,
                    s.fn_
                );
            }
        }
        for (title, rows) in [
            ("category", &self.per_category),
            ("subcategory", &self.per_subcategory),
        ] {
            let _ = writeln!(
                o,
                "\n{:<26} {:>7} {:>7}   {:<20}   {:<20}   token P/R/F1",
                title, "support", "pred", "strict P/R/F1", "overlap P/R/F1"
            );
            for r in rows.iter() {
                let _ = writeln!(
                    o,
                    "{:<26} {:>7} {:>7}   {}   {}   {}",
                    r.label,
                    r.support,
                    r.predicted,
                    prf(&r.strict),
                    prf(&r.overlap),
                    prf(&r.token)
                );
            }
        }
        o
    }
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_table())
    }
}

impl ResidualReport {
    /// Overall and per-label residual counts for whichever checks were run.
    pub fn to_table(&self) -> String {
        let mut o = String::new();
        let excluded = excluded_list(&self.excluded);
        let _ = writeln!(
            o,
            "residual PII over {} documents; excluded: {excluded}",
            self.documents
        );
        if let Some(c) = &self.coverage {
            let _ = writeln!(
                o,
                "\ncoverage: gold entities with characters outside replaced ranges\n\
                 {:<26} {:>8} {:>8} {:>7} {:>9} {:>9}",
                "label", "entities", "residue", "share", "chars", "left"
            );
            for r in std::iter::once(&c.overall).chain(&c.per_label) {
                let _ = writeln!(
                    o,
                    "{:<26} {:>8} {:>8} {:>7.4} {:>9} {:>9}",
                    r.label, r.entities, r.with_residue, r.share, r.chars, r.chars_left
                );
            }
        }
        if let Some(t) = &self.text {
            let _ = writeln!(
                o,
                "\ntext: gold words (>= 3 chars, not used outside PHI) still in the output\n\
                 {:<26} {:>8} {:>8} {:>8} {:>7} {:>9} {:>9}",
                "label", "entities", "checked", "leaked", "share", "words", "leaked"
            );
            for r in std::iter::once(&t.overall).chain(&t.per_label) {
                let _ = writeln!(
                    o,
                    "{:<26} {:>8} {:>8} {:>8} {:>7.4} {:>9} {:>9}",
                    r.label,
                    r.entities,
                    r.checked,
                    r.leaked,
                    r.share,
                    r.words_checked,
                    r.words_leaked
                );
            }
        }
        o
    }
}

impl fmt::Display for ResidualReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_table())
    }
}
