//! Word-list (gazetteer) recognizer: first names, surnames, cities, regions, countries, known
//! hospitals and institutions, with an allow list of medical words that collide with them; and
//! the makers named before a listed place in a parenthesis (`maker`).

pub mod lexicon;
mod maker;
pub mod tokens;

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::recognize::dose_context::before_dose;
use crate::recognize::Recognizer;
use crate::span::Entity;
use crate::wordlists::{ListSources, VocabError};
use lexicon::{Lexicon, Matcher};
use tokens::{fold_phrase, FxMap, Shape, Token, Words};

pub(crate) const FIRST: u32 = 1;
pub(crate) const SURNAME: u32 = 1 << 1;
pub(crate) const CITY: u32 = 1 << 2;
pub(crate) const REGION: u32 = 1 << 3;
pub(crate) const COUNTRY: u32 = 1 << 4;
pub(crate) const HOSPITAL: u32 = 1 << 5;
pub(crate) const ORG: u32 = 1 << 6;
pub(crate) const ALLOW: u32 = 1 << 7;
/// A hospital or institution listed in capitals (`WHO`, `GGD`): it matches only in capitals, so
/// a sentence opening with "Who" is not the World Health Organization.
const ACRONYM: u32 = 1 << 8;
/// A town of the open gazetteer (`places_geonames`, `scripts/build_place_list.py`): found as a
/// city, but no input feature of a tagger, which learned the place feature on the other lists.
const TOWN: u32 = 1 << 9;
/// A one-word title or role trigger ("Dr", "nephew", "attending"): before a name it is no
/// part of it, even where a surname list holds it too ("NEPHEW RAYMOND OUELLETTE").
const ROLE: u32 = 1 << 10;
/// A country of the open gazetteer (`countries_geonames`): found as a country, and like
/// [`TOWN`] no input feature of a tagger.
const OPEN_COUNTRY: u32 = 1 << 11;
/// An allow-listed word that is also a verb after its subject (`verb:` in `allow.txt`: "will",
/// "may"): in capitals, after a name, it is the verb ("SON JOHN WILL CALL").
const VERB: u32 = 1 << 12;
const NAME_BITS: u32 = FIRST | SURNAME;
/// The places a tagger's list feature reads.
const FEATURE_PLACE_BITS: u32 = CITY | REGION | COUNTRY;
const PLACE_BITS: u32 = FEATURE_PLACE_BITS | TOWN | OPEN_COUNTRY;
/// Number of ids [`LookupRecognizer::word_lists`] returns.
pub const WORD_LIST_FEATURES: usize = 16;

/// The lists derived from open data by `scripts/build_name_lists.py` and
/// `scripts/build_place_list.py` (see `wordlists/PROVENANCE_names.md` and
/// `PROVENANCE_places.md`); not every language has all five. (`first_names_foreign` is no
/// lookup list: only the context rules read it, to open names.)
pub(crate) const OPEN_LISTS: [(&str, u32); 5] = [
    ("first_names_open", FIRST),
    ("surnames_open", SURNAME),
    ("places_open", CITY),
    ("places_geonames", TOWN),
    ("countries_geonames", OPEN_COUNTRY),
];

/// Every list of places, one place per entry (towns, regions, countries): the lists the context
/// rules and the tagger's gate read as places.
pub(crate) const PLACE_LISTS: [&str; 6] = [
    "cities",
    "regions",
    "countries",
    "places_open",
    "places_geonames",
    "countries_geonames",
];

/// Loads `name` and keeps the plain entries (lines without a `key:` directive).
pub(crate) fn plain_entries(
    lists: &ListSources,
    lang: Lang,
    name: &str,
) -> Result<Vec<String>, VocabError> {
    Ok(lists
        .load(lang, name)?
        .into_iter()
        .filter(|l| directive(l).is_none())
        .collect())
}

/// Whether a list entry is written in capitals: two or more letters, none lower case.
fn is_acronym(entry: &str) -> bool {
    entry.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && !entry.chars().any(char::is_lowercase)
}

