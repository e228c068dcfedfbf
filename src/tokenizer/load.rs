//! Loading a tokenizer from a model directory: `tokenizer.json`, else `vocab.txt` (WordPiece,
//! BERT pipeline), else `vocab.json` + `merges.txt` (byte-level BPE, RoBERTa pipeline).

use super::files::read_json_opt;
use super::pipeline::{self, set_front};
use super::specials::{special_tokens, NamedSpecials, SpecialStrings, SpecialStyle};
use super::{tk_err, Kind, ModelTokenizer, TokenizerError};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use tokenizers::models::bpe::BPE;
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::Tokenizer;

/// Loads the tokenizer of a model directory and finds its special tokens.
pub fn load_dir(dir: &Path) -> Result<ModelTokenizer, TokenizerError> {
    if !dir.is_dir() {
        return Err(TokenizerError::dir(dir, "not a directory"));
    }
    let named = NamedSpecials::read(dir)?;
    let config = read_json_opt(&dir.join("tokenizer_config.json"))?;
    let flag = |key: &str| {
        config
            .as_ref()
            .and_then(|c| c.get(key))
            .and_then(Value::as_bool)
    };

    let json = dir.join("tokenizer.json");
    let vocab_txt = dir.join("vocab.txt");
    let (vocab_json, merges_txt) = (dir.join("vocab.json"), dir.join("merges.txt"));
    let inner = if json.is_file() {
        let tk = Tokenizer::from_file(&json)
            .map_err(|e| TokenizerError::file(&json, format!("cannot load: {e}")))?;
        let strings = named
            .resolve(&|t: &str| tk.token_to_id(t).is_some())
            .complete(dir)?;
        return finish(tk, &strings, dir);
    } else if vocab_txt.is_file() {
        let vocab = parse_vocab_txt(&vocab_txt)?;
        let has = |t: &str| vocab.contains_key(t);
        let strings = named.resolve(&has).complete(dir)?;
        // Lower-case as the config says; without `do_lower_case` the vocabulary decides
        // (BertTokenizer would lower-case, making a cased vocabulary's upper-case entries
        // unreachable), with one notice line. Accents follow lowercase unless `strip_accents`
        // is set.
        let lowercase = match flag("do_lower_case") {
            Some(l) => l,
            None => {
                let guess = CaseGuess::of_vocab(vocab.keys().map(String::as_str));
                eprintln!("{}", guess.notice(&vocab_txt, config.is_some()));
                guess.lowercase()
            }
        };
        let wp = WordPiece::builder()
            .vocab(
                vocab
                    .into_iter()
                    .collect::<tokenizers::models::bpe::Vocab>(),
            )
            .unk_token(strings.unk.clone())
            .continuing_subword_prefix("##".into())
            .max_input_chars_per_word(100)
            .build()
            .map_err(|e| TokenizerError::file(&vocab_txt, e.to_string()))?;
        let mut tk = Tokenizer::new(wp);
        set_front(&mut tk, Kind::WordPiece, true)?;
        let chinese = flag("tokenize_chinese_chars").unwrap_or(true);
        let normalizer = tokenizers::normalizers::BertNormalizer::new(
            true,
            chinese,
            flag("strip_accents"),
            lowercase,
        );
        tk.with_normalizer(Some(normalizer)).map_err(tk_err)?;
        (tk, strings, Kind::WordPiece)
    } else if vocab_json.is_file() && merges_txt.is_file() {
        let vocab = parse_vocab_json(&vocab_json)?;
        let merges = parse_merges(&merges_txt, &vocab)?;
        let has = |t: &str| vocab.contains_key(t);
        let strings = named.resolve(&has).complete(dir)?;
        let bpe = BPE::builder()
            .vocab_and_merges(
                vocab
                    .into_iter()
                    .collect::<tokenizers::models::bpe::Vocab>(),
                merges,
            )
            .build()
            .map_err(|e| TokenizerError::file(&merges_txt, e.to_string()))?;
        let mut tk = Tokenizer::new(bpe);
        set_front(&mut tk, Kind::Bpe, false)?;
        if flag("add_prefix_space") == Some(true) {
            tk.with_pre_tokenizer(Some(pipeline::byte_level().add_prefix_space(true)));
        }
        (tk, strings, Kind::Bpe)
    } else {
        return Err(TokenizerError::dir(
            dir,
            "no tokenizer files: expected tokenizer.json, vocab.txt, or vocab.json with merges.txt",
        ));
    };
    let (mut tk, strings, kind) = inner;
    let style = strings.style();
    tk.add_special_tokens(strings.added_tokens(style))
        .map_err(tk_err)?;
    let post_style = match (kind, style) {
        (_, SpecialStyle::Other) => kind_style(kind),
        (_, s) => s,
    };
    let post = pipeline::post_processor(kind, post_style, &strings, &tk)?;
    tk.with_post_processor(Some(post));
    finish(tk, &strings, dir)
}

/// Share of (non-special) vocabulary entries with an upper-case letter from which a WordPiece
/// vocabulary counts as cased. An uncased vocabulary has none; bert-base-cased has about 20%.
const CASED_SHARE: f64 = 0.01;

