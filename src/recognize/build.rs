//! Builds the rule pipeline (patterns, word lists, context rules) for the languages a run needs;
//! the rules of the built-in lists alone are built once per language and process and shared.

use super::context::ContextRecognizer;
use super::lookup::LookupRecognizer;
use super::pattern::PatternRecognizer;
use super::propagate::Propagator;
use super::state_codes::StateCodes;
use super::{LangPipeline, Pipeline, Recognizer};
use crate::lang::{Lang, LangChoice};
use crate::wordlists::ListSources;
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

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
    /// The built-in rules failed when first built in this process (the message of that error).
    #[error("{0}")]
    Builtin(String),
}

/// The rules of one language, each part shared by every pipeline built from them.
#[derive(Clone)]
struct Rules {
    pattern: Arc<PatternRecognizer>,
    lookup: Arc<LookupRecognizer>,
    context: Arc<ContextRecognizer>,
    propagate: Arc<Propagator>,
    state_codes: Option<Arc<StateCodes>>,
}

impl Rules {
    fn build(lang: Lang, lists: &ListSources) -> Result<Self, BuildError> {
        let vocab_err = |source| BuildError::Vocab { lang, source };
        let context = ContextRecognizer::new(lang, lists).map_err(vocab_err)?;
        let ordinary = context.ordinary_words();
        Ok(Rules {
            pattern: Arc::new(PatternRecognizer::new(lang, lists).map_err(|e| {
                BuildError::Pattern {
                    lang,
                    msg: e.to_string(),
                }
            })?),
            lookup: Arc::new(LookupRecognizer::new(lang, lists).map_err(vocab_err)?),
            context: Arc::new(context),
            propagate: Arc::new(Propagator::new(lang, lists, ordinary).map_err(vocab_err)?),
            state_codes: StateCodes::new(lang, lists)
                .map_err(vocab_err)?
                .map(Arc::new),
        })
    }

    /// The recognizers in the order they run.
    fn pipeline(&self, lang: Lang) -> LangPipeline {
        let recognizers: Vec<Box<dyn Recognizer>> = vec![
            Box::new(Arc::clone(&self.pattern)),
            Box::new(Arc::clone(&self.lookup)),
            Box::new(Arc::clone(&self.context)),
        ];
        LangPipeline {
            lang,
            recognizers,
            lookup: Arc::clone(&self.lookup),
            propagate: Some(Arc::clone(&self.propagate)),
            state_codes: self.state_codes.clone(),
        }
    }
}

/// The rules of the built-in lists, per language, built on first use: every stage of a run,
/// and the taggers that read rule hits, share one copy of each language's lists.
static BUILTIN: [OnceLock<Result<Rules, String>>; Lang::ALL.len()] =
    [const { OnceLock::new() }; Lang::ALL.len()];

fn builtin_rules(lang: Lang) -> Result<&'static Rules, BuildError> {
    BUILTIN[lang.index()]
        .get_or_init(|| Rules::build(lang, &ListSources::default()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|msg| BuildError::Builtin(msg.clone()))
}

/// The recognizers of one language, in the order they run.
pub fn build_lang(lang: Lang, lists: &ListSources) -> Result<LangPipeline, BuildError> {
    if lists.has_user_lists() {
        Ok(Rules::build(lang, lists)?.pipeline(lang))
    } else {
        Ok(builtin_rules(lang)?.pipeline(lang))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The surnames `pipeline` finds in `text`.
    fn names_in(pipeline: LangPipeline, text: &str) -> Vec<String> {
        let lang = pipeline.lang;
        Pipeline::new(LangChoice::Fixed(lang), lang, vec![pipeline])
            .recognize_as(text, lang)
            .iter()
            .filter(|e| e.label.category == crate::labels::Category::Name)
            .map(|e| text[e.start..e.end].to_string())
            .collect()
    }

    #[test]
    fn built_in_rules_are_built_once_and_user_lists_get_rules_of_their_own() {
        let first = build_lang(Lang::It, &ListSources::default()).unwrap();
        let again = build_lang(Lang::It, &ListSources::default()).unwrap();
        assert!(Arc::ptr_eq(&first.lookup, &again.lookup));
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("it")).unwrap();
        std::fs::write(dir.path().join("it/surnames.txt"), "Quarzetti\n").unwrap();
        let user = build_lang(Lang::It, &ListSources::with_user_dir(dir.path()).unwrap()).unwrap();
        assert!(!Arc::ptr_eq(&first.lookup, &user.lookup));
        let text = "Visita di controllo con Quarzetti, poi dimissione.";
        assert_eq!(names_in(user, text), ["Quarzetti"]);
        assert!(
            names_in(again, text).is_empty(),
            "the shared rules never saw the user's list"
        );
    }
}
