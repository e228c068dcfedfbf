//! Street addresses: a street-type word (`wordlists/<lang>/street_types.txt`) with the name around
//! it and a house number/floor/door tail; plus typeless "Name, 12" right before a postcode.

use super::text::{is_title_word, line_start_within, next_char, prev_char, run_start};
use super::{Cand, PatternError};
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::wordlists::ListSources;
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// How far before a postcode the street in front of it is looked for (it is read back at most
/// five words and 30 bytes; the bound keeps a long single-line document linear).
const ZIP_LOOKBACK: usize = 512;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Before,
    After,
    Ending,
}

pub struct Streets {
    lang: Lang,
    ac: AhoCorasick,
    entries: Vec<(Kind, String)>,
}

const CONNECTORS: &[&str] = &[
    "de", "del", "la", "las", "los", "el", "di", "della", "delle", "dei", "degli", "dello", "da",
    "of", "the", "van", "der", "den", "het", "ter", "ten", "y", "e", "i", "d'", "l'", "sul",
];

/// English street types that make a street without a house number after "on" ("fell outside
/// her home on Elm St"): not `Way`, `Place` or `Court`, which "on" takes as words as often,
/// and `Dr.` (a doctor's title: "seen on Monday Dr. Kessler") only where no word follows it in
/// its sentence ([`ends_clause`]: "lives on Quincy Shore Dr.").
const UNNUMBERED: &[&str] = &[
    "Drive",
    "Street",
    "St",
    "St.",
    "Road",
    "Rd",
    "Rd.",
    "Avenue",
    "Ave",
    "Ave.",
    "Lane",
    "Ln",
    "Ln.",
    "Boulevard",
    "Blvd",
    "Blvd.",
];

/// Words that are no part of a street's name in a note written in one case ("on the road",
/// "on her street", "91 and cannot drive", "11/3 from st. brendan", "visited pt 1300 per court
/// order"): English determiners, possessives, prepositions, conjunctions and auxiliaries, a
/// closed class.
const NO_STREET_NAME: &[&str] = &[
    "the", "a", "an", "his", "her", "their", "my", "our", "your", "its", "this", "that", "same",
    "other", "each", "every", "any", "no", "at", "from", "to", "in", "on", "by", "for", "with",
    "of", "near", "into", "onto", "off", "via", "and", "or", "but", "nor", "not", "cannot", "can",
    "does", "did", "do", "is", "was", "are", "were", "will", "would", "should", "may", "per", "as",
    "after", "before", "until", "about", "than", "then", "if", "when",
];

/// A street written in one case, all in lower case or all in capitals, as the type word
/// `text[s..e]` (the list's `word`) is: one to three words of letters in that case before it,
/// after a house number or after "on" ("lives at 12 forest st", "fell at home on forest st",
/// "STRUCK ON MASS AVE NEAR"). After "on" only the types of [`UNNUMBERED`], and never `Dr`.
fn one_case_street(text: &str, s: usize, e: usize, word: &str) -> Option<Cand> {
    let found = &text[s..e];
    // "Dr" is a title as often; "drive" a verb ("91 and cannot drive").
    let kind = word.trim_end_matches('.').to_lowercase();
    if kind == "dr" || kind == "drive" {
        return None;
    }
    let lower = one_case(found)?;
    let same_case = |w: &str| {
        w.chars().any(char::is_alphabetic)
            && w.chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'' || c == '’')
            && in_case(w, lower)
    };
    let mut start = s;
    let mut n = 0;
    while n < 3 {
        let Some(before) = text[..start].strip_suffix(' ') else {
            break;
        };
        let ws = run_start(before, |c| {
            c.is_alphanumeric() || c == '-' || c == '\'' || c == '’'
        });
        let w = &before[ws..];
        if !same_case(w) || NO_STREET_NAME.contains(&w.to_lowercase().as_str()) {
            break;
        }
        start = ws;
        n += 1;
    }
    if n == 0 {
        return None;
    }
    let before = text[..start].trim_end_matches(' ');
    let ws = run_start(before, char::is_alphanumeric);
    let number = &before[ws..];
    // A house number stands alone: "11/3 from st" holds a date.
    let numbered = before.len() < start
        && prev_char(before, ws).is_none_or(|c| c.is_whitespace() || c == '#')
        && !number.is_empty()
        && number.len() <= 5
        && number.starts_with(|c: char| c.is_ascii_digit())
        && number.chars().all(|c| c.is_ascii_alphanumeric());
    let unnumbered = UNNUMBERED.contains(&word) && after_on(text, start);
    if !numbered && !unnumbered {
        return None;
    }
    let start = if numbered { ws } else { start };
    // "on forest st. wife witnessed": in one case a full stop after the type may end the
    // sentence as well as shorten the word; the street is the same without it.
    let end = match found.strip_suffix('.') {
        Some(bare) => s + bare.len(),
        None => unit_tail(text, e),
    };
    Some(street(start, end, 0.8))
}

