//! Evidence from the other stages that an audit report carries and gates on: the
//! de-identification stats and residual PII, the vocabulary review and `vocab check`, the probe
//! metrics, and the utility of the released model against the one before the rewrite.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{StageContext, StageResult};

use super::run::Outcome;
use super::spec::{EvidenceSpec, Thresholds};
use crate::artifact::file_sha256;
use crate::audit::examples::Example;
use crate::eval::ResidualCoverage;
use crate::mlm::runtime::MlmRuntime;
use crate::mlm::score::masked_token_loss;
use crate::probe::metrics::SetMetrics;
use crate::report::model::{
    DeidSummary, FileHash, LabelCount, NamedCheck, ProbeEvidence, ResidualCategory, ResidualGate,
    Utility, VocabularySummary,
};
use crate::stats::Proportion;
use crate::vocab::{self, CheckOptions, Decision, EncodingReference, Reason};

pub fn file_hash(path: &Path) -> StageResult<FileHash> {
    Ok(FileHash {
        path: path.display().to_string(),
        sha256: file_sha256(path)?,
    })
}

/// `deid`'s stats file, and the residual PII of `eval --json` when given, gated on `t`.
pub fn deid_summary(e: &EvidenceSpec, t: &Thresholds) -> StageResult<Option<DeidSummary>> {
    let Some(stats_path) = &e.deid_stats else {
        return Ok(None);
    };
    let stats: crate::deid::DeidStatsFile = crate::artifact::read(stats_path)?;
    let residual = match &e.deid_eval {
        None => None,
        Some(p) => {
            let eval: crate::eval::job::EvalFile = crate::artifact::read(p)?;
            let coverage = eval.report.residual.and_then(|r| r.coverage).filter(|c| {
                c.overall.with_residue <= c.overall.entities
                    && c.per_label.iter().all(|r| r.with_residue <= r.entities)
            });
            match coverage {
                Some(c) => Some(residual_gate(&c, t)),
                None => {
                    return Err(crate::error::ValueError::new(format!(
                        "{}: not the JSON of eval --ops-log --deid (no residual coverage)",
                        p.display()
                    ))
                    .into())
                }
            }
        }
    };
    let recall = residual
        .as_ref()
        .map(|r| Proportion::new(r.entities - r.with_residue, r.entities));
    Ok(Some(DeidSummary {
        stats_file: file_hash(stats_path)?,
        documents: stats.documents,
        replaced_by_label: stats
            .stats
            .by_category
            .iter()
            .map(|(label, n)| LabelCount {
                label: label.clone(),
                count: *n,
            })
            .collect(),
        passes: stats.passes as u64,
        policy: stats.policy,
        recall,
        residual,
    }))
}

/// The category of a gold label: the part before `/` (`NAME` of `NAME/PATIENT`).
fn category(label: &str) -> &str {
    label.split_once('/').map_or(label, |(c, _)| c)
}

