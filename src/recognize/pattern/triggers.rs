//! Trigger words (`wordlists/<lang>/id_triggers.txt`) and the value read after each: record
//! numbers, phone and fax numbers, dates, ages, postcodes, address lines and user names (read
//! before the trigger where the language puts it there: "jkovacs felhasználó"), and the long
//! codes that a number sign after any word announces ("Incident report filed #44817").

use super::shapes::{Kind, Shapes};
use super::text::{is_word_char, line_end_within, next_char, prev_char};
use super::{Cand, PatternError};
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::wordlists::ListSources;
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::Regex;

/// How far after a location field label its line end is looked for.
const FIELD_LINE_LOOKAHEAD: usize = 4096;

/// The fewest digits of a code that a number sign announces after a word no trigger list
/// holds: a list item, a tube's size or a day of treatment has one or two ("POD #3", "JP #1",
/// "trach to #8"), a room three or four; a report's, a referral's or a blood unit's number more.
const SIGNED_CODE_DIGITS: usize = 5;

/// The score of such a code: below a trigger's value (0.92) and a phone number's shape (0.8),
/// whose labels win where they read the same digits ("Beeper #17832", "MR# 4471-209").
const SIGNED_CODE_SCORE: f32 = 0.7;

pub struct Triggers {
    /// The triggers of two characters or more; `ac_trigger` gives each pattern's index in
    /// `labels` and `placements`.
    ac: AhoCorasick,
    ac_trigger: Vec<usize>,
    /// The triggers of one ASCII letter or digit (English `A`, an alien number's prefix), by
    /// byte, both cases: matched apart, as the automaton would report every such letter of
    /// the text, nearly all inside words, and each report costs a search restart.
    letter_trigger: [Option<usize>; 128],
    /// The bytes that `letter_trigger` holds.
    letter_bytes: Vec<u8>,
    labels: Vec<Label>,
    /// Per trigger: where its value stands.
    placements: Vec<Placement>,
    skip: Regex,
    id: Regex,
    /// A measure after a system's header in capitals ("ID: TMAX 101.4"): a word and a decimal
    /// number, no identifier.
    measure: Regex,
    zip: Regex,
    age: Regex,
    /// "fax al 91…", "by fax on 020…", "geboren op 3 mei": a linking word before a number or date.
    link: Regex,
    /// "number is 12…", "nummer was 34…", "número es 56…": a copula between an ID trigger and
    /// its value in running text.
    copula: Regex,
    /// A user name: ASCII letter first, then letters, digits, ".", "_" or "-".
    user: Regex,
    lang: Lang,
}

/// Where a trigger's value stands (the optional third column of its entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Right after the trigger (no third column).
    After,
    /// Before the trigger word (`before`: "jkovacs felhasználó").
    Before,
    /// After the trigger only past a number sign or word (`marked`: "DOC # W92817", "DOC
    /// number W92817"), for a trigger that is also an ordinary word ("doc 1400" is a doctor
    /// paged at a time). A list entry cannot hold the sign itself, which opens a comment.
    Marked,
    /// After the trigger, only a value of [`LONG_VALUE_DIGITS`] digits or more and nothing else
    /// (`long`: "MD 42287", a dictating doctor's number), for a trigger after which a shorter
    /// number or a date is something else ("paged MD 1500", a clock time; "MD 12/5/2026").
    Long,
}

/// The digits a `long` trigger's value needs: more than a clock time's four.
const LONG_VALUE_DIGITS: usize = 5;

/// Whether the value at `start..end` is one a `long` trigger reads: [`LONG_VALUE_DIGITS`]
/// digits or more and nothing else, with no lower-case word after it, which makes it a dose
/// ("MD 10000 units heparin").
fn long_value(text: &str, start: usize, end: usize) -> bool {
    let value = &text[start..end];
    let word_after = text[end..]
        .trim_start_matches([' ', '\t'])
        .starts_with(|ch: char| ch.is_lowercase());
    value.len() >= LONG_VALUE_DIGITS && value.bytes().all(|b| b.is_ascii_digit()) && !word_after
}

/// A parsed trigger entry: the word, the label of its value, and where the value stands.
type Trigger = (String, Label, Placement);

