//! Special tokens: the BERT and RoBERTa sets, and finding a tokenizer's own special tokens
//! from its config files and vocabulary.

use crate::error::ValueError;

use super::TokenizerError;
use serde_json::Value;
use std::path::Path;
use std::str::FromStr;
use tokenizers::{AddedToken, Tokenizer};

/// Which family of special tokens a tokenizer uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialStyle {
    /// `[PAD] [UNK] [CLS] [SEP] [MASK]`.
    Bert,
    /// `<s> <pad> </s> <unk> <mask>`.
    Roberta,
    /// Anything else (found through the config files).
    Other,
}

impl FromStr for SpecialStyle {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        match s.to_ascii_lowercase().as_str() {
            "bert" => Ok(SpecialStyle::Bert),
            "roberta" => Ok(SpecialStyle::Roberta),
            _ => Err(ValueError::from(format!(
                "unknown special tokens '{s}' (expected bert or roberta)"
            ))),
        }
    }
}

/// The special tokens a masked language model needs, as ids of one tokenizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialTokens {
    pub pad: u32,
    pub unk: u32,
    pub mask: u32,
    /// `[CLS]` or `<s>`.
    pub cls: u32,
    /// `[SEP]` or `</s>`.
    pub sep: u32,
    pub mask_token: String,
    pub style: SpecialStyle,
}

/// The token strings of a special-token set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialStrings {
    pub pad: String,
    pub unk: String,
    pub mask: String,
    pub cls: String,
    pub sep: String,
}

impl SpecialStrings {
    pub fn of(style: SpecialStyle) -> Self {
        let s = |x: &str| x.to_string();
        match style {
            SpecialStyle::Roberta => SpecialStrings {
                pad: s("<pad>"),
                unk: s("<unk>"),
                mask: s("<mask>"),
                cls: s("<s>"),
                sep: s("</s>"),
            },
            _ => SpecialStrings {
                pad: s("[PAD]"),
                unk: s("[UNK]"),
                mask: s("[MASK]"),
                cls: s("[CLS]"),
                sep: s("[SEP]"),
            },
        }
    }

    /// The strings in vocabulary order: BERT `[PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4`,
    /// RoBERTa `<s>=0 <pad>=1 </s>=2 <unk>=3 <mask>=4`.
    pub fn in_vocab_order(&self, style: SpecialStyle) -> Vec<String> {
        match style {
            SpecialStyle::Roberta => vec![
                self.cls.clone(),
                self.pad.clone(),
                self.sep.clone(),
                self.unk.clone(),
                self.mask.clone(),
            ],
            _ => vec![
                self.pad.clone(),
                self.unk.clone(),
                self.cls.clone(),
                self.sep.clone(),
                self.mask.clone(),
            ],
        }
    }

    /// Added tokens for the set; RoBERTa's `<mask>` strips the space before it, as in RoBERTa.
    pub fn added_tokens(&self, style: SpecialStyle) -> Vec<AddedToken> {
        self.in_vocab_order(style)
            .into_iter()
            .map(|t| {
                let lstrip = style == SpecialStyle::Roberta && t == self.mask;
                AddedToken::from(t, true).lstrip(lstrip)
            })
            .collect()
    }

    pub fn style(&self) -> SpecialStyle {
        if self.mask == "[MASK]" && self.cls == "[CLS]" {
            SpecialStyle::Bert
        } else if self.mask == "<mask>" && self.cls == "<s>" {
            SpecialStyle::Roberta
        } else {
            SpecialStyle::Other
        }
    }
}

/// A token string from a config value: `"[MASK]"` or `{"content": "[MASK]", ...}`.
fn token_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => m.get("content").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

/// Special token strings named in `special_tokens_map.json` and `tokenizer_config.json`
/// (`<name>_token` keys; the first file wins), if present.
#[derive(Debug, Default)]
pub struct NamedSpecials {
    pub pad: Option<String>,
    pub unk: Option<String>,
    pub mask: Option<String>,
    pub cls: Option<String>,
    pub sep: Option<String>,
    pub bos: Option<String>,
    pub eos: Option<String>,
}

impl NamedSpecials {
    pub fn read(dir: &Path) -> Result<Self, TokenizerError> {
        let mut out = NamedSpecials::default();
        for name in ["special_tokens_map.json", "tokenizer_config.json"] {
            let Some(json) = super::files::read_json_opt(&dir.join(name))? else {
                continue;
            };
            let get = |key: &str| json.get(key).and_then(token_string);
            let fill = |slot: &mut Option<String>, key: &str| {
                if slot.is_none() {
                    *slot = get(key);
                }
            };
            fill(&mut out.pad, "pad_token");
            fill(&mut out.unk, "unk_token");
            fill(&mut out.mask, "mask_token");
            fill(&mut out.cls, "cls_token");
            fill(&mut out.sep, "sep_token");
            fill(&mut out.bos, "bos_token");
            fill(&mut out.eos, "eos_token");
        }
        Ok(out)
    }

