//! Reads the context word lists of one language (titles, name triggers, field labels, sign-offs,
//! hospital and institution heads, profession triggers) into one phrase table plus side tables.
//!
//! Line formats (all files: `#` comments, one entry per line):
//! - `titles.txt`: `TITLE<TAB>ROLE[<TAB>after]`; ROLE is PATIENT, DOCTOR or RELATIVE; `after`
//!   marks titles that follow the name (Hungarian "úr", "asszony").
//! - `name_triggers.txt`: `PHRASE<TAB>ROLE[<TAB>tag]`; ROLE is PATIENT, DOCTOR, RELATIVE (a
//!   capitalized word after the phrase is a name of that role), PLACE (the words after it name a
//!   place: "lives in"), EMPLOYER and EMPLOYER_PREP (a work word and the preposition before
//!   the employer it names: "works nights at Market Basket"), STOP (a capitalized word that
//!   never belongs to a name and ends one: "Servicio", "Calle") or PARTICLE (a lowercase word
//!   inside names: "de", "van der"). `tag` marks kinship words that are themselves tagged as
//!   NAME/RELATIVE (the MEDDOCAN convention; see `ContextRecognizer::with_kinship_terms`);
//!   `plural` marks staff words in the plural, which name the people joined by "and" after
//!   them too ("officers Dempsey and Kowalczyk"), as a plural title does.
//! - `field_labels.txt`: `LABEL<TAB>CATEGORY/SUBTYPE` (the value after `LABEL:` gets that label)
//!   or `LABEL<TAB>-` (a label whose value is left to other recognizers; it only ends the value
//!   of the label before it on the same line).
//! - `signoffs.txt`: closing phrases; the name on the next line(s) is a signature.
//! - `hospitals.txt` / `institutions.txt`: `head: WORD` (starts a name: "Hospital" La Paz),
//!   `tail: WORD` (ends one: Antonius "Ziekenhuis"); plain lines are known names (lookup).
//! - `professions.txt`: plain professions; `trigger: PHRASE` introduces one ("de profesión").
//! - `first_names_foreign.txt` (derived): first names of the other languages, which open a name
//!   only with a capitalized word after it; `first_names_rare.txt` (derived, optional): the
//!   language's own first names below its list threshold, which take the same part.
//! - `surnames_open.txt`, `surname_words.txt` (derived): open surnames, and those of them that
//!   are ordinary words; the others are names after a lower-case title.
//! - `allow.txt`: plain words are medical terms that collide with names; `after: PHRASE` marks
//!   phrases after which a capitalized word is an eponym ("síndrome de"); `verb: WORD` the
//!   plain words that are the verb in lower case after a relative's word ("son will call").
//! - `places_surnames.txt` (derived, optional): towns that only the surname lists hold, places
//!   only after a place's phrase or preposition in a note without capitals ("in somerville").
//! - `ordinary_words.txt` (derived, optional; English from SCOWL): the language's ordinary
//!   lower-case words, so that in a note without capitals a word no list holds can be read as
//!   the name after a relative's or staff word ("SON FERGAL CALLED"); the drug lists
//!   (`drugs_open.txt`, `drug_abbreviations.txt`) count as ordinary words there.
//! - `first_name_words.txt` (derived, optional; English): first names that are ordinary words
//!   ("autumn", "destiny"), a first name only before a listed surname after a relative's or
//!   staff word in a note in one case, or alone right after a singular relative's word where
//!   the clause ends after it ("wife sunny to follow").
//! - `surnames_dropped.txt` (derived, optional; English): surnames that are ordinary words the
//!   corpora seldom use ("gold", "ng"), a name only right after a physician's abbreviated title
//!   in a note in one case, where the clause ends after it ("per dr gold.").
//! - `places_dropped.txt` (derived, optional): towns that are ordinary words the corpora seldom
//!   use, a place only right after a place's word in a note in one case, where the clause ends
//!   after it ("lives in revere with her son").

use crate::labels::{Label, Subtype};
use crate::lang::Lang;
use crate::recognize::lookup::lexicon::Lexicon;
use crate::recognize::lookup::tokens::{fold_phrase, FxMap};
use crate::recognize::lookup::{directive, plain_entries, EponymHeads, PLACE_LISTS};
use crate::wordlists::{ListSources, VocabError};
use std::collections::HashSet;
use std::sync::Arc;

