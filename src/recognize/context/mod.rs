//! Context rules for names, places and institutions: titles and trigger words before names,
//! header field labels, signatures after sign-offs, initials + surname, hospital and
//! institution names built from a head word, professions after their triggers, employers
//! after both, and firms joined by an ampersand.

mod clause_end_names;
pub mod config;
mod employer;
pub mod fields;
mod firms;
mod one_case_institutions;
mod one_case_names;
mod proper;
pub mod runs;
mod saints;
mod staff;
mod title_edges;
mod town_institutions;

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::recognize::lookup::lexicon::Matcher;
use crate::recognize::lookup::tokens::{FxMap, Shape, Token, Words};
use crate::recognize::Recognizer;
use crate::span::Entity;
use crate::wordlists::{ListSources, VocabError};
use config::*;
use runs::{
    before_colon, caps_name, is_initial, lower_syllable, name_backward, name_forward, one_of,
    opens_surname, org_backward, org_forward, particles_open_surname, through_nickname, Run,
};

const S_FIELD: f32 = 0.85;
const S_TITLE: f32 = 0.8;
const S_TRIGGER: f32 = 0.75;
const S_SIGNATURE: f32 = 0.7;
const S_INITIALS: f32 = 0.65;
const S_HOSPITAL: f32 = 0.9;
const S_ORG: f32 = 0.85;
/// An institution read from the words around it (an employer, a firm) rather than a head or
/// tail word of its own.
const S_ORG_BY_CONTEXT: f32 = 0.6;
const S_PROFESSION: f32 = 0.6;
const S_KIN: f32 = 0.6;
const S_POSTCODE_CITY: f32 = 0.55;
const S_PLACE: f32 = 0.55;
const S_FIRST_NAME_RUN: f32 = 0.55;

/// Words skipped between a profession trigger and the profession ("trabaja como un ...").
const ARTICLES: &[&str] = &[
    "un", "una", "el", "la", "de", "como", "een", "als", "a", "an", "as", "come", "di", "da",
    "egy", "en", "del", "uno", "il", "lo",
];

pub struct ContextRecognizer {
    cfg: ContextConfig,
    kin_terms: bool,
    /// Hungarian puts the surname first ("Kovács Péter").
    surname_first: bool,
    /// Capitalized words inside a sentence are proper nouns (Hungarian orthography).
    proper_nouns: bool,
    /// The word that joins two names ("and", "en", "y", "e", "és").
    and: &'static str,
    /// Staff beside their role ([`staff`]), where the language's triggers list such roles
    /// (`ROLE_AFTER`, `TEAM`; English nursing notes).
    staff_roles: bool,
    /// English: institutions named for a saint in the possessive ([`saints`]) or by a town and
    /// a short word ([`town_institutions`]).
    english_institutions: bool,
    /// Compass words before a town that belong to it ("e. boston").
    compass: &'static [&'static str],
}

impl ContextRecognizer {
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Self, VocabError> {
        let cfg = ContextConfig::load(lang, lists)?;
        let kin_terms = cfg.lex.all_bits() & KIN != 0;
        let staff_roles = cfg.lex.all_bits() & (ROLE_AFTER | TEAM) != 0;
        Ok(ContextRecognizer {
            cfg,
            kin_terms,
            surname_first: lang.writes_surname_first(),
            proper_nouns: lang == Lang::Hu,
            and: conjunction(lang),
            staff_roles,
            english_institutions: lang == Lang::En,
            compass: crate::recognize::lookup::compass_words(lang),
        })
    }

    /// Whether kinship words marked `tag` in `name_triggers.txt` ("madre", "hermano") are tagged
    /// NAME/RELATIVE themselves, as MEDDOCAN annotates them. On by default where the list marks
    /// any; turn off for corpora that annotate only relatives' names.
    pub fn with_kinship_terms(mut self, on: bool) -> Self {
        self.kin_terms = on;
        self
    }

    /// The language's ordinary words and drugs (see `ContextConfig::ordinary_words`), shared
    /// with the propagation of names.
    pub fn ordinary_words(&self) -> Option<std::sync::Arc<FxMap<String, ()>>> {
        self.cfg.ordinary_words.clone()
    }
}

struct Ctx<'a, 'm> {
    text: &'a str,
    words: &'a Words,
    toks: &'a [Token],
    m: Matcher<'m>,
    /// Matcher over the professions list, one per document so word ids are looked up once.
    pm: Matcher<'m>,
    out: &'a mut Vec<Entity>,
}

impl Ctx<'_, '_> {
    fn push_run(&mut self, run: Run, label: Label, source: &str, score: f32) {
        let (s, e) = run.bytes(self.toks);
        self.out.push(Entity::new(s, e, label, source, score));
    }

    /// Tokens `first..=last` as a profession found from its context.
    fn push_profession(&mut self, first: usize, last: usize) {
        let label = Label::new(Category::Profession, Subtype::Profession);
        let run = Run { first, last };
        self.push_run(run, label, "context:profession", S_PROFESSION);
    }

    /// First token at or after byte `pos` on the same line, when only `skip` characters lie
    /// between `pos` and it.
    fn next_token_after(&self, pos: usize, skip: &[char]) -> Option<usize> {
        let k = self.toks.partition_point(|t| t.start < pos);
        let t = self.toks.get(k)?;
        let g = &self.text[pos..t.start];
        (g.chars().all(|c| skip.contains(&c)) && g.len() <= 6).then_some(k)
    }

    /// Skips leading titles ("Dr. D. Xavier ...") starting at token `k`.
    fn skip_titles(&mut self, mut k: usize) -> usize {
        while k < self.toks.len() {
            let bits = self.m.longest(k).map_or(0, |(_, b)| b);
            let Some((last, _)) = self.m.longest(k).filter(|_| bits & TITLE != 0) else {
                break;
            };
            let end = self.toks[last].end;
            match self.next_token_after(end, &['.', ':', ' ', '\t']) {
                Some(n) if n > last => k = n,
                _ => break,
            }
        }
        k
    }
}

fn name_label(sub: Subtype) -> Label {
    Label::new(Category::Name, sub)
}

impl ContextRecognizer {
    fn fields(&self, c: &mut Ctx) {
        let hits = fields::field_hits(&self.cfg, c.text, c.words);
        for (n, h) in hits.iter().enumerate() {
            let Some(label) = h.label else { continue };
            let next = hits.get(n + 1).map_or(c.text.len(), |x| x.label_start);
            let end = fields::value_end(c.text, h.value_start, next);
            if label.category == Category::Name {
                let Some(k) = c.next_token_after(h.value_start, &[' ', '\t', ',']) else {
                    continue;
                };
                let k = c.skip_titles(k);
                if let Some(run) = name_forward(&mut c.m, c.text, c.toks, k, 5, end) {
                    let run = fields::given_after_comma(&mut c.m, c.text, c.toks, run, end);
                    c.push_run(run, label, "context:field_label", S_FIELD);
                }
                continue;
            }
            let Some((s, e)) = fields::trim_value(c.text, h.value_start, end) else {
                continue;
            };
            if e - s > 120 {
                continue;
            }
            let split = matches!(
                label.subtype,
                Some(Subtype::City | Subtype::State | Subtype::Country)
            );
            if split {
                let mut p = s;
                for part in c.text[s..e].split([',', '/', '(', ')']) {
                    let ps = p;
                    p += part.len() + 1;
                    if let Some((a, b)) = fields::trim_value(c.text, ps, ps + part.len()) {
                        c.out
                            .push(Entity::new(a, b, label, "context:field_label", S_FIELD));
                    }
                }
            } else {
                c.out
                    .push(Entity::new(s, e, label, "context:field_label", S_FIELD));
            }
        }
    }