/// Parses `TRIGGER<TAB>LABEL[<TAB>before|marked|long]` entries; any malformed entry fails the
/// whole list.
pub fn parse_triggers(lang: Lang, entries: &[String]) -> Result<Vec<Trigger>, PatternError> {
    entries
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let bad = |msg: String| PatternError::BadEntry {
                list: format!("{}/id_triggers", lang.code()),
                entry: i + 1,
                msg,
            };
            let mut cols = line.split('\t');
            let word = cols.next().unwrap_or("").trim();
            let label = cols
                .next()
                .ok_or_else(|| bad("expected TRIGGER<TAB>LABEL".into()))?;
            let label = Label::parse(label.trim()).map_err(|e| bad(e.0))?;
            let placement = match cols.next().map(str::trim) {
                None => Placement::After,
                Some("before") => Placement::Before,
                Some("marked") => Placement::Marked,
                Some("long") => Placement::Long,
                Some(other) => {
                    return Err(bad(format!(
                        "third column must be 'before', 'marked' or 'long', found '{other}'"
                    )))
                }
            };
            if cols.next().is_some() {
                return Err(bad("more than three columns".into()));
            }
            if word.is_empty() {
                return Err(bad("empty trigger".into()));
            }
            Ok((word.to_string(), label, placement))
        })
        .collect()
}

/// Adds the upper-case and capitalized forms of triggers with non-ASCII letters: the matcher
/// folds ASCII case only, and header keys are often capitalized ("PATIËNTNUMMER", "Nº HISTORIA
/// CLÍNICA", "SZÜLETÉSI IDŐ").
fn with_case_variants(parsed: Vec<Trigger>) -> Vec<Trigger> {
    let mut out: Vec<Trigger> = Vec::with_capacity(parsed.len() * 2);
    for (word, label, placement) in parsed {
        if !word.is_ascii() {
            let upper = word.to_uppercase();
            let mut cs = word.chars();
            let capital: String = cs
                .next()
                .map(|c| c.to_uppercase().chain(cs).collect())
                .unwrap_or_default();
            for v in [upper, capital] {
                if v != word && out.iter().all(|(w, _, _)| *w != v) {
                    out.push((v, label, placement));
                }
            }
        }
        out.push((word, label, placement));
    }
    out
}

fn re(src: &str) -> Result<Regex, PatternError> {
    Regex::new(src).map_err(|e| PatternError::Regex(e.to_string()))
}

impl Triggers {
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Self, PatternError> {
        let entries = lists.load(lang, "id_triggers")?;
        let parsed = with_case_variants(parse_triggers(lang, &entries)?);
        let mut letter_trigger = [None; 128];
        let mut ac_trigger = Vec::with_capacity(parsed.len());
        for (i, (word, _, _)) in parsed.iter().enumerate() {
            match word.as_bytes() {
                // The first entry wins, as among equal matches of the automaton.
                &[b] if b.is_ascii_alphanumeric() => {
                    for case in [b.to_ascii_lowercase(), b.to_ascii_uppercase()] {
                        letter_trigger[case as usize].get_or_insert(i);
                    }
                }
                _ => ac_trigger.push(i),
            }
        }
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(ac_trigger.iter().map(|&i| parsed[i].0.as_str()))
            .map_err(|e| PatternError::Regex(e.to_string()))?;
        Ok(Triggers {
            ac,
            ac_trigger,
            letter_bytes: (0..128u8)
                .filter(|&b| letter_trigger[b as usize].is_some())
                .collect(),
            letter_trigger,
            labels: parsed.iter().map(|t| t.1).collect(),
            placements: parsed.iter().map(|t| t.2).collect(),
            user: re(r"[A-Za-z][A-Za-z0-9._\-]{2,31}")?,
            copula: re(
                r"^(?i:is|was|are|were|es|era|fue|è|era|ist|volt|=)[ \t]+(?:(?i:the|number)[ \t]+)?",
            )?,
            lang,
            // The longer number words first: an alternation takes the first that matches,
            // and "num" alone left "ber" of "DOC number W92817" before the value.
            skip: re(
                r"^[ \t]*[:=#.\-–\[(]*[ \t]*(?:(?i:número|numero|number|núm\.?|num\.?|nº|n°|n\.º|no\.|nr\.?|n\.)[ \t]*[:.]?[ \t]*[:=#\[(]*[ \t]*)?",
            )?,
            // A group after a blank holds a digit: in capitals the words after a number are
            // none of it ("MRN 70418853 ON ALL PAPERWORK").
            id: re(
                r"^(?:[A-Z]{1,4}[\- ]?|[A-Za-z]{1,4}-)?[0-9][0-9A-Za-z]*(?:[ ][0-9A-Z]*[0-9][0-9A-Za-z]*|[/\-.][0-9A-Z][0-9A-Za-z]*)*",
            )?,
            measure: re(r"^[A-Z]{1,4} [0-9]{1,3}\.[0-9]{1,2}$")?,
            zip: re(r"^(?:[A-Z]{1,2}-)?[0-9]{2,7}(?:[ \-][0-9]{3,4})?")?,
            age: re(r"^[0-9]{1,3}")?,
            link: re(
                r"^(?i:al|a|on|to|at|op|naar|via|el|il|am|van)[ \t]+(?:(?i:the|número|numero|nummer|number|n\.)[ \t]*:?[ \t]*)?",
            )?,
        })
    }

