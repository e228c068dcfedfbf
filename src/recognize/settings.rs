//! Which recognizers a corpus stage runs (language choice, user lists, learned taggers), and
//! the pipeline built from them; anything that cannot load stops the stage (fail closed).

use std::path::PathBuf;

use super::build::build_pipeline;
use super::Pipeline;
use crate::error::{StageContext, StageResult, ValueError};
use crate::lang::{Lang, LangChoice};
use crate::wordlists::ListSources;

#[derive(Clone, Debug)]
pub struct RecognizerSettings {
    pub lang: LangChoice,
    /// The language of a document that `auto` cannot place.
    pub fallback_lang: Lang,
    /// A folder of user lists joined to the built-in ones.
    pub lists: Option<PathBuf>,
    /// One learned tagger for every language.
    pub model: Option<PathBuf>,
    /// A folder of taggers, `DIR/<lang>/` per language.
    pub models: Option<PathBuf>,
    /// The taggers shipped with the binary, for languages `models` has none for (ignored
    /// with `model`).
    pub builtin_models: bool,
    /// The tagger alone: no rules, lists or propagation.
    pub no_rules: bool,
}

impl RecognizerSettings {
    /// Rules, built-in lists and the shipped taggers for one language choice.
    pub fn rules(lang: LangChoice) -> Self {
        RecognizerSettings {
            lang,
            fallback_lang: Lang::En,
            lists: None,
            model: None,
            models: None,
            builtin_models: true,
            no_rules: false,
        }
    }

    /// The recognition pipeline.
    pub fn pipeline(&self) -> StageResult<Pipeline> {
        let lists = match &self.lists {
            Some(dir) => ListSources::with_user_dir(dir).stage_context("--lists")?,
            None => ListSources::default(),
        };
        let mut pipeline = build_pipeline(self.lang, self.fallback_lang, &lists)
            .stage_context("building the recognizers")?;
        if let Some(dir) = &self.model {
            crate::ner::attach(&mut pipeline, dir, self.no_rules)
                .with_stage_context(|| format!("loading the NER model {}", dir.display()))?;
        } else {
            if let Some(dir) = self.models.as_deref().filter(|d| !d.is_dir()) {
                return Err(ValueError::new(format!(
                    "--models {}: not a directory",
                    dir.display()
                ))
                .into());
            }
            crate::ner::attach_per_lang(
                &mut pipeline,
                self.models.as_deref(),
                self.builtin_models,
                self.no_rules,
            )?;
        }
        Ok(pipeline)
    }
}