    /// Title or trigger before a name: the capitalized run after it.
    fn after_phrase(&self, c: &mut Ctx, last: usize, bits: u32) {
        // "Staff Nurse. Verified ...": a whole-word title before a full stop ends a sentence.
        if bits & T_WORD != 0 && c.text[c.toks[last].end..].starts_with('.') {
            return;
        }
        let (skip, title): (&[char], bool) = if bits & TITLE != 0 {
            (&['.', ':', ' ', '\t'], true)
        } else if bits & (G_REL | G_DOC) != 0 {
            // "daughter (Marisol)", "Son, Ezekiel, called", "wife "Bunny"": a name in
            // parentheses, in apposition or in quotes, closed on its other side (below).
            (&[' ', '\t', '(', ',', '"', '“'], false)
        } else {
            // "goes by "Tink"": a patient's name in quotes, closed on its other side.
            (&[' ', '\t', '"', '“'], false)
        };
        let Some(k) = c.next_token_after(c.toks[last].end, skip) else {
            return;
        };
        if k <= last {
            return;
        }
        let after_trigger = k;
        let k = c.skip_titles(k);
        if k >= c.toks.len() {
            return;
        }
        let shape = c.toks[k].shape;
        if title && title_edges::sentence_after_caps_title(c, &self.cfg, last, k) {
            return;
        }
        // Triggers need a capitalized word; "paciente VIH" is no name. "O'Brien" opens with
        // a capital and an apostrophe.
        let ok_start = if title {
            shape.is_proper() || is_initial(c.text, c.toks, k)
        } else {
            shape == Shape::Cap
        } || opens_surname(c.text, c.toks, k)
            // "Dr. de la Cruz", "seen by Dr. van der Berg".
            || (title || k > after_trigger) && particles_open_surname(&mut c.m, c.text, c.toks, k);
        if !ok_start && !title && self.name_after_copula(c, last, k, bits) {
            return;
        }
        if !ok_start {
            // Lower-case and all-caps notes name people after titles and after relative or
            // doctor words ("wife mary", "called dr smith", "WIFE MARY"); patient words are
            // followed by too much text.
            let caseless = shape == Shape::Lower || shape == Shape::Upper;
            if caseless && (title || bits & (G_REL | G_DOC) != 0) {
                self.caseless_name(c, last, k, bits, title);
            } else if caseless {
                self.quoted_name(c, last, k, bits);
            }
            return;
        }
        let max = if title { 5 } else { 4 };
        // "Dr. St. Pierre", "Dr. Saint-Cyr": after a title a saint's word opens the surname.
        let saint = title
            && one_of(c.text, c.toks[k], &["st", "ste", "saint"])
            && c.toks.get(k + 1).is_some_and(|n| {
                n.shape.is_proper() && matches!(&c.text[c.toks[k].end..n.start], ". " | " " | "-")
            });
        let forward = name_forward(
            &mut c.m,
            c.text,
            c.toks,
            k + usize::from(saint),
            max,
            c.text.len(),
        );
        let run = match forward.map(|run| Run { first: k, ..run }) {
            Some(run) => run,
            // A word before a colon reads as a field label ("Address:"), but right after a
            // title or "by" it is the name ("Plan per Dr. Lindqvist: wean as tolerated", "PT
            // eval by Sunniva: ambulated").
            None if (title || one_of(c.text, c.toks[last], &["by"]))
                && shape == Shape::Cap
                && before_colon(c.text, c.toks, k)
                && c.m.single(k) & BREAKS == 0 =>
            {
                Run { first: k, last: k }
            }
            // So it is after a relative's or staff word where it is no ordinary word ("teaching
            // with wife Ottoline: suctioning done", "with perfusionist Emeka: flow 4.8"; not
            // "Wife Update:").
            None if bits & (G_REL | G_DOC) != 0
                && shape == Shape::Cap
                && before_colon(c.text, c.toks, k)
                && self.unlisted_or_name_before_colon(c, k) =>
            {
                Run { first: k, last: k }
            }
            // "Outpt psychiatrist Dr. Sunday at Bay Cove": the weekday is the surname.
            None if title
                && abbreviated_title(c.text, c.toks[last])
                && title_edges::weekday_surname(c, &self.cfg, k) =>
            {
                Run { first: k, last: k }
            }
            // In capitals the word is read as in a caseless note ("READ BY DR. OYELARAN: NO
            // VASOSPASM"; not "DR. NOTE:").
            None if title && shape == Shape::Upper && before_colon(c.text, c.toks, k) => {
                self.caseless_name(c, last, k, bits, title);
                return;
            }
            None => return,
        };
        if !title && !closed_apposition(c.text, c.toks, last, run, self.and) {
            return;
        }
        // A relative's or staff word after another is no name ("Mom, Dad, all of us",
        // "Consultant Physician"), nor is a drug ("Baby Tylenol").
        if !title
            && (c.m.single(run.first) & (G_REL | G_DOC) != 0
                || run.first == run.last && self.cfg.drugs.contains_key(c.words.folded(run.first)))
        {
            return;
        }
        // The patient's word alone after a title is the next sentence's: "severe MR. Pt's
        // cardiologist" (mitral regurgitation, not "Mr."); not a surname that is a patient's
        // word too ("Mevrouw Koning": "koning" opens a king's name).
        let word = c.m.single(run.first);
        if title
            && run.first == run.last
            && word & G_PAT != 0
            && word & (SURN | SURN_OPEN | FIRSTN | FOREIGN) == 0
        {
            return;
        }
        // After an all-caps title the note is in capitals, which mark no name ("O'ROURKE"
        // opens with a letter and an apostrophe, "T. BANERJEE AND SW" with an initial).
        let first_word = (k..=run.last)
            .find(|&j| !is_initial(c.text, c.toks, j))
            .unwrap_or(k);
        let caps = c.toks[first_word].shape == Shape::Upper
            || opens_surname(c.text, c.toks, k) && c.toks[k + 1].shape == Shape::Upper;
        let run = if title && caps && c.toks[last].shape == Shape::Upper {
            let named = caps_name(&mut c.m, c.text, c.toks, run);
            self.caps_surname_after_first_name(c, named, run.last)
        } else {
            run
        };
        let mut run = through_nickname(&mut c.m, c.text, c.toks, run);
        // "Baby Boy Nakamura Apgars 7/9": an allow-listed word that no name list holds, last
        // in a run of several, is the term after the name.
        while run.last > run.first && c.m.single(run.last) & (ALLOWW | SURN | FIRSTN) == ALLOWW {
            run.last -= 1;
        }
        // One allow-listed word after a trigger is a term ("patient Foley"), but after a
        // relative's word a name ("daughter Faith", "son Drew"), and so is a listed first name
        // after a staff word, written with its capital in a note in mixed case, that ends the
        // name as in a note in one case ("facility RN Joy updated", "CM Summer following").
        let staff_first_name = bits & G_DOC != 0
            && run.first == run.last
            && c.toks[run.first].shape == Shape::Cap
            && !plural_word(c.text, c.toks[last])
            && clause_end_names::first_name_word_after_person_word(
                c,
                run.first,
                &self.cfg.first_name_words,
                true,
            );
        if !title
            && bits & G_REL == 0
            && !staff_first_name
            && run.first == run.last
            && c.m.single(run.first) & ALLOWW != 0
        {
            return;
        }
        let role = name_label(role_subtype(bits));
        let source = if title {
            "context:title"
        } else {
            "context:trigger"
        };
        c.push_run(run, role, source, if title { S_TITLE } else { S_TRIGGER });
        // "sons Kieran and Padraig", "Drs. Stone and Whitcombe": the capitalized names joined
        // by "and" to a relative's or to one after a plural title.
        let list = comma_list(c.text, c.toks, last, run.first, bits);
        let mut last = run.last;
        while let Some(k) = next_conjunct(c.text, c.toks, last, self.and, list)
            .filter(|_| bits & (G_REL | T_PLURAL) != 0)
        {
            let joined = c.toks[k].shape == Shape::Cap && c.m.single(k) & (TRIGGER | BREAKS) == 0;
            let Some(next) = joined
                .then(|| name_forward(&mut c.m, c.text, c.toks, k, 4, c.text.len()))
                .flatten()
            else {
                break;
            };
            c.push_run(next, role, source, S_TRIGGER);
            last = next.last;
        }
        if title {
            self.affiliation_acronym(c, run.last);
        }
    }

    /// "Case manager is Will, ext 4471", "Daughter is Marisol": after a singular relative's or
    /// staff member's word and "is" or "was" (token `k`), in a note in mixed case, a
    /// capitalized listed first name with the capitalized words after it, or a first name
    /// that is an ordinary word where it ends the clause (as right after the word). True when
    /// it pushed the name.
    fn name_after_copula(&self, c: &mut Ctx, trigger_last: usize, k: usize, bits: u32) -> bool {
        let (text, toks) = (c.text, c.toks);
        let j = k + 1;
        if bits & (G_REL | G_DOC) == 0
            || j >= toks.len()
            || !one_of(text, toks[k], &["is", "was"])
            || toks[k].shape != Shape::Lower
            || &text[toks[trigger_last].end..toks[k].start] != " "
            || &text[toks[k].end..toks[j].start] != " "
            || toks[j].shape != Shape::Cap
            || plural_word(text, toks[trigger_last])
        {
            return false;
        }
        let b = c.m.single(j);
        let run = if b & (FIRSTN | FOREIGN) != 0 && b & (BREAKS | TRIGGER | ALLOWW) == 0 {
            name_forward(&mut c.m, text, toks, j, 3, text.len())
        } else if clause_end_names::first_name_word_after_person_word(
            c,
            j,
            &self.cfg.first_name_words,
            bits & G_DOC != 0,
        ) {
            Some(Run { first: j, last: j })
        } else {
            None
        };
        let Some(run) = run else {
            return false;
        };
        push_name_after(c, run, bits, false);
        true
    }

    /// Whether the capitalized word at token `k`, before a colon, can be a name after a
    /// relative's or staff word: no ordinary word of the language (where it ships them), title,
    /// trigger or term, and letters only.
    fn unlisted_or_name_before_colon(&self, c: &mut Ctx, k: usize) -> bool {
        let Some(ordinary) = self.cfg.ordinary_words.as_deref() else {
            return false;
        };
        let word = &c.text[c.toks[k].start..c.toks[k].end];
        c.m.single(k) & (BREAKS | TRIGGER | ALLOWW) == 0
            && word.chars().count() >= 3
            && word.chars().all(char::is_alphabetic)
            && !ordinary.contains_key(c.words.folded(k))
            && !self.cfg.value_words.contains_key(c.words.folded(k))
    }

    /// After an all-caps title, a listed first name read alone ([`caps_name`]) with the surname
    /// after it that no list holds, up to token `upto` of the run read forward: one word that
    /// no list holds and no ordinary word ("DR. ANAND RAGHUNATHAN."), or an Arabic article
    /// joined by a hyphen ("DR. MAHMOUD EL-SAYED", "AL-RASHIDI"), with its hyphenated parts.
    fn caps_surname_after_first_name(&self, c: &mut Ctx, run: Run, upto: usize) -> Run {
        let Some(ordinary) = self.cfg.ordinary_words.as_deref() else {
            return run;
        };
        let (text, toks) = (c.text, c.toks);
        let j = run.last + 1;
        if run.first != run.last
            || c.m.single(run.first) & (FIRSTN | FOREIGN) == 0
            || j > upto
            || toks[j].shape != Shape::Upper
            || &text[toks[run.last].end..toks[j].start] != " "
        {
            return run;
        }
        let surname_word = |c: &mut Ctx, k: usize| {
            let word = &text[toks[k].start..toks[k].end];
            toks[k].shape == Shape::Upper
                && c.m.single(k) & !SURN_OPEN == 0
                && unlisted_word(word, c.words.folded(k))
                && !ordinary.contains_key(c.words.folded(k))
                && !self.cfg.value_words.contains_key(c.words.folded(k))
        };
        let hyphen = |k: usize| k + 1 < toks.len() && &text[toks[k].end..toks[k + 1].start] == "-";
        let article = one_of(text, toks[j], &["el", "al"]) && hyphen(j);
        let listed = |c: &mut Ctx, k: usize| {
            let b = c.m.single(k);
            toks[k].shape == Shape::Upper
                && b & (FIRSTN | FOREIGN | SURN | SURN_OPEN) != 0
                && b & (BREAKS | TRIGGER | ALLOWW) == 0
        };
        let mut last = if article && (surname_word(c, j + 1) || listed(c, j + 1)) {
            j + 1
        } else if surname_word(c, j) {
            j
        } else {
            return run;
        };
        while hyphen(last) && surname_word(c, last + 1) {
            last += 1;
        }
        Run {
            first: run.first,
            last,
        }
    }

