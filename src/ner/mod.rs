//! Learned named-entity recognition for de-identification: BiLSTM-CRF and transformer token
//! classifiers, trained on annotated corpora and run as one more recognizer beside the rules.

pub mod bilstm;
pub mod builtin;
pub mod caseless;
pub mod clinical_terms;
pub mod config;
pub mod data;
pub mod drug_names;
pub mod rules;
pub mod sentence_cut;
pub mod stage;
pub mod tags;
pub mod training;
pub mod transformer;

use crate::error::{StageContext, StageResult as Result};
use crate::labels::{Category, Label};
use crate::recognize::dose_context::before_dose;
use crate::recognize::Recognizer;
use crate::span::Entity;
use config::{Arch, NerConfig};
use std::path::Path;
use std::sync::Arc;

/// Score given to model spans in overlap resolution: above word-list and weak pattern hits,
/// below checksum-validated identifiers (0.95). Extents are unioned either way (recall first).
pub const MODEL_SPAN_SCORE: f32 = 0.9;

/// Staff roles abbreviated in capitals that a tagger's span may open with ("RD Seraphina", "OT
/// Wren"): role words only as written so, since `Rd` is a road and `ot` a word of other
/// languages, which keeps them out of the case-blind trigger list (`SLP` and `HHA` are in it).
const CAPS_ROLES: &[&str] = &["RD", "OT", "OTR", "COTA", "PTA", "CNA", "LPN"];

/// A trained tagger: entity spans (byte offsets) of a text.
pub trait Tagger: Send + Sync {
    fn tag(&self, text: &str) -> Result<Vec<(usize, usize, Label)>>;
    /// Short name for `Entity::source`, e.g. `ner:bilstm-crf`.
    fn source(&self) -> &str;
}

