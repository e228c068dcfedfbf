//! Recognizers find PHI candidates; the pipeline runs them per language and resolves overlaps.

pub mod build;
pub mod context;
pub mod dose_context;
pub mod lookup;
mod name_tails;
pub mod pattern;
pub mod propagate;
pub mod settings;
pub mod stage;
pub mod state_codes;
mod town_before_country;

use crate::lang::{Lang, LangChoice};
use crate::span::{merge_adjacent, resolve_overlaps, Entity};
use lookup::tokens::Words;

/// Finds PHI candidates in a text. Implementations are built once per language and shared
/// across threads; `find` must not allocate per call beyond pushing into `out` where avoidable.
pub trait Recognizer: Send + Sync {
    /// Stable name, used as the prefix of `Entity::source` (e.g. `pattern`, `lookup`, `context`).
    fn name(&self) -> &str;
    /// Appends candidates (byte offsets into `text`) to `out`.
    fn find(&self, text: &str, out: &mut Vec<Entity>);

    /// Like `find`, given the document's words already tokenized and folded (`Words::new(text)`)
    /// by the pipeline, so that the rules that read words do not each tokenize again.
    fn find_in(&self, text: &str, _words: &Words, out: &mut Vec<Entity>) {
        self.find(text, out)
    }
}

/// A shared recognizer runs as itself (the pipeline's word lists also serve the taggers).
impl<R: Recognizer + ?Sized> Recognizer for std::sync::Arc<R> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn find(&self, text: &str, out: &mut Vec<Entity>) {
        (**self).find(text, out)
    }

    fn find_in(&self, text: &str, words: &Words, out: &mut Vec<Entity>) {
        (**self).find_in(text, words, out)
    }
}

/// The surfaces `r` finds in `text` from one rule (`source`), for the rules' unit tests.
#[cfg(test)]
pub(crate) fn surfaces_from(r: &dyn Recognizer, text: &str, source: &str) -> Vec<String> {
    let mut out = Vec::new();
    r.find(text, &mut out);
    out.iter()
        .filter(|e| e.source == source)
        .map(|e| text[e.start..e.end].to_string())
        .collect()
}

/// The recognizers of one language, in the order they run.
pub struct LangPipeline {
    pub lang: Lang,
    pub recognizers: Vec<Box<dyn Recognizer>>,
    /// The word-list recognizer among `recognizers`, for the taggers that read its lists.
    pub lookup: std::sync::Arc<lookup::LookupRecognizer>,
    /// Marks the other mentions of the names found (after the recognizers, on their result).
    pub propagate: Option<std::sync::Arc<propagate::Propagator>>,
    /// Takes the state codes after the places found, last ("Nashua, NH"); languages with a
    /// `state_codes` list.
    pub state_codes: Option<std::sync::Arc<state_codes::StateCodes>>,
}

/// All configured languages; picks one per document and resolves the candidates.
pub struct Pipeline {
    choice: LangChoice,
    fallback: Lang,
    langs: Vec<LangPipeline>,
}

impl Pipeline {
    /// `langs` must contain the fixed language, or every language for `LangChoice::Auto`.
    pub fn new(choice: LangChoice, fallback: Lang, langs: Vec<LangPipeline>) -> Self {
        Pipeline {
            choice,
            fallback,
            langs,
        }
    }

    pub fn lang_for(&self, text: &str) -> Lang {
        self.choice.resolve(text, self.fallback)
    }

    /// Candidates of every recognizer, overlaps resolved, adjacent name parts merged.
    pub fn recognize(&self, text: &str) -> (Lang, Vec<Entity>) {
        let lang = self.lang_for(text);
        (lang, self.recognize_as(text, lang))
    }

    /// Like `recognize`, with the language already decided (later passes over a document).
    /// The recognizers of `lang`.
    pub fn for_lang(&self, lang: Lang) -> &LangPipeline {
        self.langs
            .iter()
            .find(|lp| lp.lang == lang)
            .expect("the pipeline holds every language its LangChoice can return")
    }

    /// Lets a caller add or remove recognizers of every language (e.g. a learned model).
    pub fn for_each_lang(&mut self, mut f: impl FnMut(&mut LangPipeline)) {
        self.langs.iter_mut().for_each(&mut f);
    }

    pub fn recognize_as(&self, text: &str, lang: Lang) -> Vec<Entity> {
        self.recognize_in_steps(text, lang, |_| {})
    }

    /// `recognize_as`, calling `step_done` with the name of each step as it ends (the words,
    /// each recognizer, the overlaps, propagation), so a benchmark can say where the time goes.
    pub fn recognize_in_steps(
        &self,
        text: &str,
        lang: Lang,
        mut step_done: impl FnMut(&str),
    ) -> Vec<Entity> {
        let mut cands = Vec::new();
        let lp = self.for_lang(lang);
        let words = Words::new(text);
        step_done("words");
        for r in &lp.recognizers {
            r.find_in(text, &words, &mut cands);
            step_done(r.name());
        }
        let found = merge_adjacent(text, resolve_overlaps(cands));
        step_done("overlaps");
        let mut found = match &lp.propagate {
            None => found,
            Some(p) => {
                let more = p.find(text, &words, &found);
                let all = if more.is_empty() {
                    found
                } else {
                    let mut all = found;
                    all.extend(more);
                    merge_adjacent(text, resolve_overlaps(all))
                };
                step_done("propagate");
                all
            }
        };
        // English writes a suffix's and an initial's full stop as part of the name;
        // MEDDOCAN's annotators, for one, leave the initial's out ("Antoniadis P").
        if lang == Lang::En {
            name_tails::extend(text, &mut found);
        }
        town_before_country::mark(text, &mut found);
        match &lp.state_codes {
            Some(codes) => with_state_codes(codes, text, found),
            None => found,
        }
    }
}

/// `found` with the state codes that follow its places ("Nashua, NH"), in text order.
fn with_state_codes(
    codes: &state_codes::StateCodes,
    text: &str,
    mut found: Vec<Entity>,
) -> Vec<Entity> {
    codes.towns_read_as_names(text, &mut found);
    let states = codes.after_places(text, &found);
    if !states.is_empty() {
        found.extend(states);
        found.sort_by_key(|e| e.start);
    }
    found
}
