//! Word-list and case support for the NAME and LOCATION spans of a per-language tagger
//! (shipped, or `--models`): an all-caps span ("RESP", "NSR") is kept only in text that is not
//! written in mixed case and only if a word of it is a listed name or place ("HENDERSON", "SON
//! JIM"), and a span with a capitalized word loses the lower-case words, symbols and readings
//! at its edges that no list supports ("North Carolina border", "# Colbert", "NSR 80s"), while
//! an English name written in one case loses the verbs after it ("wilfred notified").
//!
//! Those taggers learned names from news and social media, where a capital letter is strong
//! evidence; in nursing notes every abbreviation has one. Spans with a lower-case letter
//! ("Smith", "dr smith"), spans without letters (numbers) and other labels pass untouched,
//! but a place (not an institution) written all in lower case needs a listed word ("home in
//! dorchester", not "chaplain notified"). A `--model` trained on the user's own notes is not
//! gated: its spans are what its training measured.

use crate::error::{StageContext, StageResult as Result};
use crate::labels::Category;
use crate::lang::Lang;
use crate::recognize::lookup::PLACE_LISTS;
use crate::wordlists::ListSources;
use std::collections::{HashMap, HashSet};

/// Whether `word` mixes digits and letters (`80s`, `30cc`, `500x14`, `2L`): a reading or a
/// dose, never part of a name, and no evidence of case either way.
fn is_measure(word: &str) -> bool {
    word.chars().any(char::is_numeric) && word.chars().any(char::is_alphabetic)
}

/// `word` without the lower-case `s` of an abbreviation's plural ("PVCs" → "PVC"); other
/// words as they are.
fn abbreviation_stem(word: &str) -> &str {
    match word.strip_suffix('s') {
        Some(stem) if stem.chars().count() >= 2 && !stem.chars().any(char::is_lowercase) => stem,
        _ => word,
    }
}

/// Whether the line around `text[start..end]` (up to 120 bytes either side) has two
/// capitalized words or more apart from its first ("Specimen rejected: hemolyzed, label read
/// Vondracek"): a note written with capitals, where names are capitalized too. A lower-case
/// note or message has none or only its first.
pub fn capitalized_line(text: &str, start: usize, end: usize) -> bool {
    use crate::recognize::lookup::tokens::is_capitalized;
    let (before, after) = line_around(text, start, end);
    let opening = before
        .split(|c: char| !c.is_alphabetic())
        .find(|w| !w.is_empty())
        .is_some_and(is_capitalized) as usize;
    let count = before
        .split(|c: char| !c.is_alphabetic())
        .chain(after.split(|c: char| !c.is_alphabetic()))
        .filter(|w| is_capitalized(w))
        .count();
    count >= 2 + opening
}

/// The parts of the line before and after `text[start..end]`, up to 120 bytes either side.
fn line_around(text: &str, start: usize, end: usize) -> (&str, &str) {
    let mut lo = start.saturating_sub(120);
    while !text.is_char_boundary(lo) {
        lo -= 1;
    }
    let mut hi = (end + 120).min(text.len());
    while !text.is_char_boundary(hi) {
        hi -= 1;
    }
    let before = text[lo..start].rsplit('\n').next().unwrap_or("");
    let after = text[end..hi].split('\n').next().unwrap_or("");
    (before, after)
}

/// Whether the text around `text[start..end]` on its line (up to 120 bytes each side) is
/// written in mixed case: more of its words of two letters or more have a lower-case letter
/// than not. The window is bounded so that a long one-line document stays linear.
pub fn in_mixed_case_line(text: &str, start: usize, end: usize) -> bool {
    let (before, after) = line_around(text, start, end);
    let (mut lower, mut caps) = (0, 0);
    for w in before
        .split(|c: char| !c.is_alphabetic())
        .chain(after.split(|c: char| !c.is_alphabetic()))
        .filter(|w| w.chars().nth(1).is_some())
    {
        if w.chars().any(char::is_lowercase) {
            lower += 1;
        } else {
            caps += 1;
        }
    }
    lower > caps
}