/// `Some(true)` when the letters of `s` are all in lower case, `Some(false)` when all are
/// capitals, `None` when it mixes them or has none.
fn one_case(s: &str) -> Option<bool> {
    let lower = !s.chars().any(char::is_uppercase);
    let upper = !s.chars().any(char::is_lowercase);
    (lower != upper).then_some(lower)
}

/// Whether `w` has no letter of the case other than `lower` says.
fn in_case(w: &str, lower: bool) -> bool {
    if lower {
        !w.chars().any(char::is_uppercase)
    } else {
        !w.chars().any(char::is_lowercase)
    }
}

/// Whether the word right before byte `start` (one space between) is "on".
fn after_on(text: &str, start: usize) -> bool {
    text[..start].strip_suffix(' ').is_some_and(|b| {
        b.len() >= 2
            && b[b.len() - 2..].eq_ignore_ascii_case("on")
            && prev_char(b, b.len() - 2).is_none_or(|c| !c.is_alphanumeric())
    })
}

/// Words that end a typeless street name when walking back from its number (institutions).
const STOP_WORDS: &[&str] = &[
    "Hospital",
    "Universitario",
    "Universitaria",
    "Universidad",
    "Servicio",
    "Centro",
    "Clínica",
    "Clinica",
    "Unidad",
    "Departamento",
    "Instituto",
    "Fundación",
    "Facultad",
    "General",
    "Salud",
    "Médico",
    "Apartado",
    "Sección",
    "Consultorio",
    "Complejo",
    "Ospedale",
    "Azienda",
    "Reparto",
    "Zona",
    "Planta",
];

/// Title words that open a compound street name ("Sint Jacobsstraat", "Burg. de Withstraat");
/// on their own they open other names too ("Sint Antonius Ziekenhuis").
const NAME_PREFIXES: &[&str] = &[
    "Sint",
    "St.",
    "Burgemeester",
    "Burg.",
    "Koningin",
    "Prins",
    "Dokter",
    "Dr.",
];

/// Floor, door and staircase words after a house number ("3º izq.", "bajo C", "1 dcha").
const TAIL_WORDS: &[&str] = &[
    "bajo",
    "izq",
    "izda",
    "izqda",
    "izquierda",
    "iz",
    "dcha",
    "dch",
    "dcho",
    "der",
    "derecha",
    "bis",
    "piso",
    "pta",
    "puerta",
    "esc",
    "escalera",
    "ático",
    "atico",
    "entlo",
    "local",
    "planta",
    "int",
    "interno",
    "scala",
    "sc",
    "hs",
    "huis",
    "em",
    "emelet",
    "ajtó",
    "fszt",
    "almd",
    "mo",
    "portal",
    "bloque",
    "blq",
    "edificio",
    "edif",
    "apto",
    "dpto",
    "depto",
    "oficina",
];

/// English words of a flat or unit after the street ("88 Elm St, Apt 3", "12 Main St Unit 2B").
const UNIT_WORDS: &[&str] = &["apt", "apartment", "unit", "suite", "ste", "fl", "floor"];

