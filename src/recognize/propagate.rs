//! Document-level propagation: a name found with good evidence (a full name, or a name after a
//! title, trigger or field label) marks its other capitalized mentions in the same document,
//! alone or, in Hungarian, with a case ending ("Kovácsnak", "Annát", "Péterrel"). A seed word
//! the document also writes in lower case marks only its capitalized mentions inside a
//! sentence, not those opening one or in capitals ("Doctor Who" does not make "Who else?" a
//! name). So does an English seed the allow list holds as a term ("daughter Hope", "son Bill"): inside a
//! sentence ("spoke with Hope again"), and opening one only before a verb whose subject is a
//! person ("Bill called back"; not "Hope to extubate", "Will need labs").
//!
//! Where the language has a list of ordinary words (English), a seed that is none of them
//! marks its mentions in every case: a name a trigger found in a note written in one case
//! ("WIFE JOAN CALLED. JOAN AWARE", "son tobias here. tobias updated"), and the lower-case
//! mentions of a capitalized seed of four letters or more ("Wife Joan called ... updated
//! joan").

use super::lookup::lexicon::HU_SUFFIXES;
use super::lookup::tokens::{fold_into, fold_phrase, tokenize, FxMap, Shape, Token, Words};
use super::lookup::{plain_entries, sentence_start};
use crate::labels::{Category, Label};
use crate::lang::Lang;
use crate::span::Entity;
use crate::wordlists::{ListSources, VocabError};
use std::sync::Arc;

const SCORE: f32 = 0.4;

/// Sources whose names are evidence on their own, even as one word.
const SEED_SOURCES: &[&str] = &[
    "context:title",
    "context:trigger",
    "context:field_label",
    "context:first_name_run",
    "context:initials",
    // A capitalized word inside a Hungarian sentence: the same word opening a sentence is a
    // name too.
    "context:proper",
];

pub struct Propagator {
    hungarian: bool,
    /// Folded words never propagated: titles, triggers, particles, stop words, and the allow
    /// list's terms but English one-word ones.
    skip: FxMap<String, ()>,
    /// Folded one-word terms of the allow list ("hope", "bill", "mark"): propagated as words
    /// of the language are (see the module's line).
    terms: FxMap<String, ()>,
    /// The language's ordinary words and drugs, folded; `None` where it has no such list.
    ordinary: Option<Arc<FxMap<String, ()>>>,
}

/// Words after which a sentence's first word is a person, its subject: verbs of report, of
/// visits and calls, the words of presence, and a modal of what the person will do ("Bill
/// called back", "Hope aware of plan", "Grace will visit"; a term that is itself a modal, "Will
/// will", reads as a name only then).
const PERSON_VERBS: &[&str] = &[
    "aware",
    "will",
    "would",
    "here",
    "present",
    "called",
    "calls",
    "phoned",
    "states",
    "stated",
    "says",
    "said",
    "reports",
    "reported",
    "agrees",
    "agreed",
    "asked",
    "asks",
    "requests",
    "requested",
    "wants",
    "wanted",
    "updated",
    "visited",
    "arrived",
    "came",
    "left",
    "spoke",
    "brought",
    "verbalized",
    "verbalizes",
    "expressed",
    "understands",
    "declined",
    "consented",
    "signed",
];

impl Propagator {
    pub fn new(
        lang: Lang,
        lists: &ListSources,
        ordinary: Option<Arc<FxMap<String, ()>>>,
    ) -> Result<Self, VocabError> {
        let mut skip = FxMap::default();
        for file in ["titles", "name_triggers"] {
            for line in lists.load(lang, file)? {
                let phrase = line.split('\t').next().unwrap_or("");
                for w in fold_phrase(phrase).split(' ').filter(|w| !w.is_empty()) {
                    skip.insert(w.to_string(), ());
                }
            }
        }
        // English only: in the Spanish and Italian dev splits the terms that propagated were
        // words of institutions and places ("Ministerio de Salud", "Asia Central", "Secondo").
        let mut terms = FxMap::default();
        for line in plain_entries(lists, lang, "allow")? {
            let folded = fold_phrase(&line);
            if lang != Lang::En || folded.contains(' ') {
                skip.insert(folded, ());
            } else if !skip.contains_key(&folded) {
                terms.insert(folded, ());
            }
        }
        Ok(Propagator {
            hungarian: lang == Lang::Hu,
            skip,
            terms,
            ordinary,
        })
    }

    /// Whether a seed word (folded) is no ordinary word nor term, so that its mentions in any
    /// case are the name; never where the language has no list of ordinary words.
    fn no_word(&self, folded: &str) -> bool {
        self.ordinary
            .as_ref()
            .is_some_and(|o| !o.contains_key(folded) && !self.terms.contains_key(folded))
            && !self.skip.contains_key(folded)
            && folded.chars().all(char::is_alphabetic)
    }

