//! Tests of change classification, matching and the text rendering.

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