/// Whether `word` names a floor, door, flat or unit of an address ("piso", "Apt", "Unit"):
/// a surrogate address keeps it as written.
pub fn is_unit_word(word: &str) -> bool {
    let lower = word.trim_end_matches('.').to_lowercase();
    UNIT_WORDS.contains(&lower.as_str()) || TAIL_WORDS.contains(&lower.as_str())
}

fn is_abbrev(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() <= 4
}

impl Streets {
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Self, PatternError> {
        let raw = lists.load(lang, "street_types")?;
        let mut entries = Vec::with_capacity(raw.len());
        for (i, line) in raw.iter().enumerate() {
            let bad = |msg: &str| PatternError::BadEntry {
                list: format!("{}/street_types", lang.code()),
                entry: i + 1,
                msg: msg.to_string(),
            };
            let (kind, word) = line
                .split_once('\t')
                .ok_or_else(|| bad("expected KIND<TAB>WORD"))?;
            let kind = match kind.trim() {
                "before" => Kind::Before,
                "after" => Kind::After,
                "ending" => Kind::Ending,
                _ => return Err(bad("KIND must be before, after or ending")),
            };
            let word = word.trim();
            if word.is_empty() {
                return Err(bad("empty word"));
            }
            entries.push((kind, word.to_string()));
        }
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(entries.iter().map(|(_, w)| w.as_str()))
            .map_err(|e| PatternError::Regex(e.to_string()))?;
        Ok(Streets { lang, ac, entries })
    }

    pub fn find(&self, text: &str, out: &mut Vec<Cand>) {
        for m in self.ac.find_iter(text) {
            let (kind, word) = &self.entries[m.pattern().as_usize()];
            let (s, e) = (m.start(), m.end());
            let found = &text[s..e];
            let ends_alnum = found.chars().next_back().is_some_and(char::is_alphanumeric);
            if ends_alnum && next_char(text, e).is_some_and(char::is_alphanumeric) {
                continue;
            }
            let c = match kind {
                Kind::Before => {
                    let exact =
                        found == word || (word.chars().count() > 4 && found == word.to_uppercase());
                    let lower = !exact && found == word.to_lowercase();
                    if !(exact || lower) || prev_char(text, s).is_some_and(char::is_alphanumeric) {
                        continue;
                    }
                    // A full word followed by "." ends a sentence ("... el Paseo.").
                    if !word.ends_with(['.', '/'])
                        && word.chars().count() > 4
                        && text[e..].starts_with('.')
                    {
                        continue;
                    }
                    self.before(text, s, e, lower)
                }
                Kind::After => {
                    // "3rd floor walk-up", "court-ordered": an English type word joined by a
                    // hyphen to a word is that compound's.
                    let compound = self.lang == Lang::En
                        && text[e..]
                            .strip_prefix('-')
                            .is_some_and(|r| r.starts_with(char::is_alphabetic));
                    if compound || prev_char(text, s).is_some_and(char::is_alphanumeric) {
                        continue;
                    }
                    self.after(text, s, e, word)
                }
                Kind::Ending => self.ending(text, s, e),
            };
            if let Some(c) = c {
                if self.lang == Lang::En {
                    out.extend(town_after(text, c.start, c.end));
                }
                out.push(c);
            }
        }
    }

    /// "Calle Carmen Romero, 23, 1D", "Avda. de la Constitución 12", "Via Roma 12".
    /// `lowercase`: the type word was written in lowercase ("en la calle Mayor 5"), which is
    /// accepted only with a capitalized name and a house number.
    fn before(&self, text: &str, s: usize, e: usize, lowercase: bool) -> Option<Cand> {
        let mut p = e;
        if text[p..].starts_with('.') {
            p += 1;
        }
        let (words, name_end_all) = name_words(text, p, 7);
        if words.is_empty() {
            return None;
        }
        let tail = number_tail(text, name_end_all);
        if lowercase && (tail == name_end_all || !is_name_word(&text[words[0].0..words[0].1])) {
            return None;
        }
        let end = if tail > name_end_all {
            tail
        } else {
            if self.lang == Lang::Nl {
                return None;
            }
            // No number: keep the name up to its last capitalized word.
            let last_cap = words
                .iter()
                .rposition(|(ws, we)| is_name_word(&text[*ws..*we]))?;
            words[last_cap].1
        };
        if tail == name_end_all && !words.iter().any(|(ws, we)| is_name_word(&text[*ws..*we])) {
            return None;
        }
        Some(street(s, end, 0.8))
    }

