//! What changed between two reports (e.g. before and after retraining), metric by metric:
//! old and new value, delta, and whether the change lies outside the 95% intervals by one
//! stated rule ([`OUTSIDE_RULE`]); outcomes and identity hashes changed or not. The diff
//! informs, it does not gate. JSON schema `anonlm.report-diff/1`.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::model::{ModelIdentity, Report};
use super::text::{find_tpr, outcome_word};
use crate::audit::metrics::Estimate;
use crate::audit::run::AttackResult;
use crate::stats::Proportion;

/// Version of the diff JSON; bump on any incompatible change.
pub const DIFF_SCHEMA: &str = "anonlm.report-diff/1";

/// The rule for "outside", stated in every diff.
pub const OUTSIDE_RULE: &str = "outside: the new point estimate lies outside the old 95% \
     interval AND the old point estimate lies outside the new 95% interval (a value on a bound \
     is inside); inside: the values differ but not so; intervals are DeLong for the AUC, exact \
     Clopper-Pearson for proportions and the combined exact interval for the advantage; \
     epsilon, exposure, losses and counts have no interval (no_interval).";

/// How a value moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Equal in both reports (or absent from both).
    Unchanged,
    /// A text value (outcome, hash) differs.
    Changed,
    /// Differs, but not outside the intervals by the rule.
    Inside,
    /// Differs, outside the intervals by the rule.
    Outside,
    /// Differs; the metric has no interval to judge the change by.
    NoInterval,
    /// Only in the new report.
    Added,
    /// Only in the old report.
    Removed,
}

impl Change {
    pub fn word(self) -> &'static str {
        match self {
            Change::Unchanged => "unchanged",
            Change::Changed => "changed",
            Change::Inside => "inside",
            Change::Outside => "OUTSIDE",
            Change::NoInterval => "no interval",
            Change::Added => "added",
            Change::Removed => "removed",
        }
    }
}

/// How a metric's values are written in the text table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Count,
    /// AUC, rates, advantage: three decimals.
    Rate,
    /// A share: percent.
    Share,
    /// A loss in nats: three decimals.
    Loss,
    /// Epsilon, bits: two decimals.
    Plain,
}

/// One side of the diff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub file: String,
    pub title: String,
    pub tool: String,
    pub outcome: String,
}

/// A text value: an outcome or a hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextChange {
    pub item: String,
    pub old: Option<String>,
    pub new: Option<String>,
    pub change: Change,
}

/// One metric in both reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricChange {
    /// What the metric belongs to: `attack <name>`, `canaries <n>x`, `probe set <set>`, ...
    pub item: String,
    pub metric: String,
    pub kind: Kind,
    pub old: Option<f64>,
    pub new: Option<f64>,
    /// new − old when both are present.
    pub delta: Option<f64>,
    pub old_interval: Option<[f64; 2]>,
    pub new_interval: Option<[f64; 2]>,
    pub change: Change,
}

/// The whole diff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportDiff {
    pub schema: String,
    pub rule: String,
    pub old: Side,
    pub new: Side,
    /// Rows whose change is not `unchanged`.
    pub changes: usize,
    /// The decision, each attack's, the canaries' and the probes' outcome, the unit.
    pub outcomes: Vec<TextChange>,
    pub identity: Vec<TextChange>,
    pub metrics: Vec<MetricChange>,
}

/// A value with its 95% interval when it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

impl Measure {
    fn plain(v: f64) -> Option<Self> {
        v.is_finite().then_some(Measure {
            value: v,
            interval: None,
        })
    }
    fn count(n: u64) -> Option<Self> {
        Measure::plain(n as f64)
    }
    fn estimate(e: &Estimate) -> Option<Self> {
        Some(Measure {
            value: e.value,
            interval: Some((e.lower, e.upper)),
        })
    }
    fn proportion(p: &Proportion) -> Option<Self> {
        Some(Measure {
            value: p.estimate?,
            interval: p.lower.zip(p.upper),
        })
    }
}

/// The rule: the new value outside the old interval and the old value outside the new one.
pub fn is_outside(old: Measure, new: Measure) -> Option<bool> {
    let (o, n) = (old.interval?, new.interval?);
    let out = |v: f64, (lo, hi): (f64, f64)| v < lo || v > hi;
    Some(out(new.value, o) && out(old.value, n))
}

/// How a metric changed between `old` and `new` (None: absent from that report).
pub fn classify(old: Option<Measure>, new: Option<Measure>) -> Change {
    match (old, new) {
        (None, None) => Change::Unchanged,
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Removed,
        (Some(o), Some(n)) if o.value == n.value => Change::Unchanged,
        (Some(o), Some(n)) => match is_outside(o, n) {
            Some(true) => Change::Outside,
            Some(false) => Change::Inside,
            None => Change::NoInterval,
        },
    }
}