    /// An all-caps title without its dot ("DR PRICE AWARE", "MS" may be a diagnosis): only a
    /// listed name in capitals right after it, as in an all-caps note after any title.
    fn after_bare_caps_title(&self, c: &mut Ctx, last: usize, bits: u32) {
        let Some(k) = c.next_token_after(c.toks[last].end, &[' ', '\t']) else {
            return;
        };
        if k > last && c.toks[k].shape == Shape::Upper {
            self.caseless_name(c, last, k, bits, true);
        }
    }

    /// Lower-case and all-caps notes: after a title ("dr. jansen") or trigger ("wife mary",
    /// "SON JIM"), listed first names and surnames written in the same case are the name (one
    /// or two words); any other word is left alone. After a title an allow-listed surname is a
    /// person too ("dr smith"; the allow list is for eponyms such as Smith's fracture), and so
    /// is an open surname that is no ordinary word of the language ("called dr obrien"; not
    /// "nurse states"), after an abbreviated title even one that is ("dr hale"), and after
    /// either a first name of another language ("wife agnieszka": its list holds no word the
    /// corpora use as an ordinary one). After a relative's word, the listed names joined by
    /// "and" are too ("sons kieran and brendan"). So is any word of three letters or more
    /// right before a phone number, after a relative's or doctor's word ("NEPHEW ANATOLE
    /// (781) ...", "daughter philippa 978-..."), unless it announces the number ("WIFE CELL").
    fn caseless_name(&self, c: &mut Ctx, trigger_last: usize, k: usize, bits: u32, title: bool) {
        let toks = c.toks;
        let shape = toks[k].shape;
        let before_phone = !title
            && c.text[toks[k].start..toks[k].end]
                .chars()
                .filter(|ch| ch.is_alphabetic())
                .count()
                >= 3
            && phone_follows(&c.text[toks[k].end..])
            && !self.cfg.value_words.contains_key(c.words.folded(k))
            && c.m.single(k) & (BREAKS | TRIGGER | ALLOWW) == 0;
        if before_phone {
            let run = Run { first: k, last: k };
            if closed_apposition(c.text, toks, trigger_last, run, self.and) {
                let role = name_label(role_subtype(bits));
                c.push_run(run, role, "context:trigger", S_TRIGGER);
            }
            return;
        }
        // An elided article or preposition ("sorella dell'ex moglie") is no foreign name.
        let elided = |j: usize| c.text[toks[j].end..].starts_with(['\'', '’']);
        // After an abbreviated title ("dr", "MRS") an open surname that is also an ordinary
        // word is the name too ("dr hale", "DR PRICE"); after "nurse" or "sister" it is not.
        let abbreviated = title && abbreviated_title(c.text, toks[trigger_last]);
        // A word after the first may be an open surname that is no ordinary word, as after a
        // title ("daughter susan kowalczyk").
        // After it an allow-listed word that is no verb opens the name as in mixed case ("dr
        // hope", "dr summer gray"; not "dr will call").
        let listed = |m: &mut Matcher, j: usize, first: usize| {
            let b = m.single(j);
            toks[j].shape == shape
                && (b & (SURN | FIRSTN) != 0
                    || (title || j > first) && is_open_surname(b)
                    || abbreviated && b & (SURN_OPEN | ALLOWW) == SURN_OPEN
                    || abbreviated && j == first && b & (ALLOWW | ALLOW_VERB) == ALLOWW
                    || b & (FOREIGN | ALLOWW) == FOREIGN && !elided(j))
                && b & BREAKS == 0
                && (title || b & ALLOWW == 0)
        };
        // A word that no list holds and that is no ordinary word of the language, written in
        // the case of the relative's or staff word or abbreviated title before it ("SON FERGAL
        // CALLED", "INTERPRETER TSEGAYE PRESENT", "dr gilhooly aware"; not "Wife tearful").
        // After a staff word only right after it: "RN, CARN" is a credential after another.
        let same_case = toks[trigger_last].shape == shape;
        let apposed = c.text[toks[trigger_last].end..toks[k].start].contains([',', '(', '"', '“']);
        let ordinary = self.cfg.ordinary_words.as_deref();
        // An open surname counts as no list's, also where it names a town ("OFFICER DUBOIS").
        let unlisted = |m: &mut Matcher, j: usize| {
            let b = m.single(j);
            let b = if b & SURN_OPEN != 0 {
                b & !PLACE_WORD
            } else {
                b
            };
            ordinary.is_some_and(|ordinary| {
                (abbreviated || !title && (bits & G_REL != 0 || !apposed))
                    && same_case
                    && toks[j].shape == shape
                    && b & !SURN_OPEN == 0
                    && unlisted_word(&c.text[toks[j].start..toks[j].end], c.words.folded(j))
                    && !ordinary.contains_key(c.words.folded(j))
                    && !self.cfg.value_words.contains_key(c.words.folded(j))
            })
        };
        // After a singular relative's word, one allow-listed word is the name as in mixed case
        // ("wife dawn", "HUSBAND BILL"), unless it is the verb after its subject ("son will
        // call"); after a plural one it may be ("daughters hope to visit").
        let singular = !plural_word(c.text, toks[trigger_last]);
        let list = comma_list(c.text, toks, trigger_last, k, bits);
        let kin_word = |m: &mut Matcher, j: usize| {
            !title
                && singular
                && bits & G_REL != 0
                && toks[j].shape == shape
                && m.single(j) & (ALLOWW | ALLOW_VERB | BREAKS | TRIGGER) == ALLOWW
        };
        // "dr. van wyk", "DR. DE LA CRUZ": particles in the title's case open the surname
        // after them.
        if abbreviated {
            let mut j = k;
            while j < k + 3
                && toks.get(j).is_some_and(|t| t.shape == shape)
                && c.m.single(j) & PARTICLE != 0
                && toks.get(j + 1).is_some_and(|n| n.start == toks[j].end + 1)
            {
                j += 1;
            }
            let surname = toks.get(j).is_some_and(|t| {
                j > k
                    && t.shape == shape
                    && c.text[t.start..t.end].chars().count() >= 3
                    && c.text[t.start..t.end].chars().all(char::is_alphabetic)
            });
            // The surname is listed, or no ordinary word ("dr. de aware" is none).
            if surname {
                let b = c.m.single(j);
                let listed = b & (SURN | SURN_OPEN | FIRSTN) != 0;
                let word = ordinary.is_some_and(|o| o.contains_key(c.words.folded(j)));
                if b & (BREAKS | TRIGGER) == 0 && (listed || !word) {
                    let run = Run { first: k, last: j };
                    let role = name_label(role_subtype(bits));
                    c.push_run(run, role, "context:title", S_TITLE);
                    return;
                }
            }
        }
        // "dr. t. banerjee": an initial in the title's case opens the name after it.
        let initial = abbreviated
            && shape == Shape::Lower
            && c.text[toks[k].start..toks[k].end].chars().count() == 1
            && c.text[toks[k].end..].starts_with(". ")
            && toks.get(k + 1).is_some_and(|n| n.start == toks[k].end + 2);
        // "dr. o'rourke", "father o'leary", "np o'sullivan-reyes": in lower case the Irish and
        // Italian prefixes are words of one letter, and the name goes on after the apostrophe.
        if shape == Shape::Lower && same_case {
            if let Some(last) = apostrophe_surname(c.text, toks, k, ordinary) {
                let run = Run { first: k, last };
                if title || closed_apposition(c.text, toks, trigger_last, run, self.and) {
                    push_name_after(c, run, bits, title);
                }
                return;
            }
        }
        // An open surname is a name after the first one ("officers dempsey and kowalczyk"), as
        // it is after a first name: `listed` reads it so after `first_at`.
        let first_at = k;
        let mut opened_at = k;
        let mut k = k + usize::from(initial);
        loop {
            if !listed(&mut c.m, k, first_at) && !kin_word(&mut c.m, k) && !unlisted(&mut c.m, k) {
                // "sister autumn pelletier", "MOTHER DESTINY FAIRWEATHER": a first name that is
                // an ordinary word (and so no list's), with a listed surname right after it.
                let run = Run {
                    first: k,
                    last: k + 1,
                };
                if k == opened_at
                    && ordinary_first_name(c, k, shape, ordinary, &self.cfg.first_name_words)
                    && (title || closed_apposition(c.text, toks, trigger_last, run, self.and))
                {
                    push_name_after(c, run, bits, title);
                } else if k == opened_at
                    && abbreviated
                    && bits & T_DOC != 0
                    && same_case
                    && toks[k].shape == shape
                    && clause_end_names::surname_word_after_title(c, k, &self.cfg.surnames_dropped)
                {
                    push_name_after(c, Run { first: k, last: k }, bits, title);
                } else if k == opened_at
                    && !title
                    && singular
                    && bits & (G_REL | G_DOC) != 0
                    && same_case
                    && toks[k].shape == shape
                    && clause_end_names::first_name_word_after_person_word(
                        c,
                        k,
                        &self.cfg.first_name_words,
                        bits & G_DOC != 0,
                    )
                {
                    let run = Run { first: k, last: k };
                    if closed_apposition(c.text, toks, trigger_last, run, self.and) {
                        push_name_after(c, run, bits, title);
                    }
                }
                return;
            }
            // A second word after a space, and the parts of a hyphenated name
            // ("abernathy-cole").
            let mut last = k;
            let mut spaced = false;
            // A short part joined by a hyphen ("SON HYUN-WOO", "wife soo-jin").
            let short_part = |c: &mut Ctx, j: usize| {
                let t = toks[j];
                let word = &c.text[t.start..t.end];
                &c.text[toks[j - 1].end..t.start] == "-"
                    && t.shape == shape
                    && (2..=3).contains(&word.chars().count())
                    && word.chars().all(char::is_alphabetic)
                    && c.m.single(j) & (BREAKS | TRIGGER | ALLOWW) == 0
            };
            // "SON GARETH WILL BRING HER": a verb after the name is none of it.
            while last + 1 < c.toks.len()
                && (listed(&mut c.m, last + 1, k)
                    || unlisted(&mut c.m, last + 1)
                    || short_part(c, last + 1))
                && c.m.single(last + 1) & ALLOW_VERB == 0
            {
                match &c.text[c.toks[last].end..c.toks[last + 1].start] {
                    "-" => {}
                    " " if !spaced => spaced = true,
                    _ => break,
                }
                last += 1;
            }
            // "siobhan o'rourke": a surname opened by an apostrophe after the first name.
            let spaced_next =
                last + 1 < toks.len() && &c.text[toks[last].end..toks[last + 1].start] == " ";
            if !spaced && shape == Shape::Lower && spaced_next {
                if let Some(end) = apostrophe_surname(c.text, toks, last + 1, ordinary) {
                    last = end;
                }
            }
            let run = Run {
                first: opened_at,
                last,
            };
            let closed = title
                || closed_apposition(c.text, toks, trigger_last, run, self.and)
                || bits & G_REL != 0 && first_names_end_clause(c, trigger_last, run);
            if !closed {
                return;
            }
            push_name_after(c, run, bits, title);
            // "sons kieran and padraig", "drs. stone and whitcombe": the next name joined by
            // "and" to a relative's or to one after a plural title.
            match next_conjunct(c.text, toks, last, self.and, list) {
                Some(n) if !title && bits & G_REL != 0 || bits & T_PLURAL != 0 => {
                    (k, opened_at) = (n, n);
                }
                _ => return,
            }
        }
    }

