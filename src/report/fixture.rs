//! A realistic example report for tests and for trying the renderers: two attacks whose metrics
//! come from [`attack_metrics`] on seeded made-up scores, canaries, probe sets, utility. Made-up
//! hashes and counts; no text, no names.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use serde_json::json;

use super::model::{
    CanaryEvidence, CanaryGroup, DataSummary, DeidSummary, FileHash, Identity, LabelCount,
    ModelIdentity, NamedCheck, ProbeEvidence, Report, Reproducibility, SignOff, Utility,
    VocabularySummary, REPORT_SCHEMA,
};
use crate::audit::evidence::residual_gate;
use crate::audit::metrics::attack_metrics;
use crate::audit::run::{decide, AttackResult, Histogram, Outcome, TARGET_FPRS};
use crate::audit::spec::Thresholds;
use crate::audit::Unit;
use crate::eval::{CoverageRow, ResidualCoverage};
use crate::mlm::train::data::sha256_hex;
use crate::probe::metrics::{RecoveryMetrics, SetMetrics};
use crate::stats::Proportion;

/// Chance 95th percentile of canary exposure: log2 20.
const CHANCE_BITS: f64 = 4.321_928_094_887_363;

fn hash(what: &str) -> String {
    sha256_hex(what.as_bytes())
}

fn scores(rng: &mut ChaCha8Rng, mean: f64, n: usize) -> Vec<f64> {
    let d = Normal::new(mean, 1.0).expect("valid normal");
    (0..n).map(|_| d.sample(rng)).collect()
}

fn histogram(members: &[f64], non_members: &[f64], bins: usize) -> Histogram {
    let all = || members.iter().chain(non_members).copied();
    let low = all().fold(f64::INFINITY, f64::min);
    let high = all().fold(f64::NEG_INFINITY, f64::max);
    let width = (high - low) / bins as f64;
    let count = |xs: &[f64]| {
        let mut h = vec![0u64; bins];
        for &x in xs {
            h[(((x - low) / width) as usize).min(bins - 1)] += 1;
        }
        h
    };
    Histogram {
        low,
        high,
        members: count(members),
        non_members: count(non_members),
    }
}

fn coverage_row(label: &str, entities: usize, with_residue: usize) -> CoverageRow {
    CoverageRow {
        label: label.into(),
        entities,
        with_residue,
        share: with_residue as f64 / entities as f64,
        chars: 12 * entities,
        chars_left: 5 * with_residue,
    }
}

/// An attack judged as `audit` judges it (AUC, TPR at 1% FPR, epsilon; baseline: AUC only).
fn attack(name: &str, threat: &str, members: &[f64], non: &[f64], t: &Thresholds) -> AttackResult {
    let metrics = attack_metrics(members, non, &TARGET_FPRS);
    let mut reasons = Vec::new();
    let baseline = name == "blind_baseline";
    if baseline && metrics.auc.value > t.max_blind_auc {
        reasons.push(format!(
            "blind baseline AUC {:.3} > {}: members and non-members differ in kind",
            metrics.auc.value, t.max_blind_auc
        ));
    }
    if !baseline {
        if metrics.auc.value > t.max_auc {
            reasons.push(format!(
                "{name}: AUC {:.3} > {}",
                metrics.auc.value, t.max_auc
            ));
        }
        if metrics.epsilon_lower_bound > t.max_epsilon {
            reasons.push(format!(
                "{name}: empirical epsilon lower bound {:.2} > {}",
                metrics.epsilon_lower_bound, t.max_epsilon
            ));
        }
    }
    let outcome = match (reasons.is_empty(), baseline) {
        (true, _) => Outcome::Pass,
        (false, true) => Outcome::Invalid,
        (false, false) => Outcome::Fail,
    };
    AttackResult {
        name: name.into(),
        threat_model: threat.into(),
        unit: Unit::Sentence,
        histogram: histogram(members, non, 20),
        metrics,
        sentence_metrics: None,
        outcome,
        reasons,
    }
}

fn canary_group(repeats: u64, ranks: &[u64], candidates: u64) -> CanaryGroup {
    let top = ((candidates + 1) as f64).log2();
    let exposures: Vec<f64> = ranks.iter().map(|&r| top - (r as f64).log2()).collect();
    let above = exposures.iter().filter(|&&e| e > CHANCE_BITS).count() as u64;
    CanaryGroup {
        repeats,
        mean_exposure: exposures.iter().sum::<f64>() / exposures.len() as f64,
        max_exposure: exposures.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        above_chance: Proportion::new(above, exposures.len() as u64),
        exposures,
    }
}

