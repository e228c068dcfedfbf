//! Word, character and word-shape indices for the BiLSTM-CRF, saved beside its weights.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub const PAD: u32 = 0;
pub const UNK: u32 = 1;

/// Number of word-shape classes (see [`shape`]), padding included.
pub const SHAPES: usize = 8;

/// The form a word is looked up in: lower case, every digit written as `0`.
pub fn normalize(word: &str) -> String {
    word.chars()
        .map(|c| if c.is_numeric() { '0' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

/// A word's shape: 1 lower, 2 capitalized, 3 upper, 4 mixed case, 5 digits, 6 letters and
/// digits, 7 punctuation or symbol (0 is padding). Normalized words lose case, so the shape
/// carries it back.
pub fn shape(word: &str) -> u32 {
    let (mut upper, mut lower, mut digit, mut other) = (0, 0, 0, 0);
    for c in word.chars() {
        if c.is_uppercase() {
            upper += 1;
        } else if c.is_lowercase() {
            lower += 1;
        } else if c.is_numeric() {
            digit += 1;
        } else {
            other += 1;
        }
    }
    let first_upper = word.chars().next().is_some_and(char::is_uppercase);
    match () {
        _ if other > 0 && upper + lower + digit == 0 => 7,
        _ if digit > 0 && upper + lower == 0 => 5,
        _ if digit > 0 => 6,
        _ if upper == 0 => 1,
        _ if lower == 0 => 3,
        _ if first_upper && upper == 1 => 2,
        _ => 4,
    }
}

/// Word and character indices. Index 0 is padding, 1 unknown.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Vocab {
    pub words: Vec<String>,
    pub chars: Vec<char>,
    #[serde(skip)]
    word_index: HashMap<String, u32>,
    #[serde(skip)]
    char_index: HashMap<char, u32>,
}

impl Vocab {
    /// Words seen at least `min_count` times (normalized) and every character seen, in
    /// first-seen order after sorting by count, so the same corpus gives the same indices.
    pub fn build<'a>(
        vocab_words: impl Iterator<Item = &'a str>,
        char_words: impl Iterator<Item = &'a str>,
        min_count: usize,
    ) -> Vocab {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for w in vocab_words {
            *counts.entry(normalize(w)).or_default() += 1;
        }
        let mut words: Vec<(String, usize)> = counts
            .into_iter()
            .filter(|(_, c)| *c >= min_count.max(1))
            .collect();
        words.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut char_counts: HashMap<char, usize> = HashMap::new();
        for w in char_words {
            for c in w.chars() {
                *char_counts.entry(c).or_default() += 1;
            }
        }
        let mut chars: Vec<(char, usize)> = char_counts.into_iter().collect();
        chars.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut all_words = vec!["<pad>".to_string(), "<unk>".to_string()];
        all_words.extend(words.into_iter().map(|(w, _)| w));
        let mut all_chars = vec!['\0', '\u{fffd}'];
        all_chars.extend(chars.into_iter().map(|(c, _)| c));
        Vocab::from_parts(all_words, all_chars)
    }

    /// Rebuilds the look-up tables after loading.
    pub fn from_parts(words: Vec<String>, chars: Vec<char>) -> Vocab {
        let word_index = words
            .iter()
            .enumerate()
            .skip(2)
            .map(|(i, w)| (w.clone(), i as u32))
            .collect();
        let char_index = chars
            .iter()
            .enumerate()
            .skip(2)
            .map(|(i, c)| (*c, i as u32))
            .collect();
        Vocab {
            words,
            chars,
            word_index,
            char_index,
        }
    }

    pub fn word(&self, word: &str) -> u32 {
        *self.word_index.get(&normalize(word)).unwrap_or(&UNK)
    }

    /// Whether the normalized word is in the vocabulary.
    pub fn knows(&self, word: &str) -> bool {
        self.word_index.contains_key(&normalize(word))
    }

    pub fn char(&self, c: char) -> u32 {
        *self.char_index.get(&c).unwrap_or(&UNK)
    }

    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    pub fn char_count(&self) -> usize {
        self.chars.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_normal_forms() {
        assert_eq!(normalize("Año2020"), "año0000");
        let cases = [
            ("casa", 1),
            ("Casa", 2),
            ("UCI", 3),
            ("McDonald", 4),
            ("2020", 5),
            ("B12", 6),
            ("/", 7),
        ];
        for (w, s) in cases {
            assert_eq!(shape(w), s, "{w}");
        }
    }

    #[test]
    fn vocabulary_keeps_frequent_words_and_maps_the_rest_to_unk() {
        let text = ["el", "El", "paciente", "el", "raro"];
        let v = Vocab::build(text.iter().copied(), text.iter().copied(), 2);
        assert_eq!(v.words, ["<pad>", "<unk>", "el"]);
        assert_eq!(v.word("EL"), 2);
        assert_eq!(v.word("paciente"), UNK);
        assert_eq!(v.char('z'), UNK);
        assert!(v.char('e') > UNK);
        let back = Vocab::from_parts(v.words.clone(), v.chars.clone());
        assert_eq!(back, v);
    }
}
