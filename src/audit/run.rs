//! Runs the attacks of a spec on its examples and decides the gate: the blind baseline first
//! (above its threshold the membership result is INVALID), then the loss, pseudo-log-likelihood
//! and reference-ratio attacks (any above a threshold: FAIL), then the probe evidence.

use serde::{Deserialize, Serialize};

use super::blind::blind_scores;
use super::examples::{per_document, Example, Examples};
use super::metrics::{attack_metrics, attack_metrics_clustered, AttackMetrics};
use super::spec::{AuditSpec, Unit};
use crate::mlm::runtime::MlmRuntime;
use crate::mlm::score::{masked_token_loss, pseudo_log_likelihood};

/// Target false-positive rates reported for every attack.
pub const TARGET_FPRS: [f64; 2] = [0.01, 0.001];

/// What an attack's figures are held against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The blind baseline: above its threshold the sets differ in kind (INVALID).
    Baseline,
    /// An attack on the model: above a threshold the release fails.
    Attack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    Pass,
    Fail,
    Invalid,
}

/// One attack, its threat model and its measured metrics.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AttackResult {
    pub name: String,
    pub threat_model: String,
    /// What the decision was taken on.
    pub unit: Unit,
    pub metrics: AttackMetrics,
    /// Sentence-level metrics when the unit is the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence_metrics: Option<AttackMetrics>,
    /// Score histograms (members, non-members) over `bins` equal bins between the extremes.
    pub histogram: Histogram,
    pub outcome: Outcome,
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Histogram {
    pub low: f64,
    pub high: f64,
    pub members: Vec<u64>,
    pub non_members: Vec<u64>,
}

/// The decision over all attacks and evidence.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Decision {
    pub outcome: Outcome,
    pub reasons: Vec<String>,
}

/// Scores of every attack on the examples: higher = more member-like.
pub fn run_attacks(
    spec: &AuditSpec,
    examples: &Examples,
    model: &MlmRuntime,
    reference: Option<&MlmRuntime>,
) -> crate::error::StageResult<Vec<AttackResult>> {
    let texts = |xs: &[Example]| xs.iter().map(|x| x.text.clone()).collect::<Vec<_>>();
    let (m_texts, n_texts) = (texts(&examples.members), texts(&examples.non_members));
    let m_refs: Vec<&str> = m_texts.iter().map(String::as_str).collect();
    let n_refs: Vec<&str> = n_texts.iter().map(String::as_str).collect();
    let a = &spec.attacks;
    let seed = spec.data.seed;
    let mut out = Vec::new();
    if a.blind {
        let groups: Vec<&str> = examples
            .members
            .iter()
            .chain(&examples.non_members)
            .map(|x| x.doc_id.as_str())
            .collect();
        let (sm, sn) = blind_scores(&m_refs, &n_refs, &groups, a.folds, seed);
        out.push(judge(
            spec,
            examples,
            Role::Baseline,
            "blind_baseline",
            "Never looks at the model: a bag-of-words classifier, cross-validated, on the texts alone. \
             It measures how far members and non-members differ in kind; above its threshold every \
             membership figure here is invalid (Das et al. 2024).",
            &sm,
            &sn,
        ));
    }
    let loss = |rt: &MlmRuntime, xs: &[&str]| -> crate::error::StageResult<Vec<f64>> {
        Ok(masked_token_loss(rt, xs, seed, a.mask_prob)?
            .into_iter()
            .map(|l| l.loss)
            .collect())
    };
    let need_loss = a.loss || spec.runs_reference_ratio();
    let model_loss = if need_loss {
        Some((loss(model, &m_refs)?, loss(model, &n_refs)?))
    } else {
        None
    };
    if a.loss {
        let (lm, ln) = model_loss.as_ref().expect("computed");
        out.push(judge(
            spec,
            examples,
            Role::Attack,
            "masked_token_loss",
            "Black-box access to the released weights; the attacker holds candidate sentences and \
             calls those with low masked-token loss members (Yeom et al. 2018; Mireshghallah et al. 2022).",
            &negate(lm),
            &negate(ln),
        ));
    }
    if a.pll {
        let pll = |xs: &[&str]| -> crate::error::StageResult<Vec<f64>> {
            Ok(pseudo_log_likelihood(model, xs)?
                .into_iter()
                .map(|p| p.pll / p.n_tokens.max(1) as f64)
                .collect())
        };
        out.push(judge(
            spec,
            examples,
            Role::Attack,
            "pseudo_log_likelihood",
            "As the loss attack, scoring every token masked in turn (pseudo-log-likelihood per token).",
            &pll(&m_refs)?,
            &pll(&n_refs)?,
        ));
    }
    if let (true, Some(rt_ref)) = (spec.runs_reference_ratio(), reference) {
        let (lm, ln) = model_loss.as_ref().expect("computed");
        let (rm, rn) = (loss(rt_ref, &m_refs)?, loss(rt_ref, &n_refs)?);
        let ratio = |reference: &[f64], model: &[f64]| -> Vec<f64> {
            reference.iter().zip(model).map(|(r, m)| r - m).collect()
        };
        out.push(judge(
            spec,
            examples,
            Role::Attack,
            "reference_likelihood_ratio",
            "The attacker also holds a reference model from similar data without the members and \
             calls a sentence a member when the released model finds it much likelier than the \
             reference does (Mireshghallah et al. 2022): the strongest attack here.",
            &ratio(&rm, lm),
            &ratio(&rn, ln),
        ));
    }
    Ok(out)
}

