//! A simple sentence splitter of our own for probe sentences: a sentence ends at a line break,
//! or after `.`, `!` or `?` followed by whitespace, except after a title abbreviation of the
//! built-in title lists (`dr.`, `Sra.`, ...) or a one-letter initial (`J.`).

use crate::lang::Lang;
use std::collections::HashSet;

/// Words ending in `.` after which no sentence ends (compared in lower case).
#[derive(Clone, Debug, Default)]
pub struct Abbreviations {
    words: HashSet<String>,
}

impl Abbreviations {
    /// The dotted titles of the built-in title lists of every language.
    pub fn builtin() -> Self {
        let mut words = HashSet::new();
        for lang in Lang::ALL {
            let rel = format!("{}/titles.txt", lang.code());
            if let Some(text) = crate::wordlists::builtin(&rel) {
                for entry in crate::wordlists::parse_list(text) {
                    let title = entry.split('\t').next().unwrap_or("").trim();
                    // Multi-word titles ("prof. dr.") contribute each dotted word.
                    for word in title.split_whitespace() {
                        if word.ends_with('.') {
                            words.insert(word.to_lowercase());
                        }
                    }
                }
            }
        }
        Abbreviations { words }
    }

    /// A set of explicit abbreviations (with their dots), for tests and callers with own lists.
    pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        Abbreviations {
            words: words.into_iter().map(str::to_lowercase).collect(),
        }
    }

    /// Whether `word` (ending in `.`) is an abbreviation or a one-letter initial.
    fn contains(&self, word: &str) -> bool {
        let mut chars = word.chars();
        let initial = matches!((chars.next(), chars.next(), chars.next()),
            (Some(c), Some('.'), None) if c.is_alphabetic());
        initial || self.words.contains(&word.to_lowercase())
    }
}

/// A place where one sentence ends (`end`, exclusive) and the next may start (`next`), bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cut {
    end: usize,
    next: usize,
}

/// Every sentence cut of `text`.
fn cuts(text: &str, abbreviations: &Abbreviations) -> Vec<Cut> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut word_start = 0;
    while let Some((i, c)) = chars.next() {
        let next_is_space = chars.peek().is_some_and(|(_, n)| n.is_whitespace());
        match c {
            '\n' => out.push(Cut {
                end: i,
                next: i + 1,
            }),
            '.' | '!' | '?' if next_is_space => {
                let word = &text[word_start..i + 1];
                if c != '.' || !abbreviations.contains(word) {
                    out.push(Cut {
                        end: i + 1,
                        next: i + 1,
                    });
                }
            }
            _ => {}
        }
        if c.is_whitespace() {
            word_start = i + c.len_utf8();
        }
    }
    out
}

/// The byte range of the sentence of `text` that holds the byte range `slot` (cuts inside the
/// slot itself are ignored), without surrounding whitespace. Byte offsets must lie on char
/// boundaries.
pub fn sentence_around(
    text: &str,
    slot: (usize, usize),
    abbreviations: &Abbreviations,
) -> (usize, usize) {
    let (s, e) = slot;
    let all = cuts(text, abbreviations);
    let outside = |c: &&Cut| !(c.end > s && c.end < e);
    let start = all
        .iter()
        .filter(outside)
        .filter(|c| c.next <= s && c.end <= s)
        .map(|c| c.next)
        .max()
        .unwrap_or(0);
    let end = all
        .iter()
        .filter(outside)
        .filter(|c| c.end >= e)
        .map(|c| c.end)
        .min()
        .unwrap_or(text.len());
    let lead = text[start..s].len() - text[start..s].trim_start().len();
    let trail = text[e..end].len() - text[e..end].trim_end().len();
    (start + lead, end - trail)
}

/// All sentences of `text` as byte ranges (blank ones left out); for tests and inspection.
pub fn split(text: &str, abbreviations: &Abbreviations) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |a: usize, b: usize| {
        let piece = &text[a..b];
        let lead = piece.len() - piece.trim_start().len();
        let trimmed = piece.trim();
        if !trimmed.is_empty() {
            out.push((a + lead, a + lead + trimmed.len()));
        }
    };
    for c in cuts(text, abbreviations) {
        push(start, c.end);
        start = c.next;
    }
    push(start, text.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces<'a>(text: &'a str, ab: &Abbreviations) -> Vec<&'a str> {
        split(text, ab)
            .into_iter()
            .map(|(a, b)| &text[a..b])
            .collect()
    }

    #[test]
    fn splits_at_line_breaks_and_sentence_ends() {
        let ab = Abbreviations::builtin();
        let text = "Naam: [NAME]\nBeste [NAME],\n\nHij kwam. Zij bleef! Waarom? Dosis 2.5 mg.";
        assert_eq!(
            pieces(text, &ab),
            vec![
                "Naam: [NAME]",
                "Beste [NAME],",
                "Hij kwam.",
                "Zij bleef!",
                "Waarom?",
                "Dosis 2.5 mg."
            ]
        );
    }

    #[test]
    fn titles_and_initials_do_not_end_a_sentence() {
        let ab = Abbreviations::builtin();
        let text = "Gezien door dr. [NAME] en J. Jansen. Sra. [NAME] llegó.";
        assert_eq!(
            pieces(text, &ab),
            vec!["Gezien door dr. [NAME] en J. Jansen.", "Sra. [NAME] llegó."]
        );
        // Without the list, `dr.` ends a sentence (the rule is the list, not a guess).
        let none = Abbreviations::from_words([]);
        assert_eq!(
            pieces("Met dr. X. Klaar.", &none),
            vec!["Met dr.", "X. Klaar."]
        );
    }

    #[test]
    fn the_sentence_around_a_slot_ignores_cuts_inside_the_slot() {
        let ab = Abbreviations::from_words([]);
        let text = "Eerst dit. Toen kwam Xe. Yő bij ons.\nKlaar.";
        let s = text.find("Xe. Yő").unwrap();
        let e = s + "Xe. Yő".len();
        let (a, b) = sentence_around(text, (s, e), &ab);
        assert_eq!(&text[a..b], "Toen kwam Xe. Yő bij ons.");
        let s = text.find("Klaar").unwrap();
        let (a, b) = sentence_around(text, (s, s + 5), &ab);
        assert_eq!(&text[a..b], "Klaar.");
        let (a, b) = sentence_around(text, (0, 5), &ab);
        assert_eq!(&text[a..b], "Eerst dit.");
    }
}