    /// After a patient's word in a note in one case, a name in quotes right after it, closed
    /// by its quote on the same line: one to three words in the case of its first ("GOES BY
    /// "TINK"", "PREFERRED NAME IS "TI JEAN"", "asks to be called "bucky""). Outside quotes
    /// such a word is as often the sentence's.
    fn quoted_name(&self, c: &mut Ctx, trigger_last: usize, k: usize, bits: u32) {
        let toks = c.toks;
        let before = &c.text[toks[trigger_last].end..toks[k].start];
        if !matches!(before.trim_start_matches([' ', '\t']), "\"" | "“") {
            return;
        }
        let shape = toks[k].shape;
        let mut last = k;
        loop {
            let after = &c.text[toks[last].end..];
            if after.starts_with(['"', '”']) {
                break;
            }
            let next = last + 1;
            let joined = toks.get(next).is_some_and(|n| {
                n.shape == shape && matches!(&c.text[toks[last].end..n.start], " " | "-")
            });
            if !joined || next - k >= 3 {
                return;
            }
            last = next;
        }
        let run = Run { first: k, last };
        if (k..=last).any(|j| c.m.single(j) & BREAKS != 0) {
            return;
        }
        c.push_run(
            run,
            name_label(role_subtype(bits)),
            "context:trigger",
            S_TRIGGER,
        );
    }

    /// Whether token `i` may open a first name's run: a listed first name, or a first name of
    /// another language away from a sentence start (there a capitalized word is as often an
    /// ordinary word of the language) and not after an eponym head ("Síndrome de
    /// Mayer-Rokitansky").
    fn opens_name(&self, c: &mut Ctx, i: usize, key: &mut String) -> bool {
        let bits = c.m.single(i);
        bits & (FIRSTN | BREAKS) == FIRSTN
            || bits & (FOREIGN | FIRSTN | BREAKS | ALLOWW) == FOREIGN
                && !crate::recognize::lookup::sentence_start(c.text, c.toks, i)
                && !self.cfg.eponym_heads.before(c.text, c.words, i, key)
    }

    /// A listed first name with the capitalized words after it ("Vincent De Poortere", "Anke
    /// van der Berg", or a first name of another language: "Tomasz Sulej"), and in Hungarian
    /// the capitalized word before a Hungarian one ("Kovács Péter"). A lone first name is left
    /// to the lookup. Returns the run when one was taken.
    fn first_name_run(&self, c: &mut Ctx, i: usize) -> Option<Run> {
        let fwd = name_forward(&mut c.m, c.text, c.toks, i, 4, c.text.len()).filter(|r| {
            r.last > i
                && (c.toks[r.last].shape.is_proper() || lower_syllable(c.text, c.toks, r.last))
        });
        let mut first = i;
        // Surname first is the order of Hungarian names, not of foreign ones in Hungarian text.
        let native = c.m.single(i) & FIRSTN != 0;
        if self.surname_first && native && i > 0 && c.toks[i - 1].shape == Shape::Cap {
            let g = &c.text[c.toks[i - 1].end..c.toks[i].start];
            let bits = c.m.single(i - 1);
            let listed = bits & SURN != 0;
            let start = crate::recognize::lookup::sentence_start(c.text, c.toks, i - 1);
            if g == " " && bits & BREAKS == 0 && (listed || !start) {
                first = i - 1;
            }
        }
        let last = fwd.map_or(i, |r| r.last);
        if first == last {
            return None;
        }
        // An allow-listed word as the whole rest of the run is no surname ("Mayo Clinic"), a
        // run before an eponym's tail word is no name ("Jackson-Pratt drain"), and neither is
        // one inside an allow-listed phrase ("Richmond Agitation-Sedation Scale").
        let in_allowed_phrase =
            c.m.longest(first)
                .is_some_and(|(j, bits)| j > first && j >= last && bits & ALLOWW != 0);
        if first == i && last == i + 1 && c.m.single(last) & (ALLOWW | SURN) == ALLOWW
            || self.cfg.eponym_heads.tail_after(c.text, c.toks[last].end)
            || in_allowed_phrase
        {
            return None;
        }
        let run = Run { first, last };
        c.push_run(
            run,
            name_label(Subtype::Patient),
            "context:first_name_run",
            S_FIRST_NAME_RUN,
        );
        Some(run)
    }

    /// "J. García", "A.B. de Vries", "P. J. Smith": initials and a surname. Letters with
    /// dots right after a number are its unit or a time ("96 Y.O. WITH DEMENTIA", "3 P.M."),
    /// and after a slash the end of a list ("M/W/F.").
    fn initials(&self, c: &mut Ctx, i: usize) -> usize {
        // "M/W/F. VAN PICKUP": the letter closing a list of slashes (weekdays) is no initial.
        if c.text[..c.toks[i].start].ends_with('/') {
            return i + 1;
        }
        if i > 0
            && c.toks[i - 1].shape == Shape::Num
            && &c.text[c.toks[i - 1].end..c.toks[i].start] == " "
        {
            return i + 1;
        }
        let mut k = i;
        let mut n_init = 0;
        while k < c.toks.len() && is_initial(c.text, c.toks, k) {
            n_init += 1;
            let after = c.toks[k].end + 1;
            match c.next_token_after(after, &[' ']) {
                Some(n) if n > k => k = n,
                _ => return k + 1,
            }
        }
        if n_init == 0 || k >= c.toks.len() {
            return i + 1;
        }
        let Some(run) = name_forward(&mut c.m, c.text, c.toks, k, 3, c.text.len()) else {
            return k;
        };
        let first_cap = (run.first..=run.last)
            .find(|&j| c.toks[j].shape.is_proper())
            .unwrap_or(run.first);
        // In capitals the words after the surname are its only where a list holds them, as
        // after a title ("T. BANERJEE AND SW").
        let run = if c.toks[first_cap].shape == Shape::Upper {
            caps_name(&mut c.m, c.text, c.toks, run)
        } else {
            run
        };
        let known = c.m.longest(run.first).map_or(0, |(_, b)| b) | c.m.single(first_cap);
        // One initial needs a listed name after it, an open surname that is no ordinary word
        // ("K. Dunmore"), or a staff role after the name ("J. Costa RN").
        let accepted = known & ALLOWW == 0
            && (n_init >= 2
                || known & (SURN | FIRSTN) != 0
                || is_open_surname(known)
                || staff::role_after(c, run.last));
        if accepted {
            let (_, e) = run.bytes(c.toks);
            let label = name_label(Subtype::Patient);
            c.out.push(Entity::new(
                c.toks[i].start,
                e,
                label,
                "context:initials",
                S_INITIALS,
            ));
            return run.last + 1;
        }
        k
    }

    /// Name lines after a sign-off ("Met vriendelijke groet," / "J. de Vries" / "Logopedist").
    fn signature(&self, c: &mut Ctx, first: usize, last: usize) {
        // Only blanks between the line start and the name. Scanning back over blanks alone
        // (not to the line start) keeps a long single-line document linear.
        let lead = c.text[..c.toks[first].start]
            .trim_end_matches(|ch: char| ch.is_whitespace() && ch != '\n');
        if !(lead.is_empty() || lead.ends_with('\n')) {
            return;
        }
        let mut k = last + 1;
        let mut lines_seen = 0;
        while k < c.toks.len() && lines_seen <= 2 {
            let g = &c.text[c.toks[k - 1].end..c.toks[k].start];
            lines_seen += g.matches('\n').count();
            if lines_seen > 2 {
                return;
            }
            let kk = c.skip_titles(k);
            if kk < c.toks.len() && c.toks[kk].shape.is_proper() {
                if let Some(run) = name_forward(&mut c.m, c.text, c.toks, kk, 4, c.text.len()) {
                    c.push_run(
                        run,
                        name_label(Subtype::Doctor),
                        "context:signature",
                        S_SIGNATURE,
                    );
                    self.profession_line(c, run.last);
                    self.affiliation_acronym(c, run.last);
                }
                return;
            }
            k = kk + 1;
        }
    }

