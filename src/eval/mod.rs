//! Evaluation of predicted PHI spans against gold spans: entity (strict, overlap) and token
//! scores at binary, category and subcategory level, per-label rows, residual PII left in
//! de-identified output, and the risk analysis of gold entities left after each pass.
//!
//! ```no_run
//! # use anonlm::eval::{evaluate, EvalOptions};
//! # let (gold, pred) = (vec![], vec![]);
//! let report = evaluate(&gold, &pred, &EvalOptions::default()).unwrap();
//! print!("{}", report.to_table());
//! let json = serde_json::to_string_pretty(&report).unwrap();
//! ```

pub mod job;
mod metrics;
pub mod names;
pub mod ner_gold;
mod residual;
pub mod risk;
pub mod risk_svg;
mod risk_table;
mod table;

pub use metrics::{evaluate, EvalReport, LabelRow, LevelScores};
pub use residual::{
    residual, residual_report, residual_text, CoverageRow, ResidualCoverage, ResidualReport,
    ResidualText, TextRow,
};
pub use risk::{Replacement, RiskCounter, RiskReport};
pub use risk_svg::risk_svg;

use crate::corpus::{show_id, Document};
use crate::labels::{Category, Label, Subtype};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// Errors comparing corpora. Messages name document ids, sides and offsets, never text.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("document {} is in the gold set but not in the {side}", show_id(.id))]
    MissingOther { id: String, side: &'static str },
    #[error("document {} is in the {side} but not in the gold set", show_id(.id))]
    MissingGold { id: String, side: &'static str },
    #[error("document {} appears more than once in the {side}", show_id(.id))]
    Duplicate { id: String, side: &'static str },
    #[error(
        "document {}: gold text and {side} text differ ({gold_len} vs {other_len} bytes), \
         so their offsets cannot be compared",
        show_id(.id)
    )]
    TextMismatch {
        id: String,
        side: &'static str,
        gold_len: usize,
        other_len: usize,
    },
    #[error(
        "document {} ({side}): span {start}-{end} is empty, outside the text ({len} bytes) \
         or not on a character boundary",
        show_id(.id)
    )]
    BadSpan {
        id: String,
        side: &'static str,
        start: usize,
        end: usize,
        len: usize,
    },
}

/// What to leave out of a comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalOptions {
    /// Labels removed from gold and predictions alike; a category-only label removes the whole
    /// category (e.g. `OTHER/SEX` for MEDDOCAN, which HIPAA does not count as an identifier).
    pub exclude: Vec<Label>,
}

impl EvalOptions {
    pub fn is_excluded(&self, label: Label) -> bool {
        self.exclude.iter().any(|x| match x.subtype {
            None => x.category == label.category,
            Some(_) => *x == label,
        })
    }
}

/// The granularity at which labels must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Any PHI vs none.
    Binary,
    Category,
    /// A label without subtype is its category's "unspecified" subtype and matches no other.
    Subcategory,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Binary, Level::Category, Level::Subcategory];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Binary => "binary",
            Level::Category => "category",
            Level::Subcategory => "subcategory",
        }
    }

    fn key(self, label: Label) -> Key {
        match self {
            Level::Binary => Key::Any,
            Level::Category => Key::Cat(label.category),
            Level::Subcategory => Key::Sub(label.category, label.subtype),
        }
    }
}

/// A label seen at one level; its variant says the level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Any,
    Cat(Category),
    Sub(Category, Option<Subtype>),
}

impl Key {
    fn level(self) -> Level {
        match self {
            Key::Any => Level::Binary,
            Key::Cat(_) => Level::Category,
            Key::Sub(..) => Level::Subcategory,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Any => f.write_str("PHI"),
            Key::Cat(c) => write!(f, "{c}"),
            Key::Sub(c, Some(s)) => write!(f, "{c}/{s}"),
            Key::Sub(c, None) => write!(f, "{c}/UNSPECIFIED"),
        }
    }
}

/// True/false positive and false negative counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }
}

