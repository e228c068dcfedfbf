//! Supported languages and a cheap stop-word based language guess for `--lang auto`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

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

    pub fn code(self) -> &'static str {
        match self {
            Lang::Nl => "nl",
            Lang::Hu => "hu",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::En => "en",
        }
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
        let mut counts = [0usize; 5];
        for word in text[..end].split(|c: char| !c.is_alphabetic()) {
            if word.is_empty() || word.len() > 8 {
                continue;
            }
            let lower = word.to_lowercase();
            for (i, lang) in Lang::ALL.iter().enumerate() {
                if lang.stop_words().contains(&lower.as_str()) {
                    counts[i] += 1;
                }
            }
        }
        let (best, &n) = counts.iter().enumerate().max_by_key(|&(_, n)| *n)?;
        (n > 0).then_some(Lang::ALL[best])
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown language '{s}' (expected nl, hu, es, it or en)"))
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
    type Err = String;
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
}