pub const T_PAT: u32 = 1;
pub const T_DOC: u32 = 1 << 1;
pub const T_REL: u32 = 1 << 2;
pub const T_AFTER: u32 = 1 << 3;
pub const G_PAT: u32 = 1 << 4;
pub const G_DOC: u32 = 1 << 5;
pub const G_REL: u32 = 1 << 6;
pub const KIN: u32 = 1 << 7;
pub const SIGNOFF: u32 = 1 << 8;
pub const HOSP_HEAD: u32 = 1 << 9;
pub const HOSP_TAIL: u32 = 1 << 10;
pub const ORG_HEAD: u32 = 1 << 11;
pub const ORG_TAIL: u32 = 1 << 12;
pub const STOP: u32 = 1 << 13;
pub const PARTICLE: u32 = 1 << 14;
pub const PROF_TRIG: u32 = 1 << 15;
pub const FIRSTN: u32 = 1 << 16;
pub const SURN: u32 = 1 << 17;
pub const ALLOWW: u32 = 1 << 18;
/// A first name of another language (`first_names_foreign.txt`) or a rare one of the language
/// (`first_names_rare.txt`).
pub const FOREIGN: u32 = 1 << 19;
/// A one-word open surname (`surnames_open.txt`): a name after a lower-case title.
pub const SURN_OPEN: u32 = 1 << 20;
/// An open surname that is also an ordinary word (`surname_words.txt`: "states", "bank").
pub const SURN_WORD: u32 = 1 << 21;
/// A phrase after which a place is named (`PLACE` in `name_triggers.txt`: "lives in").
pub const G_PLACE: u32 = 1 << 22;
/// A one-word listed place (towns, regions, countries): the place after such a phrase in a
/// note without capitals ("home in dorchester").
pub const PLACE_WORD: u32 = 1 << 23;
/// A staff role written after the name, in capitals (`ROLE_AFTER` in `name_triggers.txt`:
/// "Tamsin, RN").
pub const ROLE_AFTER: u32 = 1 << 24;
/// A team or service word after which a listed name alone in parentheses is a staff member's
/// (`TEAM` in `name_triggers.txt`: "MICU team (Fenwick)").
pub const TEAM: u32 = 1 << 25;
/// A preposition after which a listed place is named in a line without capitals
/// (`PLACE_LISTED` in `name_triggers.txt`: "called from florida", "IN QUINCY").
pub const PLACE_LISTED: u32 = 1 << 26;
/// A title that names more than one person (`plural` in `titles.txt`: "Drs."): the names
/// joined to its first by the language's "and" are its too ("Drs. Stone and Whitcombe").
pub const T_PLURAL: u32 = 1 << 27;
/// A title that is a whole word of five letters or more, listed only without a full stop
/// ("Nurse", "Sister", "Doctor"): followed by one, it ends a sentence ("Staff Nurse.
/// Verified ...") and names no one.
pub const T_WORD: u32 = 1 << 28;
/// An allow-listed word that, in lower case right after a relative's word, is the verb of the
/// clause (`verb:` in `allow.txt`: "son will call", "wife may visit").
pub const ALLOW_VERB: u32 = 1 << 29;

/// A word of work after which an employer is named (`EMPLOYER` in `name_triggers.txt`:
/// "works", "employed"); a profession read after its trigger takes the same part.
pub const EMPLOYER: u32 = 1 << 30;
/// A preposition before an employer's name (`EMPLOYER_PREP` in `name_triggers.txt`: "at",
/// "for").
pub const EMPLOYER_PREP: u32 = 1 << 31;

/// Whether a word's `bits` make it an open surname that is no ordinary word (nor an
/// allow-listed medical word): a name where no capital marks one ("called dr obrien").
pub fn is_open_surname(bits: u32) -> bool {
    bits & (SURN_OPEN | SURN_WORD | ALLOWW) == SURN_OPEN
}

pub const TITLE: u32 = T_PAT | T_DOC | T_REL;
pub const TRIGGER: u32 = G_PAT | G_DOC | G_REL;
/// Words that end a name run.
pub const BREAKS: u32 =
    TITLE | T_AFTER | STOP | SIGNOFF | HOSP_HEAD | HOSP_TAIL | ORG_HEAD | ORG_TAIL;