/// Joins a tagger to the recognizers of each language: the model in `dir/<lang>/` when `dir`
/// has one, else (with `builtin`) the model shipped for that language; a language left without
/// one keeps its rules and lists, with one notice line when `dir` was given. A model directory
/// that is there but cannot load stops the run (fail closed).
pub fn attach_per_lang(
    pipeline: &mut crate::recognize::Pipeline,
    dir: Option<&Path>,
    builtin: bool,
    replace_rules: bool,
) -> Result<()> {
    let mut failed: Option<crate::error::StageError> = None;
    pipeline.for_each_lang(|lp| {
        if failed.is_some() {
            return;
        }
        let own = dir.map(|d| d.join(lp.lang.code())).filter(|d| d.is_dir());
        let tagger: Arc<dyn Tagger> = match own {
            Some(d) => match load_tagger(&d) {
                Ok(tagger) => tagger,
                Err(e) => {
                    failed = Some(crate::error::StageError::Context {
                        context: format!("loading the NER model {}", d.display()),
                        source: Box::new(e),
                    });
                    return;
                }
            },
            None => match builtin
                .then(|| builtin::LazyBuiltin::new(lp.lang))
                .flatten()
            {
                Some(shipped) => Arc::new(shipped),
                None => {
                    if let Some(dir) = dir {
                        eprintln!(
                            "note: no model for '{}' in {}: rules and lists only",
                            lp.lang.code(),
                            dir.display()
                        );
                    }
                    return;
                }
            },
        };
        if let Err(e) = join(lp, tagger, replace_rules, true) {
            failed = Some(e);
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
    /// Titles of the pipeline's language, lower case without a final dot: a tagger trained on
    /// news may take "Dr" or "Mrs" into the name, and anonlm's spans leave titles out.
    titles: std::collections::HashSet<String>,
    /// The titles as the list writes them, lower case with their full stops ("dr.", "dr",
    /// "da."): inside a span a title must be written so ("PCP DR. FITZGERALD"; the particle
    /// "da" of "Joao Pimienta da Veiga" is no "Da.").
    titles_written: std::collections::HashSet<String>,
    /// One-word role triggers of the language ("attending", "wife", "brother"; not the kinship
    /// words that MEDDOCAN tags as names), lower case: left out of a name's start like titles.
    roles: std::collections::HashSet<String>,
    /// Role triggers of two or more words, lower case, words joined by one space ("athletic
    /// trainer", "case manager"): a span of their first words names no one.
    role_phrases: Vec<String>,
    /// For the per-language news taggers: trims the unsupported lower-case words and symbols
    /// off the edges of name and place spans, cuts them at sentence ends, and drops all-caps
    /// ones that no list supports and those that name drugs or conditions (`None` for a
    /// `--model` of the user's own). Built on the first span it judges, like the shipped
    /// model itself, so a language no document is in costs nothing.
    span_filters: Option<(crate::lang::Lang, std::sync::OnceLock<SpanFilters>)>,
}

/// Whether `text[s..e]` is one of `phrases` (lower case, words one space apart) or its first
/// words, the rest of it right after the span in the text.
fn opens_phrase(phrases: &[String], text: &str, s: usize, e: usize) -> bool {
    if phrases.is_empty() {
        return false;
    }
    let span: Vec<String> = text[s..e]
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let span = span.join(" ");
    // The phrases are short: the words right after the span are enough to compare.
    let after = text[e..]
        .chars()
        .take(60)
        .collect::<String>()
        .to_lowercase();
    phrases.iter().any(|phrase| {
        let Some(rest) = phrase
            .strip_prefix(span.as_str())
            .filter(|r| r.is_empty() || r.starts_with([' ', '-']))
        else {
            return false;
        };
        after.starts_with(rest) && !after[rest.len()..].starts_with(|c: char| c.is_alphanumeric())
    })
}

/// The lists a news tagger's name and place spans are judged by (see `span_filters`).
struct SpanFilters {
    gate: caseless::CaselessGate,
    drugs: drug_names::DrugNames,
    /// Words after which a name is an eponym ("Hickman line", "Alzheimer's dementia").
    eponyms: crate::recognize::lookup::EponymHeads,
    /// The allow list's plain words, lower case: medical eponyms and words that are also names
    /// ("babinski", "cheyne-stokes", "hope"). One of them alone, with no title before it, that
    /// no first-name or place list holds, is left to the rules, which name it only after a
    /// trigger ("daughter Hope"); "Pat", "Jack" and "Bath" stay the tagger's.
    allowed: std::collections::HashSet<String>,
    /// The allow list's plain phrases of several words, lower case, one space apart: scales
    /// and tests named after a place or a person ("montreal cognitive assessment"), which no
    /// span of their first words names.
    allowed_phrases: Vec<String>,
    /// The allow list's `verb:` words, lower case ("will", "may"): in capitals, last in a name
    /// span, the verb after the name ("SON GARETH WILL BRING").
    verbs: std::collections::HashSet<String>,
    /// Words of care that name lists hold too (`care_words.txt`, lower case: "echo", "swan",
    /// "walker"): one of them alone, with no title before it, is the word.
    care_words: std::collections::HashSet<String>,
}

impl SpanFilters {
    /// The built-in lists cannot fail to load; a build that lost one stops here.
    fn new(lang: crate::lang::Lang) -> Self {
        let gate = caseless::CaselessGate::new(lang)
            .unwrap_or_else(|e| panic!("the case gate's lists: {e:#}"));
        let drugs = drug_names::DrugNames::new(lang)
            .unwrap_or_else(|e| panic!("the drug-name list: {e:#}"));
        let allow = crate::wordlists::ListSources::default()
            .load(lang, "allow")
            .unwrap_or_else(|e| panic!("the allow list: {e:#}"));
        let eponyms = crate::recognize::lookup::EponymHeads::from_lines(&allow);
        let allowed: std::collections::HashSet<String> = allow
            .iter()
            .filter(|line| crate::recognize::lookup::directive(line).is_none())
            .map(|w| w.to_lowercase())
            .collect();
        let allowed_phrases = allowed
            .iter()
            .filter(|w| w.contains(char::is_whitespace))
            .map(|w| w.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let verbs = allow
            .iter()
            .filter_map(|line| match crate::recognize::lookup::directive(line) {
                Some(("verb", w)) => Some(w.to_lowercase()),
                _ => None,
            })
            .collect();
        let care_words = crate::wordlists::ListSources::default()
            .load_optional(lang, "care_words")
            .unwrap_or_else(|e| panic!("the care-word list: {e:#}"))
            .iter()
            .map(|w| w.to_lowercase())
            .collect();
        SpanFilters {
            gate,
            drugs,
            eponyms,
            allowed,
            allowed_phrases,
            verbs,
            care_words,
        }
    }

    /// Where a NAME span `text[start..end]` of several words ends once a last word that
    /// `allow_listed_term` holds is left out ("Nakamura Apgars": the term after the name), or
    /// a last verb in capitals ("GARETH WILL").
    fn before_allowed_last_word(&self, text: &str, start: usize, end: usize) -> usize {
        let span = &text[start..end];
        let caps_verb =
            |w: &str| !w.contains(char::is_lowercase) && self.verbs.contains(&w.to_lowercase());
        match span.rfind(char::is_whitespace) {
            Some(i) if self.allow_listed_term(&span[i + 1..]) || caps_verb(&span[i + 1..]) => {
                start + span[..i].trim_end().len()
            }
            _ => end,
        }
    }

    /// Whether `surface` is one allow-listed word that no place list holds, read as a place
    /// ("Oral chemo", "Echo today"): a first name among the lists is no place.
    fn allow_listed_place_term(&self, surface: &str) -> bool {
        !surface.contains(char::is_whitespace)
            && self.allowed.contains(&surface.to_lowercase())
            && !self.gate.is_listed_place(surface)
    }

    /// Whether `surface` is two or three words that each [`Self::allow_listed_term`] holds
    /// ("Haitian Creole", "Brazilian Portuguese"): terms side by side make no name.
    fn allow_listed_words(&self, surface: &str) -> bool {
        let words: Vec<&str> = surface.split_whitespace().collect();
        (2..=3).contains(&words.len()) && words.iter().all(|w| self.allow_listed_term(w))
    }

    /// Whether `surface` is one allow-listed word that no first-name or place list holds, or
    /// its possessive ("Alzheimer's", "Crohn's"), with any numbers after it ("Mallampati 3").
    fn allow_listed_term(&self, surface: &str) -> bool {
        let surface = surface
            .trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace())
            .trim_end();
        let word = ["'s", "\u{2019}s", "'", "\u{2019}"]
            .iter()
            .find_map(|p| surface.strip_suffix(p))
            .unwrap_or(surface);
        let lower = word.to_lowercase();
        !word.contains(char::is_whitespace)
            && self.allowed.contains(&lower)
            && !self.gate.is_first_name(&lower)
            && !self.gate.is_listed_place(word)
    }
}

impl NerRecognizer {
    /// The tagger for documents in `lang`, with the all-caps gate when `gated` (fails closed if
    /// the title list cannot load; the gate's lists are built in).
    pub fn new(tagger: Arc<dyn Tagger>, lang: crate::lang::Lang, gated: bool) -> Result<Self> {
        let lists = crate::wordlists::ListSources::default();
        let titles_written: std::collections::HashSet<String> = lists
            .load(lang, "titles")
            .stage_context("the title list")?
            .iter()
            .filter_map(|line| line.split('\t').next())
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.trim_end_matches('.').is_empty())
            .collect();
        let titles = titles_written
            .iter()
            .map(|t| t.trim_end_matches('.').to_string())
            .collect();
        let triggers = lists
            .load(lang, "name_triggers")
            .stage_context("the name trigger list")?;
        let (mut roles, mut role_phrases) = (std::collections::HashSet::new(), Vec::new());
        for line in triggers.iter() {
            let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
            let role = matches!(cols.get(1), Some(&("PATIENT" | "DOCTOR" | "RELATIVE")));
            if !role || cols.len() != 2 {
                continue;
            }
            let words: Vec<String> = cols[0].split_whitespace().map(str::to_lowercase).collect();
            if words.len() == 1 {
                roles.extend(words);
            } else {
                role_phrases.push(words.join(" "));
            }
        }
        Ok(NerRecognizer {
            tagger,
            titles,
            titles_written,
            roles,
            role_phrases,
            span_filters: gated.then(|| (lang, std::sync::OnceLock::new())),
        })
    }

    /// Where a span of `category` starts: a NAME span leaves its titles and role words out.
    fn name_start(&self, category: Category, text: &str, start: usize, end: usize) -> usize {
        if category == Category::Name {
            self.after_titles(text, start, end)
        } else {
            start
        }
    }

    /// The pieces of a NAME span (numbered from 0) once it is cut at the role words and
    /// titles inside it (not a last one) and at words with a slash ("wexler d/w granddaughter
    /// chloe": two names); such words belong to no piece. Other spans are one piece.
    fn name_pieces(
        &self,
        category: Category,
        text: &str,
        start: usize,
        end: usize,
        gate: &caseless::CaselessGate,
    ) -> Vec<(usize, (usize, usize))> {
        if category != Category::Name {
            return vec![(0, (start, end))];
        }
        let capitals = text[start..end].chars().any(char::is_uppercase);
        let mut pieces = Vec::new();
        let mut open: Option<(usize, usize)> = None;
        let mut any_cut = false;
        let mut words = text[start..end].split_whitespace().peekable();
        let mut prev_end = None;
        while let Some(word) = words.next() {
            // A word of `split_whitespace` lies inside `text`: its offset is the pointers' gap.
            let at = word.as_ptr() as usize - text.as_ptr() as usize;
            // "ID: NGUYEN, MINH   MRN 5580": a tab or a run of spaces parts the columns of a
            // header, and a name ends where its column does.
            let column = prev_end.is_some_and(|p: usize| {
                let gap = &text[p..at];
                gap.contains('\t') || gap.len() > 2
            });
            if column {
                any_cut = true;
                break;
            }
            prev_end = Some(at + word.len());
            let written = word.trim_end_matches(',').to_lowercase();
            let bare = written.trim_end_matches('.');
            // A role word last in the span may be a surname ("Paul Nurse"), not an
            // abbreviation ("MARTA RN").
            let role = (words.peek().is_some() || bare.chars().count() <= 3)
                && (self.roles.contains(bare)
                    || bare.chars().count() >= 2 && self.titles_written.contains(&written));
            // "Kjersti drew PK labs": where capitals mark names, a lower-case word between two
            // words of the span is the sentence's, unless it joins a name ("van", "bin") or
            // opens with an elided particle ("d'Estienne").
            let inner_word = capitals
                && open.is_some()
                && words.peek().is_some()
                && word.starts_with(char::is_lowercase)
                && !word.contains(['\'', '\u{2019}'])
                && !gate.is_particle(bare);
            // "Father Dwyer of St. Brigid's": a person of a place, two spans.
            let cut = word.contains('/') || role || word == "of" || inner_word;
            if cut {
                any_cut = true;
                pieces.extend(open.take());
            } else {
                let kept = word.trim_end_matches(|c: char| !c.is_alphanumeric());
                if !kept.is_empty() {
                    let from = open.map_or(at, |(s, _)| s);
                    open = Some((from, at + kept.len()));
                }
            }
        }
        if !any_cut {
            return vec![(0, (start, end))];
        }
        pieces.extend(open);
        // "Okafor RN aware": a piece in lower case cut from a span with capitals is a word of
        // the sentence around the name.
        if capitals {
            pieces.retain(|&(s, e)| text[s..e].chars().any(char::is_uppercase));
        }
        pieces.into_iter().enumerate().collect()
    }

    /// Whether `surface` is two or more words, each a title or a role word ("Guardian Atty");
    /// one alone may be a name ("Prince").
    fn only_titles_and_roles(&self, surface: &str) -> bool {
        let words: Vec<&str> = surface.split_whitespace().collect();
        words.len() >= 2
            && words.iter().all(|w| {
                let written = w.to_lowercase();
                let bare = written.trim_end_matches(['.', ',']);
                self.titles.contains(bare) || self.roles.contains(bare)
            })
    }

    /// Where a place or institution span starts once a first word that is a role trigger
    /// ("Sponsor", "Coordinator") is left out; `s` when it has none, or nothing after it.
    fn after_leading_role(&self, text: &str, s: usize, e: usize) -> usize {
        let span = &text[s..e];
        let Some(gap) = span.find(char::is_whitespace) else {
            return s;
        };
        let first = span[..gap].to_lowercase();
        let rest = gap + span[gap..].len() - span[gap..].trim_start().len();
        if self.roles.contains(first.trim_end_matches([',', ':'])) && rest < span.len() {
            s + rest
        } else {
            s
        }
    }

    /// Whether `text[s..e]` is a multi-word role trigger or its first words, the rest after
    /// it ("Athletic" of "Athletic trainer Brody Kessler", "Case Manager").
    fn opens_role_phrase(&self, text: &str, s: usize, e: usize) -> bool {
        opens_phrase(&self.role_phrases, text, s, e)
    }

    /// Whether a title stands right before byte `start`, a space between ("DR. O'ROURKE" when
    /// the span leaves the title out).
    fn title_before(&self, text: &str, start: usize) -> bool {
        let Some(head) = text[..start].strip_suffix(' ') else {
            return false;
        };
        let word = head.rsplit(char::is_whitespace).next().unwrap_or("");
        let written = word.to_lowercase();
        written.chars().count() >= 2 && self.titles_written.contains(&written)
    }

    /// Whether `text[start..end]` is an abbreviated title ("Dr.", "MRS") or role word ("CM",
    /// "SW") and one word: a person ("Dr. Whitford", "CM Tricia"), where a longer span may name
    /// a place ("Dr Watson Clinic"; "Consultant Radiologist" is a profession).
    fn opens_with_title(&self, text: &str, start: usize, end: usize) -> bool {
        let words: Vec<&str> = text[start..end].split_whitespace().collect();
        let [title, _] = words[..] else {
            return false;
        };
        let written = title.to_lowercase();
        let abbreviated = written.ends_with('.') || !written.contains(['a', 'e', 'i', 'o', 'u']);
        abbreviated
            && (self.titles_written.contains(&written)
                || self.roles.contains(&written)
                || CAPS_ROLES.contains(&title))
    }

    /// Where a NAME span starts once the titles and role words ("Dr", "Mrs.", "wife",
    /// "attending") at its start are left out, and a title further in with every word before
    /// it ("PCP DR. FITZGERALD" → "FITZGERALD"): the name is what follows the last one that
    /// has a word after it. Further in, only a title of two letters or more written as listed
    /// counts (not an initial "D.", nor the particle "da" for "Da.").
    fn after_titles(&self, text: &str, start: usize, end: usize) -> usize {
        let mut at = start;
        let mut leading = true;
        let mut words = text[start..end]
            .split_whitespace()
            // A word of `split_whitespace` lies inside `text`: its offset is the pointers' gap.
            .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
            .peekable();
        while let Some((_, word)) = words.next() {
            let written = word.to_lowercase();
            let bare = written.trim_end_matches('.');
            // A title of two words ("Baby Girl Ferreira").
            if leading {
                if let Some(&(_, second)) = words.peek() {
                    let pair = format!("{bare} {}", second.to_lowercase().trim_end_matches('.'));
                    if self.titles.contains(&pair) {
                        words.next();
                        if let Some(&(next, _)) = words.peek() {
                            at = next;
                        }
                        continue;
                    }
                }
            }
            let is_title = if leading {
                self.titles.contains(bare)
                    || self.roles.contains(bare)
                    || CAPS_ROLES.contains(&word)
            } else {
                bare.chars().count() >= 2 && self.titles_written.contains(&written)
            };
            leading &= is_title;
            if let (true, Some(&(next, _))) = (is_title, words.peek()) {
                at = next;
            }
        }
        at
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
        for (s, e, l) in spans {
            let name_or_place = matches!(l.category, Category::Name | Category::Location);
            let Some((lang, filters)) = &self.span_filters else {
                let s = self.name_start(l.category, text, s, e);
                out.push(Entity::new(s, e, l, source, MODEL_SPAN_SCORE));
                continue;
            };
            let filters = filters.get_or_init(|| SpanFilters::new(*lang));
            let SpanFilters {
                gate,
                drugs,
                eponyms,
                ..
            } = filters;
            // "Dr. Whitford" is a person whatever label the tagger gave it.
            let l = if l.category == Category::Location && self.opens_with_title(text, s, e) {
                Label::category_only(Category::Name)
            } else {
                l
            };
            // "Guardian Atty.", "Nurse Practitioner": titles and role words alone name no one.
            if name_or_place
                && (self.only_titles_and_roles(&text[s..e]) || self.opens_role_phrase(text, s, e))
            {
                continue;
            }
            // "Sponsor Novagen Therapeutics": a role word written out before a place or an
            // institution is the sentence's.
            let s = if l.category == Category::Location {
                self.after_leading_role(text, s, e)
            } else {
                s
            };
            // A name has no digits: "40meq kcl" is a dose.
            if l.category == Category::Name && text[s..e].bytes().any(|b| b.is_ascii_digit()) {
                continue;
            }
            let parts = if name_or_place {
                sentence_cut::sentence_parts(text, s, e, &self.titles)
            } else {
                vec![(s, e)]
            };
            for (part_start, e) in parts {
                let part_start = after_verb_before_org(text, part_start, e);
                let after_title = self.name_start(l.category, text, part_start, e);
                // "for LC callback": what a role word leaves in lower case is the sentence's.
                let capitals = |a: usize| text[a..e].chars().any(char::is_uppercase);
                if after_title > part_start && capitals(part_start) && !capitals(after_title) {
                    continue;
                }
                for (piece, (s, e)) in self.name_pieces(l.category, text, after_title, e, gate) {
                    let e = before_short_caps(text, s, before_slash_word(text, s, e));
                    let e = if l.category == Category::Location {
                        before_lower_case_tail(text, s, e)
                    } else {
                        e
                    };
                    let Some((s, e)) = gate.trim_edges(l.category, text, s, e) else {
                        continue;
                    };
                    let e = if l.category == Category::Name {
                        gate.before_verb_tail(text, s, filters.before_allowed_last_word(text, s, e))
                    } else {
                        e
                    };
                    // In capitals the words after a title are the name only as far as the
                    // lists support them, as in the rules ("PCP DR. FITZGERALD NOTIFIED").
                    let titled = after_title > part_start || self.title_before(text, s);
                    let e = if piece == 0 && titled {
                        gate.caps_name_end(text, s, e)
                    } else {
                        e
                    };
                    if name_or_place
                        && (before_dose(text, e)
                            || !titled
                                && ((eponyms.tail_after(text, e)
                                    || eponyms.before_byte(text, s)
                                    || eponyms.ends_with_tail(&text[s..e]))
                                    && !gate.is_listed_place(&text[s..e])
                                    || filters.allow_listed_term(&text[s..e])
                                    || filters.allow_listed_words(&text[s..e])
                                    || filters.care_words.contains(&text[s..e].to_lowercase())
                                    || opens_phrase(&filters.allowed_phrases, text, s, e)
                                    || l.category == Category::Location
                                        && filters.allow_listed_place_term(&text[s..e]))
                            || drugs.all_drugs(&text[s..e])
                            || clinical_terms::all_clinical_terms(&text[s..e], |w| {
                                gate.is_listed(w)
                            }))
                    {
                        continue;
                    }
                    // A place in lower case needs a listed word; so does an organization of
                    // one word ("for source verification"): "sacred heart manor" has more.
                    let place = l.category == Category::Location
                        && (l.subtype != Some(crate::labels::Subtype::Organization)
                            || !text[s..e].contains(char::is_whitespace));
                    if place && gate.unlisted_lower_case(&text[s..e]) {
                        continue;
                    }
                    if l.category == Category::Location && reading_after_lower_case_word(text, s, e)
                    {
                        continue;
                    }
                    // A quote the tagger read into a span's edge is the text's ("baby "ivy"
                    // voided" cut after its quote).
                    let (s, e) = without_edge_quotes(text, s, e);
                    // A name, place or institution in lower case that no list holds, in a
                    // line written with capitals, is words ("Specimen rejected: hemolyzed,
                    // mislabeled tube"): such a line capitalizes its names.
                    if name_or_place
                        && gate.unlisted_lower_case(&text[s..e])
                        && caseless::capitalized_line(text, s, e)
                    {
                        continue;
                    }
                    let mixed = || caseless::in_mixed_case_line(text, s, e);
                    if s < e && gate.keeps(l.category, &text[s..e], mixed) {
                        out.push(Entity::new(s, e, l, source, MODEL_SPAN_SCORE));
                    }
                }
            }
        }
    }
}

/// Where a span `text[start..end]` starts once a first word that opens sentences with an
/// institution as its object is left out ("Attends Little Sprouts Daycare"), as the rules
/// read it.
fn after_verb_before_org(text: &str, start: usize, end: usize) -> usize {
    let span = &text[start..end];
    match span.split_once(' ') {
        Some((first, rest))
            if !rest.trim().is_empty()
                && crate::recognize::context::runs::VERBS_BEFORE_ORG
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(first)) =>
        {
            start + first.len() + (rest.len() - rest.trim_start().len()) + 1
        }
        _ => start,
    }
}

/// Whether `text[start..end]` is one word in lower case with a number right after it ("on
/// cpap 8/5", "rsbi 62"): a setting or a score read aloud, which a news tagger may take for an
/// organization; places and institutions are not followed by a reading.
fn reading_after_lower_case_word(text: &str, start: usize, end: usize) -> bool {
    let span = &text[start..end];
    span.chars().all(|c| c.is_lowercase())
        && text[end..]
            .strip_prefix(' ')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Where a span `text[start..end]` ends once a last word that `Token::short_caps_after` reads
/// as a unit after a space is left out ("Newton-Wellesley ED"), as the rules read it (a state
/// code after a town is the rules' own span: "Nashua NH"); a regnal number stays ("Benedetto
/// XVI").
fn before_short_caps(text: &str, start: usize, end: usize) -> usize {
    use crate::recognize::lookup::tokens::{tokenize, Token};
    let mut toks: Vec<Token> = Vec::new();
    tokenize(&text[start..end], &mut toks);
    match toks[..] {
        [.., before, last]
            if last.end == end - start
                && before.end < last.start
                && text[start + before.end..start + last.start]
                    .chars()
                    .all(char::is_whitespace)
                && last.short_caps_after(before, &text[start..end]) =>
        {
            start + before.end
        }
        _ => end,
    }
}

/// Where a place's span `text[start..end]` with capitals ends once the words in lower case
/// after its last capitalized word are left out ("St. Brendan's church hall"): the sentence's
/// nouns after the name, as the rules read it. A span all in lower case is left whole.
fn before_lower_case_tail(text: &str, start: usize, end: usize) -> usize {
    let span = &text[start..end];
    if !span.chars().any(char::is_uppercase) {
        return end;
    }
    let mut kept = span;
    while let Some((head, last)) = kept.rsplit_once(char::is_whitespace) {
        if last.is_empty() || !last.chars().all(char::is_lowercase) {
            break;
        }
        kept = head.trim_end();
    }
    start + kept.len()
}

/// Where a span `text[start..end]` ends once a last word of one or two characters that goes on
/// after a slash is left out ("NORWOOD S" of "NORWOOD S/P FALL").
fn before_slash_word(text: &str, start: usize, end: usize) -> usize {
    if !text[end..].starts_with('/') {
        return end;
    }
    let span = &text[start..end];
    match span.rfind(char::is_whitespace) {
        Some(i) if span[i..].trim().chars().count() <= 2 => start + span[..i].trim_end().len(),
        _ => end,
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
    let mut failed = None;
    pipeline.for_each_lang(|lp| {
        if let Err(e) = join(lp, tagger.clone(), replace_rules, false) {
            failed = Some(e);
        }
    });
    failed.map_or(Ok(()), Err)
}

/// Adds `tagger` to one language's recognizers; with `replace_rules`, it is the only one left;
/// `gated` for the per-language news taggers (see [`caseless`]).
fn join(
    lp: &mut crate::recognize::LangPipeline,
    tagger: Arc<dyn Tagger>,
    replace_rules: bool,
    gated: bool,
) -> Result<()> {
    if replace_rules {
        // The model alone: document-level propagation is a rule too.
        lp.recognizers.clear();
        lp.propagate = None;
    }
    lp.recognizers
        .push(Box::new(NerRecognizer::new(tagger, lp.lang, gated)?));
    Ok(())
}

/// `start..end` of `text` without the quotation marks at its edges.
fn without_edge_quotes(text: &str, start: usize, end: usize) -> (usize, usize) {
    const QUOTES: &[char] = &['"', '\u{201C}', '\u{201D}', '\u{201E}', '\u{AB}', '\u{BB}'];
    let span = &text[start..end];
    let inner = span.trim_start_matches(QUOTES);
    let start = start + span.len() - inner.len();
    (start, start + inner.trim_end_matches(QUOTES).len())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<(usize, usize, Label)>);
    impl Tagger for Fixed {
        fn tag(&self, _: &str) -> Result<Vec<(usize, usize, Label)>> {
            Ok(self.0.clone())
        }
        fn source(&self) -> &str {
            "ner:fixed"
        }
    }

    #[test]
    fn leading_titles_leave_a_taggers_name_spans() {
        use crate::labels::Category;
        let text = "Seen by Dr. Mrs Anna Smith and Dr at the Dr Watson Clinic.";
        let name = Label::category_only(Category::Name);
        let place = Label::category_only(Category::Location);
        let spans = vec![(8, 26, name), (31, 33, name), (41, 57, place)];
        let r = NerRecognizer::new(Arc::new(Fixed(spans)), crate::lang::Lang::En, true).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        let got: Vec<&str> = out.iter().map(|e| &text[e.start..e.end]).collect();
        // A lone title is not trimmed away (nothing follows it inside the span) but, a lone
        // word of two letters, not kept either; places are not trimmed.
        assert_eq!(got, ["Anna Smith", "Dr Watson Clinic"]);
    }

    /// What a gated tagger of `lang` that found the NAME spans `names` in `text` reports.
    fn gated_names(lang: crate::lang::Lang, text: &str, names: &[&str]) -> Vec<String> {
        let spans = names
            .iter()
            .map(|w| {
                let s = text.find(w).unwrap();
                (s, s + w.len(), Label::category_only(Category::Name))
            })
            .collect();
        let r = NerRecognizer::new(Arc::new(Fixed(spans)), lang, true).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        out.iter()
            .map(|e| text[e.start..e.end].to_string())
            .collect()
    }

    #[test]
    fn role_words_leave_a_taggers_name_spans_and_capitals_keep_the_listed_words() {
        use crate::lang::Lang;
        let found = |text: &str, names: &[&str]| gated_names(Lang::En, text, names);
        // A word before the title goes with it, and in capitals so does the verb after the
        // name; listed names, particles and joined words stay.
        let caps = "PT FELL. PCP DR. FITZGERALD NOTIFIED. DR. JOHN HENDERSON AND DR. VAN DER \
                    BERG AWARE. DR. OKAFOR-BELL IN.";
        assert_eq!(
            found(
                caps,
                &[
                    "PCP DR. FITZGERALD NOTIFIED",
                    "DR. JOHN HENDERSON",
                    "DR. VAN DER BERG AWARE",
                    "DR. OKAFOR-BELL IN",
                ]
            ),
            [
                "FITZGERALD",
                "JOHN HENDERSON",
                "VAN DER BERG",
                "OKAFOR-BELL"
            ]
        );
        // Relative words leave the name too, in any case; mixed case keeps what follows.
        let text = "brother fergus called. Attending Dr. Pemberton Okafor aware.";
        assert_eq!(
            found(text, &["brother fergus", "Attending Dr. Pemberton Okafor"]),
            ["fergus", "Pemberton Okafor"]
        );
        // Further in, only a title written as listed: an initial or a particle is none.
        let text = "Thomas D. Greenfield met Joao Pimienta da Veiga.";
        let es = |text: &str, span: &str| gated_names(Lang::Es, text, &[span]);
        assert_eq!(es(text, "Thomas D. Greenfield"), ["Thomas D. Greenfield"]);
        assert_eq!(
            es(text, "Joao Pimienta da Veiga"),
            ["Joao Pimienta da Veiga"]
        );
        // A span that leaves out the title before it is read as one after a title.
        let caps = "CHEST TUBE PLACED. DR. HENDERSON AWARE OF K 5.8.";
        assert_eq!(found(caps, &["HENDERSON AWARE OF"]), ["HENDERSON"]);
        // A role word alone, or last, is no title of anything.
        assert_eq!(
            found("Prince performed; Anna Wife", &["Prince", "Anna Wife"]),
            ["Prince", "Anna Wife"]
        );
        // Inside a span, a role word or a word with a slash parts two names; a span with a
        // digit is a dose, not a name.
        let text = "dr wexler d/w granddaughter chloe, plan set. kcl 40meq kcl given.";
        assert_eq!(
            found(text, &["wexler d/w granddaughter chloe", "40meq kcl"]),
            ["wexler", "chloe"]
        );
        assert_eq!(found("NGT PLACED BY MARTA RN.", &["MARTA RN"]), ["MARTA"]);
    }

    #[test]
    fn a_titled_place_is_a_person_and_a_slash_word_ends_no_span() {
        let text = "REFERRED TO DR. HENDERSON. PT FROM NORWOOD S/P FALL.";
        let place = Label::category_only(Category::Location);
        let at = |w: &str| text.find(w).unwrap();
        let spans = vec![
            (at("DR. HENDERSON"), at("DR. HENDERSON") + 13, place),
            (at("NORWOOD S"), at("NORWOOD S") + 9, place),
        ];
        let r = NerRecognizer::new(Arc::new(Fixed(spans)), crate::lang::Lang::En, true).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        let got: Vec<(&str, Category)> = out
            .iter()
            .map(|e| (&text[e.start..e.end], e.label.category))
            .collect();
        assert_eq!(
            got,
            [
                ("HENDERSON", Category::Name),
                ("NORWOOD", Category::Location)
            ]
        );
    }

    #[test]
    fn only_the_per_language_taggers_are_gated() {
        let text = "RESP: CLEAR. NHS 943 476 5919";
        let name = Label::category_only(crate::labels::Category::Name);
        let id = Label::category_only(crate::labels::Category::Id);
        let spans = vec![(0, 4, name), (13, 29, id)];
        let found = |gated: bool| {
            let tagger = Arc::new(Fixed(spans.clone()));
            let r = NerRecognizer::new(tagger, crate::lang::Lang::En, gated).unwrap();
            let mut out = Vec::new();
            r.find(text, &mut out);
            out.iter()
                .map(|e| &text[e.start..e.end])
                .collect::<Vec<_>>()
        };
        // A news tagger's all-caps "name" without a listed word goes; an id stays.
        assert_eq!(found(true), ["NHS 943 476 5919"]);
        // A `--model` of the user's own keeps what its training measured.
        assert_eq!(found(false), ["RESP", "NHS 943 476 5919"]);
    }

    /// What a gated English tagger that found `spans` (surface, category) in `text` reports,
    /// as (surface, category).
    fn gated_spans(text: &str, spans: &[(&str, Category)]) -> Vec<(String, Category)> {
        let spans = spans
            .iter()
            .map(|(w, c)| {
                let s = text.find(w).unwrap();
                (s, s + w.len(), Label::category_only(*c))
            })
            .collect();
        let r = NerRecognizer::new(Arc::new(Fixed(spans)), crate::lang::Lang::En, true).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        out.iter()
            .map(|e| (text[e.start..e.end].to_string(), e.label.category))
            .collect()
    }

    #[test]
    fn lower_case_organizations_scales_and_role_words_before_an_institution() {
        let org = Label::new(Category::Location, crate::labels::Subtype::Organization);
        // Two lines: a lower-case institution in a line with capitalized words is words.
        let text = "sponsor novagen therapeutics on site for source verification. mRS: modified \
                    Rankin 1.\nSponsor Halvard Biosciences called.";
        let spans = [
            "novagen therapeutics",
            "verification",
            "Rankin 1",
            "Sponsor Halvard Biosciences",
        ]
        .iter()
        .map(|w| {
            let s = text.find(w).unwrap();
            (s, s + w.len(), org)
        })
        .collect();
        let r = NerRecognizer::new(Arc::new(Fixed(spans)), crate::lang::Lang::En, true).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        let found: Vec<&str> = out.iter().map(|e| &text[e.start..e.end]).collect();
        // A role word before an institution is left out of it.
        assert_eq!(found, ["novagen therapeutics", "Halvard Biosciences"]);
    }

    #[test]
    fn unlisted_lower_case_names_and_places_in_a_capitalized_line_are_words() {
        let text = "Specimen rejected: hemolyzed, mislabeled tube, label read Vondracek. \
                    Redrawn at 0815.\nquantiferon sent to arup.";
        let name = Label::new(Category::Name, crate::labels::Subtype::Patient);
        let org = Label::new(Category::Location, crate::labels::Subtype::Organization);
        let spans = [
            ("hemolyzed", name),
            ("mislabeled tube", org),
            ("Vondracek", name),
            ("quantiferon", name),
        ]
        .iter()
        .map(|(w, l)| {
            let s = text.find(w).unwrap();
            (s, s + w.len(), *l)
        })
        .collect();
        let r = NerRecognizer::new(Arc::new(Fixed(spans)), crate::lang::Lang::En, true).unwrap();
        let mut out = Vec::new();
        r.find(text, &mut out);
        let found: Vec<&str> = out.iter().map(|e| &text[e.start..e.end]).collect();
        // A line without capitalized words keeps the tagger's word.
        assert_eq!(found, ["Vondracek", "quantiferon"]);
    }

    #[test]
    fn lower_case_words_after_a_place_with_capitals_are_the_sentences() {
        use Category::Location;
        let text = "Pt attends meetings at St. Brendan's church hall in Braintree. Lives in \
                    sunrise of arlington assisted living.";
        assert_eq!(
            gated_spans(
                text,
                &[
                    ("St. Brendan's church hall", Location),
                    ("sunrise of arlington", Location)
                ]
            ),
            // (The possessive goes as from any span of the tagger.)
            [
                ("St. Brendan".to_string(), Location),
                ("sunrise of arlington".to_string(), Location)
            ]
        );
    }

    #[test]
    fn allow_listed_words_units_and_role_words_leave_a_taggers_spans() {
        use Category::{Location, Name};
        // An allow-listed word alone (an eponym, or a name only after a trigger) is left to
        // the rules, with its possessive or a score after it; after a title it is a name, and
        // a listed first name stays the tagger's.
        // So are allow-listed words side by side ("Haitian Creole").
        let text = "Hx of Alzheimer's, Crohn's. Babinski upgoing, Mallampati 3. Dr. Murphy and \
                    Pat in. Haitian Creole interpreter. Aldrete 9.";
        let spans = [
            ("Alzheimer's", Location),
            ("Crohn's", Name),
            ("Babinski", Name),
            ("Mallampati 3", Location),
            ("Murphy", Name),
            ("Pat", Name),
            ("Haitian Creole", Location),
            ("Aldrete", Name),
        ];
        assert_eq!(
            gated_spans(text, &spans),
            [("Murphy".to_string(), Name), ("Pat".to_string(), Name)]
        );
        // Read as a place an allow-listed word is none even where a first-name list holds it
        // ("Oral chemo"), and a lab abbreviated without a vowel is no place either; in lower
        // case a first name stays the tagger's (chat writes names so: "hey tanner").
        let text = "Zofran given, tanner aware. Oral chemo held for Hgb 6.8 per Pat.";
        let spans = [
            ("tanner", Name),
            ("Oral", Location),
            ("Hgb", Location),
            ("Pat", Name),
        ];
        assert_eq!(
            gated_spans(text, &spans),
            [("tanner".to_string(), Name), ("Pat".to_string(), Name)]
        );
        // A word of care that name lists hold too is the word alone, in any case, but not
        // after a title; a quote at a span's edge is the text's.
        let text = "Echo: EF 35%. Neo off, up with walker, MAE X4, dex given. Dr. Walker aware. \
                    Baby \"ivy\" fed.";
        let spans = [
            ("Echo", Name),
            ("Neo", Name),
            ("walker", Location),
            ("MAE", Name),
            ("dex", Name),
            ("Walker", Name),
            ("ivy\"", Name),
        ];
        assert_eq!(
            gated_spans(text, &spans),
            [("Walker".to_string(), Name), ("ivy".to_string(), Name)]
        );
        // A unit in capitals after a hospital leaves it; a role word before a "place" makes it
        // a person's name, without the role.
        // Titles and role words alone are no span.
        let text = "Guardian Atty. Keel consents.";
        assert_eq!(
            gated_spans(text, &[("Guardian Atty", Location), ("Keel", Name)]),
            [("Keel".to_string(), Name)]
        );
        // Nor are the first words of a role phrase ("athletic trainer"), or all of it.
        let text = "Athletic trainer Brody Kessler called. Case Manager aware.";
        let spans = [
            ("Athletic", Location),
            ("Brody Kessler", Name),
            ("Case Manager", Location),
        ];
        assert_eq!(
            gated_spans(text, &spans),
            [("Brody Kessler".to_string(), Name)]
        );
        let text = "Seen at Newton-Wellesley ED. CM Tricia to follow.";
        let spans = [("Newton-Wellesley ED", Location), ("CM Tricia", Location)];
        assert_eq!(
            gated_spans(text, &spans),
            [
                ("Newton-Wellesley".to_string(), Location),
                ("Tricia".to_string(), Name)
            ]
        );
    }

    #[test]
    fn a_reading_after_a_lower_case_word_and_of_between_two_names_leave_a_taggers_spans() {
        use Category::{Location, Name};
        let text =
            "on cpap 8/5 40%, rsbi 62 this am. Father Dwyer of St. Brigid's came; home in quincy";
        let spans = [
            ("cpap", Location),
            ("rsbi", Location),
            ("Dwyer of St. Brigid's", Name),
            ("quincy", Location),
        ];
        assert_eq!(
            gated_spans(text, &spans),
            [
                ("Dwyer".to_string(), Name),
                ("St. Brigid".to_string(), Name),
                ("quincy".to_string(), Location)
            ]
        );
    }

    #[test]
    fn a_verb_that_opens_the_sentence_leaves_an_institutions_span() {
        use Category::Location;
        let text = "Attends Little Sprouts Daycare in Holyoke.";
        assert_eq!(
            gated_spans(text, &[("Attends Little Sprouts Daycare", Location)]),
            [("Little Sprouts Daycare".to_string(), Location)]
        );
    }

    #[test]
    fn a_name_ends_at_its_columns_gap() {
        use crate::lang::Lang;
        let text = "ID: NGUYEN, MINH   MRN 5580-2231";
        assert_eq!(
            gated_names(Lang::En, text, &["NGUYEN", "MINH   MRN"]),
            ["NGUYEN", "MINH"]
        );
        // In capitals a last verb goes.
        let text = "SON GARETH WILL BRING HER.";
        assert_eq!(gated_names(Lang::En, text, &["GARETH WILL"]), ["GARETH"]);
        // A role abbreviated in capitals opens no name, and before one word makes a "place" a
        // person.
        let text = "RD Seraphina recommends shakes.";
        assert_eq!(
            gated_names(Lang::En, text, &["RD Seraphina"]),
            ["Seraphina"]
        );
        // A title of two words goes, and a last allow-listed term.
        let text = "Baby Boy Nakamura Apgars 7/9.";
        assert_eq!(
            gated_names(Lang::En, text, &["Baby Boy Nakamura Apgars"]),
            ["Nakamura"]
        );
        // A lower-case word cut from a span with capitals is the sentence's.
        let text = "Mom's cell for LC callback.";
        assert!(gated_names(Lang::En, text, &["LC callback"]).is_empty());
        let text = "Okafor RN aware of plan.";
        assert_eq!(
            gated_names(Lang::En, text, &["Okafor RN aware"]),
            ["Okafor"]
        );
        // Between two words of a span with capitals a lower-case word is the sentence's, but
        // a particle is the name's.
        let text = "Research RN Kjersti drew PK labs. Anton van Dijk met Henri d'Estienne d'Orves.";
        assert_eq!(
            gated_names(
                Lang::En,
                text,
                &[
                    "Kjersti drew PK",
                    "Anton van Dijk",
                    "Henri d'Estienne d'Orves"
                ]
            ),
            ["Kjersti", "Anton van Dijk", "Henri d'Estienne d'Orves"]
        );
        // One or two spaces inside a name are the name's.
        let text = "Met with Ana  Lucia today.";
        assert_eq!(gated_names(Lang::En, text, &["Ana  Lucia"]), ["Ana  Lucia"]);
    }
}
