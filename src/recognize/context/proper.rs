//! Hungarian orthography: common nouns and adjectives (also those made from place names,
//! "budapesti", "magyar") are written in lower case, so capitalized words inside a sentence are
//! proper nouns: people, places, organisations. Runs of them become NAME candidates.

use super::config::{ALLOWW, BREAKS, PROF_TRIG, TRIGGER};
use super::Ctx;
use crate::labels::{Category, Label, Subtype};
use crate::recognize::lookup::tokens::Shape;

/// Below the lists and the context rules, so their labels win where they overlap.
const S_PROPER: f32 = 0.35;

/// Words in a run at most; longer capitalized stretches are titles and headings.
const MAX_RUN: usize = 4;

/// Whether token `i` opens a sentence, a line, a quotation or a parenthesis: a capital there
/// says nothing about the word.
fn opens_clause(c: &Ctx, i: usize) -> bool {
    if i == 0 {
        return true;
    }
    let g = &c.text[c.toks[i - 1].end..c.toks[i].start];
    g.contains([
        '.', '!', '?', ':', ';', '\n', '"', '(', ')', '[', ']', '-', '–', '—', '„', '”', '“', '»',
        '«', '•', '*', '/',
    ])
}

/// Longest lower-case tail after a hyphen that is still a case ending ("Abergil-lel",
/// "N'Gog-nak"); a longer one makes a compound common noun or adjective ("Instagram-oldalán",
/// "Petrie-féle", "Európa-bajnoki").
const MAX_SUFFIX_CHARS: usize = 5;

/// Short derivational tails that make an adjective or adverb of a name ("Petrie-féle",
/// "Európa-szerte"), not case endings.
const DERIVATIONS: &[&str] = &["féle", "szerű", "beli", "szerte", "ellenes", "párti"];

/// Whether token `j` is the head of a hyphenated compound with a lower-case word.
fn compound_head(c: &Ctx, j: usize) -> bool {
    let Some(next) = c.toks.get(j + 1) else {
        return false;
    };
    let tail = &c.text[next.start..next.end];
    next.shape == Shape::Lower
        && &c.text[c.toks[j].end..next.start] == "-"
        && (tail.chars().count() > MAX_SUFFIX_CHARS || DERIVATIONS.contains(&tail))
}

/// Gap inside one proper name: one space, or a hyphen ("Szent-Györgyi").
fn joins(g: &str) -> bool {
    matches!(g, " " | "-")
}

/// Whether token `j` may be part of a proper-noun run: a capitalized word of two or more
/// letters that no list marks as a title, trigger, stop word or medical word.
fn candidate(c: &mut Ctx, j: usize) -> bool {
    let t = c.toks[j];
    if t.shape != Shape::Cap || c.text[t.start..t.end].chars().count() < 2 || compound_head(c, j) {
        return false;
    }
    let bits = c.m.longest(j).map_or(0, |(_, b)| b) | c.m.single(j);
    bits & (BREAKS | TRIGGER | PROF_TRIG | ALLOWW) == 0
}

/// Pushes a NAME candidate for every run of capitalized words inside a sentence. A lone word
/// right before a number is left out (a brand name and its dose: "Cataflam 50 mg").
pub(super) fn proper_runs(c: &mut Ctx) {
    let label = Label::new(Category::Name, Subtype::Patient);
    let n = c.toks.len();
    let mut i = 0;
    while i < n {
        if !candidate(c, i) || opens_clause(c, i) {
            i += 1;
            continue;
        }
        let mut last = i;
        while last + 1 < n
            && last + 1 - i < MAX_RUN
            && joins(&c.text[c.toks[last].end..c.toks[last + 1].start])
            && candidate(c, last + 1)
        {
            last += 1;
        }
        let before_number = last + 1 < n
            && c.toks[last + 1].shape == Shape::Num
            && c.text[c.toks[last].end..c.toks[last + 1].start] == *" ";
        if !(last == i && before_number) {
            let (s, e) = (c.toks[i].start, c.toks[last].end);
            c.out.push(crate::span::Entity::new(
                s,
                e,
                label,
                "context:proper",
                S_PROPER,
            ));
        }
        i = last + 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::Lang;
    use crate::recognize::context::ContextRecognizer;
    use crate::recognize::surfaces_from;
    use crate::wordlists::ListSources;

    fn proper(text: &str) -> Vec<String> {
        let r = ContextRecognizer::new(Lang::Hu, &ListSources::default()).unwrap();
        surfaces_from(&r, text, "context:proper")
    }

    #[test]
    fn capitalized_words_inside_a_sentence() {
        let cases: &[(&str, &[&str])] = &[
            ("Tegnap Zauditu Loder érkezett meg.", &["Zauditu Loder"]),
            ("a csapatban Abergil-lel együtt játszott", &["Abergil"]),
            ("a bíróság szerint Barics nem volt jelen", &["Barics"]),
            ("és a Szent-Györgyi díjat kapta", &["Szent-Györgyi"]),
            ("a N'Gog-nak adott labdát", &["Gog"]),
            // Compounds with a common noun are no names.
            ("közzétette az Instagram-oldalán", &[]),
            ("a Petrie-féle módszer", &[]),
            ("(5) Az Unió szervei", &["Unió"]),
            // Sentence, line and quotation openings say nothing.
            ("Ezután hazament. Később visszajött.", &[]),
            ("ment.\nKésőbb jött", &[]),
            ("azt mondta: Holnap jövök", &[]),
            // A lone brand name before its dose.
            ("napi kétszer Cataflam 50 mg", &[]),
            // Lower-case adjectives from places are no names.
            ("a budapesti kórházban", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(proper(text), *want, "{text}");
        }
    }
}
