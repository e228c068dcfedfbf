//! Fixed-width text tables of the risk analysis: entities left after each pass, left by gold
//! label, and the confusion of how each gold label was handled (labels and counts only).

use super::risk::{RiskPass, RiskReport};
use super::table::excluded_list;
use std::fmt::{self, Write};

fn percent(share: f64) -> String {
    format!("{:.2}%", 100.0 * share)
}

impl RiskReport {
    /// Totals per pass, entities left per gold label and pass, and the confusion table of the
    /// last pass.
    pub fn to_table(&self) -> String {
        let mut o = String::new();
        let excluded = excluded_list(&self.excluded);
        let _ = writeln!(
            o,
            "risk: gold entities left after de-identification of {} documents (policy {}); \
             excluded: {excluded}",
            self.documents, self.policy
        );
        for p in &self.passes {
            let _ = writeln!(
                o,
                "left after pass {}: {} of {} ({})",
                p.pass,
                p.overall.left,
                p.overall.entities,
                percent(p.overall.left_share)
            );
        }
        let _ = writeln!(
            o,
            "\n{:<5} {:>9} {:>9} {:>11} {:>9} {:>9} {:>9} {:>8} {:>12} {:>9}",
            "pass",
            "entities",
            "removed",
            "mislabelled",
            "partial",
            "missed",
            "left",
            "left %",
            "replacements",
            "documents"
        );
        for p in &self.passes {
            let r = &p.overall;
            let _ = writeln!(
                o,
                "{:<5} {:>9} {:>9} {:>11} {:>9} {:>9} {:>9} {:>8} {:>12} {:>9}",
                p.pass,
                r.entities,
                r.removed,
                r.removed_other_category,
                r.partial,
                r.missed,
                r.left,
                percent(r.left_share),
                p.replacements,
                p.documents_changed
            );
        }
        let Some(last) = self.passes.last() else {
            return o;
        };
        let _ = write!(
            o,
            "\nleft (partial + missed) by gold label after each pass\n{:<26} {:>8}",
            "label", "entities"
        );
        for p in &self.passes {
            let _ = write!(o, " {:>8}", format!("pass {}", p.pass));
        }
        o.push('\n');
        for row in &last.per_label {
            let _ = write!(o, "{:<26} {:>8}", row.label, row.entities);
            for p in &self.passes {
                let left = p
                    .per_label
                    .iter()
                    .find(|r| r.label == row.label)
                    .map_or(0, |r| r.left);
                let _ = write!(o, " {left:>8}");
            }
            o.push('\n');
        }
        o.push_str(&confusion(last));
        o
    }
}

/// The confusion table in long form, one line per non-zero cell (a matrix with a column per
/// label would not fit a terminal): gold label, how its entities were handled (removed as
/// LABEL, partial, missed), count and share of the gold label's entities.
fn confusion(p: &RiskPass) -> String {
    let mut o = String::new();
    let cols = p.removed_as_columns();
    let _ = writeln!(
        o,
        "\nafter pass {}: how the entities of each gold label were handled (non-zero cells)\n\
         {:<26} {:<28} {:>8} {:>8}",
        p.pass, "gold label", "handled as", "count", "share"
    );
    for r in std::iter::once(&p.overall).chain(&p.per_label) {
        let removed = cols
            .iter()
            .map(|c| (c.as_str(), r.removed_as.get(c).copied().unwrap_or(0)));
        let cells = removed.chain([("partial", r.partial), ("missed", r.missed)]);
        for (how, n) in cells.filter(|&(_, n)| n > 0) {
            let share = if r.entities == 0 {
                0.0
            } else {
                n as f64 / r.entities as f64
            };
            let _ = writeln!(
                o,
                "{:<26} {:<28} {:>8} {:>8}",
                r.label,
                how,
                n,
                percent(share)
            );
        }
    }
    o
}

impl fmt::Display for RiskReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_table())
    }
}

#[cfg(test)]
mod tests {
    use crate::corpus::Document;
    use crate::eval::{EvalOptions, Replacement, RiskCounter};
    use crate::labels::Label;
    use crate::span::Entity;

    #[test]
    fn totals_per_label_and_confusion_lines() {
        let text = "Ana Ruiz vive en Vigo con Luis.";
        let at = |w: &str| {
            let s = text.find(w).unwrap();
            (s, s + w.len())
        };
        let patient = Label::parse("NAME/PATIENT").unwrap();
        let city = Label::parse("LOCATION/CITY").unwrap();
        let mut gold = Document::new("d", text);
        for (w, l) in [("Ana Ruiz", patient), ("Vigo", city), ("Luis", patient)] {
            let (s, e) = at(w);
            gold.entities.push(Entity::new(s, e, l, "gold", 1.0));
        }
        let rep = |w: &str, label, pass| {
            let (start, end) = at(w);
            Replacement {
                start,
                end,
                label,
                pass,
            }
        };
        let reps = [
            rep("Ana Ruiz", patient, 1),
            rep("Vigo", patient, 1),
            rep("Luis", patient, 2),
        ];
        let mut c = RiskCounter::new(2, &EvalOptions::default());
        c.add(&gold, &reps).unwrap();
        let table = c.finish("default").to_table();
        assert!(
            table.contains("left after pass 1: 1 of 3 (33.33%)"),
            "{table}"
        );
        assert!(
            table.contains("left after pass 2: 0 of 3 (0.00%)"),
            "{table}"
        );
        let line = |start: &str| {
            table
                .lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no line {start}: {table}"))
                .split_whitespace()
                .collect::<Vec<_>>()
        };
        // Per label, left after pass 1 and pass 2.
        assert_eq!(
            line("NAME/PATIENT               "),
            ["NAME/PATIENT", "2", "1", "0"]
        );
        // The confusion: the city was removed, as a name.
        assert_eq!(
            line("LOCATION/CITY              NAME/PATIENT"),
            ["LOCATION/CITY", "NAME/PATIENT", "1", "100.00%"]
        );
        assert!(!table.contains("missed                        "), "{table}");
    }
}
