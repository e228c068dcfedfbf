//! The taggers that ship inside the binary (`models/<lang>/`, trained only on openly licensed
//! corpora; each folder has its model card), loaded once per process on the first document of
//! their language, so a run that never meets that language pays nothing at start-up.

use super::bilstm::tagger::BiLstmTagger;
use super::config::{Arch, NerConfig};
use super::Tagger;
use crate::error::{StageContext, StageResult as Result, ValueError};
use crate::labels::Label;
use crate::lang::Lang;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The files of one shipped model directory, embedded by `build.rs`.
pub struct EmbeddedModel {
    pub lang: &'static str,
    pub config: &'static str,
    pub vocab: &'static str,
    pub weights: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/builtin_models.rs"));

/// The shipped model of `lang`, if there is one.
pub fn embedded(lang: Lang) -> Option<&'static EmbeddedModel> {
    EMBEDDED_MODELS.iter().find(|m| m.lang == lang.code())
}

/// Loads a shipped model now (fails closed on any bad part, naming `models/<lang>/`).
pub fn load(model: &EmbeddedModel) -> Result<BiLstmTagger> {
    let dir = Path::new("models").join(model.lang);
    let config = NerConfig::parse(model.config, &dir.join(super::config::CONFIG_FILE))
        .stage_context("the built-in model")?;
    if config.arch != Arch::BilstmCrf {
        return Err(ValueError::new(format!(
            "{}: a built-in model must be a BiLSTM-CRF",
            dir.display()
        ))
        .into());
    }
    let tensors = candle_core::safetensors::load_buffer(model.weights, &candle_core::Device::Cpu)
        .with_stage_context(|| {
        dir.join(super::bilstm::tagger::WEIGHTS_FILE)
            .display()
            .to_string()
    })?;
    BiLstmTagger::from_parts(&dir, &config, model.vocab, tensors)
        .stage_context("the built-in model")
}

/// One loaded model per language for the whole process: every pipeline shares it.
static LOADED: [OnceLock<std::result::Result<Arc<BiLstmTagger>, String>>; Lang::ALL.len()] =
    [const { OnceLock::new() }; Lang::ALL.len()];

/// The shipped model of a language as a tagger that loads on its first document.
pub struct LazyBuiltin {
    /// The language's place in `Lang::ALL`, and so in `LOADED`.
    slot: usize,
    model: &'static EmbeddedModel,
}

impl LazyBuiltin {
    pub fn new(lang: Lang) -> Option<Self> {
        embedded(lang).map(|model| LazyBuiltin {
            slot: lang.index(),
            model,
        })
    }

    fn tagger(&self) -> Result<&Arc<BiLstmTagger>> {
        LOADED[self.slot]
            .get_or_init(|| load(self.model).map(Arc::new).map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| ValueError::new(e.clone()).into())
    }
}

impl Tagger for LazyBuiltin {
    fn tag(&self, text: &str) -> Result<Vec<(usize, usize, Label)>> {
        self.tagger()?.tag(text)
    }

    fn source(&self) -> &str {
        "ner:bilstm-crf"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_model_loads_and_finds_a_name_its_lists_lack() {
        assert!(
            embedded(Lang::En).is_some(),
            "the English model ships with the binary"
        );
        for model in EMBEDDED_MODELS {
            load(model).unwrap();
        }
        // A made-up name in no list, in running text: only the tagger can find it.
        let text =
            "Yesterday the minister said that Tarvek Olumbridge will visit the clinic in March.";
        let spans = LazyBuiltin::new(Lang::En).unwrap().tag(text).unwrap();
        let found: Vec<&str> = spans
            .iter()
            .filter(|s| s.2.category == crate::labels::Category::Name)
            .map(|s| &text[s.0..s.1])
            .collect();
        assert!(found.iter().any(|f| f.contains("Olumbridge")), "{found:?}");
    }
}
