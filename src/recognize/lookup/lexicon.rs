//! A phrase table over folded word tokens: a trie keyed by word ids, each node carrying a bit
//! set of the lists whose entries end there. Matching walks text tokens, so one hash lookup per
//! candidate token, no per-token allocation.

use super::tokens::{fold_into, tokenize, FxMap, Shape, Token, Words};

/// Hungarian case endings tried (longest first) when an inflected capitalized word is not in a
/// list: "Budapesten" → "Budapest", "Kovácsnak" → "Kovács".
pub(crate) const HU_SUFFIXES: &[&str] = &[
    "janak", "jenek", "ban", "ben", "bol", "rol", "tol", "hoz", "hez", "nak", "nek", "val", "vel",
    "nal", "nel", "ert", "kor", "ba", "be", "ra", "re", "on", "en", "ig", "ot", "et", "al", "el",
    "os", "es", "ek", "ok", "ne", "i", "t", "n",
];

#[derive(Default)]
pub struct Lexicon {
    words: FxMap<Box<str>, u32>,
    next: FxMap<(u32, u32), u32>,
    /// The node each word id leads to from the root (`NO_NODE` when none): the step every
    /// match starts with, read without hashing.
    root: Vec<u32>,
    bits: Vec<u32>,
    /// Longest word in bytes (folded); longer tokens miss without hashing (bar Hungarian stems).
    max_len: usize,
    /// Try Hungarian case endings on a miss.
    hungarian: bool,
    /// Scratch space of `insert`, kept so that loading 100k-entry lists allocates little.
    scratch_toks: Vec<Token>,
    scratch_buf: String,
}

impl Lexicon {
    pub fn new(hungarian: bool) -> Self {
        Lexicon {
            bits: vec![0],
            hungarian,
            ..Default::default()
        }
    }

    /// Adds `entry` (tokenized and folded like text) with `bits`; false when it has no word.
    pub fn insert(&mut self, entry: &str, bits: u32) -> bool {
        let mut toks = std::mem::take(&mut self.scratch_toks);
        let mut buf = std::mem::take(&mut self.scratch_buf);
        let ok = self.insert_with(entry, bits, &mut toks, &mut buf);
        self.scratch_toks = toks;
        self.scratch_buf = buf;
        ok
    }

    /// Room for `n` more entries, so a long list does not rehash the tables as it loads.
    pub fn reserve(&mut self, n: usize) {
        self.words.reserve(n);
        self.next.reserve(n);
        self.bits.reserve(n);
        self.root.reserve(n);
    }

    fn insert_with(
        &mut self,
        entry: &str,
        bits: u32,
        toks: &mut Vec<Token>,
        buf: &mut String,
    ) -> bool {
        tokenize(entry, toks);
        if toks.is_empty() {
            return false;
        }
        let mut node = 0u32;
        for t in toks.iter() {
            fold_into(&entry[t.start..t.end], buf);
            self.max_len = self.max_len.max(buf.len());
            let n_words = self.words.len() as u32;
            let id = *self.words.entry(buf.as_str().into()).or_insert(n_words);
            let n_nodes = self.bits.len() as u32;
            let from_root = node == 0;
            node = *self.next.entry((node, id)).or_insert(n_nodes);
            if node == n_nodes {
                self.bits.push(0);
            }
            if from_root {
                let slot = id as usize;
                if self.root.len() <= slot {
                    self.root.resize(slot + 1, NO_NODE);
                }
                self.root[slot] = node;
            }
        }
        self.bits[node as usize] |= bits;
        true
    }

    /// Union of the bits of every complete entry.
    pub fn all_bits(&self) -> u32 {
        self.bits.iter().fold(0, |a, b| a | b)
    }

    pub fn len(&self) -> usize {
        self.bits.iter().filter(|&&b| b != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn word(&self, folded: &str) -> Option<u32> {
        self.words.get(folded).copied()
    }

    fn step(&self, node: u32, word: u32) -> Option<u32> {
        if node == 0 {
            return self
                .root
                .get(word as usize)
                .copied()
                .filter(|&n| n != NO_NODE);
        }
        self.next.get(&(node, word)).copied()
    }

    /// Bits of a single folded word that is a complete entry (0 when none).
    pub fn word_bits(&self, folded: &str) -> u32 {
        self.word(folded)
            .and_then(|w| self.step(0, w))
            .map_or(0, |n| self.bits[n as usize])
    }
}

const NO_NODE: u32 = u32::MAX;
const UNKNOWN: u32 = u32::MAX;
const ABSENT: u32 = u32::MAX - 1;

/// Matches one lexicon against the words of one text, caching word ids per token.
pub struct Matcher<'a> {
    lex: &'a Lexicon,
    text: &'a str,
    words: &'a Words,
    ids: Vec<u32>,
}

/// Whether the characters between two tokens keep them in one phrase ("EE. UU.", "Ayllón-Terán",
/// "Johnson & Johnson", "St Mary's").
pub fn phrase_gap(gap: &str) -> bool {
    !gap.is_empty()
        && gap.len() <= 3
        && gap
            .bytes()
            .all(|b| matches!(b, b' ' | b'.' | b'-' | b'\'' | b'&' | b'/'))
        || gap == "\u{2019}"
}

impl<'a> Matcher<'a> {
    pub fn new(lex: &'a Lexicon, text: &'a str, words: &'a Words) -> Self {
        Matcher {
            lex,
            text,
            words,
            ids: vec![UNKNOWN; words.toks.len()],
        }
    }