fn set_metrics(set: &str, slots: u64, name_like: u64, with_any: u64, best: usize) -> SetMetrics {
    SetMetrics {
        set: set.into(),
        slots,
        top_k: 10,
        name_like_predictions: Proportion::new(name_like, slots * 10),
        slots_with_name_like: Proportion::new(with_any, slots),
        top1_name_like: Proportion::new(with_any / 4, slots),
        best_name_like_rank: Some(best),
        median_best_name_like_rank: Some(best as f64 + 3.0),
        distinct_name_like_tokens: name_like as usize / 2,
        recovery: None,
    }
}

/// The example report: the loss attack and the `seen` probe set fail, canaries inserted 16
/// times are exposed; the decision is FAIL.
pub fn example() -> Report {
    let t = Thresholds {
        // Direct identifiers held to no residue at all.
        max_residual_share_by_category: [("NAME".to_string(), 0.0), ("ID".to_string(), 0.0)].into(),
        ..Thresholds::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let blind = attack(
        "blind_baseline",
        "Never looks at the model: a bag-of-words classifier on the texts alone.",
        &scores(&mut rng, 0.0, 400),
        &scores(&mut rng, 0.0, 400),
        &t,
    );
    let loss = attack(
        "masked_token_loss",
        "Black-box access to the released weights; low masked-token loss means member.",
        &scores(&mut rng, 0.5, 400),
        &scores(&mut rng, 0.0, 400),
        &t,
    );
    let attacks = vec![blind, loss];

    let candidates = 10_000;
    let groups = vec![
        canary_group(
            1,
            &[4210, 7730, 1290, 5120, 2875, 9050, 640, 3390],
            candidates,
        ),
        canary_group(4, &[1810, 420, 2950, 77, 1330, 5200, 910, 260], candidates),
        canary_group(16, &[3, 41, 12, 520, 1, 150, 8, 2200], candidates),
    ];
    let mut canary_reasons = Vec::new();
    for g in &groups {
        if g.mean_exposure > t.max_mean_canary_exposure {
            canary_reasons.push(format!(
                "canaries inserted {}×: mean exposure {:.2} bits > {}",
                g.repeats, g.mean_exposure, t.max_mean_canary_exposure
            ));
        }
    }
    let canaries = CanaryEvidence {
        threat_model: "The attacker knows the canary template and ranks every possible secret \
                       by the model's pseudo-log-likelihood (Carlini et al. 2019)."
            .into(),
        candidates,
        chance_95th_percentile_bits: CHANCE_BITS,
        groups,
        outcome: if canary_reasons.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        reasons: canary_reasons.clone(),
    };

    let mut seen = set_metrics("seen", 600, 21, 14, 3);
    seen.recovery = Some(RecoveryMetrics {
        slots: 600,
        in_top_k: Proportion::new(2, 600),
        ranked: 540,
        pll_rank_first: Proportion::new(9, 540),
        uniform_rank_first: Some(0.0125),
        median_pll_rank: Some(38.0),
        median_candidates: Some(80.0),
        mean_rank_percentile: Some(0.46),
        reference: None,
    });
    let sets = vec![
        seen,
        set_metrics("unseen", 600, 6, 5, 7),
        set_metrics("all", 1200, 27, 19, 3),
    ];
    let probe_reasons: Vec<String> = sets
        .iter()
        .filter(|s| s.set != "all")
        .filter_map(|s| {
            let e = s.name_like_predictions.estimate?;
            (e > t.max_name_like_share).then(|| {
                format!(
                    "probe set {}: name-like share {e:.4} > {}",
                    s.set, t.max_name_like_share
                )
            })
        })
        .collect();
    let probe = ProbeEvidence {
        file: FileHash {
            path: "probes/metrics.json".into(),
            sha256: hash("probe metrics"),
        },
        top_k: 10,
        sets,
        outcome: if probe_reasons.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        reasons: probe_reasons.clone(),
    };
    let coverage = ResidualCoverage {
        overall: coverage_row("overall", 1200, 13),
        per_label: [
            ("DATE/DATE", 400, 2),
            ("NAME/PATIENT", 300, 0),
            ("NAME/DOCTOR", 200, 1),
            ("LOCATION/CITY", 150, 6),
            ("ID/MEDICALRECORD", 100, 0),
            ("PROFESSION/PROFESSION", 50, 4),
        ]
        .into_iter()
        .map(|(l, n, k)| coverage_row(l, n, k))
        .collect(),
    };
    let residual = residual_gate(&coverage, &t);
    let evidence: Vec<String> = residual
        .reasons
        .iter()
        .cloned()
        .chain(canary_reasons)
        .chain(probe_reasons)
        .collect();
    let decision = decide(&attacks, &[], &evidence);

    let model = |dir: &str| ModelIdentity {
        dir: dir.into(),
        weights_sha256: Some(hash(&format!("{dir} weights"))),
        tokenizer_sha256: Some(hash(&format!("{dir} tokenizer"))),
        manifest_sha256: Some(hash(&format!("{dir} manifest"))),
        corpus_digest: Some(hash(&format!("{dir} corpus"))),
    };
    Report {
        schema: REPORT_SCHEMA.into(),
        tool: format!("anonlm {}", env!("CARGO_PKG_VERSION")),
        title: "Release audit: clinical notes model v3".into(),
        identity: Identity {
            spec: FileHash {
                path: "audits/release.toml".into(),
                sha256: hash("spec"),
            },
            model: model("models/notes-v3-rewritten"),
            reference: Some(ModelIdentity {
                corpus_digest: None,
                ..model("models/reference")
            }),
            data_files: vec![FileHash {
                path: "data/train.deid.jsonl".into(),
                sha256: hash("corpus"),
            }],
        },
        data: DataSummary {
            unit: Unit::Sentence,
            member_sentences: 400,
            non_member_sentences: 400,
            member_documents: 212,
            non_member_documents: 198,
            skipped_documents: 3,
        },
        deid: Some(DeidSummary {
            stats_file: FileHash {
                path: "data/deid.stats.json".into(),
                sha256: hash("deid stats"),
            },
            documents: 4800,
            replaced_by_label: [
                ("NAME", 15_230),
                ("DATE", 22_104),
                ("ID", 3_410),
                ("LOCATION", 4_122),
                ("CONTACT", 611),
            ]
            .into_iter()
            .map(|(label, count)| LabelCount {
                label: label.into(),
                count,
            })
            .collect(),
            passes: 2,
            policy: "surrogate".into(),
            recall: Some(Proportion::new(1187, 1200)),
            residual: Some(residual),
        }),
        vocabulary: Some(VocabularySummary {
            reviewed: 812,
            removed: 96,
            derived: 14,
            checks: vec![
                NamedCheck {
                    name: "removed tokens absent from the vocabulary".into(),
                    passed: true,
                    detail: "0 of 96 left".into(),
                },
                NamedCheck {
                    name: "tokenizer round trip on held-out sentences".into(),
                    passed: true,
                    detail: "2000 of 2000 identical".into(),
                },
            ],
        }),
        attacks,
        canaries: Some(canaries),
        probe: Some(probe),
        utility: Some(Utility {
            held_out_documents: 120,
            loss_before_rewrite: Some(2.412),
            loss_after_rewrite: Some(2.437),
            unigram_baseline: Some(6.118),
            unigram_baseline_source: Some("training log".into()),
        }),
        thresholds: t,
        decision,
        reproducibility: Reproducibility {
            tool_version: env!("CARGO_PKG_VERSION").into(),
            seed: 7,
            settings: json!({
                "data": {"unit": "sentence", "max_per_set": 400, "min_words": 5, "seed": 7},
                "attacks": {"blind": true, "loss": true, "pll": false, "mask_prob": 0.15, "folds": 5},
                "device": "cpu"
            }),
            command: "anonlm audit --spec audits/release.toml --out out/audit".into(),
        },
        sign_off: SignOff::blank(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_is_consistent() {
        let r = example();
        assert_eq!(r.attacks.len(), 2);
        assert_eq!(r.decision.outcome, Outcome::Fail);
        // 13 of 1200 left passes the 5% default; 1 of 500 NAME entities fails NAME = 0.
        let g = r.deid.as_ref().and_then(|d| d.residual.as_ref()).unwrap();
        assert_eq!((g.outcome, g.reasons.len()), (Outcome::Fail, 1));
        assert!(g.reasons[0].starts_with("residual PII of NAME: share 0.0020"));
        assert!(r.decision.reasons.contains(&g.reasons[0]));
        let loss = &r.attacks[1].metrics;
        assert_eq!((loss.members, loss.non_members), (400, 400));
        // 400 non-members resolve 1% but not 0.1%.
        assert!(loss.tpr_at_fpr[0].resolvable && !loss.tpr_at_fpr[1].resolvable);
        assert!(loss.auc.value > 0.55, "{:?}", loss.auc);
        // JSON round trip (thresholds of +inf are written as null and read back).
        let text = serde_json::to_string(&r).unwrap();
        let back: Report = serde_json::from_str(&text).unwrap();
        let m = &back.attacks[1].metrics;
        assert!(m.roc[0].threshold.is_infinite());
        assert!((m.auc.value - loss.auc.value).abs() < 1e-12);
        assert_eq!(m.roc.len(), loss.roc.len());
    }

    /// Writes the example to `target/report-example/` to look at:
    /// `cargo test --release --lib report::fixture -- --ignored`.
    #[test]
    #[ignore]
    fn write_example_report() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-example");
        crate::report::write_report(&example(), &dir, true).unwrap();
    }
}