    /// The strings to use, with the usual BERT / RoBERTa names as fallbacks found in `vocab`.
    pub fn resolve(&self, has: &dyn Fn(&str) -> bool) -> PartialStrings {
        let pick = |named: [&Option<String>; 2], usual: &[&str]| -> Option<String> {
            named
                .into_iter()
                .flatten()
                .find(|s| has(s))
                .cloned()
                .or_else(|| usual.iter().find(|s| has(s)).map(|s| s.to_string()))
        };
        PartialStrings {
            pad: pick([&self.pad, &None], &["[PAD]", "<pad>"]),
            unk: pick([&self.unk, &None], &["[UNK]", "<unk>"]),
            mask: pick([&self.mask, &None], &["[MASK]", "<mask>"]),
            cls: pick([&self.cls, &self.bos], &["[CLS]", "<s>"]),
            sep: pick([&self.sep, &self.eos], &["[SEP]", "</s>"]),
        }
    }
}

/// Special token strings as far as they were found.
#[derive(Debug)]
pub struct PartialStrings {
    pub pad: Option<String>,
    pub unk: Option<String>,
    pub mask: Option<String>,
    pub cls: Option<String>,
    pub sep: Option<String>,
}

impl PartialStrings {
    /// All five, or an error naming the directory and the missing ones.
    pub fn complete(self, dir: &Path) -> Result<SpecialStrings, TokenizerError> {
        let mut missing = Vec::new();
        let mut need = |v: Option<String>, what: &str| {
            if v.is_none() {
                missing.push(what.to_string());
            }
            v.unwrap_or_default()
        };
        let s = SpecialStrings {
            pad: need(self.pad, "pad ([PAD] or <pad>)"),
            unk: need(self.unk, "unk ([UNK] or <unk>)"),
            mask: need(self.mask, "mask ([MASK] or <mask>)"),
            cls: need(self.cls, "cls ([CLS] or <s>)"),
            sep: need(self.sep, "sep ([SEP] or </s>)"),
        };
        if missing.is_empty() {
            Ok(s)
        } else {
            Err(TokenizerError::dir(
                dir,
                format!(
                    "the tokenizer has no {} token (looked in the vocabulary, \
                     special_tokens_map.json and tokenizer_config.json)",
                    missing.join(", no ")
                ),
            ))
        }
    }
}

/// Ids of `strings` in `tk`; every string must be in its vocabulary.
pub fn special_tokens(
    tk: &Tokenizer,
    strings: &SpecialStrings,
    dir: &Path,
) -> Result<SpecialTokens, TokenizerError> {
    let id = |t: &str| {
        tk.token_to_id(t).ok_or_else(|| {
            TokenizerError::dir(dir, format!("special token {t} is not in the vocabulary"))
        })
    };
    Ok(SpecialTokens {
        pad: id(&strings.pad)?,
        unk: id(&strings.unk)?,
        mask: id(&strings.mask)?,
        cls: id(&strings.cls)?,
        sep: id(&strings.sep)?,
        mask_token: strings.mask.clone(),
        style: strings.style(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_prefers_named_tokens_present_in_the_vocab() {
        let named = NamedSpecials {
            mask: Some("<special-mask>".into()),
            bos: Some("<bos>".into()),
            ..Default::default()
        };
        let vocab = ["<special-mask>", "<bos>", "[CLS]", "<pad>", "<unk>", "</s>"];
        let has = |t: &str| vocab.contains(&t);
        let got = named.resolve(&has);
        assert_eq!(got.mask.as_deref(), Some("<special-mask>"));
        assert_eq!(got.cls.as_deref(), Some("<bos>"));
        assert_eq!(got.pad.as_deref(), Some("<pad>"));
        assert_eq!(got.sep.as_deref(), Some("</s>"));
        let strings = got.complete(Path::new("d")).unwrap();
        assert_eq!(strings.style(), SpecialStyle::Other);
    }

    #[test]
    fn missing_tokens_are_named_with_the_dir() {
        let has = |t: &str| t == "[PAD]" || t == "[CLS]" || t == "[SEP]";
        let e = NamedSpecials::default()
            .resolve(&has)
            .complete(Path::new("model-dir"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("model-dir: "), "{e}");
        assert!(e.contains("no unk") && e.contains("no mask"), "{e}");
        assert!(!e.contains("no pad"), "{e}");
    }

    #[test]
    fn vocab_order_of_both_styles() {
        let b = SpecialStrings::of(SpecialStyle::Bert);
        assert_eq!(
            b.in_vocab_order(SpecialStyle::Bert),
            ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        );
        let r = SpecialStrings::of(SpecialStyle::Roberta);
        assert_eq!(
            r.in_vocab_order(SpecialStyle::Roberta),
            ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        );
        let mask = &r.added_tokens(SpecialStyle::Roberta)[4];
        assert!(mask.lstrip && mask.special && !mask.normalized);
    }
}
