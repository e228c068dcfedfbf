//! Trigger words (`vocab/<lang>/id_triggers.txt`) and the value read after each: record
//! numbers, phone and fax numbers, dates, ages, postcodes and address lines.

use super::shapes::{Kind, Shapes};
use super::text::{is_word_char, line_end, next_char, prev_char};
use super::{Cand, PatternError};
use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::vocab::ListSources;
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::Regex;

pub struct Triggers {
    ac: AhoCorasick,
    labels: Vec<Label>,
    skip: Regex,
    id: Regex,
    zip: Regex,
    age: Regex,
    /// "fax al 91…", "by fax on 020…", "geboren op 3 mei": a linking word before a number or date.
    link: Regex,
}

/// Parses `TRIGGER<TAB>LABEL` entries; any malformed entry fails the whole list.
pub fn parse_triggers(
    lang: Lang,
    entries: &[String],
) -> Result<Vec<(String, Label)>, PatternError> {
    entries
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let bad = |msg: String| PatternError::BadEntry {
                list: format!("{}/id_triggers", lang.code()),
                entry: i + 1,
                msg,
            };
            let (word, label) = line
                .split_once('\t')
                .ok_or_else(|| bad("expected TRIGGER<TAB>LABEL".into()))?;
            let label = Label::parse(label.trim()).map_err(bad)?;
            let word = word.trim();
            if word.is_empty() {
                return Err(bad("empty trigger".into()));
            }
            Ok((word.to_string(), label))
        })
        .collect()
}

/// Adds the upper-case and capitalized forms of triggers with non-ASCII letters: the matcher
/// folds ASCII case only, and header keys are often capitalized ("PATIËNTNUMMER", "Nº HISTORIA
/// CLÍNICA", "SZÜLETÉSI IDŐ").
fn with_case_variants(parsed: Vec<(String, Label)>) -> Vec<(String, Label)> {
    let mut out = Vec::with_capacity(parsed.len() * 2);
    for (word, label) in parsed {
        if !word.is_ascii() {
            let upper = word.to_uppercase();
            let mut cs = word.chars();
            let capital: String = cs
                .next()
                .map(|c| c.to_uppercase().chain(cs).collect())
                .unwrap_or_default();
            for v in [upper, capital] {
                if v != word && out.iter().all(|(w, _): &(String, Label)| *w != v) {
                    out.push((v, label));
                }
            }
        }
        out.push((word, label));
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
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(parsed.iter().map(|(w, _)| w.as_str()))
            .map_err(|e| PatternError::Regex(e.to_string()))?;
        Ok(Triggers {
            ac,
            labels: parsed.into_iter().map(|(_, l)| l).collect(),
            skip: re(
                r"^[ \t]*[:=#.\-–\[(]*[ \t]*(?:(?i:nº|n°|n\.º|no\.|nr\.?|núm\.?|num\.?|número|numero|number|n\.)[ \t]*[:.]?[ \t]*[:=#\[(]*[ \t]*)?",
            )?,
            id: re(
                r"^(?:[A-Z]{1,4}[\- ]?|[A-Za-z]{1,4}-)?[0-9][0-9A-Za-z]*(?:(?:[ ]|[/\-.])[0-9A-Z][0-9A-Za-z]*)*",
            )?,
            zip: re(r"^(?:[A-Z]{1,2}-)?[0-9]{2,7}(?:[ \-][0-9]{3,4})?")?,
            age: re(r"^[0-9]{1,3}")?,
            link: re(
                r"^(?i:al|a|on|to|at|op|naar|via|el|il|am|van)[ \t]+(?:(?i:the|número|numero|nummer|number|n\.)[ \t]*:?[ \t]*)?",
            )?,
        })
    }

    pub fn find(&self, text: &str, shapes: &Shapes, out: &mut Vec<Cand>) {
        for m in self.ac.find_iter(text) {
            let (s, e) = (m.start(), m.end());
            let trig = &text[s..e];
            // "IzaNºCol:": a capitalized trigger glued to a lowercase word still counts.
            let glued = prev_char(text, s).is_some_and(char::is_lowercase)
                && trig.starts_with(|c: char| c.is_uppercase());
            if (is_word_char(prev_char(text, s)) && !glued)
                || (trig.chars().next_back().is_some_and(char::is_alphanumeric)
                    && is_word_char(next_char(text, e)))
            {
                continue;
            }
            let label = self.labels[m.pattern().as_usize()];
            let skipped = self.skip.find(&text[e..]).map_or("", |m| m.as_str());
            let mut v = e + skipped.len();
            if matches!(label.category, Category::Contact | Category::Date) {
                v += self.link.find(&text[v..]).map_or(0, |m| m.end());
            }
            if v >= text.len() {
                continue;
            }
            // An address is read only from a field ("Domicilio: ..."), not from running text.
            if label.category == Category::Location
                && label.subtype != Some(Subtype::Zip)
                && !skipped.contains(':')
            {
                continue;
            }
            if let Some(c) = self.value(text, v, label, shapes) {
                out.push(c);
            }
        }
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
                let le = line_end(text, v);
                let line = &text[v..le];
                let cut = ["  ", "; ", "\t"]
                    .iter()
                    .filter_map(|p| line.find(p))
                    .min()
                    .unwrap_or(line.len());
                let val = line[..cut].trim_end_matches([' ', '.', ',', ';', ':']);
                let letters = val.chars().filter(|c| c.is_alphabetic()).count();
                (letters >= 3 && val.len() <= 120)
                    .then(|| Cand::new(v, v + val.len(), label, "street_field", 0.92))
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
                let end = v + val.len();
                let digits = val.bytes().filter(u8::is_ascii_digit).count();
                (digits >= 3 && super::text::ends_token(text, end))
                    .then(|| Cand::new(v, end, label, id_rule(label), 0.92))
            }
        }
    }
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