/// `("head", "Hospital")` for a line `head: Hospital`; `None` for a plain entry.
pub(crate) fn directive(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    let key = key.trim();
    (!key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .then(|| (key, rest.trim()))
}

/// Folded phrases after which a capitalized word is an eponym ("enfermedad de" Parkinson),
/// from the `after:` lines of the allow list, and the words before which it is one ("Hickman"
/// line, "Alzheimer's" dementia), from its `tail:` lines.
#[derive(Default)]
pub struct EponymHeads {
    phrases: FxMap<String, ()>,
    /// The last word of every phrase: a word before a name that is none of them rules out
    /// every phrase with one lookup (the lists ask this of every name they find).
    last_words: FxMap<String, ()>,
    /// Tail words, lower case.
    tails: FxMap<String, ()>,
}

impl EponymHeads {
    /// The heads and tails of the allow list's lines, for a caller that reads its plain words
    /// too.
    pub fn from_lines(lines: &[String]) -> Self {
        let mut heads = EponymHeads::default();
        for line in lines {
            let p = match directive(line) {
                Some(("after", p)) => p,
                Some(("tail", w)) => {
                    heads.tails.insert(w.to_lowercase(), ());
                    continue;
                }
                _ => continue,
            };
            let phrase = fold_phrase(p);
            if let Some(last) = phrase.rsplit(' ').next().filter(|w| !w.is_empty()) {
                heads.last_words.insert(last.to_string(), ());
                heads.phrases.insert(phrase, ());
            }
        }
        heads
    }

    /// Whether the words right before token `i` (same line) form a head phrase. `key` is
    /// scratch space, reused across calls.
    pub fn before(&self, text: &str, words: &Words, i: usize, key: &mut String) -> bool {
        let toks = &words.toks;
        if i == 0 || !self.last_words.contains_key(words.folded(i - 1)) {
            return false;
        }
        let mut j = i;
        while j > 0 && i - j < 4 {
            let gap = &text[toks[j - 1].end..toks[j].start];
            if gap.contains('\n') || gap.len() > 4 || gap.contains([',', ';', '(', ')']) {
                break;
            }
            j -= 1;
            // The phrase of tokens j..i, folded and joined by single spaces.
            key.clear();
            for t in j..i {
                if !key.is_empty() {
                    key.push(' ');
                }
                key.push_str(words.folded(t));
            }
            if self.phrases.contains_key(key.as_str()) {
                return true;
            }
        }
        false
    }

    /// Whether the words right before byte `start` (same line, the gaps as [`Self::before`]
    /// allows them) form a head phrase: for a span found without the lookup's tokens (a
    /// tagger's "Rankin" of "modified Rankin 1").
    pub fn before_byte(&self, text: &str, start: usize) -> bool {
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let mut window = start.saturating_sub(60).max(line_start);
        while !text.is_char_boundary(window) {
            window += 1;
        }
        let mut toks = Vec::new();
        tokens::tokenize(&text[window..start], &mut toks);
        let mut first = toks.len();
        while first > 0 && toks.len() - first < 4 {
            let next = toks.get(first).map_or(start - window, |t| t.start);
            let gap = &text[window + toks[first - 1].end..window + next];
            if gap.len() > 4 || gap.contains([',', ';', '(', ')']) {
                break;
            }
            first -= 1;
            let phrase =
                fold_phrase(&text[window + toks[first].start..window + toks[toks.len() - 1].end]);
            if self.phrases.contains_key(phrase.as_str()) {
                return true;
            }
        }
        false
    }

    /// Whether a span of two words or more ends with a tail word (a tagger's "Sally port",
    /// "rogers guardianship": the eponym and its tail read as one name).
    pub fn ends_with_tail(&self, span: &str) -> bool {
        span.rsplit_once(' ')
            .is_some_and(|(_, last)| self.is_tail(&last.to_lowercase()))
    }

    /// Whether the folded word is a tail word.
    pub fn is_tail(&self, folded: &str) -> bool {
        self.tails.contains_key(folded)
    }

    /// Whether a tail word follows byte `end` (the end of a name), after one space or a
    /// possessive ("Hickman line", "Parkinson's disease", "Graves' disease"), as a whole word:
    /// "sign" but not "sign-out".
    pub fn tail_after(&self, text: &str, end: usize) -> bool {
        if self.tails.is_empty() {
            return false;
        }
        let rest = &text[end..];
        let rest = ["'s", "'S", "\u{2019}s", "\u{2019}S", "'", "\u{2019}"]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
            .unwrap_or(rest);
        let Some(rest) = rest.strip_prefix(' ') else {
            return false;
        };
        let len = rest
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(rest.len());
        let word = &rest[..len];
        !word.is_empty()
            && !rest[len..].starts_with(|c: char| c == '-' || c.is_alphanumeric())
            && self.tails.contains_key(word.to_lowercase().as_str())
    }
}

/// True when token `i` starts a sentence or a line (nothing but punctuation since the last stop).
pub(crate) fn sentence_start(text: &str, toks: &[Token], i: usize) -> bool {
    let before = if i == 0 {
        &text[..toks[0].start]
    } else {
        &text[toks[i - 1].end..toks[i].start]
    };
    i == 0 || before.contains(['.', '!', '?', ':', '\n', '•', '*', '"', '(', '-'])
}

pub struct LookupRecognizer {
    lex: Lexicon,
    heads: EponymHeads,
    /// Compass words that open a town's part ("East Boston", "e. boston"), lower case; the
    /// one-letter ones only with their full stop.
    compass: &'static [&'static str],
    /// See `country_code_before`.
    country_code_before: Option<&'static [&'static str]>,
    /// Names are written surname first (Hungarian), so a given name follows a surname.
    surname_first: bool,
    /// Whether an institution listed in capitals is found in lower case too, in a line without
    /// capitals (see `lower_case_institution`).
    lower_case_acronyms: bool,
    /// Whether words all in capitals leave a line without capitals (see `LowerCaseLines`).
    caps_words_in_lower_case_lines: bool,
}

