//! The `[release]` section of an audit spec: the corpus and the settings of every stage the
//! chain runs before the audit. Relative paths are taken from the spec file's folder.

use crate::error::ValueError;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What `anonlm release` runs: deid → tokenizer → mlm train (with canaries) → probe build →
/// probe run (top 40) → vocab harvest → vocab rewrite → probe run (top 20) → probe metrics →
/// audit → report.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseSpec {
    /// The raw corpus (Document JSONL, text, brat or CoNLL); never written to.
    pub corpus: PathBuf,
    #[serde(default = "auto")]
    pub format: String,
    /// nl, hu, es, it, en or auto (per document).
    #[serde(default = "auto")]
    pub lang: String,
    /// De-identification policy: a built-in name (default, medroberta, surrogate, keyed) or a
    /// TOML file.
    #[serde(default = "default_policy")]
    pub policy: String,
    /// Key file for the keyed policy.
    pub key_file: Option<PathBuf>,
    #[serde(default = "default_passes")]
    pub passes: usize,
    /// The corpus carries gold PHI spans (Document JSONL entities): residual PII is scored.
    #[serde(default)]
    pub gold: bool,
    /// Text like the corpus without its documents (another period or hospital): de-identified
    /// the same way, it trains a reference model for the likelihood-ratio attack.
    pub reference_corpus: Option<PathBuf>,
    #[serde(default)]
    pub tokenizer: TokenizerStage,
    #[serde(default)]
    pub train: TrainStage,
    #[serde(default)]
    pub probe: ProbeStage,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TokenizerStage {
    /// wordpiece, bpe or unigram.
    #[serde(default = "default_kind")]
    pub kind: String,
    #[serde(default = "default_vocab_size")]
    pub vocab_size: usize,
}

impl Default for TokenizerStage {
    fn default() -> Self {
        TokenizerStage {
            kind: default_kind(),
            vocab_size: default_vocab_size(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrainStage {
    /// tiny, small, base or a config.json (relative to the spec).
    #[serde(default = "default_config")]
    pub config: String,
    #[serde(default = "default_steps")]
    pub steps: u64,
    #[serde(default = "default_batch")]
    pub batch: usize,
    #[serde(default = "default_seq_len")]
    pub seq_len: usize,
    #[serde(default = "default_lr")]
    pub lr: f64,
    /// Share of documents held out: the audit's non-members.
    #[serde(default = "default_held_out")]
    pub held_out: f64,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Canaries per repeat count (0: none).
    #[serde(default)]
    pub canaries: usize,
    #[serde(default = "default_repeats")]
    pub canary_repeats: Vec<usize>,
    /// Seed of the canaries' secrets, for a reproducible demo or test only. A real release
    /// leaves it out: its secrets then come from the operating system, so no one can rebuild
    /// them from the spec.
    #[serde(default)]
    pub canary_seed: Option<u64>,
    /// cpu or cuda[:N].
    #[serde(default = "default_device")]
    pub device: String,
}

impl Default for TrainStage {
    fn default() -> Self {
        TrainStage {
            config: default_config(),
            steps: default_steps(),
            batch: default_batch(),
            seq_len: default_seq_len(),
            lr: default_lr(),
            held_out: default_held_out(),
            seed: default_seed(),
            canaries: 0,
            canary_repeats: default_repeats(),
            canary_seed: None,
            device: default_device(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeStage {
    /// Name slots per set (seen, unseen).
    #[serde(default = "default_probe_slots")]
    pub max_per_set: usize,
    /// Predictions per slot for the harvest (Verkijk & Vossen: 40).
    #[serde(default = "default_harvest_k")]
    pub harvest_top_k: usize,
    /// Predictions per slot for the final test (20).
    #[serde(default = "default_top_k")]
    pub top_k: usize,
    /// Harvest score at which a token is proposed for removal.
    #[serde(default = "default_threshold")]
    pub threshold: f64,
}

impl Default for ProbeStage {
    fn default() -> Self {
        ProbeStage {
            max_per_set: default_probe_slots(),
            harvest_top_k: default_harvest_k(),
            top_k: default_top_k(),
            threshold: default_threshold(),
        }
    }
}

fn auto() -> String {
    "auto".into()
}
fn default_policy() -> String {
    "default".into()
}
fn default_passes() -> usize {
    2
}
fn default_kind() -> String {
    "wordpiece".into()
}
fn default_vocab_size() -> usize {
    8000
}
fn default_config() -> String {
    "tiny".into()
}
fn default_steps() -> u64 {
    2000
}
fn default_batch() -> usize {
    16
}
fn default_seq_len() -> usize {
    128
}
fn default_lr() -> f64 {
    5e-4
}
fn default_held_out() -> f64 {
    0.2
}
fn default_seed() -> u64 {
    42
}
fn default_repeats() -> Vec<usize> {
    vec![1, 4, 16]
}
fn default_device() -> String {
    "cpu".into()
}
fn default_probe_slots() -> usize {
    100
}
fn default_harvest_k() -> usize {
    40
}
fn default_top_k() -> usize {
    20
}
fn default_threshold() -> f64 {
    2.0
}

impl ReleaseSpec {
    pub(crate) fn resolve(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        fix(&mut self.corpus);
        for p in [self.key_file.as_mut(), self.reference_corpus.as_mut()]
            .into_iter()
            .flatten()
        {
            fix(p);
        }
        // A config file (not a preset name) is a path.
        if !matches!(self.train.config.as_str(), "tiny" | "small" | "base")
            && Path::new(&self.train.config).is_relative()
        {
            self.train.config = base.join(&self.train.config).display().to_string();
        }
        if !matches!(
            self.policy.as_str(),
            "default" | "medroberta" | "surrogate" | "keyed"
        ) && Path::new(&self.policy).is_relative()
        {
            self.policy = base.join(&self.policy).display().to_string();
        }
    }

    pub(crate) fn check(&self) -> Result<(), ValueError> {
        let t = &self.train;
        if !(t.held_out > 0.0 && t.held_out < 1.0) {
            return Err("[release.train] held_out must lie between 0 and 1: the held-out documents are the audit's non-members".into());
        }
        if t.canaries > 0 && (t.canary_repeats.is_empty() || t.canary_repeats.contains(&0)) {
            return Err("[release.train] canary_repeats must be positive counts".into());
        }
        let p = &self.probe;
        if p.top_k == 0 || p.harvest_top_k == 0 || p.max_per_set == 0 {
            return Err(
                "[release.probe] top_k, harvest_top_k and max_per_set must be positive".into(),
            );
        }
        Ok(())
    }
}
