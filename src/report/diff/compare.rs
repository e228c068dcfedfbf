//! Matching two reports item by item and measuring each change (the [`ReportDiff`] value).

use super::*;

pub(super) fn text_change(item: String, old: Option<String>, new: Option<String>) -> TextChange {
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

pub(super) type Measures = Vec<(&'static str, Kind, Option<Measure>)>;

#[derive(Default)]
pub(super) struct Rows(Vec<MetricChange>);

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
                delta_interval: o
                    .zip(n)
                    .filter(|(o, n)| o.value != n.value)
                    .and_then(|(o, n)| difference_interval(o, n))
                    .map(|(a, b)| [a, b]),
                old_interval: o.and_then(|m| m.interval).map(|(a, b)| [a, b]),
                new_interval: n.and_then(|m| m.interval).map(|(a, b)| [a, b]),
                change: classify(o, n),
            });
        }
    }
}

/// Pairs of items matched by key, old order first, then items only in `new`.
pub(super) fn matched<'a, T, K: PartialEq>(
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

pub(super) fn attack_measures(a: Option<&AttackResult>) -> Measures {
    let m = a.map(|a| &a.metrics);
    let tpr = |target: f64| {
        m.and_then(|m| find_tpr(&m.tpr_at_fpr, target))
            .and_then(|t| {
                Some(Measure {
                    value: t.tpr.estimate?,
                    interval: t.tpr_bootstrap.map(|[a, b]| (a, b)),
                })
            })
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

pub(super) fn data_measures(r: &Report) -> Measures {
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

pub(super) fn model_hashes(who: &str, m: Option<&ModelIdentity>) -> Vec<(String, Option<String>)> {
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

pub(super) fn identity_items(r: &Report) -> Vec<(String, Option<String>)> {
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

pub(super) fn groups(r: &Report) -> &[crate::report::model::CanaryGroup] {
    r.canaries.as_ref().map_or(&[], |c| &c.groups)
}

pub(super) fn sets(r: &Report) -> &[crate::probe::metrics::SetMetrics] {
    r.probe.as_ref().map_or(&[], |p| &p.sets)
}

pub(super) fn side(file: &str, r: &Report) -> Side {
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
        let m = |g: Option<&crate::report::model::CanaryGroup>| -> Measures {
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