/// Built-in name lists whose entries support a caseless span, as the place lists
/// ([`PLACE_LISTS`]) do.
const NAME_LISTS: [&str; 4] = [
    "first_names",
    "surnames",
    "first_names_open",
    "surnames_open",
];

pub struct CaselessGate {
    /// Listed names and places, lower case (multi-word entries whole, as one string), each
    /// with whether a place list holds it.
    listed: HashMap<String, bool>,
    /// The language's name particles ("van", "de", "della"), lower case: lower-case words
    /// that do belong to names.
    particles: HashSet<String>,
    /// Capitalized words that are never part of a name (`STOP` in `name_triggers.txt`:
    /// "Department", "Plan", hospital services such as "Renal"), lower case.
    stops: HashSet<String>,
    /// Surnames that are also ordinary words of the language (`surname_words.txt`: "hall",
    /// "spinner"), lower case, but first names ("mason", "martin"): in lower case such a word is
    /// the word, while a first name is written in lower case in chat and some notes.
    ordinary: HashSet<String>,
    /// The language's ordinary lower-case words (`ordinary_words.txt`, English from SCOWL;
    /// empty where none ships) that no name or place list holds ("chills", "regimen").
    plain_words: HashSet<String>,
    /// The language's full weekday names that are none of its first names ("domingo" is),
    /// lower case: an edge of no name or place.
    weekdays: HashSet<&'static str>,
    /// The listed first names, lower case.
    first_names: HashSet<String>,
    /// Whether the endings of [`Self::before_verb_tail`] are the language's (English).
    verb_endings: bool,
}

impl CaselessGate {
    /// The gate of `lang`, from its built-in name and place lists. Fails closed if a list
    /// cannot load.
    pub fn new(lang: Lang) -> Result<Self> {
        let lists = ListSources::default();
        let (mut listed, mut first_names) = (HashMap::new(), HashSet::new());
        for name in NAME_LISTS.into_iter().chain(PLACE_LISTS) {
            for line in lists
                .load_optional(lang, name)
                .stage_context("a name or place list")?
            {
                let entry = line.split('\t').next().unwrap_or("").trim();
                if !entry.is_empty() {
                    if name.starts_with("first_names") {
                        first_names.insert(entry.to_lowercase());
                    }
                    *listed.entry(entry.to_lowercase()).or_insert(false) |=
                        PLACE_LISTS.contains(&name);
                }
            }
        }
        let (mut particles, mut stops) = (HashSet::new(), HashSet::new());
        for line in lists
            .load(lang, "name_triggers")
            .stage_context("the name trigger list")?
        {
            let mut cols = line.split('\t');
            let phrase = cols.next().unwrap_or("");
            let words = phrase.split_whitespace().map(str::to_lowercase);
            match cols.next().map(str::trim) {
                Some("PARTICLE") => particles.extend(words),
                Some("STOP") => stops.extend(words),
                _ => {}
            }
        }
        let ordinary = lists
            .load(lang, "surname_words")
            .stage_context("the list of surnames that are words")?
            .iter()
            .map(|w| w.trim().to_lowercase())
            .filter(|w| !first_names.contains(w))
            .collect();
        let plain_words = lists
            .load_optional(lang, "ordinary_words")
            .stage_context("the list of ordinary words")?
            .iter()
            .map(|w| w.trim().to_lowercase())
            .filter(|w| !listed.contains_key(w))
            .collect();
        Ok(CaselessGate {
            listed,
            particles,
            stops,
            ordinary,
            plain_words,
            weekdays: crate::dates::weekday_full_names(lang)
                .into_iter()
                .filter(|day| !first_names.contains(*day))
                .collect(),
            first_names,
            verb_endings: lang == Lang::En,
        })
    }

    /// Whether a name or place list holds `lower` (a lower-case word or phrase).
    pub fn is_listed(&self, lower: &str) -> bool {
        self.listed.contains_key(lower)
    }

    /// Whether `lower` is one of the language's name particles ("van", "de") or of the
    /// particles that foreign names bring along (news and notes name people of every
    /// language: "Pimienta da Veiga", "bin Said", "Ortega y Gasset").
    pub fn is_particle(&self, lower: &str) -> bool {
        const FOREIGN: &[&str] = &[
            "van", "von", "der", "den", "ter", "de", "del", "la", "le", "di", "du", "da", "das",
            "do", "dos", "bin", "ibn", "al", "el", "y",
        ];
        self.particles.contains(lower) || FOREIGN.contains(&lower)
    }