    /// Word id of token `j` (cached); Hungarian endings are stripped from capitalized misses.
    pub fn id(&mut self, j: usize) -> Option<u32> {
        let cached = self.ids[j];
        if cached == ABSENT {
            return None;
        }
        if cached != UNKNOWN {
            return Some(cached);
        }
        let t = self.words.toks[j];
        // Folding never grows a Latin word by more than a few bytes; far longer tokens miss.
        if !self.lex.hungarian && t.end - t.start > self.lex.max_len + 8 {
            self.ids[j] = ABSENT;
            return None;
        }
        let folded = self.words.folded(j);
        let mut id = self.lex.word(folded);
        if id.is_none() && self.lex.hungarian && t.shape == Shape::Cap {
            id = HU_SUFFIXES.iter().find_map(|s| {
                let stem = folded.strip_suffix(s)?;
                (stem.len() >= 3).then(|| self.lex.word(stem)).flatten()
            });
        }
        self.ids[j] = id.unwrap_or(ABSENT);
        id
    }

    /// Longest entry starting at token `i`: (index of its last token, bits).
    pub fn longest(&mut self, i: usize) -> Option<(usize, u32)> {
        let mut node = 0u32;
        let mut best = None;
        let mut j = i;
        while j < self.words.toks.len() {
            if j > i {
                let before = self.words.toks[j - 1];
                let gap = &self.text[before.end..self.words.toks[j].start];
                // A full stop after a word of five letters or more ends a sentence ("in
                // Dorchester. House manager"), where one after an abbreviation joins ("St.").
                let sentence_end = gap.starts_with('.')
                    && self.text[before.start..before.end].chars().count() >= 5;
                if !phrase_gap(gap) || sentence_end {
                    break;
                }
            }
            let Some(w) = self.id(j) else { break };
            let Some(n) = self.lex.step(node, w) else {
                break;
            };
            node = n;
            let bits = self.lex.bits[n as usize];
            if bits != 0 {
                best = Some((j, bits));
            }
            j += 1;
        }
        best
    }

    /// Bits of token `j` alone as an entry (0 when none).
    pub fn single(&mut self, j: usize) -> u32 {
        match self.id(j).and_then(|w| self.lex.step(0, w)) {
            Some(n) => self.lex.bits[n as usize],
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_phrase_wins_and_gaps_matter() {
        let mut lex = Lexicon::new(false);
        lex.insert("Santiago", 1);
        lex.insert("Santiago de Compostela", 2);
        lex.insert("EE. UU.", 4);
        let text = "Vive en Santiago de Compostela, no en Santiago; viajó a EE.UU. y Santiago\nde";
        let words = Words::new(text);
        let toks = &words.toks;
        let mut m = Matcher::new(&lex, text, &words);
        let mut found = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            if let Some((j, bits)) = m.longest(i) {
                found.push((&text[toks[i].start..toks[j].end], bits));
                i = j + 1;
            } else {
                i += 1;
            }
        }
        assert_eq!(
            found,
            [
                ("Santiago de Compostela", 2),
                ("Santiago", 1),
                ("EE.UU", 4),
                ("Santiago", 1)
            ]
        );
    }

    #[test]
    fn a_full_stop_after_a_long_word_ends_a_phrase() {
        let mut lex = Lexicon::new(false);
        lex.insert("Dorchester House", 1);
        lex.insert("St. Anne's Hospital", 2);
        let text = "lives in Dorchester. House manager aware; PCP at Dorchester House, St. Anne's Hospital";
        let words = Words::new(text);
        let toks = &words.toks;
        let mut m = Matcher::new(&lex, text, &words);
        let found: Vec<&str> = (0..toks.len())
            .filter_map(|i| m.longest(i).map(|(j, _)| &text[toks[i].start..toks[j].end]))
            .collect();
        assert_eq!(found, ["Dorchester House", "St. Anne's Hospital"]);
    }

    #[test]
    fn hungarian_endings_are_stripped() {
        let mut lex = Lexicon::new(true);
        lex.insert("Budapest", 1);
        let text = "Budapesten lakik, budapesten nem";
        let words = Words::new(text);
        let mut m = Matcher::new(&lex, text, &words);
        assert_eq!(m.single(0), 1);
        assert_eq!(m.single(3), 0, "lowercase words are not stemmed");
    }
}
