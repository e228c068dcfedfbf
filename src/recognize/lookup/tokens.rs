//! Word tokens (maximal alphanumeric runs, the words of [`crate::text::alnum_runs`]) with their
//! case shape, accent-folded lowercase keys and a fast non-cryptographic hasher for the word
//! tables, and a document's words read once for all the rules that read words ([`Words`]). The
//! runs are found again here, in one pass with the shape and no allocation, because the lists
//! and context rules read every word of a 13 GB corpus.

use std::hash::{BuildHasherDefault, Hasher};

/// Case shape of a token, enough to tell names from running text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Uppercase first letter followed by at least one lowercase letter ("García", "McDonald").
    Cap,
    /// Two or more letters, none lowercase ("GARCÍA", "UMC").
    Upper,
    /// A single uppercase letter ("J" in "J. García").
    Initial,
    /// Starts with a lowercase letter.
    Lower,
    /// Starts with a digit.
    Num,
}

impl Shape {
    /// Capitalized or all caps: what a proper noun looks like in running text.
    pub fn is_proper(self) -> bool {
        matches!(self, Shape::Cap | Shape::Upper)
    }
}

/// Whether `word` is capitalized as a [`Shape::Cap`] token is: a capital first and a
/// lower-case letter after it ("Vondracek", "McDonald"; not "ALS", "TH992041", "pt").
pub fn is_capitalized(word: &str) -> bool {
    let mut cs = word.chars();
    cs.next().is_some_and(char::is_uppercase) && cs.any(char::is_lowercase)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
    pub shape: Shape,
}

impl Token {
    /// An all-caps word of two or three letters in `text` written after a capitalized one: in
    /// mixed case a unit or an abbreviation ("Newton-Wellesley ED", "Farber ICU"), not the next
    /// part of the name (a first name "Ed" is written so; "John SMITH" is longer), unless it
    /// is a regnal number ("Benedetto XVI", "Giovanni Paolo II").
    pub fn short_caps_after(self, before: Token, text: &str) -> bool {
        before.shape == Shape::Cap
            && self.shape == Shape::Upper
            && self.end - self.start <= 3
            && !regnal_number(&text[self.start..self.end])
    }
}

/// Whether `word` is written only with the letters of the regnal numbers (II, XVI, XXIII).
pub fn regnal_number(word: &str) -> bool {
    word.bytes().all(|b| matches!(b, b'I' | b'V' | b'X'))
}

/// Classes of a byte, as bits: an ASCII lowercase letter, uppercase letter or digit, or the
/// start or continuation of a non-ASCII character (0: an ASCII byte outside words).
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 4;
const NON_ASCII: u8 = 8;
const ASCII_WORD: u8 = LOWER | UPPER | DIGIT;

const BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c >= 0x80 {
            NON_ASCII
        } else if c.is_ascii_lowercase() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_digit() {
            DIGIT
        } else {
            0
        };
        b += 1;
    }
    t
};

/// Appends the tokens of `text` to `out` (cleared first). No allocation beyond `out`'s growth.
pub fn tokenize(text: &str, out: &mut Vec<Token>) {
    out.clear();
    let bytes = text.as_bytes();
    let class = |i: usize| BYTE_CLASS[bytes[i] as usize];
    let mut i = 0;
    while i < bytes.len() {
        if class(i) == 0 {
            i += 1;
            continue;
        }
        let (first, len) = char_at(text, i);
        if !first.is_alphanumeric() {
            i += len;
            continue;
        }
        let start = i;
        i += len;
        // The classes seen after the first character (ASCII fast path, the same answers as
        // the char methods of the other characters).
        let mut seen = 0u8;
        while i < bytes.len() {
            let cls = class(i);
            if cls & ASCII_WORD != 0 {
                seen |= cls;
                i += 1;
                continue;
            }
            if cls != NON_ASCII {
                break;
            }
            let (c, len) = char_at(text, i);
            if !c.is_alphanumeric() {
                break;
            }
            if c.is_lowercase() {
                seen |= LOWER;
            }
            if c.is_uppercase() {
                seen |= UPPER;
            }
            i += len;
        }
        let shape = if first.is_uppercase() {
            if seen & LOWER != 0 {
                Shape::Cap
            } else if i == start + len {
                Shape::Initial
            } else if seen & UPPER != 0 {
                Shape::Upper
            } else {
                // "A1", "B12": letter + digits behaves like a code, not a name.
                Shape::Num
            }
        } else if first.is_numeric() {
            Shape::Num
        } else {
            Shape::Lower
        };
        out.push(Token {
            start,
            end: i,
            shape,
        });
    }
}

/// The words of one document, tokenized and folded once for every rule that reads them (the
/// lists, the context rules and propagation read the same words; each pass over a 13 GB corpus
/// counts).
pub struct Words {
    pub toks: Vec<Token>,
    /// The text with ASCII letters lowercased (an ASCII word's folded form, in place), then
    /// the folded forms of the other words.
    folded: String,
    /// Where the folded form of token `i` lies in `folded`.
    spans: Vec<(usize, usize)>,
}