/// The compass words of `lang` that name a part of a town before it.
pub(crate) fn compass_words(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &["east", "west", "north", "south", "e", "w", "n", "s"],
        _ => &[],
    }
}

/// The token before token `first` when it is one of `compass` right before it, a full word
/// after one space, a letter with its full stop ("e. boston").
pub(crate) fn compass_before(
    text: &str,
    toks: &[Token],
    first: usize,
    compass: &[&str],
) -> Option<usize> {
    let k = first.checked_sub(1)?;
    let word = &text[toks[k].start..toks[k].end];
    let gap = &text[toks[k].end..toks[first].start];
    let same_case = toks[k].shape == toks[first].shape
        || matches!(toks[k].shape, Shape::Initial) && toks[first].shape != Shape::Lower;
    let ok = compass.iter().any(|w| w.eq_ignore_ascii_case(word))
        && same_case
        && if word.len() == 1 {
            gap == ". "
        } else {
            gap == " "
        };
    ok.then_some(k)
}

struct Hit {
    first: usize,
    last: usize,
    bits: u32,
    /// A listed institution in lower case, on a line without capitals (see `LowerCaseLines`).
    lower_case_institution: bool,
}

impl LookupRecognizer {
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Self, VocabError> {
        let mut lex = Lexicon::new(lang == Lang::Hu);
        for (name, bits) in [
            ("first_names", FIRST),
            ("surnames", SURNAME),
            ("cities", CITY),
            ("regions", REGION),
            ("countries", COUNTRY),
            ("hospitals", HOSPITAL),
            ("institutions", ORG),
        ] {
            for entry in plain_entries(lists, lang, name)? {
                let acronym = bits & (HOSPITAL | ORG) != 0 && is_acronym(&entry);
                lex.insert(&entry, if acronym { bits | ACRONYM } else { bits });
            }
        }
        // The allow list, read once: its plain words, its `verb:` words and its eponym heads.
        let allow = lists.load(lang, "allow")?;
        for line in &allow {
            match directive(line) {
                None => lex.insert(line, ALLOW),
                Some(("verb", word)) => lex.insert(word, VERB),
                Some(_) => false,
            };
        }
        for word in role_words(lists, lang)? {
            lex.insert(&word, ROLE);
        }
        for (name, bits) in OPEN_LISTS {
            let entries = lists.load_optional(lang, name)?;
            lex.reserve(entries.len());
            for entry in entries {
                lex.insert(&entry, bits);
            }
        }
        Ok(LookupRecognizer {
            lex,
            heads: EponymHeads::from_lines(&allow),
            compass: compass_words(lang),
            country_code_before: country_code_before(lang),
            surname_first: lang.writes_surname_first(),
            lower_case_acronyms: lang == Lang::En,
            caps_words_in_lower_case_lines: lang == Lang::En,
        })
    }