    /// "Kossuth Lajos utca 12.", "Petőfi u. 3.", "221B Baker Street".
    fn after(&self, text: &str, s: usize, e: usize, word: &str) -> Option<Cand> {
        // Name: capitalized words right before the type word.
        let mut start = s;
        let mut n = 0;
        loop {
            let before = text[..start].trim_end_matches(' ');
            if before.len() == start || n == 4 {
                break;
            }
            let ws = run_start(before, |c| c.is_alphanumeric() || c == '-' || c == '\'');
            let w = &before[ws..];
            if w.is_empty() || !(is_title_word(w) || (n > 0 && CONNECTORS.contains(&w))) {
                break;
            }
            start = ws;
            n += 1;
        }
        if n == 0 {
            return (self.lang == Lang::En)
                .then(|| one_case_street(text, s, e, word))
                .flatten();
        }
        let mut end = e;
        let tail = number_tail(text, end);
        let mut numbered = tail > end;
        if numbered {
            end = tail;
            if self.lang == Lang::Hu && text[end..].starts_with('.') {
                end += 1;
            }
        }
        // English house number before the name: "221B Baker Street".
        let before = text[..start].trim_end_matches(' ');
        if self.lang == Lang::En && before.len() < start {
            let ws = run_start(before, char::is_alphanumeric);
            let w = &before[ws..];
            if !w.is_empty()
                && w.len() <= 5
                && w.starts_with(|c: char| c.is_ascii_digit())
                && w.chars().all(|c| c.is_ascii_alphanumeric())
            {
                start = ws;
                numbered = true;
            }
        }
        // "48 Tanglewood Dr, Hudson": without its full stop "Dr" is a street type only after a
        // house number and before a comma or the line's end; elsewhere it is a doctor's title.
        if word == "Dr"
            && !(numbered
                && text[e..]
                    .chars()
                    .next()
                    .is_none_or(|c| matches!(c, ',' | ';' | '\n' | '\r')))
        {
            return None;
        }
        let abbreviated = word.ends_with('.');
        let on_street = self.lang == Lang::En
            && after_on(text, start)
            && (UNNUMBERED.contains(&word) || word == "Dr." && ends_clause(text, e));
        if !numbered
            && !on_street
            && (self.lang == Lang::En || self.lang == Lang::Nl || abbreviated)
        {
            return None;
        }
        if self.lang == Lang::En {
            let with_unit = unit_tail(text, end);
            // "lives on Huntington Ave. Parents ...": the abbreviation's full stop ends the
            // sentence too, and goes with it.
            end = if with_unit == end && abbreviated && sentence_ends_at(text, end - 1) {
                end - 1
            } else {
                with_unit
            };
        }
        Some(street(start, end, 0.8))
    }

    /// Dutch compounds: "Kerkstraat 12", "Van Eeghenstraat 7-II", "Laan van Meerdervoort 10".
    fn ending(&self, text: &str, s: usize, e: usize) -> Option<Cand> {
        let ws = run_start(&text[..s], |c| c.is_alphabetic() || c == '-' || c == '\'');
        let word = &text[ws..e];
        // The ending alone ("meneer van Dijk, 80 jaar") is a surname, not a street compound.
        if ws == s || !word.starts_with(|c: char| c.is_uppercase()) {
            return None;
        }
        let tail = number_tail(text, e);
        if tail == e {
            return None;
        }
        // "Van", "De", "Sint", "Burgemeester" directly before belong to the name.
        let mut start = ws;
        let before = text[..start].trim_end_matches(' ');
        if before.len() + 1 == start {
            let pws = run_start(before, |c| c.is_alphabetic() || c == '.');
            let pw = &before[pws..];
            if (CONNECTORS.contains(&pw.to_lowercase().as_str()) && is_title_word(pw))
                || NAME_PREFIXES.contains(&pw)
            {
                start = pws;
            }
        }
        Some(street(start, tail, 0.8))
    }