    /// An all-caps acronym standing alone right after a signer's or titled doctor's name
    /// ("Dr. Pedro Garamendi. IVML. Vizcaya"): their institution. Listed words (places,
    /// titles) are not one.
    fn affiliation_acronym(&self, c: &mut Ctx, name_last: usize) {
        let k = name_last + 1;
        let Some(t) = c.toks.get(k) else { return };
        let gap = c.text[c.toks[name_last].end..t.start].trim_matches([' ', '\t']);
        let letters = c.text[t.start..t.end].chars().count();
        let alone = c.text[t.end..]
            .trim_start_matches([' ', '\t'])
            .starts_with(['.', ',', '\n']);
        if matches!(gap, "." | ",")
            && alone
            && t.shape == Shape::Upper
            && letters >= 3
            && c.m.single(k) & !(SURN_OPEN | SURN_WORD) == 0
        {
            let label = Label::new(Category::Location, Subtype::Organization);
            c.out.push(Entity::new(
                t.start,
                t.end,
                label,
                "context:signature",
                S_ORG,
            ));
        }
    }

    /// A whole line after a signature that is a profession.
    fn profession_line(&self, c: &mut Ctx, name_last: usize) {
        let n = name_last + 1;
        if n >= c.toks.len() || !c.text[c.toks[name_last].end..c.toks[n].start].contains('\n') {
            return;
        }
        let pm = &mut c.pm;
        if let Some((j, _)) = pm.longest(n) {
            let e = c.toks[j].end;
            // Nothing but punctuation up to the line end (scanned only as far as it holds).
            let rest = c.text[e..].trim_start_matches([' ', '.', ',', '\r']);
            if rest.is_empty() || rest.starts_with('\n') {
                let label = Label::new(Category::Profession, Subtype::Profession);
                c.out.push(Entity::new(
                    c.toks[n].start,
                    e,
                    label,
                    "context:signature",
                    S_PROFESSION,
                ));
            }
        }
    }

    /// "28036 Madrid", "1085 Budapest", "1012 AB Amsterdam": the town after a postcode.
    fn city_after_postcode(&self, c: &mut Ctx, i: usize) {
        let t = c.toks[i];
        let digits = &c.text[t.start..t.end];
        let n = digits.len();
        if !(4..=5).contains(&n) || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return;
        }
        // Four-digit years are not postcodes, nor are numbers with a leading zero (no
        // four-digit postcode system has one: "at 0200, MAPs > 65" is a time).
        if n == 4
            && (digits.starts_with("19") || digits.starts_with("20") || digits.starts_with('0'))
        {
            return;
        }
        let mut k = i + 1;
        // Dutch postcodes carry two capital letters ("1012 AB").
        if n == 4
            && k < c.toks.len()
            && c.toks[k].shape == Shape::Upper
            && c.toks[k].end - c.toks[k].start == 2
        {
            k += 1;
        }
        if k >= c.toks.len() || c.toks[k].shape != Shape::Cap {
            return;
        }
        let g = &c.text[c.toks[k - 1].end..c.toks[k].start];
        // A four-digit postcode stands right before its town; "at 1400, Smith" is a time.
        if !(g == " " || g == ", " && n == 5 || g == "  " || g == " - ") {
            return;
        }
        if let Some(run) = name_forward(&mut c.m, c.text, c.toks, k, 4, c.text.len()) {
            let label = Label::new(Category::Location, Subtype::City);
            c.push_run(run, label, "context:postcode_city", S_POSTCODE_CITY);
        }
    }

    /// The place named right after a phrase that introduces one (token `last` ends it): one to
    /// three capitalized words ("lives in Swampscott"), or, in a line without a capitalized
    /// word, one word that a place or name list holds and that is no ordinary word ("LIVES IN
    /// LYNN", "home in dorchester": towns that are names too are in the name lists only; not
    /// "lives in hall"), or the words of a place a list holds whole, all in that case ("lives
    /// in puerto rico", "FROM NEW HAMPSHIRE").
    ///
    /// After a bare preposition (`preposition`: a `PLACE_LISTED` trigger, "in", "from") only
    /// that last reading is made, and only for a word of four letters or more that a place list
    /// holds ("called from florida", "FORMER NURSE IN WORCESTER"): where capitals mark names the
    /// lookup finds the place, a preposition is too common to take a name or an unlisted word
    /// after it, and shorter words are mostly abbreviations ("updates from us", "in oz").
    fn place_after(&self, c: &mut Ctx, last: usize, preposition: bool) {
        let k = last + 1;
        let Some(&t) = c.toks.get(k) else { return };
        if &c.text[c.toks[last].end..t.start] != " " {
            return;
        }
        // "flying in from the Azores", "lives in the Berkshires": a region named with its
        // article, after a phrase that ends in "in" or "from" (not "admitted to the Floor").
        let (k, t) = match c.toks.get(k + 1) {
            Some(&next)
                if !preposition
                    && one_of(c.text, c.toks[last], &["in", "from"])
                    && one_of(c.text, t, &["the"])
                    && &c.text[t.end..next.start] == " "
                    && next.shape == Shape::Cap =>
            {
                (k + 1, next)
            }
            _ => (k, t),
        };
        // A compass word opens the town's part ("in e. boston", "from West Roxbury").
        let compass = (k + 1 < c.toks.len())
            .then(|| crate::recognize::lookup::compass_before(c.text, c.toks, k + 1, self.compass))
            .flatten();
        let (k, t) = match compass {
            Some(_) => (k + 1, c.toks[k + 1]),
            None => (k, t),
        };
        if !preposition && building_part(c.text, c.toks, k) {
            let label = Label::new(Category::Location, Subtype::Other);
            c.push_run(
                Run {
                    first: k,
                    last: k + 1,
                },
                label,
                "context:place",
                S_PLACE,
            );
            return;
        }
        let (listed, min_chars) = if preposition {
            (PLACE_WORD, 4)
        } else {
            (PLACE_WORD | FIRSTN | SURN | FOREIGN | SURN_OPEN, 0)
        };
        let phrase = matches!(t.shape, Shape::Upper | Shape::Lower)
            .then(|| self.place_phrase(c, k))
            .flatten();
        let run = match t.shape {
            _ if phrase.is_some() => phrase.map(|j| Run { first: k, last: j }),
            Shape::Cap if !preposition => {
                name_forward(&mut c.m, c.text, c.toks, k, 3, c.text.len())
            }
            // Where capitals mark names, a word without one is none ("Ilona lives in harmony").
            Shape::Upper | Shape::Lower => (caseless_place_word(c, k, listed, min_chars)
                || !capitalized_on_line(c.text, c.toks, k)
                    && clause_end_names::town_word_after_place_word(
                        c,
                        k,
                        &self.cfg.places_dropped,
                    ))
            .then_some(Run { first: k, last: k }),
            _ => None,
        };
        if let Some(mut run) = run {
            run.first = compass.unwrap_or(run.first);
            let label = Label::new(Category::Location, Subtype::City);
            c.push_run(run, label, "context:place", S_PLACE);
            if matches!(t.shape, Shape::Upper | Shape::Lower) {
                self.place_after_comma(c, run.last);
            }
        }
    }

    /// "lives in portland, oregon", "FROM NASHUA, NEW HAMPSHIRE": after a town read in a note
    /// without capitals, a place a list holds (a word of four letters or more, or a phrase)
    /// after a comma, in the town's case, names its state or country.
    fn place_after_comma(&self, c: &mut Ctx, town: usize) {
        let k = town + 1;
        let Some(&t) = c.toks.get(k) else { return };
        if &c.text[c.toks[town].end..t.start] != ", " || t.shape != c.toks[town].shape {
            return;
        }
        let last = self
            .place_phrase(c, k)
            .or_else(|| caseless_place_word(c, k, PLACE_WORD, 4).then_some(k));
        if let Some(last) = last {
            let label = Label::category_only(Category::Location);
            c.push_run(Run { first: k, last }, label, "context:place", S_PLACE);
        }
    }

    /// The town after an institution that ends at token `last` and "in" ("Emerson Hospital in
    /// Concord", "Temple Beth Shalom in Quincy"): one to three capitalized words, as after
    /// "lives in".
    fn town_after_institution(&self, c: &mut Ctx, last: usize) {
        let k = last + 1;
        if c.toks.get(k).is_some_and(|t| {
            one_of(c.text, *t, &["in"]) && &c.text[c.toks[last].end..t.start] == " "
        }) && c.toks.get(k + 1).is_some_and(|t| t.shape == Shape::Cap)
        {
            self.place_after(c, k, false);
        }
    }

    /// The last token of the longest listed place of two words or more that opens at token
    /// `k`, its words one space apart and all in `k`'s case, on a line without a capitalized
    /// word ("lives in puerto rico", "FROM NEW HAMPSHIRE").
    fn place_phrase(&self, c: &Ctx, k: usize) -> Option<usize> {
        let shape = c.toks[k].shape;
        let mut key = c.words.folded(k).to_string();
        let mut best = None;
        let mut j = k;
        while j + 1 < c.toks.len() && j + 1 - k < self.cfg.place_phrase_max_words {
            let next = c.toks[j + 1];
            if &c.text[c.toks[j].end..next.start] != " " || next.shape != shape {
                break;
            }
            j += 1;
            key.push(' ');
            key.push_str(c.words.folded(j));
            if self.cfg.place_phrases.contains_key(key.as_str()) {
                best = Some(j);
            }
        }
        best.filter(|_| !capitalized_on_line(c.text, c.toks, k))
    }

    fn profession_after(&self, c: &mut Ctx, last: usize) {
        if self.profession_field(c, last) {
            return;
        }
        let mut k = last + 1;
        while k < c.toks.len() {
            let t = c.toks[k];
            let w = &c.text[t.start..t.end];
            if ARTICLES.iter().any(|a| a.eq_ignore_ascii_case(w))
                && !c.text[c.toks[k - 1].end..t.start].contains('\n')
            {
                k += 1;
            } else {
                break;
            }
        }
        if k >= c.toks.len() || c.text[c.toks[k - 1].end..c.toks[k].start].contains('\n') {
            return;
        }
        if let Some((j, _)) = c.pm.longest(k) {
            c.push_profession(k, j);
            employer::employer_after(c, j);
        }
    }
}