    /// Whether a first-name list holds `lower` (a lower-case word).
    pub fn is_first_name(&self, lower: &str) -> bool {
        self.first_names.contains(lower)
    }

    /// Whether a place list holds `surface` (any case, a word or a phrase).
    pub fn is_listed_place(&self, surface: &str) -> bool {
        self.listed
            .get(&surface.to_lowercase())
            .copied()
            .unwrap_or(false)
    }

    /// The byte range of a span of `category` over `text[start..end]` once the tokens at
    /// its edges that cannot be part of a name are left out; `None` when none is left.
    ///
    /// Only NAME and LOCATION spans with a capitalized word are trimmed (names are written
    /// so there, and a lower-case span is judged by the tagger alone). An edge token goes
    /// when it has no letter or digit (`#`, `@`, quotes, a possessive's apostrophe), or when
    /// it starts with a lower-case letter and is neither a name particle nor a listed name
    /// or place: the tagger's span ran on into the phrase around the name ("the Union army",
    /// "Smith's"), or when it mixes digits and letters, a reading beside an abbreviation
    /// ("NSR 80s-90s", "U/O 30cc"), or when it is a weekday ("Ireland Friday"). On a held-out
    /// wikigold this removed a quarter of the tagger's false positives at the same person
    /// recall; on WNUT-17 dev 7 of 132, for 0.003 of it.
    pub fn trim_edges(
        &self,
        category: Category,
        text: &str,
        start: usize,
        end: usize,
    ) -> Option<(usize, usize)> {
        if !matches!(category, Category::Name | Category::Location) {
            return Some((start, end));
        }
        let toks = crate::text::tokenize(&text[start..end]);
        let word = |t: &(usize, usize)| &text[start + t.0..start + t.1];
        if !toks
            .iter()
            .any(|t| word(t).chars().next().is_some_and(char::is_uppercase))
        {
            return Some((start, end));
        }
        let foreign = |t: &(usize, usize)| {
            let w = word(t);
            let first = w.chars().next().unwrap_or(' ');
            if !first.is_alphanumeric() || is_measure(w) {
                return true;
            }
            let lower = w.to_lowercase();
            self.weekdays.contains(lower.as_str())
                || first.is_lowercase()
                    && !self.particles.contains(&lower)
                    && !self.listed.contains_key(&lower)
        };
        let first = toks.iter().position(|t| !foreign(t))?;
        let last = toks.iter().rposition(|t| !foreign(t))?;
        Some((start + toks[first].0, start + toks[last].1))
    }

    /// Where an all-caps name that followed a title ends: in capitals, which mark no name, the
    /// words past the first belong to it only when a list holds them, when they are a name
    /// particle, follow an initial or a particle, or are joined to the word before without a
    /// space ("OKAFOR-BELL", "O'BRIEN"); the first other word and all after it go ("DR.
    /// FITZGERALD NOTIFIED" → "FITZGERALD"; "DR. JOHN HENDERSON", "DR. VAN DER BERG" stay).
    /// The rules read a name after an all-caps title the same way. A span with a lower-case
    /// letter ends where it ends.
    pub fn caps_name_end(&self, text: &str, start: usize, end: usize) -> usize {
        let surface = &text[start..end];
        if surface.chars().any(char::is_lowercase) {
            return end;
        }
        let toks = crate::text::tokenize(surface);
        let is_word = |t: &(usize, usize)| surface[t.0..t.1].chars().all(char::is_alphanumeric);
        let Some(first) = toks.iter().position(is_word) else {
            return end;
        };
        let mut kept_end = toks[first].1;
        let mut prev_word = &surface[toks[first].0..toks[first].1];
        for t in &toks[first + 1..] {
            if !is_word(t) {
                continue;
            }
            let word = &surface[t.0..t.1];
            let lower = word.to_lowercase();
            let joined = !surface[kept_end..t.0].contains(char::is_whitespace);
            let prev_lower = prev_word.to_lowercase();
            let after_initial = prev_word.chars().count() == 1;
            let keep = joined
                || after_initial
                || self.particles.contains(&prev_lower)
                || self.particles.contains(&lower)
                || (word.chars().count() > 2 && self.listed.contains_key(&lower));
            if !keep {
                break;
            }
            kept_end = t.1;
            prev_word = word;
        }
        start + kept_end
    }