    /// Which lists hold `word` as a whole entry, as a tagger's input feature in
    /// `0..WORD_LIST_FEATURES`: first name 1, surname 2, place 4, allow list 8, added. Case is
    /// ignored here (a tagger reads it from the word's shape), so `ryan` in a lower-case note
    /// counts as the listed first name. `buf` is scratch space, reused across calls.
    pub fn word_lists(&self, word: &str, buf: &mut String) -> u32 {
        tokens::fold_into(word, buf);
        let bits = self.lex.word_bits(buf);
        [FIRST, SURNAME, FEATURE_PLACE_BITS, ALLOW]
            .iter()
            .enumerate()
            .filter(|(_, &b)| bits & b != 0)
            .map(|(i, _)| 1 << i)
            .sum()
    }

    /// Whether tokens `i..=j`, all in lower case on a line without capitals, are a listed
    /// hospital or institution ("market basket", "walgreens", "rosie's place"): an entry of
    /// one word only if no other list holds it (a name, a place, a term or a role) and, when
    /// the list writes it in capitals, only an institution in English ("cvs", "mbta"; Dutch
    /// "ing" and Hungarian "mol" are words, and "bmc level" is no Boston Medical Center). Right
    /// after "at", "from", "to" or "in" a hospital of one word is one though a name list holds
    /// it too or the list writes it in capitals ("sleep study at lahey", "seen in mgh ed"):
    /// where the word is a surname there, it is a name to hide all the same.
    fn lower_case_institution(
        &self,
        text: &str,
        toks: &[Token],
        i: usize,
        j: usize,
        bits: u32,
    ) -> bool {
        let all_lower = toks[i..=j]
            .iter()
            .all(|t| t.shape == Shape::Lower || possessive_s(text, *t));
        let after_preposition = i > 0
            && &text[toks[i - 1].end..toks[i].start] == " "
            && ["at", "from", "to", "in"].contains(&&text[toks[i - 1].start..toks[i - 1].end]);
        let hospital_after_preposition = after_preposition
            && bits & HOSPITAL != 0
            && bits & (PLACE_BITS | ALLOW | VERB | ROLE) == 0
            && (bits & ACRONYM == 0 || self.lower_case_acronyms);
        let one_word_ok = j > i
            || toks[i].end - toks[i].start >= 3
                && (bits & (NAME_BITS | PLACE_BITS | ALLOW | VERB | ROLE) == 0
                    && (bits & ACRONYM == 0 || self.lower_case_acronyms && bits & HOSPITAL == 0)
                    || hospital_after_preposition);
        bits & (HOSPITAL | ORG) != 0 && all_lower && one_word_ok
    }