impl ContextRecognizer {
    /// A trigger written as a field label ("Ocupación: hogar", "Occupation: retired teacher"):
    /// its value up to the next punctuation is the profession, listed or not (up to 5 words).
    fn profession_field(&self, c: &mut Ctx, last: usize) -> bool {
        let k = last + 1;
        if k >= c.toks.len() || c.text[c.toks[last].end..c.toks[k].start].trim() != ":" {
            return false;
        }
        let mut j = k;
        while j + 1 < c.toks.len()
            && j + 1 - k < 5
            && !c.text[c.toks[j].end..c.toks[j + 1].start]
                .contains(['.', ',', ';', ':', '\n', '(', ')'])
        {
            j += 1;
        }
        c.push_profession(k, j);
        true
    }

    /// Listed professions that fill a comma-separated part of a sentence on their own, as in
    /// a patient's description ("Varón de 78 años, carpintero, exfumador").
    fn professions_in_apposition(&self, c: &mut Ctx) {
        let n = c.toks.len();
        let mut i = 1;
        while i < n {
            let before = &c.text[c.toks[i - 1].end..c.toks[i].start];
            // The byte test first: most gaps are one space, and trimming runs for every word.
            if !before.as_bytes().contains(&b',')
                || before.trim() != ","
                || c.toks[i].shape != Shape::Lower
            {
                i += 1;
                continue;
            }
            let Some((j, _)) = c.pm.longest(i) else {
                i += 1;
                continue;
            };
            let after = match c.toks.get(j + 1) {
                Some(t) => &c.text[c.toks[j].end..t.start],
                None => &c.text[c.toks[j].end..],
            };
            if after.trim_start().starts_with([',', '.', ';']) {
                c.push_profession(i, j);
            }
            i = j + 1;
        }
    }
}

impl Recognizer for ContextRecognizer {
    fn name(&self) -> &str {
        "context"
    }

    fn find(&self, text: &str, out: &mut Vec<Entity>) {
        self.find_in(text, &Words::new(text), out)
    }

    fn find_in(&self, text: &str, words: &Words, out: &mut Vec<Entity>) {
        let toks = &words.toks;
        let mut c = Ctx {
            text,
            words,
            toks,
            m: Matcher::new(&self.cfg.lex, text, words),
            pm: Matcher::new(&self.cfg.professions, text, words),
            out,
        };
        self.fields(&mut c);
        if self.staff_roles {
            staff::names_beside_roles(
                &mut c,
                self.cfg.ordinary_words.as_deref(),
                &self.cfg.first_name_words,
            );
        }
        if self.english_institutions {
            saints::saints_alone(&mut c, &self.cfg.eponym_heads);
            town_institutions::town_institutions(&mut c);
        }
        firms::firms(&mut c);
        let mut key = String::new();
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            if t.shape == Shape::Num {
                self.city_after_postcode(&mut c, i);
            }
            if is_initial(text, toks, i) {
                let next = self.initials(&mut c, i);
                i = next.max(i + 1);
                continue;
            }
            if t.shape == Shape::Num {
                i += 1;
                continue;
            }
            if t.shape == Shape::Cap && self.opens_name(&mut c, i, &mut key) {
                if let Some(run) = self.first_name_run(&mut c, i) {
                    i = run.last + 1;
                    continue;
                }
            }
            if let Some(ordinary) = self.cfg.ordinary_words.as_deref() {
                if let Some(run) = one_case_names::first_and_surname(&mut c, i, ordinary) {
                    let label = name_label(Subtype::Patient);
                    c.push_run(run, label, "context:full_name", S_FIRST_NAME_RUN);
                    i = run.last + 1;
                    continue;
                }
                if let Some(run) = one_case_names::first_name_from_service(&mut c, i, ordinary) {
                    let label = name_label(Subtype::Doctor);
                    c.push_run(run, label, "context:full_name", S_FIRST_NAME_RUN);
                    i = run.last + 1;
                    continue;
                }
            }
            let Some((last, bits)) = c.m.longest(i) else {
                i += 1;
                continue;
            };
            let proper = t.shape.is_proper();
            if bits & T_AFTER != 0 && i > 0 {
                if let Some(run) = name_backward(&mut c.m, text, toks, i - 1, 3) {
                    c.push_run(
                        run,
                        name_label(role_subtype(bits)),
                        "context:title",
                        S_TITLE,
                    );
                }
            } else if bits & TITLE != 0 {
                // All-caps short words are titles only with their dot or colon ("DR." not "MS").
                let punct = text[toks[last].end..].starts_with(['.', ':']);
                if t.shape != Shape::Upper || punct {
                    self.after_phrase(&mut c, last, bits);
                } else {
                    self.after_bare_caps_title(&mut c, last, bits);
                }
            }
            if bits & TRIGGER != 0 {
                // A staff word in the plural keeps its mark ("officers Dempsey and Kowalczyk").
                let plural = if bits & TITLE == 0 {
                    bits & T_PLURAL
                } else {
                    0
                };
                self.after_phrase(&mut c, last, bits & TRIGGER | plural);
                if bits & KIN != 0 && self.kin_terms {
                    let (s, e) = (t.start, toks[last].end);
                    c.out.push(Entity::new(
                        s,
                        e,
                        name_label(Subtype::Relative),
                        "context:kinship",
                        S_KIN,
                    ));
                }
            }
            if bits & (G_PLACE | PLACE_LISTED) != 0 {
                self.place_after(&mut c, last, bits & G_PLACE == 0);
            }
            if bits & SIGNOFF != 0 {
                self.signature(&mut c, i, last);
            }
            if bits & PROF_TRIG != 0 {
                self.profession_after(&mut c, last);
            }
            if bits & EMPLOYER != 0 {
                employer::employer_after(&mut c, last);
            }
            // In capitals, where case cannot end the name read forward, a word that both opens
            // and closes names ("HOSPITAL") closes one when capitalized words come before it:
            // "NORWOOD HOSPITAL WHEN STABLE" is Norwood Hospital.
            // The run before a tail word, read at most once here and below.
            let mut backward = None;
            let tail_first = t.shape == Shape::Upper
                && bits & (HOSP_HEAD | ORG_HEAD) != 0
                && bits & (HOSP_TAIL | ORG_TAIL) != 0
                && i > 0
                && backward
                    .insert(org_backward(&mut c.m, text, toks, i))
                    .is_some_and(|r| r.first < i);
            // "St. Brigid's Hospital ED for ICU": in English a unit's abbreviation after a word
            // that both opens and closes names is no part of a name it opens; the words before
            // it name the place, read below.
            let unit_after = self.english_institutions
                && bits & (HOSP_TAIL | ORG_TAIL) != 0
                && toks
                    .get(last + 1)
                    .is_some_and(|n| n.short_caps_after(toks[last], text));
            if proper && bits & (HOSP_HEAD | ORG_HEAD) != 0 && !tail_first && !unit_after {
                // A head of several words ("Hospital Comarcal") names a place on its own.
                let run = org_forward(&mut c.m, text, toks, last)
                    .or_else(|| (last > i).then_some(Run { first: i, last }));
                if let Some(run) = run {
                    let (label, source, score) = institution(bits & HOSP_HEAD != 0);
                    let (last, e) = match acronym_after(text, toks, run.last) {
                        Some((k, e)) => (k, e),
                        None => (run.last, toks[run.last].end),
                    };
                    c.out.push(Entity::new(t.start, e, label, source, score));
                    self.town_after_institution(&mut c, last);
                    i = last + 1;
                    continue;
                }
            }
            if proper && bits & (HOSP_TAIL | ORG_TAIL) != 0 && i > 0 {
                let backward = backward.unwrap_or_else(|| org_backward(&mut c.m, text, toks, i));
                if let Some(run) = backward {
                    // "Cardiology Associates of Woburn": services alone name a department,
                    // but with the town of the practice after them one place.
                    let end = town_of_after(&mut c, last);
                    if run.first < i
                        && !ordinary_words_for(
                            &mut c,
                            self.cfg.ordinary_words.as_deref(),
                            run.first,
                            i,
                        )
                        && !self
                            .cfg
                            .eponym_heads
                            .before(text, words, run.first, &mut key)
                        && (end > last || !services_only(&mut c.m, run.first, i))
                        && !service_after_term(&mut c.m, text, toks, run.first, i, last)
                    {
                        let (label, source, score) = institution(bits & HOSP_TAIL != 0);
                        let s = toks[run.first].start;
                        c.out
                            .push(Entity::new(s, toks[end].end, label, source, score));
                        self.town_after_institution(&mut c, end);
                    }
                }
            }
            if !proper && bits & (HOSP_TAIL | ORG_TAIL) != 0 && i > 0 {
                if let Some(ordinary) = self.cfg.ordinary_words.as_deref() {
                    if let Some(run) =
                        one_case_institutions::names_before_tail(&mut c, i, last, ordinary)
                    {
                        let (label, source, score) = institution(bits & HOSP_TAIL != 0);
                        c.push_run(run, label, source, score);
                    }
                }
            }
            i = if bits & (TITLE | TRIGGER | SIGNOFF | PROF_TRIG | G_PLACE) != 0 {
                last + 1
            } else {
                i + 1
            };
        }
        self.professions_in_apposition(&mut c);
        if self.proper_nouns {
            proper::proper_runs(&mut c);
        }
    }
}

