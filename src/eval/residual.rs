//! Residual PII: how much of the gold PHI survives de-identification, measured two ways:
//! coverage of gold characters by replaced ranges, and gold surface words still in the output.

use super::{check_range, checked_spans, pair_documents, EvalError, EvalOptions};
use crate::corpus::Document;
use crate::text::{alnum_runs, intersecting};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Coverage check for one label (or overall): gold entities with any non-whitespace character
/// outside every replaced range.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageRow {
    pub label: String,
    pub entities: usize,
    pub with_residue: usize,
    /// `with_residue / entities` (0 when there are no entities).
    pub share: f64,
    /// Non-whitespace characters in the gold entities, and how many were left.
    pub chars: usize,
    pub chars_left: usize,
}

/// Text check for one label (or overall): gold surface words (alphanumeric, at least 3
/// characters, not also used outside gold spans in the original) still present as whole words
/// (case-insensitive) in the output text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextRow {
    pub label: String,
    pub entities: usize,
    /// Entities with at least one word that can be checked.
    pub checked: usize,
    pub leaked: usize,
    /// `leaked / entities` (0 when there are no entities): a lower bound on the leak rate.
    pub share: f64,
    pub words_checked: usize,
    pub words_leaked: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResidualCoverage {
    pub overall: CoverageRow,
    /// Sorted by entities (descending), then label.
    pub per_label: Vec<CoverageRow>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResidualText {
    pub overall: TextRow,
    /// Sorted by entities (descending), then label.
    pub per_label: Vec<TextRow>,
}

/// Both residual checks; either may be absent when its input was not given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResidualReport {
    pub documents: usize,
    pub excluded: Vec<String>,
    pub coverage: Option<ResidualCoverage>,
    pub text: Option<ResidualText>,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Share of gold entities with characters left, given per document id the byte ranges (in the
/// original text) that de-identification replaced. Every gold document needs an entry (empty
/// when nothing was replaced); ids without a gold document are an error too.
pub fn residual(
    gold: &[Document],
    replaced: &HashMap<String, Vec<(usize, usize)>>,
    opts: &EvalOptions,
) -> Result<ResidualCoverage, EvalError> {
    let side = "replaced ranges";
    let mut rows: BTreeMap<String, CoverageRow> = BTreeMap::new();
    let mut seen: HashSet<&str> = HashSet::with_capacity(gold.len());
    for g in gold {
        if !seen.insert(g.id.as_str()) {
            return Err(EvalError::Duplicate {
                id: g.id.clone(),
                side: "gold set",
            });
        }
        let ranges = replaced.get(&g.id).ok_or_else(|| EvalError::MissingOther {
            id: g.id.clone(),
            side,
        })?;
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for &(s, e) in ranges {
            if s > e || e > g.text.len() {
                return Err(EvalError::BadSpan {
                    id: g.id.clone(),
                    side,
                    start: s,
                    end: e,
                    len: g.text.len(),
                });
            }
            if s < e {
                merged.push((s, e));
            }
        }
        let merged = coalesce(merged);
        let covered = |b: usize| {
            let i = merged.partition_point(|r| r.0 <= b);
            i > 0 && merged[i - 1].1 > b
        };
        for (s, e, label) in checked_spans(g, "gold", opts)? {
            let row = rows.entry(label.to_string()).or_default();
            row.entities += 1;
            let (mut chars, mut left) = (0, 0);
            for (i, c) in g.text[s..e].char_indices() {
                if !c.is_whitespace() {
                    chars += 1;
                    left += usize::from(!covered(s + i));
                }
            }
            row.chars += chars;
            row.chars_left += left;
            row.with_residue += usize::from(left > 0);
        }
    }
    let mut extra: Vec<&String> = replaced
        .keys()
        .filter(|k| !seen.contains(k.as_str()))
        .collect();
    extra.sort();
    if let Some(id) = extra.first() {
        return Err(EvalError::MissingGold {
            id: id.to_string(),
            side,
        });
    }
    let mut overall = CoverageRow {
        label: "ALL".into(),
        ..Default::default()
    };
    let mut per_label: Vec<CoverageRow> = rows
        .into_iter()
        .map(|(label, mut r)| {
            overall.entities += r.entities;
            overall.with_residue += r.with_residue;
            overall.chars += r.chars;
            overall.chars_left += r.chars_left;
            r.label = label;
            r.share = ratio(r.with_residue, r.entities);
            r
        })
        .collect();
    overall.share = ratio(overall.with_residue, overall.entities);
    per_label.sort_by(|a, b| b.entities.cmp(&a.entities).then(a.label.cmp(&b.label)));
    Ok(ResidualCoverage { overall, per_label })
}

/// Sorted, non-overlapping ranges covering the same bytes.
fn coalesce(mut ranges: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    ranges.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Independent text check: gold surface words still found as whole words in the de-identified
/// output (`output` documents matched to gold by id; their text is the de-identified text).
/// `generated` (byte ranges of each output written by the operators, from the ops log) leaves
/// out words the operators wrote: a surrogate date that keeps the month name is no leak.
pub fn residual_text(
    gold: &[Document],
    output: &[Document],
    generated: Option<&HashMap<String, Vec<(usize, usize)>>>,
    opts: &EvalOptions,
) -> Result<ResidualText, EvalError> {
    let mut rows: BTreeMap<String, TextRow> = BTreeMap::new();
    for (g, out) in pair_documents(gold, output, "output")? {
        let tokens = alnum_runs(&g.text);
        // Tokens touched by any gold span (excluded labels too: they are still annotated PHI).
        let mut inside = vec![false; tokens.len()];
        for e in &g.entities {
            check_range(g, "gold", e.start, e.end)?;
            for t in intersecting(&tokens, e.start, e.end) {
                inside[t] = true;
            }
        }
        let outside: HashSet<String> = tokens
            .iter()
            .zip(&inside)
            .filter(|(_, &inside)| !inside)
            .map(|(&(s, e), _)| g.text[s..e].to_lowercase())
            .collect();
        let written = generated
            .and_then(|g| g.get(&out.id))
            .map_or(&[][..], Vec::as_slice);
        let in_output: HashSet<String> = alnum_runs(&out.text)
            .into_iter()
            .filter(|&(s, e)| !written.iter().any(|&(ws, we)| ws <= s && e <= we))
            .map(|(s, e)| out.text[s..e].to_lowercase())
            .collect();
        for (s, e, label) in checked_spans(g, "gold", opts)? {
            let row = rows.entry(label.to_string()).or_default();
            row.entities += 1;
            let surface = &g.text[s..e];
            let (mut checked, mut leaked) = (0, 0);
            for (ts, te) in alnum_runs(surface) {
                let word = &surface[ts..te];
                if word.chars().count() < 3 {
                    continue;
                }
                let word = word.to_lowercase();
                if outside.contains(&word) {
                    continue;
                }
                checked += 1;
                leaked += usize::from(in_output.contains(&word));
            }
            row.words_checked += checked;
            row.words_leaked += leaked;
            row.checked += usize::from(checked > 0);
            row.leaked += usize::from(leaked > 0);
        }
    }
    let mut overall = TextRow {
        label: "ALL".into(),
        ..Default::default()
    };
    let mut per_label: Vec<TextRow> = rows
        .into_iter()
        .map(|(label, mut r)| {
            overall.entities += r.entities;
            overall.checked += r.checked;
            overall.leaked += r.leaked;
            overall.words_checked += r.words_checked;
            overall.words_leaked += r.words_leaked;
            r.label = label;
            r.share = ratio(r.leaked, r.entities);
            r
        })
        .collect();
    overall.share = ratio(overall.leaked, overall.entities);
    per_label.sort_by(|a, b| b.entities.cmp(&a.entities).then(a.label.cmp(&b.label)));
    Ok(ResidualText { overall, per_label })
}

/// Both checks in one report; pass `None` for an input you do not have.
pub fn residual_report(
    gold: &[Document],
    replaced: Option<&HashMap<String, Vec<(usize, usize)>>>,
    output: Option<&[Document]>,
    generated: Option<&HashMap<String, Vec<(usize, usize)>>>,
    opts: &EvalOptions,
) -> Result<ResidualReport, EvalError> {
    Ok(ResidualReport {
        documents: gold.len(),
        excluded: opts.exclude.iter().map(|l| l.to_string()).collect(),
        coverage: replaced.map(|r| residual(gold, r, opts)).transpose()?,
        text: output
            .map(|o| residual_text(gold, o, generated, opts))
            .transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category as C, Label, Subtype as S};
    use crate::span::Entity;

    const PAT: Label = Label::new(C::Name, S::Patient);
    const DOC: Label = Label::new(C::Name, S::Doctor);
    const CITY: Label = Label::new(C::Location, S::City);
    const SEX: Label = Label::new(C::Other, S::Sex);

    const TEXT: &str = "Ana Ruiz, mujer, vio al Dr. Gil y al Dr. Li en Madrid. Ana vive lejos.";

    fn at(surface: &str) -> (usize, usize) {
        let s = TEXT.find(surface).unwrap();
        (s, s + surface.len())
    }

    fn gold() -> Document {
        let mut d = Document::new("g1", TEXT);
        for (surface, label) in [
            ("Ana Ruiz", PAT),
            ("mujer", SEX),
            ("Gil", DOC),
            ("Li ", DOC),
            ("Madrid", CITY),
        ] {
            let (s, e) = at(surface);
            let e = if surface.ends_with(' ') { e - 1 } else { e };
            d.entities.push(Entity::new(s, e, label, "gold", 1.0));
        }
        d
    }

    fn no_sex() -> EvalOptions {
        EvalOptions { exclude: vec![SEX] }
    }

    #[test]
    fn coverage_counts_uncovered_non_whitespace_characters() {
        let (gil, _) = at("Gil");
        let (li, li_end) = at("Li ");
        // "Ana" and "Ruiz" replaced separately (the space between does not count), two
        // overlapping ranges inside "Ana", only "Gi" of "Gil", all of "Li", nothing of "Madrid".
        let ranges = vec![(0, 3), (1, 2), (4, 8), (gil, gil + 2), (li, li_end - 1)];
        let replaced = HashMap::from([("g1".to_string(), ranges)]);
        let r = residual(&[gold()], &replaced, &no_sex()).unwrap();
        let o = &r.overall;
        assert_eq!(
            (o.entities, o.with_residue, o.chars, o.chars_left),
            (4, 2, 18, 7)
        );
        assert!((o.share - 0.5).abs() < 1e-12);
        let rows: Vec<(&str, usize, usize, usize, usize)> = r
            .per_label
            .iter()
            .map(|r| {
                (
                    r.label.as_str(),
                    r.entities,
                    r.with_residue,
                    r.chars,
                    r.chars_left,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("NAME/DOCTOR", 2, 1, 5, 1),
                ("LOCATION/CITY", 1, 1, 6, 6),
                ("NAME/PATIENT", 1, 0, 7, 0),
            ]
        );
        // Without the exclusion, the unreplaced "mujer" counts too.
        let r = residual(&[gold()], &replaced, &EvalOptions::default()).unwrap();
        assert_eq!((r.overall.entities, r.overall.with_residue), (5, 3));
    }

    #[test]
    fn coverage_input_errors_name_the_document() {
        let opts = EvalOptions::default();
        let cases = [
            (
                HashMap::new(),
                "'g1' is in the gold set but not in the replaced ranges",
            ),
            (
                HashMap::from([("g1".to_string(), vec![(5, 500)])]),
                "'g1' (replaced ranges): span 5-500",
            ),
            (
                HashMap::from([("g1".to_string(), vec![]), ("zz".to_string(), vec![])]),
                "'zz' is in the replaced ranges but not in the gold set",
            ),
        ];
        for (replaced, want) in cases {
            let e = residual(&[gold()], &replaced, &opts)
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn text_check_finds_gold_words_left_in_the_output() {
        // "Ana" also occurs outside PHI, so it is not checked; "Li" is too short; "Gilberto" is
        // not the whole word "Gil"; "MADRID" matches case-insensitively.
        let out = Document::new(
            "g1",
            "Eva Sanz, mujer, vio al Dr. Gilberto y al Dr. Li en MADRID. Ana vive lejos.",
        );
        let r = residual_text(&[gold()], std::slice::from_ref(&out), None, &no_sex()).unwrap();
        let o = &r.overall;
        assert_eq!(
            (
                o.entities,
                o.checked,
                o.leaked,
                o.words_checked,
                o.words_leaked
            ),
            (4, 3, 1, 3, 1)
        );
        assert!((o.share - 0.25).abs() < 1e-12);
        let city = r
            .per_label
            .iter()
            .find(|r| r.label == "LOCATION/CITY")
            .unwrap();
        assert_eq!((city.entities, city.leaked), (1, 1));
        let doctor = r
            .per_label
            .iter()
            .find(|r| r.label == "NAME/DOCTOR")
            .unwrap();
        assert_eq!((doctor.entities, doctor.checked, doctor.leaked), (2, 1, 0));

        // "MADRID" written by an operator (a surrogate that happens to share the word) is no leak.
        let at = out.text.find("MADRID").unwrap();
        let generated = HashMap::from([("g1".to_string(), vec![(at, at + "MADRID".len())])]);
        let r = residual_text(
            &[gold()],
            std::slice::from_ref(&out),
            Some(&generated),
            &no_sex(),
        )
        .unwrap();
        assert_eq!((r.overall.leaked, r.overall.words_leaked), (0, 0));

        // Untouched output leaks every checked word.
        let same = Document::new("g1", TEXT);
        let r = residual_text(&[gold()], &[same], None, &no_sex()).unwrap();
        assert_eq!((r.overall.leaked, r.overall.words_leaked), (3, 3));

        let e = residual_text(&[gold()], &[], None, &no_sex())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'g1' is in the gold set but not in the output"),
            "{e}"
        );
    }

    #[test]
    fn report_combines_both_checks_and_prints_without_text() {
        let replaced = HashMap::from([("g1".to_string(), vec![])]);
        let out = Document::new("g1", TEXT);
        let r = residual_report(&[gold()], Some(&replaced), Some(&[out]), None, &no_sex()).unwrap();
        assert_eq!(r.coverage.as_ref().unwrap().overall.with_residue, 4);
        assert_eq!(r.text.as_ref().unwrap().overall.leaked, 3);
        let table = r.to_table();
        assert!(
            table.contains("coverage:") && table.contains("text:"),
            "{table}"
        );
        assert!(
            !table.contains("Madrid") && !table.contains("Ruiz"),
            "{table}"
        );
        let only_text = residual_report(&[gold()], None, None, None, &no_sex()).unwrap();
        assert!(only_text.coverage.is_none() && only_text.text.is_none());
        let json = serde_json::to_string(&r).unwrap();
        let back: ResidualReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }
}

#[cfg(test)]
mod meddocan_tests {
    use super::*;
    use crate::labels::{Category, Label, Subtype};

    /// MEDDOCAN dev gold, read in place: replacing every gold span leaves nothing; replacing
    /// nothing leaves every entity; the untouched text leaks every checkable word.
    #[test]
    fn meddocan_dev_residual_extremes() {
        let Some(dir) = crate::testdata::meddocan_split("dev") else {
            return;
        };
        let dir = dir.as_path();
        let map = crate::labelmap::LabelMap::builtin("meddocan").unwrap();
        let resolver = map.resolver();
        let gold: Vec<Document> = crate::corpus::brat::list_documents(dir)
            .unwrap()
            .iter()
            .map(|p| crate::corpus::brat::read_document(p, &resolver).unwrap())
            .collect();
        let opts = EvalOptions {
            exclude: vec![Label::new(Category::Other, Subtype::Sex)],
        };
        let all: HashMap<String, Vec<(usize, usize)>> = gold
            .iter()
            .map(|d| {
                (
                    d.id.clone(),
                    d.entities.iter().map(|e| (e.start, e.end)).collect(),
                )
            })
            .collect();
        let none: HashMap<String, Vec<(usize, usize)>> =
            gold.iter().map(|d| (d.id.clone(), Vec::new())).collect();
        let full = residual(&gold, &all, &opts).unwrap();
        assert!(full.overall.entities > 5000);
        assert_eq!((full.overall.with_residue, full.overall.chars_left), (0, 0));
        let bare = residual(&gold, &none, &opts).unwrap();
        assert_eq!(bare.overall.with_residue, bare.overall.entities);
        assert_eq!(bare.overall.chars_left, bare.overall.chars);
        let text = residual_text(&gold, &gold, None, &opts).unwrap();
        assert_eq!(text.overall.leaked, text.overall.checked);
        // A span that cuts a word (3 in dev) leaves a fragment that is no whole word of the text.
        let missed = text.overall.words_checked - text.overall.words_leaked;
        assert!(missed <= 3, "{missed} words");
        assert!(text.overall.checked * 2 > text.overall.entities);
    }
}
