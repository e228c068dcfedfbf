//! The model directory's `ner.json`: architecture, labels, sizes and how the model was trained.

use crate::error::ValueError;

use crate::error::{StageContext, StageResult as Result};
use crate::labels::Label;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FORMAT: &str = "anonlm.ner/1";
pub const CONFIG_FILE: &str = "ner.json";

/// Which tagger a directory holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arch {
    BilstmCrf,
    Transformer,
}

impl std::str::FromStr for Arch {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> std::result::Result<Self, ValueError> {
        match s {
            "bilstm-crf" | "bilstm" => Ok(Arch::BilstmCrf),
            "transformer" => Ok(Arch::Transformer),
            _ => Err(ValueError::from(format!(
                "unknown architecture '{s}' (expected bilstm-crf or transformer)"
            ))),
        }
    }
}

/// `ner.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NerConfig {
    pub format: String,
    pub arch: Arch,
    /// Canonical labels in tag-set order (`CATEGORY/SUBTYPE`).
    pub labels: Vec<String>,
    pub tagging: String,
    /// The label map the training data was read with, for the record.
    pub label_map: Option<String>,
    /// Architecture-specific settings (layer sizes, base model).
    pub model: serde_json::Value,
    /// How it was trained: data sizes, seed, steps, the best dev score (numbers only).
    pub training: serde_json::Value,
}

impl NerConfig {
    pub fn parsed_labels(&self) -> Result<Vec<Label>> {
        self.labels
            .iter()
            .map(|l| Label::parse(l).map_err(Into::into))
            .collect()
    }

    pub fn load(dir: &Path) -> Result<NerConfig> {
        let path = dir.join(CONFIG_FILE);
        let text = std::fs::read_to_string(&path).with_stage_context(|| {
            format!("{}: not an anonlm NER model directory", path.display())
        })?;
        NerConfig::parse(&text, &path)
    }

    /// `ner.json` read from `text`; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<NerConfig> {
        let config: NerConfig = serde_json::from_str(text)
            .with_stage_context(|| format!("{}: bad model config", path.display()))?;
        if config.format != FORMAT {
            return Err(crate::error::ValueError::new(format!(
                "{}: format '{}' is not {FORMAT}",
                path.display(),
                config.format
            ))
            .into());
        };
        config
            .parsed_labels()
            .with_stage_context(|| format!("{}: labels", path.display()))?;
        Ok(config)
    }
}