    fn hits(&self, text: &str, words: &Words) -> Vec<Hit> {
        let toks = &words.toks;
        let mut m = Matcher::new(&self.lex, text, words);
        let mut hits = Vec::new();
        let mut lines = LowerCaseLines {
            caps_words: self.caps_words_in_lower_case_lines,
            ..LowerCaseLines::default()
        };
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            // Only proper-noun shapes start an entry, or a short particle ("de Vries", "van Dijk").
            // An initial starts only a longer phrase ("A Coruña"). In a line without capitals
            // a lower-case word may open a listed institution ("filled at cvs").
            let short = t.end - t.start <= 3;
            let may_start =
                t.shape.is_proper() || (matches!(t.shape, Shape::Lower | Shape::Initial) && short);
            let lower_line = t.shape == Shape::Lower && lines.lower_case(text, t.start);
            if may_start || lower_line {
                if let Some((j, bits)) = m.longest(i) {
                    let institution =
                        lower_line && self.lower_case_institution(text, toks, i, j, bits);
                    let multi_ok = (may_start && (t.shape.is_proper() || j > i)) || institution;
                    let last_ok = match toks[j].shape {
                        Shape::Initial => false,
                        // A phrase may end in a possessive: "Brigham and Women's".
                        Shape::Lower => j > i && possessive_s(text, toks[j]) || institution,
                        _ => true,
                    };
                    if multi_ok && last_ok {
                        hits.push(Hit {
                            first: i,
                            last: j,
                            bits,
                            lower_case_institution: institution,
                        });
                        i = j + 1;
                        continue;
                    }
                }
            }
            i += 1;
        }
        hits
    }
}

/// Whether the line around a byte has no capital letter, remembered for the line so that a
/// pass over a document's tokens in order reads each line once. With `caps_words` (English)
/// only capitalized words count: a lower-case note writes its abbreviations and codes in
/// capitals ("left via pro ems ALS", "auth # TH992041").
#[derive(Default)]
struct LowerCaseLines {
    caps_words: bool,
    /// The end of the line last read, and whether it had no capital (no capitalized word).
    end: usize,
    lower: bool,
    read: bool,
}

impl LowerCaseLines {
    fn lower_case(&mut self, text: &str, at: usize) -> bool {
        if !self.read || at >= self.end {
            let start = text[..at].rfind('\n').map_or(0, |k| k + 1);
            self.end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |k| at + k);
            let line = &text[start..self.end];
            self.lower = if self.caps_words {
                !line
                    .split(|c: char| !c.is_alphanumeric())
                    .any(tokens::is_capitalized)
            } else {
                !line.chars().any(char::is_uppercase)
            };
            self.read = true;
        }
        self.lower
    }
}

/// The one-word titles and the one-word triggers of a patient's, doctor's or relative's name
/// (`titles.txt`, `name_triggers.txt`), without a final full stop.
fn role_words(lists: &ListSources, lang: Lang) -> Result<Vec<String>, VocabError> {
    let mut words = Vec::new();
    for file in ["titles", "name_triggers"] {
        for line in lists.load(lang, file)? {
            let mut cols = line.split('\t').map(str::trim);
            let word = cols.next().unwrap_or("").trim_end_matches('.');
            let role = matches!(cols.next(), Some("PATIENT" | "DOCTOR" | "RELATIVE"));
            if role && !word.is_empty() && !word.contains(char::is_whitespace) {
                words.push(word.to_string());
            }
        }
    }
    Ok(words)
}

/// Whether token `t` is the `s` of a possessive ("Women's", "Women’s").
fn possessive_s(text: &str, t: Token) -> bool {
    let before = &text[..t.start];
    &text[t.start..t.end] == "s" && (before.ends_with('\'') || before.ends_with('\u{2019}'))
}

/// The words after which a country written as two capitals is the country, where the
/// language's notes write other things so (`None`: anywhere). In English "US" is also an
/// ultrasound ("RUQ US showed", "under US guidance"); "moved to US in 1988", "back from the UK"
/// name the country.
fn country_code_before(lang: Lang) -> Option<&'static [&'static str]> {
    match lang {
        Lang::En => Some(&["the", "to", "in", "from"]),
        _ => None,
    }
}

/// Whether hit `h` is a place by its form: a country written as two capitals only right after
/// a word of `before` (see `country_code_before`), any other place wherever it stands.
fn country_code_placed(text: &str, toks: &[Token], h: &Hit, before: &[&str]) -> bool {
    let t = toks[h.first];
    let code = h.first == h.last && t.shape == Shape::Upper && t.end - t.start == 2;
    if !code {
        return true;
    }
    let Some(prev) = h.first.checked_sub(1).map(|b| toks[b]) else {
        return false;
    };
    &text[prev.end..t.start] == " "
        && before
            .iter()
            .any(|w| text[prev.start..prev.end].eq_ignore_ascii_case(w))
}

