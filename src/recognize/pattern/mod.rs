//! Pattern recognizer: regular shapes with checksum validators (IDs, phones, e-mails, URLs,
//! IPs, dates, ages, postcodes, street addresses) and trigger-word values, for one language.
//!
//! Submodules: `age_sex` (an age with the sex glued to it opening a line: "92F"), `age_alone`
//! (English: a bare number after a person and `is`: "Pt is 96 and"),
//! `shapes` (one combined scan for number-like shapes), `triggers` (values after
//! trigger words from `wordlists/<lang>/id_triggers.txt`), `street` (street-type words from
//! `wordlists/<lang>/street_types.txt`), `web` (e-mail, URL, IPv6), `card` (Luhn-checked payment
//! card numbers), `extension` (a telephone extension after an `x`: "x4-1187"), `short_date` (a
//! day and a month without a year), `month_alone`, `day_alone` and `holiday` (English: a month
//! or an ordinal day alone after a dating word, holidays), `road` (English: a numbered road
//! after a preposition of place: "on Route 9"), `post_box` (post-office boxes: "PO BOX 2231"),
//! `union_local` (English: a trade union's local: "IBEW Local 103"), `grid` (Latin-American grid
//! addresses), `lexicon` (month names, age words), `openings` (which two bytes can open a
//! shape), `text` (offset helpers).
//!
//! Choices: a Spanish NASS (social security number) is labelled ID/HEALTHPLAN, because it is
//! the number of the public health insurance (MEDDOCAN's ID_ASEGURAMIENTO); national personal
//! numbers (BSN, TAJ, NHS/CHI number, DNI/NIE, codice fiscale) are ID/SSN. Bare digit strings need a valid
//! checksum, a national phone-number shape, or a trigger word; a trigger reads its value even
//! when the checksum fails (recall first).

mod age_alone;
mod age_sex;
mod card;
mod day_alone;
mod extension;
mod grid;
mod holiday;
mod lexicon;
mod month_alone;
mod openings;
mod post_box;
mod road;
mod shapes;
mod short_date;
mod street;
pub use street::is_unit_word;
mod text;
mod triggers;
mod union_local;
mod web;

use crate::labels::{Category, Label, Subtype};
use crate::lang::Lang;
use crate::recognize::Recognizer;
use crate::span::{resolve_overlaps, Entity};
use crate::wordlists::{ListSources, VocabError};

#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    #[error(transparent)]
    Vocab(#[from] VocabError),
    #[error("word list {list}, entry {entry}: {msg}")]
    BadEntry {
        list: String,
        entry: usize,
        msg: String,
    },
    #[error("pattern could not be built: {0}")]
    Regex(String),
}

/// A candidate before it becomes an `Entity`: the rule name is static to avoid allocation
/// until the candidate survives.
#[derive(Clone, Debug)]
pub(crate) struct Cand {
    pub start: usize,
    pub end: usize,
    pub label: Label,
    pub rule: &'static str,
    pub score: f32,
}

impl Cand {
    pub fn new(start: usize, end: usize, label: Label, rule: &'static str, score: f32) -> Self {
        Cand {
            start,
            end,
            label,
            rule,
            score,
        }
    }
}

pub struct PatternRecognizer {
    lang: Lang,
    shapes: shapes::Shapes,
    triggers: triggers::Triggers,
    streets: street::Streets,
    /// Spanish only: the grid addresses of Latin-American cities.
    grid: Option<grid::Grid>,
    short_dates: short_date::ShortDates,
    /// English only: a month named alone after a word that dates it.
    months_alone: Option<month_alone::MonthsAlone>,
    /// English only: an ordinal day alone.
    days_alone: Option<day_alone::DaysAlone>,
    /// English only: an age without its unit after a person and `is`.
    ages_alone: Option<age_alone::AgesAlone>,
    /// English only: holidays.
    holidays: Option<holiday::Holidays>,
    /// English only: a numbered road after a preposition of place.
    roads: Option<road::Roads>,
    post_boxes: post_box::PostBoxes,
    /// English only: a trade union's local.
    union_locals: Option<union_local::UnionLocals>,
    urls: web::Urls,
}

impl PatternRecognizer {
    /// Builds the rules of `lang`; fails when a built-in or user word list is missing or malformed.
    pub fn new(lang: Lang, lists: &ListSources) -> Result<Self, PatternError> {
        let lex = lexicon::lexicon(lang);
        Ok(PatternRecognizer {
            lang,
            shapes: shapes::Shapes::new(lang, lex)?,
            triggers: triggers::Triggers::new(lang, lists)?,
            streets: street::Streets::new(lang, lists)?,
            grid: (lang == Lang::Es).then(grid::Grid::new).transpose()?,
            short_dates: short_date::ShortDates::new(lang),
            months_alone: month_alone::MonthsAlone::new(lang),
            days_alone: day_alone::DaysAlone::new(lang),
            ages_alone: age_alone::AgesAlone::new(lang),
            holidays: holiday::Holidays::new(lang),
            roads: (lang == Lang::En)
                .then(road::Roads::new)
                .transpose()
                .map_err(|e| PatternError::Regex(e.to_string()))?,
            post_boxes: post_box::PostBoxes::new(lang)
                .map_err(|e| PatternError::Regex(e.to_string()))?,
            union_locals: (lang == Lang::En)
                .then(union_local::UnionLocals::new)
                .transpose()
                .map_err(|e| PatternError::Regex(e.to_string()))?,
            urls: web::Urls::new()?,
        })
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// All candidates, resolved to non-overlapping spans (higher score keeps its label).
    fn candidates(&self, text: &str) -> Vec<Cand> {
        let mut c = Vec::new();
        web::emails(text, &mut c);
        self.urls.find(text, &mut c);
        web::ipv6(text, &mut c);
        card::cards(text, &mut c);
        extension::extensions(text, &mut c);
        age_sex::ages_with_sex(text, lexicon::lexicon(self.lang).sex_after_age, &mut c);
        self.shapes.find(text, &mut c);
        self.triggers.find(text, &self.shapes, &mut c);
        self.streets.find(text, &mut c);
        self.short_dates.find(text, &mut c);
        if let Some(m) = &self.months_alone {
            m.find(text, &mut c);
        }
        if let Some(h) = &self.holidays {
            h.find(text, &mut c);
        }
        if let Some(d) = &self.days_alone {
            d.find(text, &mut c);
        }
        if let Some(a) = &self.ages_alone {
            a.find(text, &mut c);
        }
        if let Some(r) = &self.roads {
            r.find(text, &mut c);
        }
        if let Some(g) = &self.grid {
            g.find(text, &mut c);
        }
        self.post_boxes.find(text, &mut c);
        if let Some(u) = &self.union_locals {
            u.find(text, &mut c);
        }
        let zips: Vec<usize> = c
            .iter()
            .filter(|x| x.label == Label::new(Category::Location, Subtype::Zip))
            .map(|x| x.start)
            .collect();
        for z in zips {
            if let Some(s) = self.streets.before_zip(text, z) {
                c.push(s);
            }
        }
        c
    }
}

impl Recognizer for PatternRecognizer {
    fn name(&self) -> &str {
        "pattern"
    }

    fn find(&self, text: &str, out: &mut Vec<Entity>) {
        let cands = self.candidates(text);
        if cands.is_empty() {
            return;
        }
        let ents = cands
            .into_iter()
            .map(|c| {
                let source = ["pattern:", c.rule].concat();
                Entity::new(c.start, c.end, c.label, source, c.score)
            })
            .collect();
        out.extend(resolve_overlaps(ents));
    }
}

#[cfg(test)]
mod tests;