fn text_change(item: String, old: Option<String>, new: Option<String>) -> TextChange {
    let change = match (&old, &new) {
        (None, None) => Change::Unchanged,
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Removed,
        (Some(a), Some(b)) if a == b => Change::Unchanged,
        _ => Change::Changed,
    };
    TextChange {
        item,
        old,
        new,
        change,
    }
}

type Measures = Vec<(&'static str, Kind, Option<Measure>)>;

#[derive(Default)]
struct Rows(Vec<MetricChange>);

impl Rows {
    /// One row per metric of `old` and `new` (same names, same order; None: absent).
    fn add(&mut self, item: &str, old: Measures, new: Measures) {
        for ((metric, kind, o), (_, _, n)) in old.into_iter().zip(new) {
            self.0.push(MetricChange {
                item: item.into(),
                metric: metric.into(),
                kind,
                old: o.map(|m| m.value),
                new: n.map(|m| m.value),
                delta: o.zip(n).map(|(o, n)| n.value - o.value),
                old_interval: o.and_then(|m| m.interval).map(|(a, b)| [a, b]),
                new_interval: n.and_then(|m| m.interval).map(|(a, b)| [a, b]),
                change: classify(o, n),
            });
        }
    }
}

/// Pairs of items matched by key, old order first, then items only in `new`.
fn matched<'a, T, K: PartialEq>(
    old: &'a [T],
    new: &'a [T],
    key: impl Fn(&T) -> K,
) -> Vec<(&'a T, Option<&'a T>, Option<&'a T>)> {
    let mut out: Vec<_> = old
        .iter()
        .map(|o| (o, Some(o), new.iter().find(|n| key(n) == key(o))))
        .collect();
    for n in new {
        if !old.iter().any(|o| key(o) == key(n)) {
            out.push((n, None, Some(n)));
        }
    }
    out
}

fn attack_measures(a: Option<&AttackResult>) -> Measures {
    let m = a.map(|a| &a.metrics);
    let tpr = |target: f64| {
        m.and_then(|m| find_tpr(&m.tpr_at_fpr, target))
            .and_then(|t| Measure::proportion(&t.tpr))
    };
    vec![
        (
            "members",
            Kind::Count,
            m.and_then(|m| Measure::count(m.members)),
        ),
        (
            "non_members",
            Kind::Count,
            m.and_then(|m| Measure::count(m.non_members)),
        ),
        ("auc", Kind::Rate, m.and_then(|m| Measure::estimate(&m.auc))),
        ("tpr_at_1pct_fpr", Kind::Rate, tpr(0.01)),
        ("tpr_at_0.1pct_fpr", Kind::Rate, tpr(0.001)),
        (
            "advantage",
            Kind::Rate,
            m.and_then(|m| Measure::estimate(&m.advantage)),
        ),
        (
            "epsilon_lower_bound",
            Kind::Plain,
            m.and_then(|m| Measure::plain(m.epsilon_lower_bound)),
        ),
    ]
}

fn data_measures(r: &Report) -> Measures {
    let d = &r.data;
    let c = |n: usize| Measure::count(n as u64);
    vec![
        ("member_sentences", Kind::Count, c(d.member_sentences)),
        (
            "non_member_sentences",
            Kind::Count,
            c(d.non_member_sentences),
        ),
        ("member_documents", Kind::Count, c(d.member_documents)),
        (
            "non_member_documents",
            Kind::Count,
            c(d.non_member_documents),
        ),
        ("skipped_documents", Kind::Count, c(d.skipped_documents)),
        (
            "deid_recall",
            Kind::Share,
            r.deid
                .as_ref()
                .and_then(|d| d.recall.as_ref())
                .and_then(Measure::proportion),
        ),
    ]
}

fn model_hashes(who: &str, m: Option<&ModelIdentity>) -> Vec<(String, Option<String>)> {
    vec![
        (
            format!("{who} weights sha256"),
            m.and_then(|m| m.weights_sha256.clone()),
        ),
        (
            format!("{who} tokenizer sha256"),
            m.and_then(|m| m.tokenizer_sha256.clone()),
        ),
        (
            format!("{who} manifest sha256"),
            m.and_then(|m| m.manifest_sha256.clone()),
        ),
        (
            format!("{who} corpus digest"),
            m.and_then(|m| m.corpus_digest.clone()),
        ),
    ]
}