impl Words {
    pub fn new(text: &str) -> Self {
        let mut toks = Vec::with_capacity(text.len() / 6 + 1);
        tokenize(text, &mut toks);
        let mut folded = text.to_ascii_lowercase();
        let spans = toks
            .iter()
            .map(|t| {
                let word = &text[t.start..t.end];
                if word.is_ascii() {
                    return (t.start, t.end);
                }
                let from = folded.len();
                fold_push(word, &mut folded);
                (from, folded.len())
            })
            .collect();
        Words {
            toks,
            folded,
            spans,
        }
    }

    /// The folded form of token `i` (see [`fold_into`]).
    #[inline]
    pub fn folded(&self, i: usize) -> &str {
        let (start, end) = self.spans[i];
        &self.folded[start..end]
    }
}

#[inline]
fn char_at(text: &str, i: usize) -> (char, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        (b as char, 1)
    } else {
        let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
        (c, c.len_utf8())
    }
}

/// Lowercases `word` and strips the accents of Latin letters into `buf` (cleared first), so
/// that "Ramón", "RAMON" and "ramon" share one key.
pub fn fold_into(word: &str, buf: &mut String) {
    buf.clear();
    fold_push(word, buf);
}

/// Appends the folded form of `word` (see [`fold_into`]) to `buf`.
pub fn fold_push(word: &str, buf: &mut String) {
    if word.is_ascii() {
        let from = buf.len();
        buf.push_str(word);
        buf[from..].make_ascii_lowercase();
        return;
    }
    for c in word.chars() {
        if c.is_ascii() {
            buf.push(c.to_ascii_lowercase());
        } else {
            for l in c.to_lowercase() {
                buf.push(strip_accent(l));
            }
        }
    }
}

/// Folded key of a whole phrase: tokens folded and joined by single spaces.
pub fn fold_phrase(phrase: &str) -> String {
    let mut toks = Vec::new();
    tokenize(phrase, &mut toks);
    let mut out = String::new();
    let mut buf = String::new();
    for t in &toks {
        if !out.is_empty() {
            out.push(' ');
        }
        fold_into(&phrase[t.start..t.end], &mut buf);
        out.push_str(&buf);
    }
    out
}

fn strip_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'é' | 'è' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => 'e',
        'í' | 'ì' | 'î' | 'ï' | 'ī' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ő' | 'ø' | 'ō' => 'o',
        'ú' | 'ù' | 'û' | 'ü' | 'ű' | 'ū' | 'ů' => 'u',
        'ñ' | 'ń' | 'ň' => 'n',
        'ç' | 'ć' | 'č' => 'c',
        'ý' | 'ÿ' => 'y',
        'š' | 'ś' | 'ş' => 's',
        'ž' | 'ź' | 'ż' => 'z',
        'ř' => 'r',
        'ł' => 'l',
        'ğ' => 'g',
        other => other,
    }
}

/// FxHash-style hasher: short word keys hash in a few nanoseconds.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxMap<K, V> = std::collections::HashMap<K, V, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_are_the_crates_alphanumeric_words() {
        let text = "Dr. J. GARCÍA-López, nº 12€ m² Ödön 😀x İstanbul 3ª\tend";
        let mut toks = Vec::new();
        tokenize(text, &mut toks);
        let ours: Vec<(usize, usize)> = toks.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(ours, crate::text::alnum_runs(text));
    }

    #[test]
    fn words_fold_like_single_words() {
        let text = "Dr. RAMÓN García-López, ÖDÖN ödön x İstanbul 12B";
        let words = Words::new(text);
        for (i, t) in words.toks.iter().enumerate() {
            let mut one = String::new();
            fold_into(&text[t.start..t.end], &mut one);
            assert_eq!(words.folded(i), one);
        }
        assert_eq!(words.folded(1), "ramon");
    }

    #[test]
    fn shapes_and_offsets() {
        let text = "Dr. J. GARCÍA-López vive en 28016 y ve a de Vries, A1.";
        let mut toks = Vec::new();
        tokenize(text, &mut toks);
        let got: Vec<(&str, Shape)> = toks
            .iter()
            .map(|t| (&text[t.start..t.end], t.shape))
            .collect();
        let want = [
            ("Dr", Shape::Cap),
            ("J", Shape::Initial),
            ("GARCÍA", Shape::Upper),
            ("López", Shape::Cap),
            ("vive", Shape::Lower),
            ("en", Shape::Lower),
            ("28016", Shape::Num),
            ("y", Shape::Lower),
            ("ve", Shape::Lower),
            ("a", Shape::Lower),
            ("de", Shape::Lower),
            ("Vries", Shape::Cap),
            ("A1", Shape::Num),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn folding_merges_accents_and_case() {
        let mut buf = String::new();
        for (a, b) in [
            ("Ramón", "ramon"),
            ("MÁLAGA", "malaga"),
            ("Győr", "gyor"),
            ("Núñez", "nunez"),
        ] {
            fold_into(a, &mut buf);
            assert_eq!(buf, b);
        }
        assert_eq!(fold_phrase("Localidad/ Provincia"), "localidad provincia");
    }
}
