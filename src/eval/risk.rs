//! Risk analysis as in the Hungarian study (§3.5): after each de-identification pass over the
//! gold texts, how many gold entities were fully removed, partly left or wholly left, per gold
//! label, and as what label the removed ones were replaced (the confusion of what is left).

use super::{checked_spans, EvalError, EvalOptions};
use crate::corpus::Document;
use crate::labels::Label;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One replacement made by de-identification: a byte range of the ORIGINAL text, the label it
/// was replaced as, and the (1-based) pass that made it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replacement {
    pub start: usize,
    pub end: usize,
    pub label: Label,
    pub pass: usize,
}

/// How one gold entity fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every checked character was replaced; the label is that of the replacement covering
    /// most of them (the first such one on a tie).
    Removed(Label),
    /// Some checked characters were replaced, some were not.
    Partial,
    /// No checked character was replaced.
    Missed,
}

/// The outcome of the gold span `start..end` of `text` under `reps` (any order, may overlap).
///
/// The characters checked are the alphanumeric ones: punctuation and spaces left around a
/// replaced name reveal nothing. A span without any is checked on its non-whitespace
/// characters, and a span of whitespace on all of them.
pub fn outcome(text: &str, start: usize, end: usize, reps: &[Replacement]) -> Outcome {
    let span = &text[start..end];
    let checked: Vec<usize> = {
        let pick = |keep: fn(char) -> bool| -> Vec<usize> {
            span.char_indices()
                .filter(|&(_, c)| keep(c))
                .map(|(i, _)| start + i)
                .collect()
        };
        let alnum = pick(char::is_alphanumeric);
        if !alnum.is_empty() {
            alnum
        } else {
            let visible = pick(|c| !c.is_whitespace());
            if visible.is_empty() {
                pick(|_| true)
            } else {
                visible
            }
        }
    };
    let near: Vec<&Replacement> = reps
        .iter()
        .filter(|r| r.start < end && start < r.end)
        .collect();
    let mut credit = vec![0usize; near.len()];
    let mut covered = 0;
    for &b in &checked {
        if let Some(k) = near.iter().position(|r| r.start <= b && b < r.end) {
            credit[k] += 1;
            covered += 1;
        }
    }
    if covered == 0 {
        Outcome::Missed
    } else if covered < checked.len() {
        Outcome::Partial
    } else {
        let best = (0..near.len())
            .max_by(|&a, &b| credit[a].cmp(&credit[b]).then(b.cmp(&a)))
            .expect("covered characters have a replacement");
        Outcome::Removed(near[best].label)
    }
}

/// Counts for one gold label (or `ALL`) after one pass.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RiskRow {
    pub label: String,
    pub entities: usize,
    pub removed: usize,
    /// Removed, but by a replacement of another category (e.g. a patient's name replaced as
    /// a city): still gone, yet mislabelled.
    pub removed_other_category: usize,
    /// Partly left: some checked character was not replaced.
    pub partial: usize,
    /// Wholly left: no checked character was replaced.
    pub missed: usize,
    /// `partial + missed`: the entities left, as the study counts them.
    pub left: usize,
    /// `left / entities` (0 when there are no entities).
    pub left_share: f64,
    /// Removed entities by the label they were replaced as.
    pub removed_as: BTreeMap<String, usize>,
}

impl RiskRow {
    fn add(&mut self, gold: Label, o: Outcome) {
        self.entities += 1;
        match o {
            Outcome::Removed(as_label) => {
                self.removed += 1;
                self.removed_other_category += usize::from(as_label.category != gold.category);
                *self.removed_as.entry(as_label.to_string()).or_default() += 1;
            }
            Outcome::Partial => self.partial += 1,
            Outcome::Missed => self.missed += 1,
        }
    }

    fn merge(&mut self, o: &RiskRow) {
        self.entities += o.entities;
        self.removed += o.removed;
        self.removed_other_category += o.removed_other_category;
        self.partial += o.partial;
        self.missed += o.missed;
        for (k, n) in &o.removed_as {
            *self.removed_as.entry(k.clone()).or_default() += n;
        }
    }