fn identity_items(r: &Report) -> Vec<(String, Option<String>)> {
    let id = &r.identity;
    let mut out = vec![("spec sha256".to_string(), Some(id.spec.sha256.clone()))];
    out.extend(model_hashes("model", Some(&id.model)));
    out.extend(model_hashes("reference", id.reference.as_ref()));
    out.push((
        "deid stats sha256".into(),
        r.deid.as_ref().map(|d| d.stats_file.sha256.clone()),
    ));
    out.push((
        "probe metrics sha256".into(),
        r.probe.as_ref().map(|p| p.file.sha256.clone()),
    ));
    out
}

fn groups(r: &Report) -> &[super::model::CanaryGroup] {
    r.canaries.as_ref().map_or(&[], |c| &c.groups)
}

fn sets(r: &Report) -> &[crate::probe::metrics::SetMetrics] {
    r.probe.as_ref().map_or(&[], |p| &p.sets)
}

fn side(file: &str, r: &Report) -> Side {
    Side {
        file: file.into(),
        title: r.title.clone(),
        tool: r.tool.clone(),
        outcome: outcome_word(r.decision.outcome).into(),
    }
}

/// The diff of `old` and `new`; the file names are only recorded.
pub fn diff(old: &Report, new: &Report, old_file: &str, new_file: &str) -> ReportDiff {
    let word = |o| Some(outcome_word(o).to_string());
    let mut outcomes = vec![text_change(
        "decision".into(),
        word(old.decision.outcome),
        word(new.decision.outcome),
    )];
    let unit = |r: &Report| {
        serde_json::to_value(r.data.unit)
            .ok()
            .map(|v| v.to_string())
    };
    outcomes.push(text_change("data unit".into(), unit(old), unit(new)));
    let mut rows = Rows::default();
    rows.add("data", data_measures(old), data_measures(new));

    for (a, o, n) in matched(&old.attacks, &new.attacks, |a| a.name.clone()) {
        let item = format!("attack {}", a.name);
        outcomes.push(text_change(
            format!("{item} outcome"),
            o.and_then(|x| word(x.outcome)),
            n.and_then(|x| word(x.outcome)),
        ));
        rows.add(&item, attack_measures(o), attack_measures(n));
    }

    outcomes.push(text_change(
        "canaries outcome".into(),
        old.canaries.as_ref().and_then(|c| word(c.outcome)),
        new.canaries.as_ref().and_then(|c| word(c.outcome)),
    ));
    for (g, o, n) in matched(groups(old), groups(new), |g| g.repeats) {
        let m = |g: Option<&super::model::CanaryGroup>| -> Measures {
            vec![
                (
                    "canaries",
                    Kind::Count,
                    g.and_then(|g| Measure::count(g.exposures.len() as u64)),
                ),
                (
                    "mean_exposure_bits",
                    Kind::Plain,
                    g.and_then(|g| Measure::plain(g.mean_exposure)),
                ),
                (
                    "max_exposure_bits",
                    Kind::Plain,
                    g.and_then(|g| Measure::plain(g.max_exposure)),
                ),
                (
                    "share_above_chance",
                    Kind::Share,
                    g.and_then(|g| Measure::proportion(&g.above_chance)),
                ),
            ]
        };
        rows.add(&format!("canaries inserted {}x", g.repeats), m(o), m(n));
    }

    outcomes.push(text_change(
        "probe outcome".into(),
        old.probe.as_ref().and_then(|p| word(p.outcome)),
        new.probe.as_ref().and_then(|p| word(p.outcome)),
    ));
    for (s, o, n) in matched(sets(old), sets(new), |s| s.set.clone()) {
        let m = |s: Option<&crate::probe::metrics::SetMetrics>| -> Measures {
            vec![
                (
                    "slots",
                    Kind::Count,
                    s.and_then(|s| Measure::count(s.slots)),
                ),
                (
                    "name_like_share",
                    Kind::Share,
                    s.and_then(|s| Measure::proportion(&s.name_like_predictions)),
                ),
                (
                    "slots_with_name_like",
                    Kind::Share,
                    s.and_then(|s| Measure::proportion(&s.slots_with_name_like)),
                ),
            ]
        };
        rows.add(&format!("probe set {}", s.set), m(o), m(n));
    }

    let utility = |r: &Report| -> Measures {
        let u = r.utility.as_ref();
        let f = |x: Option<f64>| x.and_then(Measure::plain);
        vec![
            (
                "held_out_documents",
                Kind::Count,
                u.and_then(|u| Measure::count(u.held_out_documents)),
            ),
            (
                "loss_before_rewrite",
                Kind::Loss,
                f(u.and_then(|u| u.loss_before_rewrite)),
            ),
            (
                "loss_after_rewrite",
                Kind::Loss,
                f(u.and_then(|u| u.loss_after_rewrite)),
            ),
            (
                "unigram_baseline",
                Kind::Loss,
                f(u.and_then(|u| u.unigram_baseline)),
            ),
        ]
    };
    rows.add("utility", utility(old), utility(new));

    let (io, inew) = (identity_items(old), identity_items(new));
    let mut identity: Vec<TextChange> = io
        .into_iter()
        .zip(inew)
        .map(|((item, o), (_, n))| text_change(item, o, n))
        .collect();
    let files = |r: &Report| r.identity.data_files.clone();
    let (fo, fnew) = (files(old), files(new));
    for (f, o, n) in matched(&fo, &fnew, |f| f.path.clone()) {
        identity.push(text_change(
            format!("data file {} sha256", f.path),
            o.map(|f| f.sha256.clone()),
            n.map(|f| f.sha256.clone()),
        ));
    }

    let metrics = rows.0;
    let changes = outcomes
        .iter()
        .chain(&identity)
        .filter(|t| t.change != Change::Unchanged)
        .count()
        + metrics
            .iter()
            .filter(|m| m.change != Change::Unchanged)
            .count();
    ReportDiff {
        schema: DIFF_SCHEMA.into(),
        rule: OUTSIDE_RULE.into(),
        old: side(old_file, old),
        new: side(new_file, new),
        changes,
        outcomes,
        identity,
        metrics,
    }
}

