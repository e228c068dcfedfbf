//! Builds the rule pipeline (patterns, word lists, context rules) for the languages a run needs.

use super::context::ContextRecognizer;
use super::lookup::LookupRecognizer;
use super::pattern::PatternRecognizer;
use super::propagate::Propagator;
use super::state_codes::StateCodes;
use super::{LangPipeline, Pipeline, Recognizer};
use crate::lang::{Lang, LangChoice};
use crate::wordlists::ListSources;
use rayon::prelude::*;
use std::sync::Arc;

/// A recognizer that could not be built; the run stops (fail closed).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("pattern recognizer for '{lang}': {msg}")]
    Pattern { lang: Lang, msg: String },
    #[error("word lists for '{lang}': {source}")]
    Vocab {
        lang: Lang,
        #[source]
        source: crate::wordlists::VocabError,
    },
}

/// The recognizers of one language, in the order they run.
pub fn build_lang(lang: Lang, lists: &ListSources) -> Result<LangPipeline, BuildError> {
    let vocab_err = |source| BuildError::Vocab { lang, source };
    let lookup = Arc::new(LookupRecognizer::new(lang, lists).map_err(vocab_err)?);
    let recognizers: Vec<Box<dyn Recognizer>> = vec![
        Box::new(
            PatternRecognizer::new(lang, lists).map_err(|e| BuildError::Pattern {
                lang,
                msg: e.to_string(),
            })?,
        ),
        Box::new(Arc::clone(&lookup)),
        Box::new(ContextRecognizer::new(lang, lists).map_err(vocab_err)?),
    ];
    let propagate = Some(Propagator::new(lang, lists).map_err(vocab_err)?);
    let state_codes = StateCodes::new(lang, lists).map_err(vocab_err)?;
    Ok(LangPipeline {
        lang,
        recognizers,
        lookup,
        propagate,
        state_codes,
    })
}

/// The pipeline for a fixed language, or for all five when the language is detected per document.
pub fn build_pipeline(
    choice: LangChoice,
    fallback: Lang,
    lists: &ListSources,
) -> Result<Pipeline, BuildError> {
    let langs: Vec<Lang> = match choice {
        LangChoice::Fixed(l) => vec![l],
        LangChoice::Auto => Lang::ALL.to_vec(),
    };
    // Languages load their lists in parallel: start-up is the slowest language, not the sum.
    let built = langs
        .into_par_iter()
        .map(|l| build_lang(l, lists))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Pipeline::new(choice, fallback, built))
}