    fn close(&mut self) {
        self.left = self.partial + self.missed;
        self.left_share = if self.entities == 0 {
            0.0
        } else {
            self.left as f64 / self.entities as f64
        };
    }
}

/// The state after passes `1..=pass`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RiskPass {
    pub pass: usize,
    /// Replacements made in this pass (all documents).
    pub replacements: usize,
    /// Documents in which this pass replaced something.
    pub documents_changed: usize,
    pub overall: RiskRow,
    /// Sorted by entities (descending), then label.
    pub per_label: Vec<RiskRow>,
}

impl RiskPass {
    /// Columns of the confusion table: the labels entities were removed as, gold labels first
    /// in row order (so the diagonal shows), then the others by count (descending).
    pub fn removed_as_columns(&self) -> Vec<String> {
        let mut cols: Vec<String> = self
            .per_label
            .iter()
            .filter(|r| self.overall.removed_as.contains_key(&r.label))
            .map(|r| r.label.clone())
            .collect();
        let mut rest: Vec<(&String, &usize)> = self
            .overall
            .removed_as
            .iter()
            .filter(|(k, _)| !cols.contains(k))
            .collect();
        rest.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        cols.extend(rest.into_iter().map(|(k, _)| k.clone()));
        cols
    }
}

/// The risk analysis of a gold corpus: one entry per pass.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RiskReport {
    pub documents: usize,
    pub excluded: Vec<String>,
    /// The policy the gold texts were de-identified with (its source name).
    pub policy: String,
    pub passes: Vec<RiskPass>,
}

/// Accumulates outcomes document by document for passes `1..=passes`.
pub struct RiskCounter {
    opts: EvalOptions,
    documents: usize,
    /// Per pass: rows by gold label, replacements, documents changed.
    rows: Vec<BTreeMap<Label, RiskRow>>,
    replacements: Vec<usize>,
    changed: Vec<usize>,
}

impl RiskCounter {
    pub fn new(passes: usize, opts: &EvalOptions) -> Self {
        let n = passes.max(1);
        RiskCounter {
            opts: opts.clone(),
            documents: 0,
            rows: vec![BTreeMap::new(); n],
            replacements: vec![0; n],
            changed: vec![0; n],
        }
    }

    /// Adds one gold document and every replacement its de-identification made (any pass;
    /// replacements of passes beyond the counter's are an error).
    pub fn add(&mut self, gold: &Document, reps: &[Replacement]) -> Result<(), EvalError> {
        let passes = self.rows.len();
        for r in reps {
            let t = &gold.text;
            let ok = r.start < r.end
                && r.end <= t.len()
                && t.is_char_boundary(r.start)
                && t.is_char_boundary(r.end)
                && (1..=passes).contains(&r.pass);
            if !ok {
                return Err(EvalError::BadSpan {
                    id: gold.id.clone(),
                    side: "replacements",
                    start: r.start,
                    end: r.end,
                    len: t.len(),
                });
            }
        }
        let spans = checked_spans(gold, "gold", &self.opts)?;
        self.documents += 1;
        for pass in 1..=passes {
            let made = reps.iter().filter(|r| r.pass == pass).count();
            self.replacements[pass - 1] += made;
            self.changed[pass - 1] += usize::from(made > 0);
            let upto: Vec<Replacement> = reps.iter().filter(|r| r.pass <= pass).copied().collect();
            let rows = &mut self.rows[pass - 1];
            for &(s, e, label) in &spans {
                let o = outcome(&gold.text, s, e, &upto);
                rows.entry(label)
                    .or_insert_with(|| RiskRow {
                        label: label.to_string(),
                        ..Default::default()
                    })
                    .add(label, o);
            }
        }
        Ok(())
    }