    /// Typeless street ending right before a postcode at `zip`: "Hermanos Falcó, s/n - 02006".
    pub fn before_zip(&self, text: &str, zip: usize) -> Option<Cand> {
        let ls = line_start_within(text, zip, ZIP_LOOKBACK);
        let seg = &text[ls..zip];
        let seg = seg.trim_end_matches([' ', ',', '.', '-', '–']);
        if seg.is_empty() {
            return None;
        }
        // Find the house number start: the last "<letter>,? <digit|s/n>" in the last 30 bytes.
        let lo = super::text::floor_char_boundary(seg, seg.len().saturating_sub(30));
        let b = seg.as_bytes();
        let mut num_start = None;
        for i in (lo.max(1)..seg.len()).rev() {
            if !seg.is_char_boundary(i) {
                continue;
            }
            let starts_num =
                b[i].is_ascii_digit() || seg[i..].starts_with("s/n") || seg[i..].starts_with("S/N");
            if !starts_num || b[i - 1].is_ascii_alphanumeric() {
                continue;
            }
            let head = seg[..i].trim_end_matches([' ', ',']);
            if head.len() < i && head.chars().next_back().is_some_and(char::is_alphabetic) {
                num_start = Some((head.len(), i));
            }
        }
        let (name_end, num) = num_start?;
        let tail = number_tail(text, ls + name_end);
        if tail <= ls + num {
            return None;
        }
        // Name: title-case words (and connectors) back to a delimiter, at most 5 words.
        let mut start = name_end;
        let mut words = 0;
        let mut caps = 0;
        loop {
            let before = &seg[..start];
            let trimmed = before.trim_end_matches(' ');
            if trimmed.is_empty() || words == 5 {
                break;
            }
            if trimmed.len() < before.len().saturating_sub(1) {
                break; // two or more spaces separate fields
            }
            let ws = run_start(trimmed, |c| {
                c.is_alphanumeric() || c == '\'' || c == '-' || c == '.'
            });
            let w = &trimmed[ws..];
            let upper = w.chars().filter(|c| c.is_uppercase()).count();
            let all_caps = upper > 1 && upper == w.chars().filter(|c| c.is_alphabetic()).count();
            let ok = !all_caps
                && !w.ends_with('.')
                && (is_title_word(w) || CONNECTORS.contains(&w))
                && !STOP_WORDS.contains(&w)
                && caps < 3;
            if !ok {
                break;
            }
            if is_title_word(w) {
                caps += 1;
            }
            start = ws;
            words += 1;
            // A street-type word starts the street; the typed rule covers it, so stop here.
            if self.is_before_type(w) {
                break;
            }
        }
        // Skip leading connectors.
        while let Some(sp) = seg[start..name_end].find(' ') {
            let w = &seg[start..start + sp];
            if CONNECTORS.contains(&w) {
                start += sp + 1;
            } else {
                break;
            }
        }
        let end = ls
            + seg[..(tail - ls).min(seg.len())]
                .trim_end_matches([' ', ',', '-'])
                .len();
        (caps > 0 && start < name_end).then(|| street(ls + start, end.min(zip), 0.7))
    }

    fn is_before_type(&self, w: &str) -> bool {
        self.entries
            .iter()
            .any(|(k, t)| *k == Kind::Before && t.trim_end_matches('.') == w)
    }
}

