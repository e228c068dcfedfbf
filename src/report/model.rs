//! The report a privacy office signs: one value (schema `anonlm.report/1`) that `audit` and
//! `release` write as JSON and that the Markdown and HTML renderings and `report diff` read.
//! It holds counts, hashes, metrics and decisions, never document text or names.

use serde::{Deserialize, Serialize};

use crate::audit::run::{AttackResult, Decision, Outcome};
use crate::audit::spec::Thresholds;
use crate::probe::metrics::SetMetrics;
use crate::stats::Proportion;

/// Version of the report JSON; bump on any incompatible change (and its schema file).
pub const REPORT_SCHEMA: &str = "anonlm.report/1";

/// The whole report.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Always [`REPORT_SCHEMA`].
    pub schema: String,
    /// `anonlm <version>`.
    pub tool: String,
    /// A title for the page, e.g. the release's name.
    pub title: String,
    pub identity: Identity,
    pub data: DataSummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deid: Option<DeidSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocabulary: Option<VocabularySummary>,
    /// Membership-inference attacks and the blind baseline, in the order they ran.
    pub attacks: Vec<AttackResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canaries: Option<CanaryEvidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeEvidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utility: Option<Utility>,
    pub thresholds: Thresholds,
    pub decision: Decision,
    pub reproducibility: Reproducibility,
    pub sign_off: Vec<SignOff>,
}

/// A file named by the report and its SHA-256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileHash {
    pub path: String,
    pub sha256: String,
}

/// Which model, which data and which spec the figures belong to.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    pub spec: FileHash,
    pub model: ModelIdentity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ModelIdentity>,
    /// The corpus the members and non-members were drawn from (or the two sets).
    pub data_files: Vec<FileHash>,
}

/// Hashes of a model directory's files (absent files are `null`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelIdentity {
    pub dir: String,
    pub weights_sha256: Option<String>,
    pub tokenizer_sha256: Option<String>,
    pub manifest_sha256: Option<String>,
    /// The manifest's digest over the training corpus's document hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus_digest: Option<String>,
}

/// How many examples each side of the membership audit had.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSummary {
    /// `sentence` or `document`.
    pub unit: crate::audit::Unit,
    pub member_sentences: usize,
    pub non_member_sentences: usize,
    pub member_documents: usize,
    pub non_member_documents: usize,
    /// Corpus documents the manifest does not list, or whose text no longer matches its hash.
    pub skipped_documents: usize,
}

/// What de-identification did to the training corpus (from `deid`'s stats file), and what
/// was left of the gold entities when a gold set was scored.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeidSummary {
    pub stats_file: FileHash,
    pub documents: u64,
    /// Replacements per canonical label (e.g. `NAME`, `DATE`).
    pub replaced_by_label: Vec<LabelCount>,
    pub passes: u64,
    pub policy: String,
    /// Gold entities fully removed / all gold entities (a missed entity is a leak).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<Proportion>,
    /// The residual-PII gate on the gold entities, when gold spans were scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual: Option<ResidualGate>,
}

/// Gold entities de-identification did not fully remove, held against
/// `max_residual_share` overall and `max_residual_share_by_category` per category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResidualGate {
    pub entities: u64,
    /// Entities with a non-whitespace character outside every replaced range.
    pub with_residue: u64,
    /// `with_residue / entities` (0 with no entities).
    pub share: f64,
    pub threshold: f64,
    /// One row per category of the gold labels (the part before `/`) and per whole label
    /// the spec gates, with its threshold when the spec sets one.
    pub by_category: Vec<ResidualCategory>,
    pub outcome: Outcome,
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResidualCategory {
    pub category: String,
    pub entities: u64,
    pub with_residue: u64,
    /// `None` with no gold entity of the category.
    pub share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelCount {
    pub label: String,
    pub count: u64,
}

/// The vocabulary review and the checks of the rewritten tokenizer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VocabularySummary {
    /// Tokens judged in the review file.
    pub reviewed: u64,
    /// Tokens the review marked `remove`.
    pub removed: u64,
    /// Tokens renamed because their only derivation went through a removed one.
    pub derived: u64,
    pub checks: Vec<NamedCheck>,
}

/// One pass/fail check with a short, text-free detail (counts only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedCheck {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// Canary exposure (Carlini et al. 2019): each inserted canary's rank among never-inserted
/// candidates of the same template, by the model's pseudo-log-likelihood of the secret.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanaryEvidence {
    pub threat_model: String,
    /// Never-inserted candidates each canary is ranked among.
    pub candidates: u64,
    /// Exposure that a model which memorized nothing exceeds with probability 5%
    /// (log2 20 ≈ 4.32 bits).
    pub chance_95th_percentile_bits: f64,
    pub groups: Vec<CanaryGroup>,
    pub outcome: Outcome,
    pub reasons: Vec<String>,
}

/// The canaries inserted the same number of times.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanaryGroup {
    pub repeats: u64,
    /// Exposure in bits of each canary (log2(candidates + 1) − log2 rank), canary order.
    pub exposures: Vec<f64>,
    pub mean_exposure: f64,
    pub max_exposure: f64,
    /// Canaries above the chance 95th percentile, with an exact interval (5% expected).
    pub above_chance: Proportion,
}

/// `probe metrics` of the released model.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeEvidence {
    pub file: FileHash,
    pub top_k: usize,
    pub sets: Vec<SetMetrics>,
    pub outcome: Outcome,
    pub reasons: Vec<String>,
}

/// Does the released model still model the language: held-out masked-LM loss (nats per
/// masked token) before and after the vocabulary rewrite, and the unigram baseline.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Utility {
    pub held_out_documents: u64,
    pub loss_before_rewrite: Option<f64>,
    pub loss_after_rewrite: Option<f64>,
    pub unigram_baseline: Option<f64>,
    /// Where the baseline comes from: the training log, or estimated from the member examples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unigram_baseline_source: Option<String>,
}

/// What is needed to run the audit again and get the same figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reproducibility {
    pub tool_version: String,
    pub seed: u64,
    /// The spec's data and attack settings as used, and the device.
    pub settings: serde_json::Value,
    /// The command that produced the report.
    pub command: String,
}

/// A signature block: filled in by hand on the rendered report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignOff {
    pub role: String,
    pub name: Option<String>,
    pub date: Option<String>,
    pub decision: Option<String>,
}

impl SignOff {
    /// The blank blocks every report carries.
    pub fn blank() -> Vec<SignOff> {
        [
            "Data protection officer",
            "Clinical data steward",
            "Model owner",
        ]
        .into_iter()
        .map(|role| SignOff {
            role: role.into(),
            name: None,
            date: None,
            decision: None,
        })
        .collect()
    }
}
