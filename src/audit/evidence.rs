//! Evidence from the other stages that an audit report carries and gates on: the
//! de-identification stats and residual PII, the vocabulary review and `vocab check`, the probe
//! metrics, and the utility of the released model against the one before the rewrite.

use std::path::Path;

use crate::error::{StageContext, StageResult};

use super::run::Outcome;
use super::spec::EvidenceSpec;
use crate::anonymize::{self, CheckOptions, Decision, Reason};
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

/// The review file's counts and `vocab check` rerun on the released model.
pub fn vocabulary_summary(
    e: &EvidenceSpec,
    model_dir: &Path,
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
/// model before the rewrite, with the unigram baseline of the original's training log.
pub fn utility(
    released: &MlmRuntime,
    original: Option<(&MlmRuntime, &Path)>,
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
    let (before, baseline) = match original {
        Some((rt, dir)) => (mean_loss(rt)?, unigram_baseline(dir)),
        None => (None, None),
    };
    Ok(Utility {
        held_out_documents: documents,
        loss_before_rewrite: before,
        loss_after_rewrite: mean_loss(released)?,
        unigram_baseline: baseline,
    })
}

/// The unigram baseline from the closing summary line of `train_log.jsonl`, if any.
fn unigram_baseline(model_dir: &Path) -> Option<f64> {
    match crate::mlm::train::log::read_summary(model_dir) {
        Ok(Some(crate::mlm::train::log::LogLine::Summary {
            unigram_baseline, ..
        })) => Some(unigram_baseline),
        _ => None,
    }
}
