//! Learned named-entity recognition for de-identification: BiLSTM-CRF and transformer token
//! classifiers, trained on annotated corpora and run as one more recognizer beside the rules.

pub mod bilstm;
pub mod config;
pub mod data;
pub mod rules;
pub mod stage;
pub mod tags;
pub mod tokens;
pub mod training;
pub mod transformer;

use crate::error::StageResult as Result;
use crate::labels::Label;
use crate::recognize::Recognizer;
use crate::span::Entity;
use config::{Arch, NerConfig};
use std::path::Path;
use std::sync::Arc;

/// Score given to model spans in overlap resolution: above word-list and weak pattern hits,
/// below checksum-validated identifiers (0.95). Extents are unioned either way (recall first).
pub const MODEL_SPAN_SCORE: f32 = 0.9;

/// A trained tagger: entity spans (byte offsets) of a text.
pub trait Tagger: Send + Sync {
    fn tag(&self, text: &str) -> Result<Vec<(usize, usize, Label)>>;
    /// Short name for `Entity::source`, e.g. `ner:bilstm-crf`.
    fn source(&self) -> &str;
}

/// Joins the model in `dir/<lang>/` to the recognizers of each language that has one; a
/// language without a model directory keeps its rules and lists, with one notice line. A model
/// directory that is there but cannot load stops the run (fail closed).
pub fn attach_per_lang(
    pipeline: &mut crate::recognize::Pipeline,
    dir: &Path,
    replace_rules: bool,
) -> Result<()> {
    let mut failed: Option<crate::error::StageError> = None;
    pipeline.for_each_lang(|lp| {
        if failed.is_some() {
            return;
        }
        let d = dir.join(lp.lang.code());
        if !d.is_dir() {
            eprintln!(
                "note: no model for '{}' in {}: rules and lists only",
                lp.lang.code(),
                dir.display()
            );
            return;
        }
        match load_tagger(&d) {
            Ok(tagger) => {
                if replace_rules {
                    // The model alone: document-level propagation is a rule too.
                    lp.recognizers.clear();
                    lp.propagate = None;
                }
                lp.recognizers.push(Box::new(NerRecognizer::new(tagger)));
            }
            Err(e) => {
                failed = Some(crate::error::StageError::Context {
                    context: format!("loading the NER model {}", d.display()),
                    source: Box::new(e),
                })
            }
        }
    });
    failed.map_or(Ok(()), Err)
}

/// Loads the tagger saved in `dir` (fails closed: any missing or bad file is an error).
pub fn load_tagger(dir: &Path) -> Result<Arc<dyn Tagger>> {
    let config = NerConfig::load(dir)?;
    match config.arch {
        Arch::BilstmCrf => Ok(Arc::new(bilstm::tagger::BiLstmTagger::load(dir, &config)?)),
        Arch::Transformer => Ok(Arc::new(transformer::tagger::TransformerTagger::load(
            dir, &config,
        )?)),
    }
}

/// A tagger as a recognizer of the rule pipeline.
pub struct NerRecognizer {
    tagger: Arc<dyn Tagger>,
}

impl NerRecognizer {
    pub fn new(tagger: Arc<dyn Tagger>) -> Self {
        NerRecognizer { tagger }
    }
}

impl Recognizer for NerRecognizer {
    fn name(&self) -> &str {
        self.tagger.source()
    }

    fn find(&self, text: &str, out: &mut Vec<Entity>) {
        // A model that fails on a document must not let it through untagged: stop the run.
        let spans = self
            .tagger
            .tag(text)
            .unwrap_or_else(|e| panic!("the NER model failed on a document: {e:#}"));
        let source = self.tagger.source();
        out.extend(
            spans
                .into_iter()
                .map(|(s, e, l)| Entity::new(s, e, l, source, MODEL_SPAN_SCORE)),
        );
    }
}

/// Adds the tagger saved in `dir` to every language of `pipeline`; with `replace_rules`, it is
/// the only recognizer left.
pub fn attach(
    pipeline: &mut crate::recognize::Pipeline,
    dir: &Path,
    replace_rules: bool,
) -> Result<()> {
    let tagger = load_tagger(dir)?;
    pipeline.for_each_lang(|lp| {
        if replace_rules {
            // The model alone: document-level propagation is a rule too.
            lp.recognizers.clear();
            lp.propagate = None;
        }
        lp.recognizers
            .push(Box::new(NerRecognizer::new(tagger.clone())));
    });
    Ok(())
}