/// Whether the run from token `first` to the tail word at `tail` ends in "for" and holds
/// ordinary words only before it (`ordinary`): the sentence's ("SENT FOR HOSPITAL ADMISSION",
/// "PLAN FOR HOSPITAL SCHOOL"), where a word no list holds is a name ("YOUVILLE FOR REHAB").
/// So it is where an ordinary word in the tail's case follows the tail: the tail word is then
/// the noun's modifier ("DME ORDER FOR HOSPITAL BED").
fn ordinary_words_for(
    c: &mut Ctx,
    ordinary: Option<&FxMap<String, ()>>,
    first: usize,
    tail: usize,
) -> bool {
    let Some(o) = ordinary else {
        return false;
    };
    // The ordinary words have four letters or more; a shorter word that names no one counts.
    let modified = c.toks.get(tail + 1).is_some_and(|n| {
        let word = &c.text[n.start..n.end];
        let short = (2..=3).contains(&word.len())
            && word.chars().all(|ch| ch.is_ascii_alphabetic())
            && c.m.single(tail + 1) & (FIRSTN | SURN) == 0;
        n.shape == c.toks[tail].shape
            && &c.text[c.toks[tail].end..n.start] == " "
            && (short || o.contains_key(c.words.folded(tail + 1)))
    });
    tail >= first + 2
        && one_of(c.text, c.toks[tail - 1], &["for"])
        && (modified || (first..tail - 1).all(|j| o.contains_key(c.words.folded(j))))
}

/// The label, source and score of an institution read from its head or tail words: a
/// hospital's (`hospital`) or another institution's.
fn institution(hospital: bool) -> (Label, &'static str, f32) {
    if hospital {
        let label = Label::new(Category::Location, Subtype::Hospital);
        (label, "context:hospital", S_HOSPITAL)
    } else {
        let label = Label::new(Category::Location, Subtype::Organization);
        (label, "context:institution", S_ORG)
    }
}

/// Whether token `k` and the next are a part of a building and its number, capitalized
/// ("transferred to Floor 10", "moved to Unit 7B"): the place inside the hospital.
fn building_part(text: &str, toks: &[Token], k: usize) -> bool {
    const PARTS: &[&str] = &[
        "Floor", "Unit", "Ward", "Room", "Pod", "Tower", "Wing", "Bed",
    ];
    PARTS.contains(&&text[toks[k].start..toks[k].end])
        && toks
            .get(k + 1)
            .is_some_and(|n| n.shape == Shape::Num && &text[toks[k].end..n.start] == " ")
}

/// The last token of an institution read back from its tail word at `last`, with "of" and a
/// place after it ("Women's Imaging Center of Nashua", "Ophthalmic Consultants of Boston"): the
/// place names which of a chain's sites it is. The place is a listed town, "Greater" and a
/// listed town, or a capitalized word and a region's noun ("Life Care Center of Nashoba
/// Valley"), in the tail word's case when that is capitals ("REHABILITATION CENTER OF BOSTON").
fn town_of_after(c: &mut Ctx, last: usize) -> usize {
    const REGION_NOUNS: &[&str] = &[
        "Valley", "County", "Shore", "Hills", "Heights", "Lakes", "Bay", "Coast",
    ];
    let (of, town) = (last + 1, last + 2);
    let spaced = |c: &Ctx, a: usize, b: usize| &c.text[c.toks[a].end..c.toks[b].start] == " ";
    let capitals = c.toks[last].shape == Shape::Upper;
    let name_shape = |c: &Ctx, k: usize| {
        k < c.toks.len()
            && (c.toks[k].shape == Shape::Cap || (capitals && c.toks[k].shape == Shape::Upper))
    };
    let opens = town < c.toks.len()
        && one_of(c.text, c.toks[of], &["of"])
        && spaced(c, last, of)
        && spaced(c, of, town)
        && name_shape(c, town);
    if !opens {
        return last;
    }
    let two_words = name_shape(c, town + 1) && spaced(c, town, town + 1);
    let greater_town = two_words
        && one_of(c.text, c.toks[town], &["Greater"])
        && c.m.single(town + 1) & PLACE_WORD != 0;
    let region = two_words && one_of(c.text, c.toks[town + 1], REGION_NOUNS);
    if greater_town || region {
        town + 1
    } else if c.m.single(town) & PLACE_WORD != 0 {
        town
    } else {
        last
    }
}

/// Words that put a service named by an abbreviation in a sentence rather than after its town
/// ("Per EMS, down 12 hours"); the verbs ("Called PD") already end the run read back
/// ([`runs::VERBS_BEFORE_ORG`]).
const BEFORE_SERVICE: &[&str] = &["per", "via", "by", "from", "with", "to", "and", "or"];

/// Whether the tail word `i..=last` is one abbreviation of at most three capitals ("PD",
/// "EMS") with an allow-listed word or a word of [`BEFORE_SERVICE`] among `first..i`: after a
/// town it names a service ("Brockton PD"), after an eponym a term ("Parkinson PD", peritoneal
/// dialysis or the disease), and after a preposition the service of a sentence.
fn service_after_term(
    m: &mut Matcher,
    text: &str,
    toks: &[Token],
    first: usize,
    i: usize,
    last: usize,
) -> bool {
    let short_caps =
        i == last && toks[i].shape == Shape::Upper && text[toks[i].start..toks[i].end].len() <= 3;
    short_caps
        && (first..i).any(|j| m.single(j) & ALLOWW != 0 || one_of(text, toks[j], BEFORE_SERVICE))
}

/// Whether tokens `first..tail` are all services of a hospital (STOP words and phrases:
/// "Cardiology", "Anticoagulation", "Urgent Care"): "the Anticoagulation Clinic" is a
/// department, which names no institution.
fn services_only(m: &mut Matcher, first: usize, tail: usize) -> bool {
    let mut j = first;
    while j < tail {
        j = match m.longest(j) {
            Some((last, bits)) if bits & STOP != 0 && last < tail => last + 1,
            _ if m.single(j) & STOP != 0 => j + 1,
            _ => return false,
        };
    }
    true
}

/// Whether a capitalized word that opens no sentence ("Ilona", not "Pt" in "Pt lives in
/// dedham. Dtr visits") stands on the line of token `k`, up to 30 tokens either side (bounded,
/// so that a long one-line document stays linear): a note that capitalizes only its sentences
/// marks no names by case.
pub(super) fn capitalized_on_line(text: &str, toks: &[Token], k: usize) -> bool {
    let same_line = |a: usize, b: usize| !text[toks[a].end..toks[b].start].contains('\n');
    let mut lo = k;
    while lo > 0 && k - lo < 30 && same_line(lo - 1, lo) {
        lo -= 1;
    }
    let mut hi = k;
    while hi + 1 < toks.len() && hi - k < 30 && same_line(hi, hi + 1) {
        hi += 1;
    }
    (lo..=hi).any(|i| {
        toks[i].shape == Shape::Cap && !crate::recognize::lookup::sentence_start(text, toks, i)
    })
}

/// The word of `lang` that joins two names.
fn conjunction(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "and",
        Lang::Nl => "en",
        Lang::Es => "y",
        Lang::It => "e",
        Lang::Hu => "és",
    }
}

/// Whether the word of token `t` reads as a plural ("sons", "DAUGHTERS", "children",
/// "kinderen").
fn plural_word(text: &str, t: Token) -> bool {
    let word = &text[t.start..t.end];
    word.ends_with(['s', 'S'])
        || word
            .get(word.len().saturating_sub(3)..)
            .is_some_and(|end| end.eq_ignore_ascii_case("ren"))
}

/// How the names after trigger token `trigger_last`, the first at token `first`, may go on
/// parted by commas: `Some(true)` in parentheses ("children (Pat, Brendan and Siobhan)"),
/// `Some(false)` after a plural relative's word or title ("sons Kieran, Padraig and Tom"),
/// `None` elsewhere ("son Kieran, Boston resident").
fn comma_list(
    text: &str,
    toks: &[Token],
    trigger_last: usize,
    first: usize,
    bits: u32,
) -> Option<bool> {
    let parenthesized = text[toks[trigger_last].end..toks[first].start].contains('(');
    let plural = bits & T_PLURAL != 0 || bits & G_REL != 0 && plural_word(text, toks[trigger_last]);
    (parenthesized || plural).then_some(parenthesized)
}

/// The token after `and` (the language's "and") or "&" right after token `last` ("Kieran and
/// Padraig", "Ana & Luis"), or after a comma inside a list of names that "and" closes
/// (`list`: see `comma_list`), where a list of names goes on.
fn next_conjunct(
    text: &str,
    toks: &[Token],
    last: usize,
    and: &str,
    list: Option<bool>,
) -> Option<usize> {
    let gap = |a: usize, b: usize| &text[toks[a].end..toks[b].start];
    let n = last + 1;
    let t = toks.get(n)?;
    if matches!(gap(last, n), " & " | ", & ") {
        return Some(n);
    }
    if text[t.start..t.end].to_lowercase() == and {
        return (matches!(gap(last, n), " " | ", ") && n + 1 < toks.len() && gap(n, n + 1) == " ")
            .then_some(n + 1);
    }
    // A comma parts the names of a list that "and" closes ("sons Kieran, Padraig and Tom").
    let rest = &text[toks[last].end..];
    list.filter(|&parenthesized| {
        gap(last, n) == ", " && names_list_follows(rest, and, parenthesized)
    })
    .map(|_| n)
}

/// Endings of English verbs and the adjectives made of them ("notified", "translating",
/// "agreeable"): a word no list holds that ends so is no name (here and in the taggers' spans,
/// `ner::caseless`).
pub const VERB_ENDINGS: [&str; 4] = ["ed", "ing", "able", "ible"];