    /// Whether a name entity (with its tokens `toks`) is evidence enough to mark the other
    /// mentions of its words.
    fn is_seed(e: &Entity, toks: &[Token]) -> bool {
        // Signatures and kinship words are weaker evidence than a title, trigger or label.
        if SEED_SOURCES.contains(&e.source.as_str()) {
            return true;
        }
        toks.iter().filter(|t| t.shape == Shape::Cap).count() >= 2
    }

    /// New entities for the unmarked mentions of seed names; `ents` are the resolved spans and
    /// `words` the words of `text`.
    pub fn find(&self, text: &str, words: &Words, ents: &[Entity]) -> Vec<Entity> {
        let mut seeds: FxMap<String, Label> = FxMap::default();
        // Per seed word: its uses in lower case, and as a name (in a seed, or capitalized
        // inside a sentence elsewhere).
        let mut uses: FxMap<String, (usize, usize)> = FxMap::default();
        // Seed words whose lower-case mentions are the name too.
        let mut any_case: FxMap<String, ()> = FxMap::default();
        let mut shape = SeedShape::default();
        let mut toks = Vec::new();
        let mut buf = String::new();
        for e in ents.iter().filter(|e| e.label.category == Category::Name) {
            tokenize(&text[e.start..e.end], &mut toks);
            if !Self::is_seed(e, &toks) {
                continue;
            }
            // A term is a name only on a title's, trigger's or label's word ("Dr. Faith
            // Oyelaran"), not as one of two capitalized words ("Ziehl-Nielsen").
            let strong = SEED_SOURCES.contains(&e.source.as_str());
            for t in &toks {
                let w = &text[e.start + t.start..e.start + t.end];
                let letters = w.chars().count();
                if letters < 3 {
                    continue;
                }
                fold_into(w, &mut buf);
                if t.shape != Shape::Cap {
                    // A name written in one case: only on a title's, trigger's or label's word.
                    if strong
                        && matches!(t.shape, Shape::Upper | Shape::Lower)
                        && self.no_word(&buf)
                    {
                        shape.add(&buf);
                        seeds.entry(buf.clone()).or_insert(e.label);
                        any_case.insert(buf.clone(), ());
                    }
                    continue;
                }
                if !self.skip.contains_key(&buf) && (strong || !self.terms.contains_key(&buf)) {
                    shape.add(&buf);
                    seeds.entry(buf.clone()).or_insert(e.label);
                    uses.entry(buf.clone()).or_default().1 += 1;
                    if letters >= 4 && self.no_word(&buf) {
                        any_case.insert(buf.clone(), ());
                    }
                }
            }
        }
        if seeds.is_empty() {
            return Vec::new();
        }
        let toks = &words.toks;
        let covered = covered_tokens(toks, ents);
        // Seed words the document writes in lower case more often than as names are words of
        // its language ("Doctor Who" and "who", "Comes Back" and "back"): their capital means
        // something only inside a sentence written in mixed case. ("Mayweather" once in a
        // lower-case link is still a name.)
        for (i, t) in toks.iter().enumerate() {
            let lower = t.shape == Shape::Lower;
            if covered[i] || !lower && t.shape != Shape::Cap {
                continue;
            }
            let folded = words.folded(i);
            if !shape.may_be(folded) {
                continue;
            }
            let Some((as_word, as_name)) = uses.get_mut(folded) else {
                continue;
            };
            if any_case.contains_key(folded) {
                continue;
            }
            if lower {
                *as_word += 1;
            } else if !sentence_start(text, toks, i) {
                *as_name += 1;
            }
        }
        let mut out = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            if covered[i] || !(t.shape.is_proper() || t.shape == Shape::Lower) {
                continue;
            }
            let folded = words.folded(i);
            if t.shape == Shape::Lower {
                if shape.may_be(folded) && any_case.contains_key(folded) {
                    if let Some(&label) = seeds.get(folded) {
                        out.push(Entity::new(t.start, t.end, label, "propagate:name", SCORE));
                    }
                }
                continue;
            }
            // Only a Hungarian stem can match a word that is no seed's exact shape.
            if !(shape.may_be(folded) || self.hungarian && shape.opens(folded)) {
                continue;
            }
            let term = self.terms.contains_key(folded);
            let common = term
                || uses
                    .get(folded)
                    .is_some_and(|(as_word, as_name)| as_word > as_name);
            if common
                && (t.shape == Shape::Upper
                    || sentence_start(text, toks, i)
                        && !(term && person_verb_after(words, toks, i)))
            {
                continue;
            }
            let label = seeds.get(folded).or_else(|| {
                self.hungarian
                    .then(|| hu_stem_seed(folded, &seeds))
                    .flatten()
            });
            if let Some(&label) = label {
                out.push(Entity::new(t.start, t.end, label, "propagate:name", SCORE));
            }
        }
        out
    }
}