/// The town after an English street and its comma ("27 Orchard Ln, Lunenburg.", "5 Elm St,
/// West Newbury, MA 01985"): one to three capitalized words of three letters or more (after a
/// street written in one case, words in that case too: "14 tremont pl, malden"), then
/// the end of the sentence or line, a comma, or a two-letter state or a ZIP code. A word
/// followed by a number or another word is no town ("12 Main St, Apt 4", "Floor 2").
fn town_after(text: &str, street_start: usize, street_end: usize) -> Option<Cand> {
    if !text[street_end..].starts_with(", ") {
        return None;
    }
    // A street written in one case names its town in that case ("14 tremont pl, malden").
    let case = one_case(&text[street_start..street_end]);
    let town_word = |w: &str| {
        is_title_word(w)
            || case.is_some_and(|lower| in_case(w, lower))
                && !NO_STREET_NAME.contains(&w.to_lowercase().as_str())
                && !is_unit_word(w)
    };
    let start = street_end + 2;
    let mut end = start;
    for _ in 0..3 {
        let word_len = text[end..]
            .find(|c: char| !(c.is_alphabetic() || c == '\'' || c == '-'))
            .unwrap_or(text.len() - end);
        let word = &text[end..end + word_len];
        if !town_word(word) || word.chars().count() < 3 {
            return None;
        }
        end += word_len;
        let after = &text[end..];
        let ends = after.is_empty()
            || after.starts_with([',', ';', '\n', ')'])
            || after.starts_with('.') && !after[1..].starts_with(|c: char| c.is_alphanumeric());
        let state_or_zip = after.strip_prefix(' ').is_some_and(|a| {
            let code = a
                .split(|c: char| !c.is_ascii_alphanumeric())
                .next()
                .unwrap_or("");
            code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase())
                || code.len() == 5 && code.bytes().all(|b| b.is_ascii_digit())
        });
        if ends || state_or_zip {
            let label = Label::new(Category::Location, Subtype::City);
            return Some(Cand::new(start, end, label, "street_town", 0.6));
        }
        if !after.starts_with(' ') {
            return None;
        }
        end += 1;
    }
    None
}

fn street(s: usize, e: usize, score: f32) -> Cand {
    Cand::new(
        s,
        e,
        Label::new(Category::Location, Subtype::Street),
        "street",
        score,
    )
}

fn is_name_word(w: &str) -> bool {
    w.starts_with(|c: char| c.is_uppercase())
}

/// Words of a street name starting at `p` (after spaces): letters, apostrophes, hyphens and
/// short abbreviations with a dot ("Dr.", "Sto."). Stops at digits, punctuation or a line end.
fn name_words(text: &str, p: usize, max: usize) -> (Vec<(usize, usize)>, usize) {
    let mut words = Vec::new();
    let mut i = p;
    let mut end = p;
    let b = text.as_bytes();
    while words.len() < max {
        let mut j = i;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if j - i > 1 && !words.is_empty() {
            break; // two spaces separate fields
        }
        let rest = &text[j..];
        if ["s/n", "S/N", "sn ", "sn.", "sn,", "SN"]
            .iter()
            .any(|p| rest.starts_with(p))
            || number_word_at(rest)
        {
            break;
        }
        let ws = j;
        let mut we = j;
        for (k, c) in text[j..].char_indices() {
            if c.is_alphabetic() || c == '\'' || c == '’' || c == '-' {
                we = j + k + c.len_utf8();
            } else {
                break;
            }
        }
        if we == ws {
            break;
        }
        let w = &text[ws..we];
        let mut wend = we;
        if text[we..].starts_with('.') {
            if is_abbrev(w) && text[we + 1..].starts_with(' ') {
                wend = we + 1;
            } else {
                words.push((ws, we));
                end = we;
                break;
            }
        }
        words.push((ws, we));
        end = wend;
        i = wend;
    }
    (words, end)
}