/// Whether `word` (its `folded` form) may be a name no list holds: four letters or more, letters
/// only, and no ending of an English verb or clinical term ("verbalized", "obtunded",
/// "diaphoretic" may be missing from the ordinary words).
pub(super) fn unlisted_word(word: &str, folded: &str) -> bool {
    const CLINICAL_ENDINGS: [&str; 15] = [
        "tion", "sion", "ness", "ment", "ous", "ive", "ful", "less", "itis", "emia", "osis",
        "tomy", "scopy", "logy", "otic",
    ];
    word.chars().count() >= 4
        && word.chars().all(char::is_alphabetic)
        && !VERB_ENDINGS
            .iter()
            .chain(&CLINICAL_ENDINGS)
            .any(|e| folded.ends_with(e))
}

/// Whether the title token `t` is an abbreviation, never an ordinary word: written with its
/// full stop ("Prof.", "dra.") or without a vowel ("dr", "MRS", "sr").
fn abbreviated_title(text: &str, t: Token) -> bool {
    let word = &text[t.start..t.end];
    text[t.end..].starts_with('.')
        || !word
            .chars()
            .any(|ch| "aeiouyAEIOUY".contains(ch) || !ch.is_ascii_alphabetic())
}

/// Whether the one word at token `k`, of `min_chars` characters or more, is a place the lists
/// hold (`listed`: the bits that count), no term or surname that is a word, nor the first part
/// of a name joined by a hyphen ("FROM MELROSE-WAKEFIELD"), on a line without a capitalized
/// word ("home in dorchester", "portland, oregon").
fn caseless_place_word(c: &mut Ctx, k: usize, listed: u32, min_chars: usize) -> bool {
    let b = c.m.single(k);
    c.text[c.toks[k].start..c.toks[k].end].chars().count() >= min_chars
        && !c.text[c.toks[k].end..].starts_with('-')
        && b & listed != 0
        && b & (BREAKS | ALLOWW | SURN_WORD) == 0
        && !capitalized_on_line(c.text, c.toks, k)
}

/// Adds `run` as the name read after a title (`title`) or a trigger whose role `bits` give.
fn push_name_after(c: &mut Ctx, run: Run, bits: u32, title: bool) {
    let (source, score) = if title {
        ("context:title", S_TITLE)
    } else {
        ("context:trigger", S_TRIGGER)
    };
    c.push_run(run, name_label(role_subtype(bits)), source, score);
}

/// Whether token `k` in `shape` (one case) is a first name that is an ordinary word ("autumn",
/// "DESTINY", "june": `first_name_words`), read from the surname right after it: a listed
/// surname that is no ordinary word (`ordinary`), term or role, one blank apart.
fn ordinary_first_name(
    c: &mut Ctx,
    k: usize,
    shape: Shape,
    ordinary: Option<&FxMap<String, ()>>,
    first_name_words: &FxMap<String, ()>,
) -> bool {
    let (text, toks) = (c.text, c.toks);
    let Some(next) = toks.get(k + 1) else {
        return false;
    };
    // Of three letters or more: "In", "So" and "My" are first names the filter dropped too.
    let first_ok = toks[k].end - toks[k].start >= 3
        && first_name_words.contains_key(c.words.folded(k))
        && c.m.single(k) & (BREAKS | TRIGGER | ALLOW_VERB) == 0;
    if !first_ok || next.shape != shape || &text[toks[k].end..next.start] != " " {
        return false;
    }
    let b = c.m.single(k + 1);
    let surname = &text[next.start..next.end];
    (b & SURN != 0 || is_open_surname(b))
        && b & (BREAKS | TRIGGER | ALLOWW | SURN_WORD) == 0
        && surname.chars().count() >= 3
        && surname.chars().all(char::is_alphabetic)
        && ordinary.is_some_and(|o| !o.contains_key(c.words.folded(k + 1)))
}

/// The last token of a surname opened by "o'" or "d'" at token `k` in lower case ("o'rourke",
/// "d'angelo", "o'brien-walsh"): the word right after the apostrophe, of three letters or more,
/// and the parts joined to it by hyphens.
/// No ordinary word (`ordinary`) follows the apostrophe ("o'clock").
fn apostrophe_surname(
    text: &str,
    toks: &[Token],
    k: usize,
    ordinary: Option<&FxMap<String, ()>>,
) -> Option<usize> {
    let prefix = &text[toks[k].start..toks[k].end];
    let next = toks.get(k + 1)?;
    let joined = matches!(&text[toks[k].end..next.start], "'" | "\u{2019}");
    let word = |t: &Token| {
        t.shape == Shape::Lower
            && text[t.start..t.end].chars().count() >= 3
            && text[t.start..t.end].chars().all(char::is_alphabetic)
    };
    let ordinary_word = ordinary.is_some_and(|o| o.contains_key(&text[next.start..next.end]));
    if !matches!(prefix, "o" | "d") || !joined || !word(next) || ordinary_word {
        return None;
    }
    let mut last = k + 1;
    while let Some(t) = toks.get(last + 1) {
        if &text[toks[last].end..t.start] != "-" || !word(t) {
            break;
        }
        last += 1;
    }
    Some(last)
}

/// Whether `rest` opens with a phone number, after at most a blank and an opening
/// parenthesis, `@` or a colon: seven digits or more among digits, blanks, hyphens, dots and
/// parentheses ("(781) 555-0141", " 978-555-0103", " @ 617.555.0172").
fn phone_follows(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', '\t']);
    let rest = rest
        .strip_prefix(['@', ':'])
        .map_or(rest, |r| r.trim_start_matches([' ', '\t']));
    if !rest.starts_with(|ch: char| ch.is_ascii_digit() || ch == '(') {
        return false;
    }
    let number: String = rest
        .chars()
        .take_while(|ch| ch.is_ascii_digit() || matches!(ch, ' ' | '-' | '.' | '(' | ')'))
        .take(20)
        .collect();
    let number = number.trim_end_matches([' ', '-', '.', '(']);
    let digits = number.chars().filter(char::is_ascii_digit).count();
    // A closing word boundary: "617-555-0141x" or a longer code is no phone number.
    let next = rest[number.len()..].chars().next();
    digits >= 7 && next.is_none_or(|ch| !ch.is_alphanumeric())
}

/// A name after a trigger and an opening parenthesis, comma or quote is closed by its pair
/// ("daughter (Marisol)", "Son, Ezekiel, called", "goes by "Tink""), in parentheses also by
/// the list of names it opens ("children (Pat, Brendan and Siobhan)"); "Dos Hermanas,
/// Sevilla." and "Huisarts, Rijnstate" are a place and a workplace. Without either the name
/// stands.
fn closed_apposition(text: &str, toks: &[Token], trigger_last: usize, run: Run, and: &str) -> bool {
    let before = &text[toks[trigger_last].end..toks[run.first].start];
    let after = text[toks[run.last].end..].trim_start_matches([' ', '\t']);
    if before.contains('(') {
        after.starts_with(')') || names_list_follows(&text[toks[run.last].end..], and, true)
    } else if before.contains(['"', '“']) {
        after.starts_with(['"', '”'])
    } else if before.contains(',') {
        after.starts_with(',')
    } else {
        true
    }
}

/// Whether `run`, after a relative's word and a comma, ends its clause and is listed first
/// names that no place list holds ("with pt and dad, ezekiel."): an apposition the full stop
/// closes as a comma would. Not a place ("Dos Hermanas, Sevilla.").
fn first_names_end_clause(c: &mut Ctx, trigger_last: usize, run: Run) -> bool {
    let toks = c.toks;
    let before = &c.text[toks[trigger_last].end..toks[run.first].start];
    let after = c.text[toks[run.last].end..].trim_start_matches([' ', '\t']);
    before.trim_matches([' ', '\t']) == ","
        && (after.is_empty() || after.starts_with(['.', ';', '\n']))
        && (run.first..=run.last).all(|j| c.m.single(j) & (FIRSTN | PLACE_WORD) == FIRSTN)
}

/// Whether `rest`, the text right after a name, goes on with more names of a list up to the
/// list's end: items of one to three words of letters (hyphens and apostrophes inside),
/// parted by commas and the language's `and`, which parts the last two ("Kieran, Padraig and
/// Tom", ", brendan, and siobhan)", " and ann marie)"). `parenthesized`: the list ends at a
/// closing parenthesis on the same line, else at the clause's end.
fn names_list_follows(rest: &str, and: &str, parenthesized: bool) -> bool {
    let end = if parenthesized {
        match rest.find([')', '(', '\n']) {
            Some(i) if rest[i..].starts_with(')') => i,
            _ => return false,
        }
    } else {
        rest.find(['.', ';', ':', '(', ')', '\n'])
            .unwrap_or(rest.len())
    };
    let list = &rest[..end];
    if list.len() > 80 || !list.starts_with([',', ' ']) {
        return false;
    }
    let (mut item, mut joined_by_and) = (0, false);
    for word in list.split_inclusive(',').flat_map(str::split_whitespace) {
        let (word, comma) = match word.strip_suffix(',') {
            Some(w) => (w, true),
            None => (word, false),
        };
        if word.eq_ignore_ascii_case(and) {
            joined_by_and = true;
            item = 0;
        } else if !word.is_empty() {
            let letters = word
                .chars()
                .all(|ch| ch.is_alphabetic() || matches!(ch, '-' | '\'' | '\u{2019}'));
            item += 1;
            if !letters || item > 3 {
                return false;
            }
        }
        if comma {
            item = 0;
        }
    }
    joined_by_and && item > 0
}

/// The acronym in parentheses right after an institution's name ("Instituto Colombiano del
/// Dolor (INCODOL)"): its token and the byte after the closing parenthesis.
fn acronym_after(text: &str, toks: &[Token], last: usize) -> Option<(usize, usize)> {
    let k = last + 1;
    let t = toks.get(k)?;
    let open = &text[toks[last].end..t.start];
    let close = text[t.end..].strip_prefix(')')?;
    let is_acronym = t.shape == Shape::Upper && t.end - t.start <= 10;
    (is_acronym && open.trim_start_matches([' ', '\t']) == "(")
        .then(|| (k, text.len() - close.len()))
}

#[cfg(test)]
mod tests;