pub struct ContextConfig {
    pub lex: Lexicon,
    pub professions: Lexicon,
    /// Folded field label → its value's label (`None`: value left to others).
    pub fields: FxMap<String, Option<Label>>,
    pub field_max_words: usize,
    /// Listed places of two words or more, folded as `fold_phrase` does ("puerto rico").
    pub place_phrases: FxMap<String, ()>,
    pub place_phrase_max_words: usize,
    pub eponym_heads: EponymHeads,
    /// The folded words of the value triggers (`id_triggers.txt`: "cell", "pager", "home" of
    /// "home phone"): no name before a phone number ("WIFE CELL (617) ...").
    pub value_words: FxMap<String, ()>,
    /// The folded ordinary words of the language (`ordinary_words.txt`); `None` where it ships
    /// none, which turns off reading an unlisted word as a name.
    pub ordinary_words: Option<Arc<FxMap<String, ()>>>,
    /// The folded drugs the notes name (`drugs_open.txt`, `drug_abbreviations.txt`), whose
    /// lists leave out every word that is also a name: no name after a trigger ("Baby Tylenol").
    pub drugs: FxMap<String, ()>,
    /// The folded first names that the common-word filter left out of the name lists
    /// (`first_name_words.txt`: "autumn", "destiny"), a name only before a listed surname or
    /// alone where the clause ends after it.
    pub first_name_words: FxMap<String, ()>,
    /// The folded surnames that the common-word filter left out of the name lists and the
    /// corpora seldom use as words (`surnames_dropped.txt`: "gold", "ng"), a name only right
    /// after a physician's abbreviated title in one case.
    pub surnames_dropped: FxMap<String, ()>,
    /// The folded weekdays of the language that are no listed first name ("sunday"): they end
    /// a name's run, but right after an abbreviated title one is the surname ("Dr. Sunday").
    pub weekdays: FxMap<String, ()>,
    /// The folded towns that the place lists left out as ordinary words the corpora seldom use
    /// (`places_dropped.txt`: "revere", "greenfield"), a place only right after a place's word
    /// in a note in one case, where the clause ends after it.
    pub places_dropped: FxMap<String, ()>,
}

fn role_bits(role: &str, title: bool) -> Option<u32> {
    let (p, d, r) = if title {
        (T_PAT, T_DOC, T_REL)
    } else {
        (G_PAT, G_DOC, G_REL)
    };
    match role {
        "PATIENT" => Some(p),
        "DOCTOR" => Some(d),
        "RELATIVE" => Some(r),
        "STOP" if !title => Some(STOP),
        "PLACE" if !title => Some(G_PLACE),
        "PARTICLE" if !title => Some(PARTICLE),
        "ROLE_AFTER" if !title => Some(ROLE_AFTER),
        "TEAM" if !title => Some(TEAM),
        "PLACE_LISTED" if !title => Some(PLACE_LISTED),
        "EMPLOYER" if !title => Some(EMPLOYER),
        "EMPLOYER_PREP" if !title => Some(EMPLOYER_PREP),
        _ => None,
    }
}