    pub fn find(&self, text: &str, shapes: &Shapes, out: &mut Vec<Cand>) {
        // The one-letter triggers where the automaton would have reported them: outside its
        // matches (a one-byte match hides none of its others), in text order among them.
        let mut letters = self.letters(text).peekable();
        let mut matched_to = 0;
        for m in self.ac.find_iter(text) {
            while let Some((p, i)) = letters.next_if(|&(p, _)| p < m.start()) {
                if p >= matched_to {
                    self.found(text, p, p + 1, i, shapes, out);
                }
            }
            matched_to = m.end();
            let i = self.ac_trigger[m.pattern().as_usize()];
            self.found(text, m.start(), m.end(), i, shapes, out);
        }
        for (p, i) in letters {
            if p >= matched_to {
                self.found(text, p, p + 1, i, shapes, out);
            }
        }
        self.signed_codes(text, out);
    }

    /// Codes of [`SIGNED_CODE_DIGITS`] digits or more right after a number sign that follows a
    /// word on its line, a comma or colon between or not ("Referral #26-118407", "PRBC
    /// #W0362611043", "REPORT # 2024-88731", "took report, # LB-26-0311"): whatever the word, a
    /// number so marked and so long identifies a thing of the patient's. A sign that opens a
    /// line or follows a number ("#1 pain", "2 #") announces none.
    fn signed_codes(&self, text: &str, out: &mut Vec<Cand>) {
        for p in memchr::memchr_iter(b'#', text.as_bytes()) {
            let before = text[..p].trim_end_matches([' ', '\t']);
            let before = before.strip_suffix([',', ':']).unwrap_or(before);
            if !before.chars().next_back().is_some_and(char::is_alphabetic) {
                continue;
            }
            let rest = &text[p + 1..];
            let v = p + 1 + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
            let Some(m) = self.id.find(&text[v..]) else {
                continue;
            };
            if self.is_code(text, v, m.as_str(), SIGNED_CODE_DIGITS) {
                let label = Label::new(Category::Id, Subtype::Idnum);
                out.push(Cand::new(
                    v,
                    v + m.end(),
                    label,
                    "id_number",
                    SIGNED_CODE_SCORE,
                ));
            }
        }
    }

    /// Whether `val`, read from the identifier pattern at byte `v`, is a code: `min_digits`
    /// digits or more, ending its token, and no measure after a header ("TMAX 101.4").
    fn is_code(&self, text: &str, v: usize, val: &str, min_digits: usize) -> bool {
        val.bytes().filter(u8::is_ascii_digit).count() >= min_digits
            && super::text::ends_token(text, v + val.len())
            && !self.measure.is_match(val)
    }