fn negate(xs: &[f64]) -> Vec<f64> {
    xs.iter().map(|x| -x).collect()
}

/// Metrics of one attack at the spec's unit, and its outcome against the thresholds.
fn judge(
    spec: &AuditSpec,
    examples: &Examples,
    role: Role,
    name: &str,
    threat_model: &str,
    members: &[f64],
    non_members: &[f64],
) -> AttackResult {
    // Sentences whose score cannot be computed (no maskable token) are left out.
    let keep = |xs: &[Example], s: &[f64]| -> (Vec<Example>, Vec<f64>) {
        xs.iter()
            .zip(s)
            .filter(|(_, v)| v.is_finite())
            .map(|(x, v)| (x.clone(), *v))
            .unzip()
    };
    let (mx, ms) = keep(&examples.members, members);
    let (nx, ns) = keep(&examples.non_members, non_members);
    // Sentences of one document are correlated: the AUC interval is clustered by document.
    let (cm, cn) = document_clusters(&mx, &nx);
    let sentence = attack_metrics_clustered(&ms, &ns, Some((&cm, &cn)), &TARGET_FPRS);
    let (metrics, sentence_metrics, (hm, hn)) = match spec.data.unit {
        Unit::Sentence => (sentence, None, (ms, ns)),
        Unit::Document => {
            let (dm, dn) = (per_document(&mx, &ms), per_document(&nx, &ns));
            (
                attack_metrics(&dm, &dn, &TARGET_FPRS),
                Some(sentence),
                (dm, dn),
            )
        }
    };
    let t = &spec.thresholds;
    let mut reasons = Vec::new();
    let min = spec.data.min_per_set as u64;
    let outcome = if metrics.members < min || metrics.non_members < min {
        reasons.push(format!(
            "{name}: {} members and {} non-members at the {} level, fewer than min_per_set {min}: \
             too few to tell an attack from chance",
            metrics.members,
            metrics.non_members,
            unit_name(spec.data.unit)
        ));
        Outcome::Invalid
    } else if role == Role::Baseline {
        if metrics.auc.value > t.max_blind_auc {
            reasons.push(format!(
                "blind baseline AUC {:.3} > {}: members and non-members differ in kind",
                metrics.auc.value, t.max_blind_auc
            ));
            Outcome::Invalid
        } else {
            Outcome::Pass
        }
    } else {
        if metrics.auc.value > t.max_auc {
            reasons.push(format!(
                "{name}: AUC {:.3} > {}",
                metrics.auc.value, t.max_auc
            ));
        }
        if let Some(at1) = metrics.tpr_at_fpr.iter().find(|x| x.target_fpr == 0.01) {
            let tpr = at1.tpr.estimate.unwrap_or(0.0);
            if at1.resolvable && tpr > t.max_tpr_at_1pct_fpr {
                reasons.push(format!(
                    "{name}: TPR {tpr:.3} at 1% FPR > {}",
                    t.max_tpr_at_1pct_fpr
                ));
            }
        }
        if metrics.epsilon_lower_bound > t.max_epsilon {
            reasons.push(format!(
                "{name}: empirical epsilon lower bound {:.2} > {}",
                metrics.epsilon_lower_bound, t.max_epsilon
            ));
        }
        if reasons.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        }
    };
    AttackResult {
        name: name.into(),
        threat_model: threat_model.into(),
        unit: spec.data.unit,
        histogram: histogram(&hm, &hn, 20),
        metrics,
        sentence_metrics,
        outcome,
        reasons,
    }
}