impl ContextConfig {
    pub fn load(lang: Lang, lists: &ListSources) -> Result<Self, VocabError> {
        let mut lex = Lexicon::new(lang == Lang::Hu);
        let titles = lists.load(lang, "titles")?;
        let dotted: HashSet<String> = titles
            .iter()
            .filter_map(|line| line.split('\t').next()?.trim().strip_suffix('.'))
            .map(fold_phrase)
            .collect();
        let triggers = lists.load(lang, "name_triggers")?;
        for (file, lines, title) in [("titles", titles, true), ("name_triggers", triggers, false)] {
            for (n, line) in lines.iter().enumerate() {
                let mut cols = line.split('\t').map(str::trim);
                let phrase = cols.next().unwrap_or("");
                let role = cols.next().unwrap_or("");
                let flag = cols.next().unwrap_or("");
                let mut bits = role_bits(role, title).ok_or_else(|| {
                    VocabError::bad_line(
                        lang,
                        file,
                        n + 1,
                        format!("unknown role '{role}' (entry {})", n + 1),
                    )
                })?;
                match (flag, title) {
                    ("", _) => {}
                    ("after", true) => bits |= T_AFTER,
                    ("plural", true) => bits |= T_PLURAL,
                    ("plural", false) if bits == G_DOC => bits |= T_PLURAL,
                    ("tag", false) if bits == G_REL => bits |= KIN,
                    _ => {
                        return Err(VocabError::bad_line(
                            lang,
                            file,
                            n + 1,
                            format!("unknown flag '{flag}'"),
                        ))
                    }
                }
                let word = title
                    && phrase.chars().count() >= 5
                    && phrase.chars().all(char::is_alphabetic)
                    && !dotted.contains(&fold_phrase(phrase));
                if word {
                    bits |= T_WORD;
                }
                if !lex.insert(phrase, bits) {
                    return Err(VocabError::bad_line(lang, file, n + 1, "entry has no word"));
                }
            }
        }
        for phrase in lists.load(lang, "signoffs")? {
            lex.insert(&phrase, SIGNOFF);
        }
        // The allow list, read once: its plain words, its `verb:` words and its eponym heads.
        let allow = lists.load(lang, "allow")?;
        for line in &allow {
            match directive(line) {
                Some(("verb", w)) => lex.insert(w, ALLOW_VERB),
                Some(_) => false,
                None => lex.insert(line, ALLOWW),
            };
        }
        for (file, head, tail) in [
            ("hospitals", HOSP_HEAD, HOSP_TAIL),
            ("institutions", ORG_HEAD, ORG_TAIL),
        ] {
            for line in lists.load(lang, file)? {
                match directive(&line) {
                    Some(("head", w)) => lex.insert(w, head),
                    Some(("tail", w)) => lex.insert(w, tail),
                    _ => false,
                };
            }
        }
        let mut professions = Lexicon::new(lang == Lang::Hu);
        for line in lists.load(lang, "professions")? {
            match directive(&line) {
                Some(("trigger", p)) => lex.insert(p, PROF_TRIG),
                Some(_) => false,
                None => professions.insert(&line, 1),
            };
        }
        for (file, bits) in [("first_names", FIRSTN), ("surnames", SURN)] {
            for e in plain_entries(lists, lang, file)? {
                lex.insert(&e, bits);
            }
        }
        // The open first names start name runs.
        let first_open = lists.load_optional(lang, "first_names_open")?;
        lex.reserve(first_open.len());
        for e in first_open {
            lex.insert(&e, FIRSTN);
        }
        // A weekday ends a name's run ("arrives from Ireland Friday 12/4"), unless the
        // language names people so ("Domingo Mederos").
        let mut weekdays: FxMap<String, ()> = FxMap::default();
        for day in crate::dates::weekday_full_names(lang) {
            if lex.word_bits(&fold_phrase(day)) & FIRSTN == 0 {
                lex.insert(day, STOP);
                weekdays.insert(fold_phrase(day), ());
            }
        }
        // The (much longer) open surnames are names where the surname comes first (Hungarian)
        // and after a lower-case title, where no capital marks them ("called dr obrien").
        // Elsewhere only their one-word entries, so that no phrase of them shadows a particle
        // ("de Jong" and "de").
        let hu = lang == Lang::Hu;
        let surnames = lists.load(lang, "surnames_open")?;
        lex.reserve(surnames.len());
        for e in surnames {
            if hu {
                lex.insert(&e, SURN | SURN_OPEN);
            } else if e.chars().all(char::is_alphabetic) {
                lex.insert(&e, SURN_OPEN);
            }
        }
        for e in lists.load(lang, "surname_words")? {
            lex.insert(&e, SURN_WORD);
        }
        // First names of the other languages only open a name that goes on (`first_name_run`).
        // Every language ships the list, so a missing one stops the run like the others.
        let foreign = lists.load(lang, "first_names_foreign")?;
        lex.reserve(foreign.len());
        for e in foreign {
            lex.insert(&e, FOREIGN);
        }
        // Rare first names of the language itself (English and Spanish: "Dermot") take the
        // same part; a language without the list has none.
        for e in lists.load_optional(lang, "first_names_rare")? {
            lex.insert(&e, FOREIGN);
        }
        // Places of letters only, for the place after "lives in" where no capital marks it:
        // one-word ones in the lexicon, longer ones folded as phrases apart, so that no town
        // named like a person ("Mary Esther") hides a name from the other rules.
        let mut place_phrases = FxMap::default();
        let mut place_phrase_max_words = 0;
        // The towns that only surname lists hold (`places_surnames.txt`, derived: Somerville,
        // Medford) are places here, after a place's phrase or preposition, and nowhere else.
        for file in PLACE_LISTS.iter().chain(&["places_surnames"]) {
            for e in lists.load_optional(lang, file)? {
                if e.chars().all(char::is_alphabetic) {
                    lex.insert(&e, PLACE_WORD);
                } else if e.chars().all(|c| c.is_alphabetic() || c == ' ') {
                    let phrase = fold_phrase(&e);
                    place_phrase_max_words = place_phrase_max_words.max(phrase.split(' ').count());
                    place_phrases.insert(phrase, ());
                }
            }
        }
        let mut fields = FxMap::default();
        let mut field_max_words = 1;
        for (n, line) in lists.load(lang, "field_labels")?.iter().enumerate() {
            let (name, lab) = line.split_once('\t').ok_or_else(|| {
                VocabError::bad_line(
                    lang,
                    "field_labels",
                    n + 1,
                    "expected LABEL<TAB>CATEGORY/SUBTYPE or -",
                )
            })?;
            let lab = lab.trim();
            let label = if lab == "-" {
                None
            } else {
                Some(Label::parse(lab).map_err(|e| {
                    VocabError::bad_line(lang, "field_labels", n + 1, e.to_string())
                })?)
            };
            let key = fold_phrase(name);
            if key.is_empty() {
                return Err(VocabError::bad_line(
                    lang,
                    "field_labels",
                    n + 1,
                    "label has no word",
                ));
            }
            field_max_words = field_max_words.max(key.split(' ').count());
            fields.insert(key, label);
        }
        let mut value_words = FxMap::default();
        for line in lists.load(lang, "id_triggers")? {
            let phrase = line.split('\t').next().unwrap_or("");
            for w in fold_phrase(phrase).split(' ').filter(|w| !w.is_empty()) {
                value_words.insert(w.to_string(), ());
            }
        }
        // The ordinary words, and with them the drugs the notes name (`drugs_open.txt`,
        // `drug_abbreviations.txt`: "md aware, lopressor held"), which no dictionary of
        // ordinary words holds; their list leaves out every word that is also a name.
        let mut drugs: FxMap<String, ()> = FxMap::default();
        for file in ["drugs_open", "drug_abbreviations"] {
            for line in lists.load_optional(lang, file)? {
                drugs.insert(fold_phrase(line.split('\t').next().unwrap_or("")), ());
            }
        }
        let ordinary = lists.load_optional(lang, "ordinary_words")?;
        let ordinary_words = (!ordinary.is_empty()).then(|| {
            let mut words = drugs.clone();
            words.extend(ordinary.iter().map(|w| (fold_phrase(w), ())));
            Arc::new(words)
        });
        let folded_words = |name: &str| -> Result<FxMap<String, ()>, VocabError> {
            let words = lists.load_optional(lang, name)?;
            Ok(words.iter().map(|w| (fold_phrase(w), ())).collect())
        };
        let first_name_words = folded_words("first_name_words")?;
        let surnames_dropped = folded_words("surnames_dropped")?;
        let places_dropped = folded_words("places_dropped")?;
        Ok(ContextConfig {
            lex,
            professions,
            fields,
            field_max_words,
            place_phrases,
            place_phrase_max_words,
            eponym_heads: EponymHeads::from_lines(&allow),
            value_words,
            ordinary_words,
            drugs,
            first_name_words,
            surnames_dropped,
            weekdays,
            places_dropped,
        })
    }
}

/// The NAME subtype a title or trigger implies.
pub fn role_subtype(bits: u32) -> Subtype {
    if bits & (T_DOC | G_DOC) != 0 {
        Subtype::Doctor
    } else if bits & (T_REL | G_REL) != 0 {
        Subtype::Relative
    } else {
        Subtype::Patient
    }
}
