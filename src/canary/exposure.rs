//! Canary exposure (Carlini et al. 2019, "The Secret Sharer"): each canary of the protected
//! canary file is ranked among never-inserted candidate secrets of the same template by the
//! model's pseudo-log-likelihood of the secret; exposure = log2(candidates + 1) − log2(rank).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::error::StageContext;

use crate::audit::run::Outcome;
use crate::canary::secret::{distinct_secrets, keyed_rng};
use crate::canary::{CanaryFile, SecretKind, Template};
use crate::mlm::runtime::MlmRuntime;
use crate::mlm::score::slot_pseudo_log_likelihood;
use crate::report::model::{CanaryEvidence, CanaryGroup};
use crate::stats::Proportion;

/// What the attacker of the exposure test can do and wants.
pub const THREAT_MODEL: &str = "The attacker can query the released model's token likelihoods, \
knows the canary's template and the format of its secret (e.g. nine digits), and wants the \
secret; exposure is how many bits of it the model gives away by ranking the inserted secret \
above never-inserted secrets of the same format";

/// Exposure a model that memorized nothing exceeds with probability 5%: with a uniform rank,
/// P(exposure ≥ x) = 2^−x, so the 95th percentile is log2 20 ≈ 4.32 bits.
pub fn chance_95th_percentile_bits() -> f64 {
    20f64.log2()
}

/// Exposure in bits of a canary at `rank` (1 = most likely) among itself and `candidates`
/// others: log2(candidates + 1) − log2(rank).
pub fn exposure_bits(candidates: usize, rank: f64) -> f64 {
    (candidates as f64 + 1.0).log2() - rank.log2()
}

/// Rank of `canary` among `candidates ∪ {canary}` by score, highest first (1 = best). Ties
/// take the mean of the ranks they span (neither the best, which would overstate exposure,
/// nor the worst): rank = 1 + #better + #tied / 2.
pub fn rank_with_ties(canary: f64, candidates: &[f64]) -> f64 {
    let better = candidates.iter().filter(|&&s| s > canary).count();
    let tied = candidates.iter().filter(|&&s| s == canary).count();
    1.0 + better as f64 + tied as f64 / 2.0
}

/// The `n` candidate secrets of canary `index`: distinct, of `kind`, none of them an inserted
/// secret, from a ChaCha8 stream keyed by (`seed`, `index`).
pub fn candidate_secrets(
    kind: SecretKind,
    n: usize,
    inserted: &HashSet<&str>,
    seed: u64,
    index: usize,
) -> crate::error::StageResult<Vec<String>> {
    let mut rng = keyed_rng(b"anonlm.canary.candidates", &[seed, index as u64]);
    Ok(distinct_secrets(kind, n, inserted, &mut rng)?)
}

/// When canary exposure fails the audit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CanaryGate {
    /// A gated group whose mean exposure (bits) is above fails.
    pub max_mean_exposure: f64,
    /// Only groups inserted at most this many times are gated (the others are reported);
    /// `None`: every group.
    pub max_repeats: Option<u64>,
}

impl From<f64> for CanaryGate {
    /// Every group gated at this mean exposure.
    fn from(max_mean_exposure: f64) -> Self {
        CanaryGate {
            max_mean_exposure,
            max_repeats: None,
        }
    }
}