/// The residual-PII gate: the share of gold entities with residue against
/// `max_residual_share`, and per category (or whole label) against
/// `max_residual_share_by_category`. Reasons name categories and counts, never text.
pub fn residual_gate(c: &ResidualCoverage, t: &Thresholds) -> ResidualGate {
    let mut rows: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in &c.per_label {
        let row = rows.entry(category(&r.label).to_string()).or_default();
        row.0 += r.entities as u64;
        row.1 += r.with_residue as u64;
    }
    for key in t.max_residual_share_by_category.keys() {
        if key.contains('/') {
            let row = c
                .per_label
                .iter()
                .filter(|r| &r.label == key)
                .fold((0, 0), |(n, k), r| {
                    (n + r.entities as u64, k + r.with_residue as u64)
                });
            rows.insert(key.clone(), row);
        } else {
            rows.entry(key.clone()).or_default();
        }
    }
    let ratio = |k: u64, n: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    let (entities, with_residue) = (c.overall.entities as u64, c.overall.with_residue as u64);
    let share = ratio(with_residue, entities);
    let mut reasons = Vec::new();
    if share > t.max_residual_share {
        reasons.push(format!(
            "residual PII: share {share:.4} of gold entities not fully removed > {} \
             ({with_residue} of {entities})",
            t.max_residual_share
        ));
    }
    let by_category: Vec<ResidualCategory> = rows
        .into_iter()
        .map(|(category, (n, k))| {
            let threshold = t.max_residual_share_by_category.get(&category).copied();
            let share = (n > 0).then(|| ratio(k, n));
            match (threshold, share) {
                (Some(max), Some(s)) if s > max => reasons.push(format!(
                    "residual PII of {category}: share {s:.4} of gold entities not fully \
                     removed > {max} ({k} of {n})"
                )),
                (Some(_), None) => reasons.push(format!(
                    "residual PII of {category}: no gold entity, so its threshold cannot be \
                     checked"
                )),
                _ => {}
            }
            ResidualCategory {
                category,
                entities: n,
                with_residue: k,
                share,
                threshold,
            }
        })
        .collect();
    ResidualGate {
        entities,
        with_residue,
        share,
        threshold: t.max_residual_share,
        by_category,
        outcome: if reasons.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        reasons,
    }
}

/// The review file's counts and `vocab check` rerun on the released model; with the model
/// before the rewrite, the held-out texts must encode as they did (ordinary words alike, no
/// more `[UNK]`).
pub fn vocabulary_summary(
    e: &EvidenceSpec,
    model_dir: &Path,
    encoding: Option<EncodingReference>,
) -> StageResult<Option<VocabularySummary>> {
    if e.review.is_none() && e.vocab_map.is_none() && e.names.is_empty() {
        return Ok(None);
    }
    let rows = e
        .review
        .as_deref()
        .map(vocab::read_review)
        .transpose()
        .stage_context("reading the review file")?
        .unwrap_or_default();
    let removed_map = e
        .vocab_map
        .as_deref()
        .map(vocab::read_map)
        .transpose()
        .stage_context("reading the vocabulary map")?;
    let names = e
        .names
        .iter()
        .map(|s| vocab::load_name_list(s))
        .collect::<Result<Vec<_>, _>>()
        .stage_context("reading the name lists")?;
    let derived = removed_map
        .iter()
        .flatten()
        .filter(|m| m.reason == Reason::Derived)
        .count() as u64;
    let report = vocab::check_model(
        model_dir,
        &CheckOptions {
            names,
            removed: removed_map,
            show: false,
            encoding,
        },
    )
    .with_stage_context(|| format!("checking {}", model_dir.display()))?;
    let mut checks = vec![
        NamedCheck {
            name: "merges consistent".into(),
            passed: report.merges.passed,
            detail: format!(
                "{} merges, {} with a part or result missing",
                report.merges.merges, report.merges.broken
            ),
        },
        NamedCheck {
            name: "tokenizer loads".into(),
            passed: report.loads.passed,
            detail: if report.loads.passed {
                "loads".into()
            } else {
                "does not load".into()
            },
        },
    ];
    if let Some(r) = &report.removed {
        checks.push(NamedCheck {
            name: "removed tokens gone".into(),
            passed: r.passed,
            detail: format!(
                "{} renamed; {} still in the vocabulary, {} still produced by encoding",
                r.entries, r.still_in_vocab, r.encodable
            ),
        });
    }
    if let Some(d) = &report.encoding {
        checks.push(NamedCheck {
            name: "held-out text without names encodes as before".into(),
            passed: d.passed,
            detail: d.summary(),
        });
    }
    if let Some(n) = &report.names {
        checks.push(NamedCheck {
            name: "no vocabulary entry is a listed name".into(),
            passed: n.passed,
            detail: format!(
                "{} entries equal a name of {} lists",
                n.matches,
                n.lists.len()
            ),
        });
    }
    Ok(Some(VocabularySummary {
        reviewed: rows.len() as u64,
        removed: rows
            .iter()
            .filter(|r| r.decision == Decision::Remove)
            .count() as u64,
        derived,
        checks,
    }))
}