    /// The one-letter triggers of `text` standing alone (`found` would pass over the others),
    /// with their trigger's index.
    fn letters<'t>(&'t self, text: &'t str) -> impl Iterator<Item = (usize, usize)> + 't {
        let needles: Box<dyn Iterator<Item = usize> + 't> = match self.letter_bytes[..] {
            [] => Box::new(std::iter::empty()),
            [a] => Box::new(memchr::memchr_iter(a, text.as_bytes())),
            [a, b] => Box::new(memchr::memchr2_iter(a, b, text.as_bytes())),
            [a, b, c] => Box::new(memchr::memchr3_iter(a, b, c, text.as_bytes())),
            _ => Box::new(
                text.bytes()
                    .enumerate()
                    .filter(|&(_, b)| b < 128 && self.letter_trigger[b as usize].is_some())
                    .map(|(p, _)| p),
            ),
        };
        needles.filter_map(move |p| {
            let b = text.as_bytes()[p];
            let prev = prev_char(text, p);
            let glued = prev.is_some_and(char::is_lowercase) && b.is_ascii_uppercase();
            let alone = (!is_word_char(prev) || glued) && !is_word_char(next_char(text, p + 1));
            alone.then(|| (p, self.letter_trigger[b as usize].unwrap_or_default()))
        })
    }

    /// Reads the value of trigger `i`, matched at `s..e`, into `out`.
    fn found(
        &self,
        text: &str,
        s: usize,
        e: usize,
        i: usize,
        shapes: &Shapes,
        out: &mut Vec<Cand>,
    ) {
        let trig = &text[s..e];
        // "IzaNºCol:": a capitalized trigger glued to a lowercase word still counts.
        let glued = prev_char(text, s).is_some_and(char::is_lowercase)
            && trig.starts_with(|c: char| c.is_uppercase());
        if (is_word_char(prev_char(text, s)) && !glued)
            || (trig.chars().next_back().is_some_and(char::is_alphanumeric)
                && is_word_char(next_char(text, e)))
        {
            return;
        }
        let label = self.labels[i];
        if label.subtype == Some(Subtype::Username) {
            let before = self.placements[i] == Placement::Before;
            out.extend(self.username(text, s, e, before, label));
            return;
        }
        let skipped = self.skip.find(&text[e..]).map_or("", |m| m.as_str());
        if self.placements[i] == Placement::Marked
            && !skipped.contains('#')
            && !skipped.chars().any(char::is_alphabetic)
        {
            return;
        }
        let mut v = e + skipped.len();
        if matches!(label.category, Category::Contact | Category::Date) {
            v += self.link.find(&text[v..]).map_or(0, |m| m.end());
        }
        if label.category == Category::Id && skipped.trim().is_empty() {
            v += self.copula.find(&text[v..]).map_or(0, |m| m.end());
        }
        if v >= text.len() {
            return;
        }
        // An address is read only from a field ("Domicilio: ..."), not from running text.
        if label.category == Category::Location
            && label.subtype != Some(Subtype::Zip)
            && !skipped.contains(':')
        {
            return;
        }
        if let Some(c) = self.value(text, v, label, shapes) {
            if self.placements[i] == Placement::Long && !long_value(text, c.start, c.end) {
                return;
            }
            if c.rule == "street_field" {
                address_field(text, c, shapes, out);
            } else {
                out.push(c);
            }
        }
    }

    /// The user name after (or, for `before` triggers, before) a trigger such as "user",
    /// "usuario", "gebruiker". A bare word is taken only where it cannot be running text: after
    /// "user:", or when it has a digit, ".", or "_", or when it ends a clause ("by user jdoe.");
    /// "the user reported" is left alone.
    fn username(&self, text: &str, s: usize, e: usize, before: bool, label: Label) -> Option<Cand> {
        let (start, end, after_colon) = if before {
            let head = text[..s].trim_end_matches([' ', '\t']);
            let start = head
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)))
                .map_or(0, |i| i + 1);
            (start, head.len(), false)
        } else {
            let skipped = self.skip.find(&text[e..]).map_or("", |m| m.as_str());
            let v = e + skipped.len();
            let m = self.user.find_at(text, v).filter(|m| m.start() == v)?;
            let end = v + m.as_str().trim_end_matches(['.', '-', '_']).len();
            (v, end, skipped.contains(':'))
        };
        let word = text.get(start..end)?;
        if !self
            .user
            .find(word)
            .is_some_and(|m| m.range() == (0..word.len()))
            || is_word_char(prev_char(text, start))
            || is_word_char(next_char(text, end))
        {
            return None;
        }
        let marked = word.contains(|c: char| c.is_ascii_digit() || c == '.' || c == '_');
        let clause_end = before
            || matches!(
                next_char(text, end),
                None | Some('.' | ',' | ';' | ')' | '\n' | '\r')
            );
        let plain_word = self.lang.is_stop_word(&word.to_lowercase());
        (marked || ((after_colon || clause_end) && !plain_word))
            .then(|| Cand::new(start, end, label, "username", 0.9))
    }

    fn value(&self, text: &str, v: usize, label: Label, shapes: &Shapes) -> Option<Cand> {
        let rest = &text[v..];
        let tagged = |mut c: Cand, rule: &'static str| {
            c.label = label;
            c.rule = rule;
            c.score = 0.92;
            Some(c)
        };
        match (label.category, label.subtype) {
            (Category::Contact, _) => {
                let c = shapes
                    .read_at(Kind::PhoneIntl, text, v)
                    .or_else(|| shapes.read_at(Kind::PhoneLocal, text, v))?;
                // "called by phone at 0700": a clock time, not an extension.
                if clock_time_after_at(text, c.start, c.end) {
                    return None;
                }
                let rule = if label.subtype == Some(Subtype::Fax) {
                    "fax"
                } else {
                    "phone"
                };
                tagged(c, rule)
            }
            (Category::Date, _) => {
                let c = [Kind::DateNum, Kind::DateWritten, Kind::Year]
                    .iter()
                    .find_map(|&k| shapes.read_at(k, text, v))?;
                let rule = if label.subtype == Some(Subtype::Birthdate) {
                    "birthdate"
                } else {
                    "date"
                };
                tagged(c, rule)
            }
            (Category::Age, _) => {
                if let Some(c) = [Kind::AgeAdj, Kind::AgeUnit]
                    .iter()
                    .find_map(|&k| shapes.read_at(k, text, v))
                {
                    return tagged(c, "age");
                }
                let m = self.age.find(rest)?;
                let end = v + m.end();
                let ok = super::text::ends_token(text, end)
                    && m.as_str().parse::<u32>().is_ok_and(|a| a <= 130);
                ok.then(|| Cand::new(v, end, label, "age", 0.92))
            }
            (Category::Location, Some(Subtype::Zip)) => {
                if let Some(c) = [Kind::ZipNl, Kind::ZipUk]
                    .iter()
                    .find_map(|&k| shapes.read_at(k, text, v))
                {
                    return tagged(c, "zip");
                }
                let m = self.zip.find(rest)?;
                let end = v + m.end();
                super::text::ends_token(text, end).then(|| Cand::new(v, end, label, "zip", 0.92))
            }
            (Category::Location, _) => {
                // A field value is at most 120 bytes: the line end is looked for nearby only,
                // which keeps a long single-line document linear.
                let le = line_end_within(text, v, FIELD_LINE_LOOKAHEAD);
                let line = &text[v..le];
                let cut = ["  ", "; ", "\t"]
                    .iter()
                    .filter_map(|p| line.find(p))
                    .min()
                    .unwrap_or(line.len());
                let val = line[..cut].trim_end_matches([' ', '.', ',', ';', ':']);
                let letters = val.chars().filter(|c| c.is_alphabetic()).count();
                (letters >= 3 && val.len() <= 120).then(|| {
                    let rule = if label.subtype == Some(Subtype::City) {
                        "city_field"
                    } else {
                        "street_field"
                    };
                    Cand::new(v, v + val.len(), label, rule, 0.92)
                })
            }
            _ => {
                let m = self.id.find(rest)?;
                let mut val = m.as_str();
                let mut v = v;
                // "nhc-123456": a lowercase field prefix is not part of the number.
                if let Some((pre, num)) = val.split_once(['-', '/']) {
                    if !pre.is_empty() && pre.chars().all(|c| c.is_ascii_lowercase()) {
                        v += pre.len() + 1;
                        val = num;
                    }
                }
                self.is_code(text, v, val, 3)
                    .then(|| Cand::new(v, v + val.len(), label, id_rule(label), 0.92))
            }
        }
    }
}

