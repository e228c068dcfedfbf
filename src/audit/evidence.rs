//! Evidence from the other stages that an audit report carries and gates on: the
//! de-identification stats and residual PII, the vocabulary review and `vocab check`, the probe
//! metrics, and the utility of the released model against the one before the rewrite.

use std::path::Path;

use crate::error::{StageContext, StageResult};

use super::run::Outcome;
use super::spec::EvidenceSpec;
use crate::anonymize::{self, CheckOptions, Decision, EncodingReference, Reason};
use crate::artifact::file_sha256;
use crate::audit::examples::Example;
use crate::mlm::runtime::MlmRuntime;
use crate::mlm::score::masked_token_loss;
use crate::probe::metrics::SetMetrics;
use crate::report::model::{
    DeidSummary, FileHash, LabelCount, NamedCheck, ProbeEvidence, Utility, VocabularySummary,
};
use crate::stats::Proportion;

pub fn file_hash(path: &Path) -> StageResult<FileHash> {
    Ok(FileHash {
        path: path.display().to_string(),
        sha256: file_sha256(path)?,
    })
}

/// `deid`'s stats file, and the residual PII of `eval --json` when given.
pub fn deid_summary(e: &EvidenceSpec) -> StageResult<Option<DeidSummary>> {
    let Some(stats_path) = &e.deid_stats else {
        return Ok(None);
    };
    let stats: crate::deid::DeidStatsFile = crate::artifact::read(stats_path)?;
    let recall = match &e.deid_eval {
        None => None,
        Some(p) => {
            let eval: crate::eval::job::EvalFile = crate::artifact::read(p)?;
            let overall = eval
                .report
                .residual
                .and_then(|r| r.coverage)
                .map(|c| c.overall)
                .filter(|o| o.with_residue <= o.entities);
            match overall {
                Some(o) => Some(Proportion::new(
                    (o.entities - o.with_residue) as u64,
                    o.entities as u64,
                )),
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
    }))
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
        .map(anonymize::read_review)
        .transpose()
        .stage_context("reading the review file")?
        .unwrap_or_default();
    let removed_map = e
        .vocab_map
        .as_deref()
        .map(anonymize::read_map)
        .transpose()
        .stage_context("reading the vocabulary map")?;
    let names = e
        .names
        .iter()
        .map(|s| anonymize::load_name_list(s))
        .collect::<Result<Vec<_>, _>>()
        .stage_context("reading the name lists")?;
    let derived = removed_map
        .iter()
        .flatten()
        .filter(|m| m.reason == Reason::Derived)
        .count() as u64;
    let report = anonymize::check_model(
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