/// End of a house number and floor/door tail starting at `p` (", 23, 1D", " 5, 3º izq.",
/// " s/n", " #226", " km 9,100"); returns `p` when no house number follows.
fn number_tail(text: &str, p: usize) -> usize {
    let b = text.as_bytes();
    let skip = |mut i: usize, seps: &[u8]| {
        while i < b.len() && seps.contains(&b[i]) {
            i += 1;
        }
        i
    };
    let mut i = skip(p, b" ,");
    let lower_at = |i: usize| text[i..].chars().take(4).collect::<String>().to_lowercase();
    if number_word_at(&text[i..]) || text[i..].starts_with('#') {
        let w = text[i..]
            .char_indices()
            .find(|(k, c)| *k > 0 && !(c.is_alphabetic() || *c == 'º' || *c == '°'))
            .map_or(text.len() - i, |(k, _)| k);
        i = skip(i + w, b" .:");
    } else if lower_at(i).starts_with("km") {
        i = skip(i + 2, b" .");
    }
    let start_num = i;
    if text[i..].starts_with("s/n") || text[i..].starts_with("S/N") {
        i += 3;
    } else if (text[i..].starts_with("sn") || text[i..].starts_with("SN"))
        && !text[i + 2..].starts_with(|c: char| c.is_alphanumeric())
    {
        i += 2;
    } else {
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() && j - i < 5 {
            j += 1;
        }
        if j == i || (j < b.len() && b[j].is_ascii_digit()) {
            return p;
        }
        // "km 9,100" / "Km 14.500"
        if j + 1 < b.len() && (b[j] == b',' || b[j] == b'.') && b[j + 1].is_ascii_digit() {
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
        }
        i = j;
        // Optional letter or ordinal glued to the number: "221B", "7mo", "3º".
        i = glued_suffix(text, i);
        // A range of numbers: "340-350".
        let r = skip(i, b" ");
        if r < b.len() && (b[r] == b'-' || text[r..].starts_with('–')) {
            let d0 = skip(r + if b[r] == b'-' { 1 } else { 3 }, b" ");
            let mut d = d0;
            while d < b.len() && b[d].is_ascii_digit() && d - d0 < 5 {
                d += 1;
            }
            if d > d0 && d - d0 >= 2 && !(d < b.len() && b[d].is_ascii_alphanumeric()) {
                i = d;
            }
        }
    }
    if i == start_num {
        return p;
    }
    let mut end = i;
    // Floor/door parts.
    loop {
        let j = skip(end, b" ,-/");
        if j >= b.len() || text[end..j].contains("  ") {
            break;
        }
        let tok_end = j + text[j..]
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == 'º' || *c == 'ª' || *c == '°'))
            .map_or(text.len() - j, |(k, _)| k);
        if tok_end == j {
            break;
        }
        // "3.º D", "1.o F": an ordinal written after a dot.
        let mut tok_end = tok_end;
        for ord in [".º", ".ª", ".o"] {
            if text[tok_end..].starts_with(ord)
                && !text[tok_end + ord.len()..].starts_with(|c: char| c.is_alphanumeric())
            {
                tok_end += ord.len();
            }
        }
        let tok = &text[j..tok_end];
        let digits = tok.chars().take_while(char::is_ascii_digit).count();
        let letters_part = &tok[digits..];
        let lower = letters_part
            .trim_start_matches(['º', 'ª', '°'])
            .to_lowercase();
        if tok.eq_ignore_ascii_case("km") {
            // "km 539", "Km 14.500"
            let k = number_tail(text, tok_end);
            if k > tok_end {
                end = k;
                continue;
            }
            break;
        }
        let letter_digit = tok.len() <= 3
            && tok.starts_with(|c: char| c.is_ascii_uppercase())
            && tok[1..].chars().all(|c| c.is_ascii_digit())
            && tok.len() > 1;
        let ok = if letter_digit {
            true
        } else if digits > 0 {
            digits <= 2 && (lower.len() <= 3 || TAIL_WORDS.contains(&lower.as_str()))
        } else {
            let upper_short = tok.chars().count() <= 2 && tok.chars().all(|c| c.is_uppercase());
            upper_short || TAIL_WORDS.contains(&lower.as_str())
        };
        if !ok {
            break;
        }
        end = tok_end;
        if text[end..].starts_with('.') && digits == 0 && tok.chars().count() > 1 {
            end += 1;
        }
    }
    end
}