    pub fn finish(self, policy: &str) -> RiskReport {
        let mut passes = Vec::with_capacity(self.rows.len());
        for (i, rows) in self.rows.into_iter().enumerate() {
            let mut overall = RiskRow {
                label: "ALL".into(),
                ..Default::default()
            };
            let mut per_label: Vec<RiskRow> = rows
                .into_values()
                .map(|mut r| {
                    overall.merge(&r);
                    r.close();
                    r
                })
                .collect();
            overall.close();
            per_label.sort_by(|a, b| b.entities.cmp(&a.entities).then(a.label.cmp(&b.label)));
            passes.push(RiskPass {
                pass: i + 1,
                replacements: self.replacements[i],
                documents_changed: self.changed[i],
                overall,
                per_label,
            });
        }
        RiskReport {
            documents: self.documents,
            excluded: self.opts.exclude.iter().map(Label::to_string).collect(),
            policy: policy.to_string(),
            passes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category, Subtype};
    use crate::span::Entity;

    const PATIENT: Label = Label::new(Category::Name, Subtype::Patient);
    const DOCTOR: Label = Label::new(Category::Name, Subtype::Doctor);
    const CITY: Label = Label::new(Category::Location, Subtype::City);
    const DATE: Label = Label::new(Category::Date, Subtype::Date);

    /// The byte range of the first `w` in `text`.
    fn at(text: &str, w: &str) -> (usize, usize) {
        let s = text.find(w).unwrap();
        (s, s + w.len())
    }

    fn rep(text: &str, w: &str, label: Label, pass: usize) -> Replacement {
        let (start, end) = at(text, w);
        Replacement {
            start,
            end,
            label,
            pass,
        }
    }

    #[test]
    fn outcomes_of_single_spans() {
        let t = "Ana Ruiz-Gómez (Vigo), el 3/5.";
        let (s, e) = at(t, "Ana Ruiz-Gómez");
        // Fully covered, hyphen included or not: only letters count.
        let parts = [rep(t, "Ana Ruiz", PATIENT, 1), rep(t, "Gómez", CITY, 2)];
        assert_eq!(outcome(t, s, e, &parts), Outcome::Removed(PATIENT));
        // The surname part left: partial.
        assert_eq!(outcome(t, s, e, &parts[..1]), Outcome::Partial);
        // Nothing covers it, or only its spaces and punctuation: missed.
        assert_eq!(outcome(t, s, e, &[]), Outcome::Missed);
        let dash = rep(t, "-", CITY, 1);
        assert_eq!(outcome(t, s, e, &[dash]), Outcome::Missed);
        // A wider replacement with another label removes it, as that label.
        let wide = rep(t, "Ana Ruiz-Gómez (Vigo)", CITY, 1);
        assert_eq!(outcome(t, s, e, &[wide]), Outcome::Removed(CITY));
        // The label that covers most of the letters wins.
        let most = [rep(t, "Ana", DOCTOR, 1), rep(t, "Ruiz-Gómez", CITY, 1)];
        assert_eq!(outcome(t, s, e, &most), Outcome::Removed(CITY));
        // A span of punctuation is checked on its visible characters.
        let (ps, pe) = at(t, "/");
        assert_eq!(outcome(t, ps, pe, &[]), Outcome::Missed);
        assert_eq!(
            outcome(t, ps, pe, &[rep(t, "3/5", DATE, 1)]),
            Outcome::Removed(DATE)
        );
    }

    #[test]
    fn counts_per_label_and_pass() {
        let text = "Ana Ruiz vive en Vigo. La Dra. Pérez la vio el 3/5. Ruiz volverá. Lugo.";
        let mut gold = Document::new("d1", text);
        let ent = |w: &str, l: Label| {
            let (s, e) = at(text, w);
            Entity::new(s, e, l, "gold", 1.0)
        };
        let (rs, re) = (text.rfind("Ruiz").unwrap(), text.rfind("Ruiz").unwrap() + 4);
        gold.entities = vec![
            ent("Ana Ruiz", PATIENT),                  // removed in pass 1, as itself
            ent("Vigo", CITY),                         // removed in pass 1 as a name: mislabelled
            ent("Dra. Pérez", DOCTOR), // "Pérez" only: partial (the title is letters)
            ent("3/5", DATE),          // missed in both passes
            Entity::new(rs, re, PATIENT, "gold", 1.0), // missed in pass 1, removed in pass 2
            ent("Lugo", CITY),         // missed in both passes
        ];
        let reps = vec![
            rep(text, "Ana Ruiz", PATIENT, 1),
            rep(text, "Vigo", PATIENT, 1),
            rep(text, "Pérez", DOCTOR, 1),
            Replacement {
                start: rs,
                end: re,
                label: PATIENT,
                pass: 2,
            },
        ];
        let mut c = RiskCounter::new(2, &EvalOptions::default());
        c.add(&gold, &reps).unwrap();
        let r = c.finish("default");
        assert_eq!(r.documents, 1);
        let (p1, p2) = (&r.passes[0], &r.passes[1]);
        assert_eq!((p1.replacements, p2.replacements), (3, 1));
        assert_eq!((p1.documents_changed, p2.documents_changed), (1, 1));
        let o1 = &p1.overall;
        assert_eq!(
            (o1.entities, o1.removed, o1.partial, o1.missed, o1.left),
            (6, 2, 1, 3, 4)
        );
        assert_eq!(o1.removed_other_category, 1);
        assert!((o1.left_share - 4.0 / 6.0).abs() < 1e-12);
        let o2 = &p2.overall;
        assert_eq!(
            (o2.entities, o2.removed, o2.partial, o2.missed, o2.left),
            (6, 3, 1, 2, 3)
        );
        let row =
            |p: &RiskPass, l: &str| p.per_label.iter().find(|r| r.label == l).unwrap().clone();
        let city = row(p2, "LOCATION/CITY");
        assert_eq!((city.entities, city.removed, city.missed), (2, 1, 1));
        assert_eq!(city.removed_as.get("NAME/PATIENT"), Some(&1));
        let patient1 = row(p1, "NAME/PATIENT");
        assert_eq!((patient1.removed, patient1.missed), (1, 1));
        let patient2 = row(p2, "NAME/PATIENT");
        assert_eq!((patient2.removed, patient2.missed), (2, 0));
        assert_eq!(patient2.removed_as.get("NAME/PATIENT"), Some(&2));
        assert_eq!(row(p2, "NAME/DOCTOR").partial, 1);
        // Rows by size; columns: gold labels first, in row order.
        assert_eq!(p2.per_label[0].label, "LOCATION/CITY");
        assert_eq!(p2.removed_as_columns(), vec!["NAME/PATIENT"]);
        // Excluding a category leaves its entities out of every count.
        let opts = EvalOptions {
            exclude: vec![Label::category_only(Category::Location)],
        };
        let mut c = RiskCounter::new(2, &opts);
        c.add(&gold, &reps).unwrap();
        let r = c.finish("default");
        assert_eq!(r.passes[1].overall.entities, 4);
        assert_eq!(r.excluded, vec!["LOCATION"]);
        assert!(r.passes[1]
            .per_label
            .iter()
            .all(|r| r.label != "LOCATION/CITY"));
    }

    #[test]
    fn bad_replacements_and_gold_spans_are_errors() {
        let gold = Document::new("d", "Ana Ruiz");
        let mut c = RiskCounter::new(1, &EvalOptions::default());
        let bad = Replacement {
            start: 0,
            end: 3,
            label: PATIENT,
            pass: 2,
        };
        let e = c.add(&gold, &[bad]).unwrap_err().to_string();
        assert!(e.contains("document 'd' (replacements)"), "{e}");
        let mut gold = gold;
        gold.entities.push(Entity::new(4, 20, PATIENT, "gold", 1.0));
        let e = c.add(&gold, &[]).unwrap_err().to_string();
        assert!(
            e.contains("document 'd' (gold)") && !e.contains("Ruiz"),
            "{e}"
        );
    }
}
