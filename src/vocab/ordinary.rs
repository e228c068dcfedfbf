//! The vocabulary pieces ordinary (non-name) words need, which a rewrite may never rename: the
//! alphabet (single characters and byte pieces) and every piece that an ordinary word of a
//! reference text (lower-case, all capitals, or capitalized opening a sentence) is encoded with; and the check that a rewritten tokenizer still encodes those
//! words exactly as the original did (same ids, no new `[UNK]`).

use std::collections::HashMap;

use serde::Serialize;

use crate::tokenizer::{ModelTokenizer, TokenizerError};

/// A piece that stands for at most one character (or part of one): renaming it would take a
/// letter out of every word that has it.
pub fn is_alphabet_piece(surface: Option<&str>) -> bool {
    match surface {
        None => true,
        Some(s) => s.chars().count() <= 1 || s.contains('\u{FFFD}'),
    }
}

/// Whether the word at `start..end` of `text` (as the tokenizer's pre-tokenizer cut it) is an
/// ordinary word, one a name is unlikely to be: it begins with a lower-case letter, or is
/// all capitals (headings, abbreviations, de-identification tags), or is capitalized opening
/// the text or a sentence. A capitalized word inside a sentence is left out, so a name
/// the de-identification missed does not make its own pieces "ordinary".
fn is_ordinary_word(text: &str, start: usize, end: usize) -> bool {
    let word = text.get(start..end).unwrap_or("").trim_start();
    let Some(first) = word.chars().next() else {
        return false;
    };
    if first.is_lowercase() {
        return true;
    }
    if !first.is_uppercase() {
        return false;
    }
    let mut letters = word.chars().filter(|c| c.is_alphabetic());
    let all_caps = letters.clone().nth(1).is_some() && letters.all(char::is_uppercase);
    // A sentence opens after `.`, `!` or `?`, but not after an abbreviation such as `dr.` or
    // `Mevr.` (a title before a name); a line start alone is not enough (signatures and
    // header fields open lines with names).
    let before = text.get(..start).unwrap_or("").trim_end();
    let abbreviation = before.strip_suffix('.').is_some_and(|b| {
        let last = b.rsplit(|c: char| !c.is_alphabetic()).next().unwrap_or("");
        last.chars().count() <= 4
    });
    all_caps || before.is_empty() || (before.ends_with(['.', '!', '?']) && !abbreviation)
}

/// One pre-tokenized word of an encoding: its byte span in the text and its token ids.
struct Word {
    start: usize,
    end: usize,
    ids: Vec<u32>,
}

/// The words of `text` as `tok` encodes it, in order (tokens without a word are left out).
fn words(tok: &ModelTokenizer, text: &str) -> Result<Vec<Word>, TokenizerError> {
    let enc = tok
        .inner
        .encode(text, false)
        .map_err(|e| TokenizerError::Tokenizers(e.to_string()))?;
    let mut out: Vec<Word> = Vec::new();
    let mut current: Option<u32> = None;
    for ((&id, &(s, e)), word) in enc
        .get_ids()
        .iter()
        .zip(enc.get_offsets())
        .zip(enc.get_word_ids())
    {
        let Some(word) = *word else { continue };
        match out.last_mut() {
            Some(w) if current == Some(word) => {
                w.start = w.start.min(s);
                w.end = w.end.max(e);
                w.ids.push(id);
            }
            _ => out.push(Word {
                start: s,
                end: e,
                ids: vec![id],
            }),
        }
        current = Some(word);
    }
    Ok(out)
}

/// How often each piece is used inside ordinary words of a reference text.
#[derive(Clone, Debug, Default)]
pub struct OrdinaryUses {
    per_id: HashMap<u32, u64>,
    /// Ordinary word occurrences counted.
    pub words: u64,
    pub documents: usize,
}

impl OrdinaryUses {
    /// Encodes each `(text, name byte ranges)` and counts the pieces of every ordinary word
    /// outside the ranges. Errors name the text by index.
    pub fn count<'a>(
        tok: &ModelTokenizer,
        texts: impl IntoIterator<Item = (&'a str, &'a [(usize, usize)])>,
    ) -> Result<Self, (usize, TokenizerError)> {
        let specials = tok.special_ids();
        let mut out = OrdinaryUses::default();
        for (index, (text, names)) in texts.into_iter().enumerate() {
            for w in words(tok, text).map_err(|e| (index, e))? {
                let in_name = names.iter().any(|&(a, b)| w.start < b && a < w.end);
                if in_name || !is_ordinary_word(text, w.start, w.end) {
                    continue;
                }
                out.words += 1;
                for id in w.ids {
                    if specials.binary_search(&id).is_err() {
                        *out.per_id.entry(id).or_default() += 1;
                    }
                }
            }
            out.documents += 1;
        }
        Ok(out)
    }

    /// Records `uses` of piece `id` (tests of the stages that consult the counts).
    #[cfg(test)]
    pub fn add_for_test(&mut self, id: u32, uses: u64) {
        *self.per_id.entry(id).or_default() += uses;
    }

    /// Uses of piece `id` inside ordinary words.
    pub fn get(&self, id: u32) -> u64 {
        self.per_id.get(&id).copied().unwrap_or(0)
    }
}