/// Two hits are parts of one name when only spaces or a hyphen separate them, and the second
/// is no unit written in capitals after the first ("Farber ED").
fn adjacent(text: &str, toks: &[Token], a: &Hit, b: &Hit) -> bool {
    let gap = &text[toks[a.last].end..toks[b.first].start];
    !gap.is_empty()
        && gap.len() <= 3
        && gap.bytes().all(|c| c == b' ' || c == b'-')
        && !toks[b.first].short_caps_after(toks[a.last], text)
}

impl Recognizer for LookupRecognizer {
    fn name(&self) -> &str {
        "lookup"
    }

    fn find(&self, text: &str, out: &mut Vec<Entity>) {
        self.find_in(text, &Words::new(text), out)
    }

    fn find_in(&self, text: &str, words: &Words, out: &mut Vec<Entity>) {
        let toks = &words.toks;
        let hits = self.hits(text, words);
        let mut key = String::new();
        for (k, h) in hits.iter().enumerate() {
            // A title, role word or institution is no neighbour: "DR SMITH" is no name of two
            // parts, and in "Mass General ED" the unit is no first name.
            let apart = ROLE | HOSPITAL | ORG;
            let prev = k
                .checked_sub(1)
                .map(|p| &hits[p])
                .filter(|p| p.bits & apart == 0 && adjacent(text, toks, p, h));
            let next = hits
                .get(k + 1)
                .filter(|n| n.bits & apart == 0 && adjacent(text, toks, h, n));
            let namey =
                |o: Option<&Hit>| o.is_some_and(|o| o.bits & NAME_BITS != 0 && o.bits & ALLOW == 0);
            // A title or role word opens no name ("NEPHEW RAYMOND"; "Heung-min Son" stays).
            if h.bits & ROLE != 0 && !namey(prev) {
                continue;
            }
            // "recovering on 7 West", "to 4 North": a ward named by its floor and a compass
            // word is no name and no town.
            let ward = h.first == h.last
                && h.first > 0
                && toks[h.first - 1].shape == Shape::Num
                && &text[toks[h.first - 1].end..toks[h.first].start] == " "
                && self.compass.iter().any(|w| {
                    w.len() > 1
                        && w.eq_ignore_ascii_case(&text[toks[h.first].start..toks[h.first].end])
                });
            if ward {
                continue;
            }
            let name_neighbour = namey(prev) || namey(next);
            // An allow-listed word is a name part before a name ("Hope Okafor") or after a
            // first name ("John Wilson"), but after a surname alone it is the term that follows
            // the name ("Baby Boy Nakamura Apgars 7/9"), where given names come first; so is
            // one that no name list holds, in capitals before a reading ("BABY MAVERICK BILI
            // 14.2").
            let term_before_reading = h.bits & NAME_BITS == 0
                && toks[h.first].shape == Shape::Upper
                && toks.get(h.last + 1).is_some_and(|n| {
                    n.shape == Shape::Num && &text[toks[h.last].end..n.start] == " "
                });
            let given_before = namey(prev)
                && (self.surname_first
                    || prev.is_some_and(|p| p.bits & FIRST != 0) && !term_before_reading);
            // In capitals, where case tells no verb from a name, a verb after a name is one
            // ("SON JOHN WILL CALL").
            let caps_verb = h.bits & VERB != 0 && toks[h.first].shape == Shape::Upper;
            if h.bits & ALLOW != 0 && (!(namey(next) || given_before) || caps_verb && !namey(next))
            {
                continue;
            }
            // An eponym head ("bolsa de") hides names, never a listed place: "bolsa de Douglas"
            // is anatomy, "bolsa de Madrid" the stock exchange of a city. A place that is also
            // allow-listed as an eponym ("escala de Glasgow") stays hidden.
            // A title right before keeps the name before a tail word ("Dr Nguyen's line").
            let titled = || {
                k.checked_sub(1).map(|p| &hits[p]).is_some_and(|p| {
                    let gap = &text[toks[p.last].end..toks[h.first].start];
                    p.bits & ROLE != 0
                        && gap.len() <= 3
                        && gap.bytes().all(|c| c == b' ' || c == b'.')
                })
            };
            // The tail word itself closes the capitalized word before it ("SALLY PORT").
            let tail_word = h.first == h.last
                && h.first > 0
                && self.heads.is_tail(words.folded(h.first))
                && &text[toks[h.first - 1].end..toks[h.first].start] == " "
                && toks[h.first - 1].shape == toks[h.first].shape;
            let eponym = self.heads.before(text, words, h.first, &mut key)
                || (tail_word || self.heads.tail_after(text, toks[h.last].end)) && !titled();
            let place = h.bits & PLACE_BITS != 0 && h.bits & ALLOW == 0;
            if eponym && !place {
                continue;
            }
            // An allow-listed word right next to a known name part is a surname after all.
            // Not one in lower case, which only a line without capitals lets through ("cvs").
            let h_bits = if h.bits & ACRONYM != 0
                && toks[h.first..=h.last]
                    .iter()
                    .any(|t| matches!(t.shape, Shape::Cap | Shape::Lower))
                && !h.lower_case_institution
            {
                h.bits & !(ACRONYM | HOSPITAL | ORG)
            } else {
                h.bits
            };
            let b = if eponym {
                h_bits & !NAME_BITS
            } else if h_bits & ALLOW != 0 {
                h_bits | SURNAME
            } else {
                h_bits
            };
            let (label, source, score) = if b & HOSPITAL != 0 {
                (
                    Label::new(Category::Location, Subtype::Hospital),
                    "lookup:hospitals",
                    0.7,
                )
            } else if b & ORG != 0 {
                (
                    Label::new(Category::Location, Subtype::Organization),
                    "lookup:institutions",
                    0.6,
                )
            } else if b & NAME_BITS != 0 && (b & PLACE_BITS == 0 || name_neighbour) {
                // A lone capitalized surname opening a sentence is too often a common word.
                let lone = prev.is_none() && next.is_none();
                if lone && b & FIRST == 0 && sentence_start(text, toks, h.first) {
                    continue;
                }
                // A lone all-caps "name" is mostly an acronym (EVA, ANA, ELISA).
                if lone && h.first == h.last && toks[h.first].shape == Shape::Upper {
                    continue;
                }
                // A lone "name" right before a dose, a drip or a schedule is a drug ("Neo gtt").
                if lone && before_dose(text, toks[h.last].end) {
                    continue;
                }
                let source = if b & SURNAME != 0 {
                    "lookup:surnames"
                } else {
                    "lookup:first_names"
                };
                (Label::new(Category::Name, Subtype::Patient), source, 0.45)
            } else if b & (COUNTRY | OPEN_COUNTRY) != 0 {
                if self
                    .country_code_before
                    .is_some_and(|before| !country_code_placed(text, toks, h, before))
                {
                    continue;
                }
                (
                    Label::new(Category::Location, Subtype::Country),
                    "lookup:countries",
                    0.55,
                )
            } else if b & REGION != 0 {
                (
                    Label::new(Category::Location, Subtype::State),
                    "lookup:regions",
                    0.5,
                )
            } else if b & (CITY | TOWN) != 0 {
                (
                    Label::new(Category::Location, Subtype::City),
                    "lookup:cities",
                    0.5,
                )
            } else {
                continue;
            };
            let first = if label.subtype == Some(Subtype::City) {
                compass_before(text, toks, h.first, self.compass).unwrap_or(h.first)
            } else {
                h.first
            };
            out.push(Entity::new(
                toks[first].start,
                toks[h.last].end,
                label,
                source,
                score,
            ));
        }
        let places: Vec<&Hit> = hits
            .iter()
            .filter(|h| h.bits & PLACE_BITS != 0 && h.bits & ALLOW == 0)
            .collect();
        if !places.is_empty() {
            let org = Label::new(Category::Location, Subtype::Organization);
            for (first, last) in maker::makers(text, toks, &places) {
                let (s, e) = (toks[first].start, toks[last].end);
                out.push(Entity::new(s, e, org, "lookup:maker", 0.6));
            }
        }
    }
}

#[cfg(test)]
mod tests;