/// Counts with their precision, recall and F1. An undefined ratio (0/0) is reported as 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub tp: usize,
    pub fp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Score {
    pub fn from_counts(tp: usize, fp: usize, fn_: usize) -> Score {
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let precision = ratio(tp, tp + fp);
        let recall = ratio(tp, tp + fn_);
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Score {
            tp,
            fp,
            fn_,
            precision,
            recall,
            f1,
        }
    }

    fn of(c: Counts) -> Score {
        Score::from_counts(c.tp, c.fp, c.fn_)
    }
}

/// Gold documents paired with the other side's by id. Every id must be on both sides, once.
fn pair_documents<'a>(
    gold: &'a [Document],
    other: &'a [Document],
    side: &'static str,
) -> Result<Vec<(&'a Document, &'a Document)>, EvalError> {
    let index = |docs: &'a [Document], side: &'static str| {
        let mut m: HashMap<&'a str, &'a Document> = HashMap::with_capacity(docs.len());
        for d in docs {
            if m.insert(d.id.as_str(), d).is_some() {
                return Err(EvalError::Duplicate {
                    id: d.id.clone(),
                    side,
                });
            }
        }
        Ok(m)
    };
    index(gold, "gold set")?;
    let others = index(other, side)?;
    let mut pairs = Vec::with_capacity(gold.len());
    for g in gold {
        let o = others
            .get(g.id.as_str())
            .ok_or_else(|| EvalError::MissingOther {
                id: g.id.clone(),
                side,
            })?;
        pairs.push((g, *o));
    }
    if other.len() > gold.len() {
        let gold_ids: std::collections::HashSet<&str> =
            gold.iter().map(|d| d.id.as_str()).collect();
        if let Some(o) = other.iter().find(|o| !gold_ids.contains(o.id.as_str())) {
            return Err(EvalError::MissingGold {
                id: o.id.clone(),
                side,
            });
        }
    }
    Ok(pairs)
}

/// The non-excluded entities of a document as `(start, end, label)`, each checked against its text.
fn checked_spans(
    doc: &Document,
    side: &'static str,
    opts: &EvalOptions,
) -> Result<Vec<(usize, usize, Label)>, EvalError> {
    let mut out = Vec::with_capacity(doc.entities.len());
    for e in &doc.entities {
        check_range(doc, side, e.start, e.end)?;
        if !opts.is_excluded(e.label) {
            out.push((e.start, e.end, e.label));
        }
    }
    Ok(out)
}

fn check_range(
    doc: &Document,
    side: &'static str,
    start: usize,
    end: usize,
) -> Result<(), EvalError> {
    let t = &doc.text;
    let ok = start < end && end <= t.len() && t.is_char_boundary(start) && t.is_char_boundary(end);
    if ok {
        Ok(())
    } else {
        Err(EvalError::BadSpan {
            id: doc.id.clone(),
            side,
            start,
            end,
            len: t.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by scripts/fuzz_inputs.py: `eval` quoted whole document ids (which can be a file
    /// name or a field holding more than an id) in its errors; they show a short prefix now.
    #[test]
    fn errors_show_a_document_id_by_a_short_escaped_prefix() {
        let id = format!("{}ZqSecretValue\n", "d".repeat(40));
        let side = "predictions";
        for e in [
            EvalError::MissingOther {
                id: id.clone(),
                side,
            },
            EvalError::MissingGold {
                id: id.clone(),
                side,
            },
            EvalError::Duplicate {
                id: id.clone(),
                side,
            },
            EvalError::TextMismatch {
                id: id.clone(),
                side,
                gold_len: 1,
                other_len: 2,
            },
            EvalError::BadSpan {
                id: id.clone(),
                side,
                start: 0,
                end: 1,
                len: 1,
            },
        ] {
            let m = e.to_string();
            assert!(m.contains("dddd") && !m.contains("ZqSecret"), "{m}");
            assert!(!m.contains('\n'), "{m}");
        }
    }
}