/// How a rewritten tokenizer encodes reference text compared with the original: counts only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EncodingDiff {
    pub texts: u64,
    pub words: u64,
    pub ordinary_words: u64,
    /// Words (any) whose ids differ: the renamed names themselves are among them.
    pub changed_words: u64,
    /// Ordinary words whose ids differ: a rewrite must leave none.
    pub changed_ordinary_words: u64,
    pub unk_before: u64,
    pub unk_after: u64,
    pub passed: bool,
}

/// Encodes every text with `before` and `after` and compares them word by word (the
/// pre-tokenizer is the same, so word i of one is word i of the other). It passes when no
/// ordinary word changed and `after` yields no more `[UNK]` than `before`.
pub fn encoding_diff<'a>(
    before: &ModelTokenizer,
    after: &ModelTokenizer,
    texts: impl IntoIterator<Item = &'a str>,
) -> Result<EncodingDiff, (usize, TokenizerError)> {
    let mut d = EncodingDiff::default();
    let (unk_b, unk_a) = (before.specials.unk, after.specials.unk);
    for (index, text) in texts.into_iter().enumerate() {
        let wb = words(before, text).map_err(|e| (index, e))?;
        let wa = words(after, text).map_err(|e| (index, e))?;
        d.texts += 1;
        d.unk_before += wb
            .iter()
            .flat_map(|w| &w.ids)
            .filter(|&&i| i == unk_b)
            .count() as u64;
        d.unk_after += wa
            .iter()
            .flat_map(|w| &w.ids)
            .filter(|&&i| i == unk_a)
            .count() as u64;
        let aligned = wb.len() == wa.len();
        for (i, w) in wb.iter().enumerate() {
            let ordinary = is_ordinary_word(text, w.start, w.end);
            let changed = !aligned || wa[i].ids != w.ids;
            d.words += 1;
            d.ordinary_words += u64::from(ordinary);
            d.changed_words += u64::from(changed);
            d.changed_ordinary_words += u64::from(changed && ordinary);
        }
    }
    d.passed = d.changed_ordinary_words == 0 && d.unk_after <= d.unk_before;
    Ok(d)
}

impl EncodingDiff {
    /// One line of figures for reports (no text).
    pub fn summary(&self) -> String {
        format!(
            "{} texts, {} words ({} ordinary): {} ordinary words encode differently \
             ({} words in all, the renamed names among them); [UNK] {} before, {} after",
            self.texts,
            self.words,
            self.ordinary_words,
            self.changed_ordinary_words,
            self.changed_words,
            self.unk_before,
            self.unk_after
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_pieces() {
        assert!(is_alphabet_piece(Some("q")));
        assert!(is_alphabet_piece(Some("é")));
        assert!(is_alphabet_piece(Some("")));
        assert!(is_alphabet_piece(None));
        assert!(is_alphabet_piece(Some("\u{FFFD}a")));
        assert!(!is_alphabet_piece(Some("ij")));
    }

    #[test]
    fn ordinary_words() {
        let text =
            "Geachte collega Jansen, de patiënt lijkt beter. Verder BSN: ID\nPolikliniek 42\n\
                    Huisarts: Bakker, bij dr. Visser";
        let at = |w: &str| {
            let s = text.find(w).unwrap();
            is_ordinary_word(text, s, s + w.len())
        };
        assert!(at("Geachte"), "text start");
        assert!(at("collega") && at("lijkt"));
        assert!(!at("Jansen"), "capitalized inside a sentence");
        assert!(at("Verder"), "sentence start");
        assert!(at("BSN") && at("ID"), "all capitals");
        assert!(
            !at("Polikliniek") && !at("Bakker"),
            "a line start or a field is not enough"
        );
        assert!(!at("Visser"), "after a title");
        assert!(!at("42") && !at(","));
    }
}