/// The probe metrics JSON named by the spec, gated on the name-like share of each set.
pub fn probe_evidence(path: &Path, max_share: f64) -> StageResult<ProbeEvidence> {
    let file: crate::probe::metrics_stage::ProbeMetricsFile = crate::artifact::read(path)?;
    let sets: Vec<SetMetrics> = file.sets;
    let reasons: Vec<String> = sets
        .iter()
        .filter_map(|s| {
            let share = s.name_like_predictions.estimate?;
            (share > max_share).then(|| {
                format!(
                    "probe set {}: name-like share {:.4} > {max_share}",
                    s.set, share
                )
            })
        })
        .collect();
    Ok(ProbeEvidence {
        file: file_hash(path)?,
        top_k: sets.first().map_or(0, |s| s.top_k),
        sets,
        outcome: if reasons.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        reasons,
    })
}

/// Mean masked-token loss of the non-member examples under the released model and under the
/// model before the rewrite, with the unigram baseline: from the training log of the model
/// (or of the one before the rewrite) when there is one, else estimated here from the member
/// examples.
pub fn utility(
    released: (&MlmRuntime, &Path),
    original: Option<(&MlmRuntime, &Path)>,
    members: &[Example],
    held_out: &[Example],
    seed: u64,
    mask_prob: f64,
) -> StageResult<Utility> {
    let texts: Vec<&str> = held_out.iter().map(|x| x.text.as_str()).collect();
    let mean_loss = |rt: &MlmRuntime| -> StageResult<Option<f64>> {
        let losses: Vec<f64> = masked_token_loss(rt, &texts, seed, mask_prob)?
            .into_iter()
            .map(|l| l.loss)
            .filter(|l| l.is_finite())
            .collect();
        Ok((!losses.is_empty()).then(|| losses.iter().sum::<f64>() / losses.len() as f64))
    };
    let documents = {
        let mut ids: Vec<&str> = held_out.iter().map(|x| x.doc_id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len() as u64
    };
    let before = original.map(|(rt, _)| mean_loss(rt)).transpose()?.flatten();
    let logged = original
        .and_then(|(_, dir)| unigram_baseline(dir))
        .or_else(|| unigram_baseline(released.1));
    let (baseline, source) = match logged {
        Some(b) => (Some(b), "training log"),
        None => (
            unigram_estimate(released.0, members, held_out)?,
            "member examples",
        ),
    };
    Ok(Utility {
        held_out_documents: documents,
        loss_before_rewrite: before,
        loss_after_rewrite: mean_loss(released.0)?,
        unigram_baseline: baseline,
        unigram_baseline_source: baseline.map(|_| source.to_string()),
    })
}

/// The unigram baseline from the closing summary line of `train_log.jsonl`, if any.
fn unigram_baseline(model_dir: &Path) -> Option<f64> {
    match crate::mlm::train::log::read_summary(model_dir) {
        Ok(Some(crate::mlm::train::log::LogLine::Summary {
            unigram_baseline, ..
        })) => Some(unigram_baseline).filter(|b| b.is_finite()),
        _ => None,
    }
}

/// Cross-entropy (nats per token, averaged per example as the model's loss is) of the held-out
/// examples under the unigram distribution of the member examples, Witten-Bell smoothed
/// towards uniform over the vocabulary: what a model that ignores context would score.
fn unigram_estimate(
    rt: &MlmRuntime,
    members: &[Example],
    held_out: &[Example],
) -> StageResult<Option<f64>> {
    let specials = rt.tokenizer.special_ids();
    let ordinary = |index: usize, text: &str| -> StageResult<Vec<u32>> {
        let (ids, _) = rt.encode(index, text)?;
        Ok(ids
            .into_iter()
            .filter(|id| specials.binary_search(id).is_err())
            .collect())
    };
    let mut counts: std::collections::HashMap<u32, f64> = Default::default();
    let mut n = 0.0;
    for (i, x) in members.iter().enumerate() {
        for id in ordinary(i, &x.text)? {
            *counts.entry(id).or_default() += 1.0;
            n += 1.0;
        }
    }
    let types = counts.len() as f64;
    let vocab = rt.tokenizer.vocab_size() as f64;
    if n == 0.0 {
        return Ok(None);
    }
    let mut sum = 0.0;
    let mut examples = 0usize;
    for (i, x) in held_out.iter().enumerate() {
        let ids = ordinary(i, &x.text)?;
        if ids.is_empty() {
            continue;
        }
        let nll: f64 = ids
            .iter()
            .map(|id| {
                let c = counts.get(id).copied().unwrap_or(0.0);
                -((c + types / vocab) / (n + types)).ln()
            })
            .sum();
        sum += nll / ids.len() as f64;
        examples += 1;
    }
    Ok((examples > 0).then(|| sum / examples as f64))
}

/// Why the audit proves nothing about this model: its held-out loss is not clearly below the
/// unigram baseline (a model that learned nothing leaks nothing, and every attack on it is at
/// chance by construction). Empty when the model learned.
pub fn validity_reasons(u: &Utility, min_gain: f64) -> Vec<String> {
    match (u.loss_after_rewrite, u.unigram_baseline) {
        (Some(loss), Some(baseline)) if loss > baseline * (1.0 - min_gain) => vec![format!(
            "the audited model did not learn: held-out loss {loss:.3} is not {:.0}% below the \
             unigram baseline {baseline:.3} (min_gain_over_unigram {min_gain}); membership \
             attacks on it are at chance by construction",
            min_gain * 100.0
        )],
        (None, _) => vec!["the audited model's held-out loss could not be measured".into()],
        _ => Vec::new(),
    }
}

/// FAIL reasons of the utility: the rewrite raised the held-out loss too much.
pub fn utility_failures(u: &Utility, max_loss: f64) -> Vec<String> {
    match (u.loss_before_rewrite, u.loss_after_rewrite) {
        (Some(before), Some(after)) if after > before * (1.0 + max_loss) => vec![format!(
            "the vocabulary rewrite destroyed utility: held-out loss {before:.3} before, \
             {after:.3} after (more than {:.1}% worse; max_utility_loss {max_loss})",
            max_loss * 100.0
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::CoverageRow;

    fn row(label: &str, entities: usize, with_residue: usize) -> CoverageRow {
        CoverageRow {
            label: label.into(),
            entities,
            with_residue,
            share: with_residue as f64 / entities.max(1) as f64,
            chars: 0,
            chars_left: 0,
        }
    }

    /// The demo's shape: 368 of 6,386 gold entities left, in professions and organisations.
    fn demo_like() -> ResidualCoverage {
        ResidualCoverage {
            overall: row("overall", 6386, 368),
            per_label: vec![
                row("NAME/PATIENT", 541, 0),
                row("NAME/DOCTOR", 605, 0),
                row("PROFESSION/PROFESSION", 384, 246),
                row("LOCATION/ORGANIZATION", 266, 100),
                row("LOCATION/HOSPITAL", 375, 22),
                row("DATE/DATE", 4215, 0),
            ],
        }
    }

    #[test]
    fn residual_over_the_default_share_fails_with_the_share() {
        let g = residual_gate(&demo_like(), &Thresholds::default());
        assert_eq!(g.outcome, Outcome::Fail);
        assert_eq!((g.entities, g.with_residue), (6386, 368));
        assert_eq!(g.reasons.len(), 1, "{:?}", g.reasons);
        let r = &g.reasons[0];
        assert!(r.contains("0.0576") && r.contains("> 0.05") && r.contains("368 of 6386"));
        // One row per category, summed over its labels; no threshold set.
        let loc = g
            .by_category
            .iter()
            .find(|c| c.category == "LOCATION")
            .unwrap();
        assert_eq!(
            (loc.entities, loc.with_residue, loc.threshold),
            (641, 122, None)
        );
        assert!(g.by_category.iter().all(|c| !c.category.contains('/')));
    }

    #[test]
    fn per_category_thresholds_gate_categories_and_whole_labels() {
        let mut t = Thresholds {
            max_residual_share: 0.10,
            ..Thresholds::default()
        };
        t.max_residual_share_by_category = [
            ("NAME".to_string(), 0.0),
            ("PROFESSION".to_string(), 0.5),
            ("LOCATION/HOSPITAL".to_string(), 0.05),
            ("ID".to_string(), 0.0),
        ]
        .into();
        let g = residual_gate(&demo_like(), &t);
        assert_eq!(g.outcome, Outcome::Fail);
        let name = g.by_category.iter().find(|c| c.category == "NAME").unwrap();
        assert_eq!((name.share, name.threshold), (Some(0.0), Some(0.0)));
        let joined = g.reasons.join("\n");
        assert!(
            joined.contains("residual PII of PROFESSION: share 0.6406")
                && joined.contains("> 0.5 (246 of 384)"),
            "{joined}"
        );
        assert!(
            joined.contains("residual PII of LOCATION/HOSPITAL: share 0.0587"),
            "{joined}"
        );
        // A category with no gold entity cannot be checked: FAIL, not a silent pass.
        assert!(
            joined.contains("residual PII of ID: no gold entity"),
            "{joined}"
        );
        assert!(!joined.contains("of NAME"), "{joined}");
        assert_eq!(g.reasons.len(), 3, "{joined}");
        // Loose enough everywhere: PASS.
        t.max_residual_share_by_category = [("NAME".to_string(), 0.0)].into();
        let g = residual_gate(&demo_like(), &t);
        assert_eq!((g.outcome, g.reasons.len()), (Outcome::Pass, 0));
    }

    fn utility(before: Option<f64>, after: Option<f64>, baseline: Option<f64>) -> Utility {
        Utility {
            held_out_documents: 10,
            loss_before_rewrite: before,
            loss_after_rewrite: after,
            unigram_baseline: baseline,
            unigram_baseline_source: baseline.map(|_| "training log".into()),
        }
    }

    #[test]
    fn a_model_barely_below_the_unigram_baseline_did_not_learn() {
        // The demo's model before this gate: 4.46 against 4.73.
        let u = utility(None, Some(4.46), Some(4.73));
        let r = validity_reasons(&u, 0.2);
        assert_eq!(r.len(), 1);
        assert!(
            r[0].contains("did not learn") && r[0].contains("4.730"),
            "{r:?}"
        );
        assert!(validity_reasons(&utility(None, Some(3.0), Some(4.73)), 0.2).is_empty());
        assert_eq!(
            validity_reasons(&utility(None, None, Some(4.73)), 0.2).len(),
            1
        );
        // No baseline known: nothing to hold the loss against.
        assert!(validity_reasons(&utility(None, Some(9.0), None), 0.2).is_empty());
    }

    #[test]
    fn a_rewrite_that_costs_more_than_the_threshold_fails() {
        let u = utility(Some(4.67), Some(4.95), Some(4.73));
        let r = utility_failures(&u, 0.05);
        assert!(r.len() == 1 && r[0].contains("destroyed utility"), "{r:?}");
        assert!(utility_failures(&utility(Some(4.67), Some(4.70), None), 0.05).is_empty());
        assert!(utility_failures(&utility(None, Some(4.70), None), 0.05).is_empty());
    }
}