/// Splits an address field value at its postcode: "Kerkstraat 1, 1234 AB Delft", "1922 Győr,
/// Béke tér 4.", "12 Oak Road, Luton LU1 3AB". The postcode must open or close a comma-separated
/// part; the rest of that part is the city and the parts on the street side are the street.
/// Without a postcode the whole value stays one street span.
fn address_field(text: &str, field: Cand, shapes: &Shapes, out: &mut Vec<Cand>) {
    let mut parts = Vec::new();
    let mut p = field.start;
    for piece in text[field.start..field.end].split(',') {
        let lead = piece.len() - piece.trim_start().len();
        let body = piece.trim();
        if !body.is_empty() {
            parts.push((p + lead, p + lead + body.len()));
        }
        p += piece.len() + 1;
    }
    let loc = |st| Label::new(Category::Location, st);
    for (i, &(ps, pe)) in parts.iter().enumerate() {
        let starts = std::iter::once(ps).chain(
            text[ps..pe]
                .match_indices(' ')
                .map(|(j, _)| ps + j + 1)
                .filter(|&q| q < pe && !text[q..].starts_with(' ')),
        );
        let Some(zip) = starts
            .filter_map(|q| shapes.zip_at(text, q))
            .find(|z| z.start == ps || z.end == pe)
        else {
            continue;
        };
        let city = if zip.start == ps {
            (zip.end, pe)
        } else {
            (ps, zip.start)
        };
        let city = trim_span(text, city);
        let street_parts = if i > 0 { &parts[..i] } else { &parts[i + 1..] };
        out.push(Cand::new(
            zip.start,
            zip.end,
            loc(Subtype::Zip),
            "zip",
            0.92,
        ));
        let name = &text[city.0..city.1];
        if name.len() <= 40
            && name
                .split(' ')
                .all(|w| w.chars().next().is_some_and(char::is_uppercase))
        {
            out.push(Cand::new(
                city.0,
                city.1,
                loc(Subtype::City),
                "city_field",
                0.9,
            ));
        }
        if let (Some(first), Some(last)) = (street_parts.first(), street_parts.last()) {
            let letters = text[first.0..last.1]
                .chars()
                .filter(|c| c.is_alphabetic())
                .count();
            if letters >= 3 {
                out.push(Cand::new(
                    first.0,
                    last.1,
                    field.label,
                    "street_field",
                    0.92,
                ));
            }
        }
        return;
    }
    out.push(field);
}