fn unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Sentence => "sentence",
        Unit::Document => "document",
    }
}

/// A cluster number per example: its document (members and non-members never share one).
fn document_clusters(members: &[Example], non_members: &[Example]) -> (Vec<usize>, Vec<usize>) {
    let mut ids: std::collections::HashMap<&str, usize> = Default::default();
    let mut numbers = Vec::with_capacity(members.len() + non_members.len());
    for x in members.iter().chain(non_members) {
        let next = ids.len();
        numbers.push(*ids.entry(x.doc_id.as_str()).or_insert(next));
    }
    let n = numbers.split_off(members.len());
    (numbers, n)
}

fn histogram(members: &[f64], non_members: &[f64], bins: usize) -> Histogram {
    let all = members.iter().chain(non_members);
    let low = all.clone().copied().fold(f64::INFINITY, f64::min);
    let high = all.copied().fold(f64::NEG_INFINITY, f64::max);
    let width = (high - low) / bins as f64;
    let count = |xs: &[f64]| {
        let mut h = vec![0u64; bins];
        for &x in xs {
            let b = if width > 0.0 {
                (((x - low) / width) as usize).min(bins - 1)
            } else {
                0
            };
            h[b] += 1;
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

/// INVALID when the blind baseline says so; else FAIL when any attack or evidence fails; else
/// INVALID when a validity condition (`invalid`: the model learned nothing) says the PASS
/// would prove nothing. A failing attack is evidence whatever the model learned, so it FAILs.
pub fn decide(
    attacks: &[AttackResult],
    invalid: &[String],
    evidence_failures: &[String],
) -> Decision {
    let mut reasons: Vec<String> = attacks.iter().flat_map(|a| a.reasons.clone()).collect();
    reasons.extend(evidence_failures.iter().cloned());
    let outcome = if attacks.iter().any(|a| a.outcome == Outcome::Invalid) {
        Outcome::Invalid
    } else if !reasons.is_empty() {
        Outcome::Fail
    } else if !invalid.is_empty() {
        Outcome::Invalid
    } else {
        Outcome::Pass
    };
    reasons.extend(invalid.iter().cloned());
    Decision { outcome, reasons }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learned_nothing_turns_a_pass_invalid_but_never_hides_a_fail() {
        let learned_nothing = vec!["the audited model did not learn".to_string()];
        let d = decide(&[], &learned_nothing, &[]);
        assert_eq!(d.outcome, Outcome::Invalid);
        assert_eq!(d.reasons, learned_nothing);
        let d = decide(&[], &learned_nothing, &["utility".into()]);
        assert_eq!(d.outcome, Outcome::Fail);
        assert_eq!(d.reasons.len(), 2);
        assert_eq!(decide(&[], &[], &[]).outcome, Outcome::Pass);
    }

    #[test]
    fn histogram_bins_cover_the_range() {
        let h = histogram(&[0.0, 1.0, 2.0], &[2.0, 4.0], 4);
        assert_eq!((h.low, h.high), (0.0, 4.0));
        assert_eq!(h.members, vec![1, 1, 1, 0]);
        assert_eq!(h.non_members, vec![0, 0, 1, 1]);
    }
}
