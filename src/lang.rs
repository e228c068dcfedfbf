//! Supported languages and a cheap stop-word based language guess for `--lang auto`.

use crate::error::ValueError;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Nl,
    Hu,
    Es,
    It,
    En,
}

impl Lang {
    pub const ALL: [Lang; 5] = [Lang::Nl, Lang::Hu, Lang::Es, Lang::It, Lang::En];

    /// The language's place in [`Lang::ALL`] (the slot of per-language tables).
    pub fn index(self) -> usize {
        Lang::ALL
            .iter()
            .position(|&l| l == self)
            .expect("every language is in Lang::ALL")
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::Nl => "nl",
            Lang::Hu => "hu",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::En => "en",
        }
    }

    /// Whether the language writes a person's surname before the given name ("Kovács Péter").
    pub fn writes_surname_first(self) -> bool {
        self == Lang::Hu
    }

    /// Whether a lowercase word is one of the language's very frequent function words.
    pub fn is_stop_word(self, word: &str) -> bool {
        self.stop_words().contains(&word)
    }

    /// Very frequent function words, distinctive per language.
    fn stop_words(self) -> &'static [&'static str] {
        match self {
            Lang::Nl => &[
                "de", "het", "een", "en", "van", "is", "met", "niet", "op", "voor", "bij", "werd",
                "zijn", "geen",
            ],
            Lang::Hu => &[
                "a", "az", "és", "nem", "egy", "van", "hogy", "volt", "meg", "után", "során",
                "miatt", "került",
            ],
            Lang::Es => &[
                "el", "la", "de", "y", "los", "las", "con", "por", "del", "se", "una", "que",
                "para", "sin",
            ],
            Lang::It => &[
                "il", "la", "di", "e", "che", "con", "per", "del", "della", "non", "una", "sono",
                "gli", "nel",
            ],
            Lang::En => &[
                "the", "and", "of", "with", "was", "is", "for", "to", "no", "in", "on", "patient",
                "were", "he",
            ],
        }
    }

    /// Guesses the language of `text` from the first ~4 KB; `None` when no stop word matched.
    pub fn detect(text: &str) -> Option<Lang> {
        let mut end = text.len().min(4096);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let table = stop_table();
        let mut counts = [0usize; 5];
        let head = &text[..end];
        let bytes = head.as_bytes();
        let mut i = 0;
        // Words are maximal runs of alphabetic characters.
        while i < bytes.len() {
            let start = i;
            while i < bytes.len() {
                let b = bytes[i];
                if b < 0x80 {
                    if !b.is_ascii_alphabetic() {
                        break;
                    }
                    i += 1;
                } else {
                    let c = head[i..].chars().next().unwrap_or(' ');
                    if !c.is_alphabetic() {
                        break;
                    }
                    i += c.len_utf8();
                }
            }
            if i == start {
                // Not alphabetic: skip the character.
                i += head[i..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            if i - start > 8 {
                continue;
            }
            let Some(key) = lower_key(&head[start..i]) else {
                continue;
            };
            if let Ok(k) = table.binary_search_by_key(&key, |&(w, _)| w) {
                let mask = table[k].1;
                for (i, n) in counts.iter_mut().enumerate() {
                    *n += usize::from(mask >> i & 1);
                }
            }
        }
        let (best, &n) = counts.iter().enumerate().max_by_key(|&(_, n)| *n)?;
        (n > 0).then_some(Lang::ALL[best])
    }
}

/// A lowercased word of at most 8 bytes packed into a `u64` (zero-padded; words hold no NUL),
/// `None` when the lowercase form is longer (no stop word is).
fn lower_key(word: &str) -> Option<u64> {
    if word.is_ascii() {
        if word.len() > 8 {
            return None;
        }
        let mut key = 0u64;
        for (k, b) in word.bytes().enumerate() {
            key |= u64::from(b.to_ascii_lowercase()) << (8 * k);
        }
        return Some(key);
    }
    let mut buf = [0u8; 8];
    let mut n = 0;
    let mut push = |c: char| -> Option<()> {
        let len = c.len_utf8();
        if n + len > 8 {
            return None;
        }
        c.encode_utf8(&mut buf[n..]);
        n += len;
        Some(())
    };
    // `str::to_lowercase` differs from per-char lowercasing only for a word-final capital
    // sigma, and no stop word holds a sigma.
    for c in word.chars().flat_map(char::to_lowercase) {
        push(c)?;
    }
    Some(u64::from_le_bytes(buf))
}

/// Every stop word as a packed key with a bit per language (bit i = `Lang::ALL[i]`), sorted.
fn stop_table() -> &'static [(u64, u8)] {
    static TABLE: OnceLock<Vec<(u64, u8)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t: Vec<(u64, u8)> = Vec::new();
        for (i, lang) in Lang::ALL.iter().enumerate() {
            for w in lang.stop_words() {
                let key = lower_key(w).expect("stop words are short");
                match t.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, mask)) => *mask |= 1 << i,
                    None => t.push((key, 1 << i)),
                }
            }
        }
        t.sort_unstable();
        t
    })
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Lang {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                ValueError::from(format!(
                    "unknown language '{s}' (expected nl, hu, es, it or en)"
                ))
            })
    }
}

/// `--lang` value: one language or per-document detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LangChoice {
    Fixed(Lang),
    Auto,
}

impl LangChoice {
    /// The language for one document; auto falls back to `fallback` when nothing matched.
    pub fn resolve(self, text: &str, fallback: Lang) -> Lang {
        match self {
            LangChoice::Fixed(l) => l,
            LangChoice::Auto => Lang::detect(text).unwrap_or(fallback),
        }
    }
}

impl FromStr for LangChoice {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("auto") {
            Ok(LangChoice::Auto)
        } else {
            s.parse().map(LangChoice::Fixed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_language() {
        let cases = [
            (Lang::Nl, "De patiënt werd opgenomen met koorts en is niet aanspreekbaar."),
            (Lang::Hu, "A beteg a kórházba került, és nem volt láza a műtét után."),
            (Lang::Es, "El paciente ingresa por dolor abdominal y fiebre sin otros síntomas."),
            (Lang::It, "Il paziente è stato ricoverato per febbre e tosse, non sono presenti altri sintomi della malattia."),
            (Lang::En, "The patient was admitted with fever and cough for two days."),
        ];
        for (lang, text) in cases {
            assert_eq!(Lang::detect(text), Some(lang), "{text}");
        }
        assert_eq!(Lang::detect("12345"), None);
    }

    #[test]
    fn stop_word_keys_fold_case() {
        assert_eq!(lower_key("ÉS"), lower_key("és"));
        assert_eq!(lower_key("The"), lower_key("the"));
        assert_ne!(lower_key("de"), lower_key("del"));
        assert_eq!(lower_key("ÁÁÁÁÁ"), None, "10 bytes once lowercased");
        let table = stop_table();
        let de = table.binary_search_by_key(&lower_key("de").unwrap(), |&(w, _)| w);
        assert_eq!(table[de.unwrap()].1, 0b101, "nl and es");
    }
}