    /// Where a NAME span `text[start..end]` written in one case (all lower case or all
    /// capitals) ends once its last words that no list holds and that end as a verb or an
    /// adjective of one does are left out ("wilfred notified", "kowalczyk extubated",
    /// "JEAN-BAPTISTE TRANSLATING", "EVELYN AGREEABLE"): the tagger read on into the clause
    /// after the name (English endings; other languages keep the span). One word is always
    /// left; a span with a capitalized word is [`Self::trim_edges`]'s. Ordinary words without
    /// such an ending stay: surnames no list holds are often words too ("farrow", "coffin").
    pub fn before_verb_tail(&self, text: &str, start: usize, end: usize) -> usize {
        use crate::recognize::context::VERB_ENDINGS;
        let span = &text[start..end];
        let mixed = span.chars().any(char::is_lowercase) && span.chars().any(char::is_uppercase);
        if mixed || !self.verb_endings {
            return end;
        }
        let mut kept = span;
        while let Some((head, last)) = kept.rsplit_once(char::is_whitespace) {
            let lower = last.to_lowercase();
            let verb = lower.chars().count() >= 5
                && lower.chars().all(char::is_alphabetic)
                && VERB_ENDINGS.iter().any(|e| lower.ends_with(e))
                && !self.listed.contains_key(&lower);
            if head.trim().is_empty() || !verb {
                break;
            }
            // "gallagher. reassured": the clause's punctuation goes with it.
            kept =
                head.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '.' | ',' | ';'));
        }
        start + kept.len()
    }

    /// Whether `surface`, a place (not an institution), is written all in lower case without a
    /// listed word ("chaplain notified", "respawn"; not "home in dorchester"): lower-case text
    /// names places less often than people. Institutions in lower case ("polizia tedesca",
    /// KIND's organisations) are left to the tagger.
    pub fn unlisted_lower_case(&self, surface: &str) -> bool {
        let words: Vec<String> = surface
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().any(char::is_alphabetic))
            .map(str::to_lowercase)
            .collect();
        !surface.chars().any(char::is_uppercase)
            && !words.is_empty()
            && !self.listed.contains_key(&words.join(" "))
            && !words.iter().any(|w| self.listed.contains_key(w))
    }

    /// Whether a span of `category` reading `surface` is kept. Other categories and spans
    /// without letters are. A name or place is not when all its words are STOP words of the
    /// language ("Renal", "Plan"), nor when it is a lone word of one or two letters that no
    /// list holds ("Pt", "Mo"). Otherwise it is kept when it has a lower-case letter (the
    /// plural `s` of an abbreviation does not count: "PVCs"), or, in a line that is not written
    /// in mixed case (`mixed_line`, asked only for an all-caps span; see
    /// [`in_mixed_case_line`]), when it has a listed word (or is a listed multi-word entry).
    /// Words with a digit (`70s`, `500x14`, a house number) count neither way: "HR 70s SR" is
    /// judged as "HR SR".
    pub fn keeps(
        &self,
        category: Category,
        surface: &str,
        mixed_line: impl FnOnce() -> bool,
    ) -> bool {
        if !matches!(category, Category::Name | Category::Location)
            || !surface.chars().any(char::is_alphabetic)
        {
            return true;
        }
        let words: Vec<&str> = surface
            .split(|c: char| c.is_whitespace() || c == '-' || c == '/')
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| !w.is_empty() && !w.chars().any(char::is_numeric))
            .collect();
        // Words that never belong to a name make none ("Renal", "Plan", "Ward").
        if !words.is_empty() && words.iter().all(|w| self.stops.contains(&w.to_lowercase())) {
            return false;
        }
        // A lone word of one or two letters is an abbreviation ("Pt", "Hx", "Mo") unless a list
        // holds it ("Ty", "Li", "Wu").
        if let [word] = words[..] {
            let lower = word.to_lowercase();
            if word.chars().count() <= 2 && !self.listed.contains_key(&lower) {
                return false;
            }
        }
        // A span all in lower case of surnames that are ordinary words is those words
        // ("ambulating in hall", "fidget spinner"): written so, the word is meant. So is a
        // name span of ordinary words that no list holds ("pt with chills", "bowel regimen"):
        // a lower-case note gives the tagger no capital to go by, and names written so are
        // listed ones or words no dictionary has. Not a place: "sacred heart manor".
        if !words.is_empty()
            && !surface.chars().any(char::is_uppercase)
            && words.iter().all(|w| {
                self.ordinary.contains(*w)
                    || category == Category::Name && self.plain_words.contains(*w)
            })
        {
            return false;
        }
        // Lower-case text (tweets, some notes) keeps the tagger's word: names are written so
        // there, and gating it too cost 0.04 of WNUT-17 dev person recall. The plural of an
        // abbreviation ("PVCs", "ABGs") is written in capitals.
        if words
            .iter()
            .any(|w| abbreviation_stem(w).chars().any(char::is_lowercase))
        {
            return true;
        }
        // An all-caps word in a line written in mixed case is an abbreviation ("MAE" for moves
        // all extremities), whatever list holds it; names there are capitalized, and the rules
        // still take an all-caps name after a title or a relative's word ("Dr. PATEL").
        if mixed_line() {
            return false;
        }
        // Two capitals are an abbreviation ("GU", "PO") far more often than a name.
        let listed = |w: &str| w.chars().count() > 2 && self.listed.contains_key(w);
        listed(&words.join(" ").to_lowercase())
            || words.iter().any(|w| {
                let lower = abbreviation_stem(w).to_lowercase();
                // English possessives ("SMITH'S") keep the name's support.
                let stem = lower
                    .strip_suffix("'s")
                    .or_else(|| lower.strip_suffix("’s"))
                    .unwrap_or(&lower);
                listed(stem)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capitalized_line_has_two_capitalized_words_besides_its_first() {
        let at = |text: &str, word: &str| {
            let s = text.find(word).unwrap();
            capitalized_line(text, s, s + word.len())
        };
        let note = "Specimen rejected: hemolyzed, tube label read Vondracek, Redrawn at 0815.";
        assert!(at(note, "hemolyzed"));
        // The line's first word and one more are not enough; other lines do not count.
        assert!(!at(
            "Specimen rejected: hemolyzed, tube Vondracek.",
            "hemolyzed"
        ));
        assert!(!at(
            "Ward Round Today\nquantiferon sent to arup",
            "quantiferon"
        ));
        assert!(!at(
            "send out: quantiferon sent to arup, per ida",
            "quantiferon"
        ));
        assert!(!at("HR 80 BP STABLE, quantiferon SENT", "quantiferon"));
    }

    #[test]
    fn edges_lose_lower_case_words_and_symbols_that_no_list_supports() {
        let gate = CaselessGate::new(Lang::En).unwrap();
        fn trimmed<'a>(gate: &CaselessGate, category: Category, text: &'a str) -> Option<&'a str> {
            gate.trim_edges(category, text, 0, text.len())
                .map(|(s, e)| &text[s..e])
        }
        let loc = Category::Location;
        let name = Category::Name;
        assert_eq!(
            trimmed(&gate, loc, "the North Carolina border"),
            Some("North Carolina")
        );
        assert_eq!(trimmed(&gate, name, "# Colbert"), Some("Colbert"));
        assert_eq!(trimmed(&gate, name, "Howe's"), Some("Howe"));
        assert_eq!(trimmed(&gate, name, "Zorbleck 's"), Some("Zorbleck"));
        // Particles and listed words stay, at the edges too; inner words are not touched.
        assert_eq!(trimmed(&gate, name, "van Zorbleck"), Some("van Zorbleck"));
        assert_eq!(trimmed(&gate, name, "Kanye west"), Some("Kanye west"));
        assert_eq!(
            trimmed(&gate, name, "Zorbleck the Elder"),
            Some("Zorbleck the Elder")
        );
        // Numbers are not symbols: an address keeps its house number.
        assert_eq!(
            trimmed(&gate, loc, "169 Hay Street"),
            Some("169 Hay Street")
        );
        // Without a capitalized word the tagger is trusted as it is; other labels too.
        assert_eq!(trimmed(&gate, name, "zorbleck sent"), Some("zorbleck sent"));
        assert_eq!(trimmed(&gate, Category::Id, "# 123"), Some("# 123"));
        // Quotes around a word go; a span inside a longer text is trimmed on its own bytes.
        assert_eq!(trimmed(&gate, name, "\"Who\""), Some("Who"));
        assert_eq!(gate.trim_edges(name, "a # b", 2, 3), Some((2, 3)));
        // Readings at the edges go; a plain number (a house number) stays.
        assert_eq!(trimmed(&gate, loc, "NSR 80s-90s"), Some("NSR"));
        assert_eq!(trimmed(&gate, loc, "U/O 30cc"), Some("U/O"));
        // A weekday at an edge is a date's, in any case.
        assert_eq!(trimmed(&gate, loc, "Ireland Friday"), Some("Ireland"));
        assert_eq!(trimmed(&gate, name, "MONDAY Okafor"), Some("Okafor"));
    }

    #[test]
    fn a_caps_name_after_a_title_ends_at_the_first_word_no_list_supports() {
        let gate = CaselessGate::new(Lang::En).unwrap();
        let end = |text: &'static str| &text[..gate.caps_name_end(text, 0, text.len())];
        assert_eq!(end("FITZGERALD NOTIFIED"), "FITZGERALD");
        assert_eq!(end("ZORBLECK AWARE OF CHANGE"), "ZORBLECK");
        // Listed names, particles, initials and joined words stay.
        assert_eq!(end("JOHN HENDERSON"), "JOHN HENDERSON");
        assert_eq!(end("VAN DER ZORBLECK"), "VAN DER ZORBLECK");
        assert_eq!(end("J ZORBLECK"), "J ZORBLECK");
        assert_eq!(end("O'ZORBLECK-BELL"), "O'ZORBLECK-BELL");
        // Two letters are no listed name ("IN"); a span with a lower-case letter is whole.
        assert_eq!(end("HENDERSON IN"), "HENDERSON");
        assert_eq!(end("Zorbleck Aware"), "Zorbleck Aware");
    }

    #[test]
    fn a_name_in_one_case_loses_the_verbs_after_it() {
        let gate = CaselessGate::new(Lang::En).unwrap();
        let end = |text: &'static str| &text[..gate.before_verb_tail(text, 0, text.len())];
        assert_eq!(end("wilfred notified"), "wilfred");
        assert_eq!(end("gallagher. intubated"), "gallagher");
        assert_eq!(end("SOREN LEARNING SUCTIONING"), "SOREN");
        assert_eq!(end("EVELYN AGREEABLE"), "EVELYN");
        // A listed word, a word without such an ending, a lone word, a span in mixed case
        // and another language stay whole.
        assert_eq!(end("mary reading"), "mary reading");
        assert_eq!(end("lucinda farrow"), "lucinda farrow");
        assert_eq!(end("notified"), "notified");
        assert_eq!(end("Wilfred notified"), "Wilfred notified");
        let dutch = CaselessGate::new(Lang::Nl).unwrap();
        assert_eq!(dutch.before_verb_tail("anke pending", 0, 12), 12);
    }

    #[test]
    fn a_line_is_mixed_case_when_most_of_its_words_have_a_lower_case_letter() {
        let line = |t: &str, w: &str| {
            let s = t.find(w).unwrap();
            in_mixed_case_line(t, s, s + w.len())
        };
        assert!(line("Neuro: A&Ox3, MAE, follows commands.", "MAE"));
        assert!(!line("NEURO: A&OX3, MAE, FOLLOWS COMMANDS.", "MAE"));
        // Only the span's own line counts, and only words of two letters or more.
        assert!(!line("Plan: cont to monitor.\nSON JIM AT BEDSIDE", "JIM"));
        assert!(!line("a b c JIM", "JIM"));
        // The window stops on character boundaries.
        let long = format!("{}é MAE {}", "ü".repeat(200), "ß".repeat(200));
        assert!(line(&long, "MAE"));
    }

    #[test]
    fn caseless_spans_need_a_listed_word() {
        let gate = CaselessGate::new(Lang::En).unwrap();
        // A lower-case letter passes on the tagger's word alone.
        for kept in ["Zorbleck", "Dr Zorbleck", "zorbleck", "McKAY"] {
            assert!(gate.keeps(Category::Name, kept, || false), "{kept} dropped");
        }
        // All-caps abbreviations do not.
        for dropped in ["RESP", "NSR", "PERRLA", "ZORBLECK", "GI/NG", "GU"] {
            assert!(
                !gate.keeps(Category::Name, dropped, || false),
                "{dropped} kept"
            );
        }
        // Other labels and spans without letters are not the gate's business.
        assert!(gate.keeps(Category::Id, "NHS", || false));
        assert!(gate.keeps(Category::Name, "12345", || false));
        // Readings beside an abbreviation count neither way: "HR 70s SR" is "HR SR".
        for dropped in ["HR 70s SR", "AC 500x14", "80s"] {
            assert!(
                !gate.keeps(Category::Location, dropped, || false),
                "{dropped} kept"
            );
        }
        // Lone words of one or two letters need a list; plurals of abbreviations are capitals.
        for dropped in ["Pt", "Mo", "pt", "E"] {
            assert!(
                !gate.keeps(Category::Name, dropped, || false),
                "{dropped} kept"
            );
        }
        for kept in ["Ty", "Li", "Wu", "Ed"] {
            assert!(gate.keeps(Category::Name, kept, || false), "{kept} dropped");
        }
        // Words that never belong to a name (STOP in name_triggers.txt) make none.
        for dropped in ["Renal", "Psych", "Ortho, Renal", "Plan"] {
            assert!(
                !gate.keeps(Category::Name, dropped, || false),
                "{dropped} kept"
            );
        }
        assert!(gate.keeps(Category::Name, "Renal Smith", || false));
        // Surnames that are ordinary words are those words in lower case, not capitalized.
        for dropped in ["hall", "spinner", "hall spinner"] {
            assert!(
                !gate.keeps(Category::Location, dropped, || true),
                "{dropped} kept"
            );
        }
        for kept in ["Hall", "Spinner", "hall zorbleck", "mason", "martin"] {
            assert!(gate.keeps(Category::Name, kept, || true), "{kept} dropped");
        }
        // So is a name span in lower case of ordinary words that no list holds; a listed
        // name, a word no dictionary has, a capital or a place's label keeps it.
        for dropped in ["chills", "bowel regimen", "asthma exacerbation"] {
            assert!(
                !gate.keeps(Category::Name, dropped, || true),
                "{dropped} kept"
            );
        }
        for kept in ["frank", "chills zorbleck", "Chills", "Bowel Regimen"] {
            assert!(gate.keeps(Category::Name, kept, || false), "{kept} dropped");
        }
        assert!(gate.keeps(Category::Location, "sacred heart manor", || true));
        // A place in lower case needs a listed word.
        for unlisted in ["chaplain notified", "respawn", "zorbleck"] {
            assert!(gate.unlisted_lower_case(unlisted), "{unlisted}");
        }
        for listed in ["boston", "new york", "zorbleck boston", "Zorbleck", "12"] {
            assert!(!gate.unlisted_lower_case(listed), "{listed}");
        }
        assert!(!gate.keeps(Category::Location, "PVCs", || true));
        assert!(!gate.keeps(Category::Location, "ABGs", || false));
        // In a line written in mixed case an all-caps span is an abbreviation, listed or not.
        assert!(gate.keeps(Category::Name, "MAE", || false));
        assert!(!gate.keeps(Category::Name, "MAE", || true));
        // Listed names and places do, possessives and multi-word entries included.
        for kept in [
            "SMITH",
            "SON JIM",
            "HENDERSON'S",
            "MARY-JANE",
            "NEW YORK",
            "LONDON",
        ] {
            assert!(gate.keeps(Category::Name, kept, || false), "{kept} dropped");
        }
    }
}