/// Whether `text[s..e]` is four digits that read as a 24-hour clock time (0000 to 2359) right
/// after the word "at".
fn clock_time_after_at(text: &str, s: usize, e: usize) -> bool {
    let v = &text[s..e];
    let clock =
        v.len() == 4 && v.bytes().all(|b| b.is_ascii_digit()) && v[..2] < *"24" && v[2..] < *"60";
    let before = text[..s].trim_end_matches([' ', '\t']);
    let Some(head) = before
        .strip_suffix("at")
        .or_else(|| before.strip_suffix("AT"))
        .or_else(|| before.strip_suffix("At"))
    else {
        return false;
    };
    clock && !head.chars().next_back().is_some_and(char::is_alphanumeric)
}

fn trim_span(text: &str, (s, e): (usize, usize)) -> (usize, usize) {
    let t = &text[s..e];
    let lead = t.len() - t.trim_start().len();
    (s + lead, s + lead + t.trim().len())
}

fn id_rule(label: Label) -> &'static str {
    match label.subtype {
        Some(Subtype::Medicalrecord) => "record_number",
        Some(Subtype::Healthplan) => "insurance_number",
        Some(Subtype::License) => "license_number",
        Some(Subtype::Ssn) => "ssn",
        Some(Subtype::Account) => "account_number",
        Some(Subtype::Vehicle) => "vehicle_number",
        _ => "id_number",
    }
}