/// Whether a WordPiece vocabulary is cased, counted from its entries (special tokens such as
/// `[CLS]` or `<s>` left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseGuess {
    /// Entries with at least one upper-case letter.
    pub upper: usize,
    /// Entries counted.
    pub total: usize,
}

impl CaseGuess {
    pub fn of_vocab<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Self {
        let mut guess = CaseGuess { upper: 0, total: 0 };
        for t in tokens {
            let special = (t.starts_with('[') && t.ends_with(']'))
                || (t.starts_with('<') && t.ends_with('>') && t.len() > 2);
            if special {
                continue;
            }
            guess.total += 1;
            if t.chars().any(char::is_uppercase) {
                guess.upper += 1;
            }
        }
        guess
    }

    /// Cased when at least [`CASED_SHARE`] of the entries hold an upper-case letter.
    pub fn cased(&self) -> bool {
        self.upper > 0 && self.upper as f64 >= CASED_SHARE * self.total as f64
    }

    pub fn lowercase(&self) -> bool {
        !self.cased()
    }

    /// The notice line: which was chosen and why (counts only, never tokens).
    pub fn notice(&self, vocab: &Path, has_config: bool) -> String {
        let missing = if has_config {
            "tokenizer_config.json has no do_lower_case"
        } else {
            "no tokenizer_config.json"
        };
        let pct = if self.total == 0 {
            0.0
        } else {
            100.0 * self.upper as f64 / self.total as f64
        };
        let choice = if self.cased() {
            "cased: input keeps its case"
        } else {
            "uncased: input is lower-cased"
        };
        format!(
            "note: {}: {missing}; {} of {} entries ({pct:.1}%) have upper-case letters, so the \
             tokenizer is taken as {choice} (add tokenizer_config.json with do_lower_case to \
             decide)",
            vocab.display(),
            self.upper,
            self.total
        )
    }
}

fn kind_style(kind: Kind) -> SpecialStyle {
    kind.default_specials()
}

fn finish(
    tk: Tokenizer,
    strings: &SpecialStrings,
    dir: &Path,
) -> Result<ModelTokenizer, TokenizerError> {
    let specials = special_tokens(&tk, strings, dir)?;
    Ok(ModelTokenizer {
        inner: tk,
        specials,
    })
}

/// `vocab.txt`: a token per line, id = line number - 1. Errors name the file and line.
pub fn parse_vocab_txt(path: &Path) -> Result<HashMap<String, u32>, TokenizerError> {
    let bytes = std::fs::read(path).map_err(|e| TokenizerError::io(path, e))?;
    let mut vocab = HashMap::new();
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    for (i, raw) in body.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let token = std::str::from_utf8(raw)
            .map_err(|_| TokenizerError::line(path, line, "invalid UTF-8"))?;
        if token.is_empty() {
            return Err(TokenizerError::line(path, line, "empty token"));
        }
        let id =
            u32::try_from(i).map_err(|_| TokenizerError::line(path, line, "too many tokens"))?;
        if let Some(first) = vocab.insert(token.to_string(), id) {
            return Err(TokenizerError::line(
                path,
                line,
                format!("token repeats line {}", first + 1),
            ));
        }
    }
    if vocab.is_empty() {
        return Err(TokenizerError::file(path, "no tokens"));
    }
    Ok(vocab)
}

/// `vocab.json`: `{"token": id, ...}`.
fn parse_vocab_json(path: &Path) -> Result<HashMap<String, u32>, TokenizerError> {
    let text = std::fs::read_to_string(path).map_err(|e| TokenizerError::io(path, e))?;
    let vocab: HashMap<String, u32> = serde_json::from_str(&text).map_err(|e| {
        TokenizerError::file(path, format!("expected a JSON object of token ids: {e}"))
    })?;
    if vocab.is_empty() {
        return Err(TokenizerError::file(path, "no tokens"));
    }
    Ok(vocab)
}

/// `merges.txt`: an optional `#version` line, then `left right` per line, both parts and their
/// concatenation in `vocab`. Errors name the file and line.
pub fn parse_merges(
    path: &Path,
    vocab: &HashMap<String, u32>,
) -> Result<Vec<(String, String)>, TokenizerError> {
    let text = std::fs::read(path).map_err(|e| TokenizerError::io(path, e))?;
    let mut merges = Vec::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let s = std::str::from_utf8(raw)
            .map_err(|_| TokenizerError::line(path, line, "invalid UTF-8"))?;
        if s.is_empty() || (line == 1 && s.starts_with("#version")) {
            continue;
        }
        let parts: Vec<&str> = s.split(' ').collect();
        let [a, b] = parts[..] else {
            return Err(TokenizerError::line(
                path,
                line,
                format!(
                    "a merge is two tokens separated by one space; this line has {} part(s)",
                    parts.len()
                ),
            ));
        };
        for t in [a, b] {
            if !vocab.contains_key(t) {
                return Err(TokenizerError::line(
                    path,
                    line,
                    format!("merge part '{t}' is not in vocab.json"),
                ));
            }
        }
        if !vocab.contains_key(&format!("{a}{b}")) {
            return Err(TokenizerError::line(
                path,
                line,
                "the merged token is not in vocab.json",
            ));
        }
        merges.push((a.to_string(), b.to_string()));
    }
    Ok(merges)
}