/// Whether nothing follows byte `e` (after an abbreviation's full stop) in its clause: the
/// text or the line ends, or a comma, semicolon or closing bracket comes ("on Quincy Shore
/// Dr.", "on Elm Dr., Quincy"). A word after it may be a name after a title ("Dr. Kessler").
fn ends_clause(text: &str, e: usize) -> bool {
    let rest = &text[e..];
    let line = rest.trim_start_matches([' ', '\t', '\r']);
    line.is_empty() || line.starts_with('\n') || rest.starts_with([',', ';', ')'])
}

/// Whether the full stop at byte `dot` ends a sentence: the text or its line ends after it,
/// or a capitalized word follows a space.
fn sentence_ends_at(text: &str, dot: usize) -> bool {
    let rest = &text[dot + 1..];
    let line_end = rest.trim_start_matches([' ', '\t', '\r']);
    text[dot..].starts_with('.')
        && (line_end.is_empty()
            || line_end.starts_with('\n')
            || rest.starts_with(' ') && line_end.starts_with(char::is_uppercase))
}

/// End of an English flat or unit after a street ending at `p` (", Apt 3", " Unit 2B",
/// ", apt. #4", " #12"); `p` when none follows. The unit is a number with at most two letters,
/// or one letter: "Apt B".
fn unit_tail(text: &str, p: usize) -> usize {
    let rest = &text[p..];
    let after_sep = rest.trim_start_matches(',').trim_start_matches(' ');
    if after_sep.len() + 3 < rest.len() {
        return p;
    }
    let word_len = after_sep
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(after_sep.len());
    let word = after_sep[..word_len].to_ascii_lowercase();
    let mut unit = if UNIT_WORDS.contains(&word.as_str()) {
        let u = &after_sep[word_len..];
        let u = u.strip_prefix('.').unwrap_or(u);
        let u = u.strip_prefix(' ').unwrap_or(u);
        u.strip_prefix('#').unwrap_or(u)
    } else if let Some(u) = after_sep.strip_prefix('#') {
        u
    } else {
        return p;
    };
    unit = unit.strip_prefix(' ').unwrap_or(unit);
    let len = unit
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(unit.len());
    let token = &unit[..len];
    let digits = token.bytes().filter(u8::is_ascii_digit).count();
    let one_letter = len == 1 && token.bytes().all(|b| b.is_ascii_uppercase());
    if !(one_letter || (digits > 0 && digits <= 4 && len - digits <= 2)) {
        return p;
    }
    text.len() - unit.len() + len
}

/// "nº 23", "N° 62", "no 15", "no13", "número 4", "Numero 69" (a number word before digits).
fn number_word_at(rest: &str) -> bool {
    let lower: String = rest.chars().take(8).collect::<String>().to_lowercase();
    ["nº", "n°", "no", "nr", "núm", "num", "número", "numero"]
        .iter()
        .any(|w| {
            lower.starts_with(w) && {
                let after = lower[w.len()..].trim_start_matches(['.', ' ', ':']);
                after.starts_with(|c: char| c.is_ascii_digit())
            }
        })
}

fn glued_suffix(text: &str, i: usize) -> usize {
    let rest = &text[i..];
    let n: usize = rest
        .char_indices()
        .take_while(|(k, c)| *k < 4 && (c.is_alphabetic() || *c == 'º' || *c == 'ª' || *c == '°'))
        .map(|(_, c)| c.len_utf8())
        .sum();
    let glued = &rest[..n];
    if n > 0
        && glued.chars().filter(|c| c.is_alphabetic()).count() <= 2
        && !rest[n..].starts_with(|c: char| c.is_alphanumeric())
    {
        i + n
    } else {
        i
    }
}