fn value(kind: Kind, v: Option<f64>) -> String {
    let Some(v) = v else {
        return "-".into();
    };
    match kind {
        Kind::Count => format!("{v:.0}"),
        Kind::Rate | Kind::Loss => format!("{v:.3}"),
        Kind::Share => format!("{:.2}%", 100.0 * v),
        Kind::Plain => format!("{v:.2}"),
    }
}

fn with_interval(kind: Kind, v: Option<f64>, i: Option<[f64; 2]>) -> String {
    match (v, i) {
        (Some(_), Some([lo, hi])) => format!(
            "{} [{}, {}]",
            value(kind, v),
            value(kind, Some(lo)),
            value(kind, Some(hi))
        ),
        _ => value(kind, v),
    }
}

fn delta(kind: Kind, d: Option<f64>) -> String {
    let Some(d) = d else {
        return "-".into();
    };
    match kind {
        Kind::Count => format!("{d:+.0}"),
        Kind::Rate | Kind::Loss => format!("{d:+.3}"),
        Kind::Share => format!("{:+.2} pp", 100.0 * d),
        Kind::Plain => format!("{d:+.2}"),
    }
}

/// Rows as aligned columns.
fn columns(out: &mut String, head: &[&str], rows: &[Vec<String>]) {
    let n = head.len();
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i + 1 == n {
                    c.to_string()
                } else {
                    format!("{c:<w$}")
                }
            })
            .collect();
        format!("  {}", padded.join("  ").trim_end())
    };
    let _ = writeln!(out, "{}", line(head.to_vec()));
    for r in rows {
        let _ = writeln!(out, "{}", line(r.iter().map(String::as_str).collect()));
    }
}

/// Words on lines of at most `width` characters (a longer word gets its own line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A short hash for the text table.
fn short(h: &Option<String>) -> String {
    match h {
        Some(h) if h.len() > 16 => format!("{}…", &h[..12]),
        Some(h) => h.clone(),
        None => "-".into(),
    }
}

