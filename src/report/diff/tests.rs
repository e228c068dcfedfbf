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
    // −0.11 ± √(0.04² + 0.04²).
    let [lo, hi] = loss.delta_interval.unwrap();
    assert!((hi - (-0.11 + 0.04 * 2f64.sqrt())).abs() < 1e-12, "{hi}");
    assert!(lo < hi && blind.delta_interval.unwrap()[0] < 0.0);
    assert_eq!(d.changes, 2);
    let text = to_text(&d);
    assert!(
        text.contains("OUTSIDE") && text.contains("inside"),
        "{text}"
    );
    assert!(text.contains("-0.110 [-0.167, -0.053]"), "{text}");
    assert!(
        text.contains("1 of 2 changed metrics with intervals are outside"),
        "{text}"
    );
}

#[test]
fn a_change_within_the_combined_uncertainty_is_inside() {
    let m = |value, lo, hi| Measure {
        value,
        interval: Some((lo, hi)),
    };
    // The new value leaves the old interval, but the old value is inside the new (wide) one.
    assert_eq!(
        classify(Some(m(0.50, 0.48, 0.52)), Some(m(0.56, 0.40, 0.70))),
        Change::Inside
    );
    // Each value just outside the other's interval: two estimates of one quantity land so
    // about one time in six. The change's interval, 0.05 ± √2·0.04, holds 0.
    let (old, new) = (m(0.50, 0.46, 0.54), m(0.55, 0.51, 0.59));
    let (lo, hi) = difference_interval(old, new).unwrap();
    assert!((lo - (0.05 - 0.04 * 2f64.sqrt())).abs() < 1e-12, "{lo}");
    assert!((hi - (0.05 + 0.04 * 2f64.sqrt())).abs() < 1e-12, "{hi}");
    assert_eq!(classify(Some(old), Some(new)), Change::Inside);
    // Twice as far apart it is outside.
    assert_eq!(
        classify(Some(old), Some(m(0.60, 0.56, 0.64))),
        Change::Outside
    );
    // Asymmetric intervals: the bounds facing each other count. 0/400 has [0, 0.0092], 4/400
    // has [0.0027, 0.0254]: 0.010 − √(0.0073² + 0.0092²) < 0; 5/400, [0.0041, 0.0290], is
    // just outside.
    let none = m(0.0, 0.0, 0.0092);
    assert_eq!(
        classify(Some(none), Some(m(0.010, 0.0027, 0.0254))),
        Change::Inside
    );
    assert_eq!(
        classify(Some(none), Some(m(0.0125, 0.0041, 0.0290))),
        Change::Outside
    );
    // Without intervals there is no judgement.
    let p = |v| Measure {
        value: v,
        interval: None,
    };
    assert_eq!(classify(Some(p(1.0)), Some(p(2.0))), Change::NoInterval);
    assert_eq!(classify(None, Some(p(2.0))), Change::Added);
}

/// Two audits of one model on fresh samples: how often does the diff call a TPR at 1% FPR
/// outside? With the exact interval at a threshold read off the same scores it was far more
/// often than 5%; with the bootstrap that chooses the threshold again it is about 5% or less.
#[test]
fn reseeded_null_audits_are_rarely_outside_at_tpr_at_low_fpr() {
    use crate::audit::attack_metrics;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};
    let normal = Normal::new(0.0, 1.0).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut draw = |k: usize| -> Vec<f64> { (0..k).map(|_| normal.sample(&mut rng)).collect() };
    let tpr = |m: &crate::audit::AttackMetrics, exact: bool| {
        let t = &m.tpr_at_fpr[0];
        Measure {
            value: t.tpr.estimate.unwrap(),
            interval: if exact {
                t.tpr.lower.zip(t.tpr.upper)
            } else {
                t.tpr_bootstrap.map(|[a, b]| (a, b))
            },
        }
    };
    let (pairs, mut bootstrap_outside, mut exact_outside) = (60, 0, 0);
    for _ in 0..pairs {
        let a = attack_metrics(&draw(300), &draw(300), &[0.01]);
        let b = attack_metrics(&draw(300), &draw(300), &[0.01]);
        bootstrap_outside +=
            (classify(Some(tpr(&a, false)), Some(tpr(&b, false))) == Change::Outside) as usize;
        exact_outside +=
            (classify(Some(tpr(&a, true)), Some(tpr(&b, true))) == Change::Outside) as usize;
    }
    eprintln!("{bootstrap_outside} of {pairs} outside (exact intervals: {exact_outside})");
    // At 5% the chance of more than 8 in 60 is below 0.3%.
    assert!(
        bootstrap_outside <= 8,
        "{bootstrap_outside} of {pairs} outside (exact intervals: {exact_outside})"
    );
    assert!(
        exact_outside > bootstrap_outside,
        "{exact_outside} vs {bootstrap_outside}"
    );
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