/// Whether the word after token `i` is a lower-case verb of [`PERSON_VERBS`].
fn person_verb_after(words: &Words, toks: &[Token], i: usize) -> bool {
    toks.get(i + 1)
        .is_some_and(|n| n.shape == Shape::Lower && PERSON_VERBS.contains(&words.folded(i + 1)))
}

/// The first bytes and lengths of a document's seed words, so that the words of the document
/// that can be no seed (nearly all of them) are passed over without hashing.
#[derive(Default)]
struct SeedShape {
    first: [u64; 4],
    lens: u64,
}

impl SeedShape {
    fn add(&mut self, w: &str) {
        if let Some(&b) = w.as_bytes().first() {
            self.first[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        self.lens |= 1 << w.len().min(63);
    }

    /// Whether `w` opens with a seed's first byte (a Hungarian stem keeps it).
    fn opens(&self, w: &str) -> bool {
        w.as_bytes()
            .first()
            .is_some_and(|&b| self.first[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
    }

    /// Whether `w` may equal a seed: its first byte and its length are a seed's.
    fn may_be(&self, w: &str) -> bool {
        self.opens(w) && self.lens & (1 << w.len().min(63)) != 0
    }
}

/// Per token, whether one of `ents` (sorted, resolved spans) overlaps it.
fn covered_tokens(toks: &[Token], ents: &[Entity]) -> Vec<bool> {
    let mut k = 0; // next entity that may cover a token
    toks.iter()
        .map(|t| {
            while k < ents.len() && ents[k].end <= t.start {
                k += 1;
            }
            k < ents.len() && ents[k].start < t.end
        })
        .collect()
}

/// The seed a Hungarian inflected word comes from: a case ending stripped, then an assimilated
/// consonant ("Péterrel" → "péterr" → "péter") or a lengthened final vowel ("Annát" → "anná"
/// → "anna"; folding already merged á and a).
fn hu_stem_seed<'a>(word: &str, seeds: &'a FxMap<String, Label>) -> Option<&'a Label> {
    for suf in HU_SUFFIXES {
        let Some(stem) = word.strip_suffix(suf) else {
            continue;
        };
        if stem.chars().count() < 3 {
            continue;
        }
        if let Some(l) = seeds.get(stem) {
            return Some(l);
        }
        let b = stem.as_bytes();
        let n = b.len();
        if matches!(*suf, "al" | "el") && n >= 4 && b[n - 1] == b[n - 2] {
            if let Some(l) = seeds.get(&stem[..n - 1]) {
                return Some(l);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Subtype;

    fn ent(text: &str, s: &str, source: &str) -> Entity {
        let start = text.find(s).unwrap();
        Entity::new(
            start,
            start + s.len(),
            Label::new(Category::Name, Subtype::Patient),
            source,
            0.5,
        )
    }

    fn ordinary(lang: Lang) -> Option<Arc<FxMap<String, ()>>> {
        crate::recognize::context::ContextRecognizer::new(lang, &ListSources::default())
            .unwrap()
            .ordinary_words()
    }

    fn found(lang: Lang, text: &str, seeds: &[(&str, &str)]) -> Vec<String> {
        let p = Propagator::new(lang, &ListSources::default(), ordinary(lang)).unwrap();
        let ents: Vec<Entity> = seeds.iter().map(|(s, src)| ent(text, s, src)).collect();
        p.find(text, &Words::new(text), &ents)
            .iter()
            .map(|e| text[e.start..e.end].to_string())
            .collect()
    }

    /// Language, text, the spans found before propagation (text, source), the marked mentions.
    type PropagationCase<'a> = (Lang, &'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);

    #[test]
    fn allow_listed_names_mark_mentions_inside_a_sentence_or_before_a_persons_verb() {
        let cases: &[PropagationCase] = &[
            (
                Lang::En,
                "Spoke with daughter Hope. Hope aware of plan. Hope to extubate in AM. Updated Hope at 1400. HOPE CALLED.",
                &[("Hope", "context:trigger")],
                &["Hope", "Hope"],
            ),
            (
                Lang::En,
                "Son Will at bedside. Will need repeat labs. Will called back at 1400.",
                &[("Will", "context:trigger")],
                &["Will"],
            ),
            // One of two capitalized words is no evidence for the term, only for the other.
            (
                Lang::En,
                "Faith Oyelaran saw pt. Later Oyelaran and Faith left.",
                &[("Faith Oyelaran", "lookup:first_names")],
                &["Oyelaran"],
            ),
            // Elsewhere the terms stay words ("Centro de Salud").
            (
                Lang::Es,
                "Vive con su pareja Salud. Acude al Centro de Salud con Salud.",
                &[("Salud", "context:trigger")],
                &[],
            ),
        ];
        for (lang, text, seeds, want) in cases {
            assert_eq!(&found(*lang, text, seeds), want, "{text}");
        }
    }

    #[test]
    fn names_that_are_no_ordinary_word_mark_their_mentions_in_every_case() {
        let cases: &[PropagationCase] = &[
            (
                Lang::En,
                "WIFE JOAN CALLED. JOAN AWARE OF PLAN. UPDATED JOAN AT 1400.",
                &[("JOAN", "context:trigger")],
                &["JOAN", "JOAN"],
            ),
            (
                Lang::En,
                "son tobias here. tobias updated, Tobias left.",
                &[("tobias", "context:trigger")],
                &["tobias", "Tobias"],
            ),
            (
                Lang::En,
                "Wife Joan called. Updated joan at 1400.",
                &[("Joan", "context:trigger")],
                &["joan"],
            ),
            // An ordinary word stays one, and so does a short name's lower-case mention.
            (
                Lang::En,
                "son will here. will call back.",
                &[("will", "context:trigger")],
                &[],
            ),
            (
                Lang::En,
                "Son Ian called; ian is a nurse. Ian left.",
                &[("Ian", "context:trigger")],
                &["Ian"],
            ),
            // A list hit in one case is no evidence.
            (
                Lang::En,
                "pt tobias here. tobias updated.",
                &[("tobias", "lookup:first_names")],
                &[],
            ),
            // Without a list of ordinary words, only capitals are read.
            (
                Lang::Nl,
                "zoon tobias belde. tobias komt morgen.",
                &[("tobias", "context:trigger")],
                &[],
            ),
        ];
        for (lang, text, seeds, want) in cases {
            assert_eq!(&found(*lang, text, seeds), want, "{text}");
        }
    }

    #[test]
    fn full_names_and_title_names_mark_later_mentions() {
        let cases: &[PropagationCase] = &[
            (
                Lang::Nl,
                "Gisteren sprak Marieke Doorewaard in Zwolle. Doorewaard zei dat Marieke kwam.",
                &[("Marieke Doorewaard", "lookup:first_names")],
                &["Doorewaard", "Marieke"],
            ),
            (
                Lang::En,
                "Mr. Quillfeather arrived late. Later QUILLFEATHER signed the form.",
                &[("Quillfeather", "context:title")],
                &["QUILLFEATHER"],
            ),
            // A seed the document also writes in lower case marks only mid-sentence mentions.
            (
                Lang::En,
                "Pills from Doctor Who worked. Who knows who won, who cares? We saw Who live. IT WAS WHO, who knew.",
                &[("Who", "context:title")],
                &["Who"],
            ),
            // A name that is no English word is one in lower case too (in the pipeline the
            // address is one span already).
            (
                Lang::En,
                "Dr. Mayweather came (see mayweather.com). Mayweather left.",
                &[("Mayweather", "context:title")],
                &["mayweather", "Mayweather"],
            ),
            (
                Lang::Nl,
                "Dr. Mayweather came (see mayweather.com). Mayweather left.",
                &[("Mayweather", "context:title")],
                &["Mayweather"],
            ),
            // A lone list hit is not evidence enough.
            (
                Lang::Es,
                "Vino Rosales. Luego Rosales se fue.",
                &[("Rosales", "lookup:surnames")],
                &[],
            ),
            // Lower-case words never become names, nor do titles inside the seed.
            (
                Lang::It,
                "Il dottor Ettore Bracchi visita; bracchi di ferro. Dottor Bracchi torna.",
                &[("Ettore Bracchi", "context:title")],
                &["Bracchi"],
            ),
            (
                Lang::Hu,
                "Kovács Péter ma jött. Kovácsnak írtunk, Péterrel beszéltünk, Annát láttuk.",
                &[
                    ("Kovács Péter", "context:first_name_run"),
                    ("Szabó Anna", "context:first_name_run"),
                ],
                &["Kovácsnak", "Péterrel", "Annát"],
            ),
        ];
        for (lang, text, seeds, want) in cases {
            let text = if *lang == Lang::Hu {
                format!("{text} Szabó Anna")
            } else {
                text.to_string()
            };
            let seeds: Vec<(&str, &str)> = seeds.to_vec();
            let got = found(*lang, &text, &seeds);
            assert_eq!(&got, want, "{text}");
        }
    }
}