/// The diff as a text table.
pub fn to_text(d: &ReportDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "report diff ({})", d.schema);
    for (label, s) in [("old", &d.old), ("new", &d.new)] {
        let _ = writeln!(
            out,
            "  {label}: {}  \"{}\"  {}  decision {}",
            s.file, s.title, s.tool, s.outcome
        );
    }
    let _ = writeln!(out, "{} change(s).", d.changes);
    for l in wrap(&format!("Rule: {}", d.rule), 96) {
        let _ = writeln!(out, "  {l}");
    }
    out.push_str("\nOutcomes\n");
    let rows: Vec<Vec<String>> = d
        .outcomes
        .iter()
        .map(|t| {
            vec![
                t.item.clone(),
                t.old.clone().unwrap_or_else(|| "-".into()),
                t.new.clone().unwrap_or_else(|| "-".into()),
                t.change.word().into(),
            ]
        })
        .collect();
    columns(&mut out, &["item", "old", "new", "change"], &rows);
    out.push_str("\nIdentity\n");
    let rows: Vec<Vec<String>> = d
        .identity
        .iter()
        .map(|t| {
            vec![
                t.item.clone(),
                short(&t.old),
                short(&t.new),
                t.change.word().into(),
            ]
        })
        .collect();
    columns(&mut out, &["item", "old", "new", "change"], &rows);
    out.push_str("\nMetrics (95% intervals in brackets)\n");
    let rows: Vec<Vec<String>> = d
        .metrics
        .iter()
        .map(|m| {
            vec![
                m.item.clone(),
                m.metric.clone(),
                with_interval(m.kind, m.old, m.old_interval),
                with_interval(m.kind, m.new, m.new_interval),
                delta(m.kind, m.delta),
                m.change.word().into(),
            ]
        })
        .collect();
    columns(
        &mut out,
        &["item", "metric", "old", "new", "delta", "change"],
        &rows,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::example;

    fn row<'a>(d: &'a ReportDiff, item: &str, metric: &str) -> &'a MetricChange {
        d.metrics
            .iter()
            .find(|m| m.item == item && m.metric == metric)
            .unwrap_or_else(|| panic!("{item} {metric}"))
    }

    fn est(value: f64, lower: f64, upper: f64) -> Estimate {
        Estimate {
            value,
            lower,
            upper,
        }
    }

    #[test]
    fn identical_reports_have_no_changes() {
        let r = example();
        let d = diff(&r, &r, "a.json", "b.json");
        assert_eq!(d.changes, 0, "{}", to_text(&d));
        assert!(d.metrics.iter().all(|m| m.change == Change::Unchanged));
        assert!(d.metrics.iter().any(|m| m.metric == "auc"));
        assert!(to_text(&d).contains("0 change(s)"));
    }

    #[test]
    fn auc_moves_outside_and_inside_the_intervals() {
        let mut old = example();
        let mut new = old.clone();
        // Blind baseline: 0.50 [0.46, 0.54] -> 0.52 [0.48, 0.56]: each inside the other's.
        old.attacks[0].metrics.auc = est(0.50, 0.46, 0.54);
        new.attacks[0].metrics.auc = est(0.52, 0.48, 0.56);
        // Loss attack: 0.62 [0.58, 0.66] -> 0.51 [0.47, 0.55]: each outside the other's.
        old.attacks[1].metrics.auc = est(0.62, 0.58, 0.66);
        new.attacks[1].metrics.auc = est(0.51, 0.47, 0.55);
        let d = diff(&old, &new, "old.json", "new.json");
        let blind = row(&d, "attack blind_baseline", "auc");
        assert_eq!(blind.change, Change::Inside);
        assert!((blind.delta.unwrap() - 0.02).abs() < 1e-12);
        let loss = row(&d, "attack masked_token_loss", "auc");
        assert_eq!(loss.change, Change::Outside);
        assert_eq!(loss.old_interval, Some([0.58, 0.66]));
        assert_eq!(d.changes, 2);
        let text = to_text(&d);
        assert!(
            text.contains("OUTSIDE") && text.contains("inside"),
            "{text}"
        );
    }

    #[test]
    fn one_sided_is_not_outside() {
        // The new value leaves the old interval, but the old value is inside the new (wide) one.
        let o = Measure {
            value: 0.50,
            interval: Some((0.48, 0.52)),
        };
        let n = Measure {
            value: 0.56,
            interval: Some((0.40, 0.70)),
        };
        assert_eq!(classify(Some(o), Some(n)), Change::Inside);
        // Without intervals there is no judgement.
        let p = |v| Measure {
            value: v,
            interval: None,
        };
        assert_eq!(classify(Some(p(1.0)), Some(p(2.0))), Change::NoInterval);
        assert_eq!(classify(None, Some(p(2.0))), Change::Added);
    }

    #[test]
    fn attacks_sets_and_hashes_added_removed_changed() {
        let old = example();
        let mut new = old.clone();
        new.attacks.remove(0);
        new.identity.model.weights_sha256 = Some("0".repeat(64));
        new.probe.as_mut().unwrap().sets.pop();
        new.decision.outcome = crate::audit::run::Outcome::Pass;
        let d = diff(&old, &new, "a", "b");
        assert_eq!(
            row(&d, "attack blind_baseline", "auc").change,
            Change::Removed
        );
        assert_eq!(
            row(&d, "probe set all", "name_like_share").change,
            Change::Removed
        );
        let w = d
            .identity
            .iter()
            .find(|t| t.item == "model weights sha256")
            .unwrap();
        assert_eq!(w.change, Change::Changed);
        assert_eq!(d.outcomes[0].change, Change::Changed);
        let back: ReportDiff = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back.schema, DIFF_SCHEMA);
        assert_eq!(back.metrics.len(), d.metrics.len());
    }
}