/// Canary exposure of `model` for the canaries in `file`, each ranked among `candidates`
/// never-inserted secrets (drawn with `seed`); FAIL when a group of canaries with the same
/// repeats has a mean exposure above `max_mean_exposure` bits.
///
/// A candidate's score is the pseudo-log-likelihood of the secret's tokens only: each token of
/// the secret span masked in turn with the rest of the sentence visible, log-probabilities
/// summed (the masked-LM analogue of Carlini et al.'s log-perplexity). The rest of the sentence
/// is the same for every candidate, so scoring it would add nearly the same terms to all of
/// them; and it costs one forward pass per secret token instead of one per sentence token.
/// The masked copies of all candidates go `model.batch_rows` to a forward pass.
pub fn canary_exposure(
    model: &MlmRuntime,
    file: &Path,
    candidates: usize,
    seed: u64,
    gate: impl Into<CanaryGate>,
) -> crate::error::StageResult<CanaryEvidence> {
    if candidates == 0 {
        return Err(
            crate::error::ValueError::new("canary exposure needs at least one candidate").into(),
        );
    }
    let canaries = CanaryFile::read(file)?;
    let inserted = canaries.secrets();
    let mut by_repeats: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for (index, canary) in canaries.canaries.iter().enumerate() {
        let template = Template::parse(&canary.template).map_err(|e| {
            crate::error::ValueError::new(format!(
                "{}: {}: template: {e}",
                file.display(),
                canary.id
            ))
        })?;
        let mut secrets = vec![canary.secret.clone()];
        secrets.extend(
            candidate_secrets(canary.kind, candidates, &inserted, seed, index)
                .with_stage_context(|| format!("{}: {}", file.display(), canary.id))?,
        );
        let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
        let scores = slot_pseudo_log_likelihood(
            model,
            template.before(),
            template.after(),
            &refs,
            model.batch_rows,
        )
        .map_err(|e| {
            crate::error::ValueError::new(format!(
                "{}: {}: scoring: {e}",
                file.display(),
                canary.id
            ))
        })?;
        let pll: Vec<f64> = scores.iter().map(|s| s.pll).collect();
        let rank = rank_with_ties(pll[0], &pll[1..]);
        by_repeats
            .entry(canary.repeats)
            .or_default()
            .push(exposure_bits(candidates, rank));
    }
    Ok(evidence(candidates, by_repeats, gate))
}

/// The evidence from each group's exposures (canary order), groups by ascending repeats.
pub fn evidence(
    candidates: usize,
    by_repeats: BTreeMap<u64, Vec<f64>>,
    gate: impl Into<CanaryGate>,
) -> CanaryEvidence {
    let gate = gate.into();
    let max_mean_exposure = gate.max_mean_exposure;
    let chance = chance_95th_percentile_bits();
    let mut reasons = Vec::new();
    let groups: Vec<CanaryGroup> = by_repeats
        .into_iter()
        .map(|(repeats, exposures)| {
            let n = exposures.len();
            let mean_exposure = exposures.iter().sum::<f64>() / n as f64;
            let max_exposure = exposures.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let above = exposures.iter().filter(|&&e| e > chance).count();
            let gated = gate.max_repeats.is_none_or(|max| repeats <= max);
            if gated && mean_exposure > max_mean_exposure {
                reasons.push(format!(
                    "canaries inserted {repeats} time(s): mean exposure {mean_exposure:.2} bits \
                     > {max_mean_exposure:.2} (chance 95th percentile {chance:.2})"
                ));
            }
            CanaryGroup {
                repeats,
                exposures,
                mean_exposure,
                max_exposure,
                above_chance: Proportion::new(above as u64, n as u64),
            }
        })
        .collect();
    CanaryEvidence {
        threat_model: THREAT_MODEL.into(),
        candidates: candidates as u64,
        chance_95th_percentile_bits: chance,
        groups,
        outcome: if reasons.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canary_exposure_arithmetic_by_hand() {
        // Best of 1 + 1023 candidates: log2(1024) − log2(1) = 10 bits.
        assert!((exposure_bits(1023, 1.0) - 10.0).abs() < 1e-12);
        // Last: rank 1024, 0 bits.
        assert!(exposure_bits(1023, 1024.0).abs() < 1e-12);
        // Rank 4 of 32: 5 − 2 = 3 bits.
        assert!((exposure_bits(31, 4.0) - 3.0).abs() < 1e-12);
        assert!((chance_95th_percentile_bits() - 4.321928).abs() < 1e-6);
    }

    #[test]
    fn canary_rank_counts_ties_at_their_mean_rank() {
        let others = [-1.0, -2.0, -3.0, -2.0];
        // One better (−1), two tied at −2: the tie spans ranks 2..=4, mean 3.
        assert_eq!(rank_with_ties(-2.0, &others), 3.0);
        assert!((exposure_bits(4, 3.0) - (5f64 / 3.0).log2()).abs() < 1e-12);
        assert_eq!(rank_with_ties(0.0, &others), 1.0);
        assert_eq!(rank_with_ties(-5.0, &others), 5.0);
        // One tie: ranks 1 and 2, mean 1.5.
        assert_eq!(rank_with_ties(-1.0, &others), 1.5);
        // Everything equal: the middle of 1..=5.
        assert_eq!(rank_with_ties(0.0, &[0.0; 4]), 3.0);
    }

    #[test]
    fn canary_candidates_are_seeded_distinct_and_never_inserted() {
        let inserted_owned: Vec<String> = (0..200).map(|i| format!("{:05}", i * 3)).collect();
        let inserted: HashSet<&str> = inserted_owned.iter().map(String::as_str).collect();
        let kind = SecretKind::Digits(5);
        let a = candidate_secrets(kind, 9_000, &inserted, 7, 0).unwrap();
        assert_eq!(a, candidate_secrets(kind, 9_000, &inserted, 7, 0).unwrap());
        assert_ne!(a, candidate_secrets(kind, 9_000, &inserted, 8, 0).unwrap());
        assert_ne!(a, candidate_secrets(kind, 9_000, &inserted, 7, 1).unwrap());
        let set: HashSet<&str> = a.iter().map(String::as_str).collect();
        assert_eq!(set.len(), 9_000);
        assert!(set.is_disjoint(&inserted));
        assert!(a.iter().all(|s| kind.matches(s)));
        let phones = candidate_secrets(SecretKind::Phone, 10_000, &inserted, 7, 2).unwrap();
        assert!(phones.iter().all(|s| SecretKind::Phone.matches(s)));
        assert!(candidate_secrets(kind, 20_000, &inserted, 7, 0).is_err());
    }

    #[test]
    fn canary_groups_pass_and_fail_on_the_mean() {
        let mut by = BTreeMap::new();
        by.insert(16, vec![9.0, 8.0, 1.0]);
        by.insert(1, vec![0.5, 5.0, 1.0]);
        let e = evidence(1000, by, 4.0);
        assert_eq!(e.groups.len(), 2);
        assert_eq!(e.groups[0].repeats, 1);
        assert!((e.groups[0].mean_exposure - 6.5 / 3.0).abs() < 1e-12);
        assert_eq!(e.groups[0].above_chance.successes, 1);
        assert_eq!(e.groups[1].max_exposure, 9.0);
        assert_eq!(e.groups[1].above_chance.successes, 2);
        assert_eq!(e.outcome, Outcome::Fail);
        assert_eq!(e.reasons.len(), 1);
        assert!(e.reasons[0].contains("16 time(s)"), "{}", e.reasons[0]);
        // Gating only the canaries seen once: the 16-fold group is reported, not gated.
        let mut by = BTreeMap::new();
        by.insert(16, vec![9.0, 8.0, 1.0]);
        by.insert(1, vec![0.5, 5.0, 1.0]);
        let only_once = CanaryGate {
            max_mean_exposure: 4.0,
            max_repeats: Some(1),
        };
        let e = evidence(1000, by, only_once);
        assert_eq!(e.outcome, Outcome::Pass);
        assert_eq!(e.groups[1].max_exposure, 9.0);
        let mut calm = BTreeMap::new();
        calm.insert(4, vec![1.0, 2.0]);
        assert_eq!(evidence(1000, calm, 4.0).outcome, Outcome::Pass);
    }
}
