//! Saving a tokenizer in the Hugging Face layout: `tokenizer.json`, `tokenizer_config.json`,
//! `special_tokens_map.json`, plus `vocab.txt` (WordPiece) or `vocab.json` + `merges.txt` (BPE)
//! for tools that read the slow formats. Every file is written atomically.

use super::files::write_atomic;
use super::specials::SpecialStyle;
use super::{tk_err, ModelTokenizer, TokenizerError};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use tokenizers::{Model, ModelWrapper};

/// The longest input the saved config announces (BERT's and RoBERTa's 512).
pub const MODEL_MAX_LENGTH: usize = 512;

/// Fails when `dir` already holds a `tokenizer.json` and `overwrite` is false.
pub fn ensure_writable(dir: &Path, overwrite: bool) -> Result<(), TokenizerError> {
    let path = dir.join("tokenizer.json");
    if !overwrite && path.exists() {
        return Err(TokenizerError::Exists { path });
    }
    Ok(())
}

/// Writes the tokenizer files into `dir` (created if needed; existing files are replaced).
/// Returns the paths written.
pub fn save_dir(tok: &ModelTokenizer, dir: &Path) -> Result<Vec<PathBuf>, TokenizerError> {
    crate::fsio::create_private_dir(dir)?;
    let mut written = Vec::new();
    let mut put = |name: &str, bytes: Vec<u8>| -> Result<(), TokenizerError> {
        let path = dir.join(name);
        write_atomic(&path, &bytes)?;
        written.push(path);
        Ok(())
    };
    let mut tk_json = tok.inner.to_string(true).map_err(tk_err)?;
    tk_json.push('\n');
    put("tokenizer.json", tk_json.into_bytes())?;
    put("tokenizer_config.json", pretty(&tokenizer_config(tok)))?;
    put("special_tokens_map.json", pretty(&special_tokens_map(tok)))?;

    // The model's own vocabulary files, written by `tokenizers` into a scratch directory and
    // renamed into place.
    let model = tok.inner.get_model();
    if matches!(model, ModelWrapper::WordPiece(_) | ModelWrapper::BPE(_)) {
        let scratch = crate::fsio::scratch_dir(dir)?;
        let files = model.save(scratch.path(), None).map_err(tk_err)?;
        for f in files {
            let name = f.file_name().map(|n| n.to_owned()).unwrap_or_default();
            let to = dir.join(&name);
            let bytes = std::fs::read(&f).map_err(|e| TokenizerError::io(&f, e))?;
            write_atomic(&to, &bytes)?;
            written.push(to);
        }
    }
    // Vocabulary files of another model kind left by an earlier save would contradict
    // tokenizer.json for tools that read them.
    for stale in ["vocab.txt", "vocab.json", "merges.txt"] {
        let path = dir.join(stale);
        if !written.contains(&path) && path.is_file() {
            std::fs::remove_file(&path).map_err(|e| TokenizerError::io(&path, e))?;
        }
    }
    Ok(written)
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(v).expect("JSON values serialize");
    s.push('\n');
    s.into_bytes()
}

/// A field of the serialized normalizer / pre-tokenizer, if present.
fn component_flag<T: serde::Serialize>(part: Option<&T>, key: &str) -> Option<bool> {
    serde_json::to_value(part?).ok()?.get(key)?.as_bool()
}

fn class_of(tok: &ModelTokenizer) -> &'static str {
    match (tok.inner.get_model(), tok.specials.style) {
        (ModelWrapper::WordPiece(_), SpecialStyle::Bert) => "BertTokenizerFast",
        (ModelWrapper::BPE(_), SpecialStyle::Roberta) => "RobertaTokenizerFast",
        _ => "PreTrainedTokenizerFast",
    }
}

fn token_strings(tok: &ModelTokenizer) -> Vec<(&'static str, String)> {
    let id = |i: u32| tok.inner.id_to_token(i).unwrap_or_default();
    let s = &tok.specials;
    let mut out = vec![
        ("unk_token", id(s.unk)),
        ("pad_token", id(s.pad)),
        ("mask_token", s.mask_token.clone()),
        ("cls_token", id(s.cls)),
        ("sep_token", id(s.sep)),
    ];
    if s.style != SpecialStyle::Bert {
        out.push(("bos_token", id(s.cls)));
        out.push(("eos_token", id(s.sep)));
    }
    out
}

fn tokenizer_config(tok: &ModelTokenizer) -> Value {
    let class = class_of(tok);
    let mut m = Map::new();
    m.insert("tokenizer_class".into(), json!(class));
    m.insert("model_max_length".into(), json!(MODEL_MAX_LENGTH));
    let lower = component_flag(tok.inner.get_normalizer(), "lowercase").unwrap_or_else(|| {
        serde_json::to_value(tok.inner.get_normalizer())
            .ok()
            .and_then(|v| {
                v.get("type")
                    .and_then(Value::as_str)
                    .map(|t| t == "Lowercase")
            })
            .unwrap_or(false)
    });
    m.insert("do_lower_case".into(), json!(lower));
    match class {
        "BertTokenizerFast" => {
            let strip = component_flag(tok.inner.get_normalizer(), "strip_accents");
            m.insert("strip_accents".into(), json!(strip));
            let chinese =
                component_flag(tok.inner.get_normalizer(), "handle_chinese_chars").unwrap_or(true);
            m.insert("tokenize_chinese_chars".into(), json!(chinese));
            m.insert("clean_up_tokenization_spaces".into(), json!(true));
        }
        "RobertaTokenizerFast" => {
            let prefix =
                component_flag(tok.inner.get_pre_tokenizer(), "add_prefix_space").unwrap_or(false);
            m.insert("add_prefix_space".into(), json!(prefix));
            m.insert("trim_offsets".into(), json!(true));
            m.insert("clean_up_tokenization_spaces".into(), json!(true));
        }
        _ => {
            m.insert("clean_up_tokenization_spaces".into(), json!(false));
        }
    }
    for (k, v) in token_strings(tok) {
        m.insert(k.into(), json!(v));
    }
    Value::Object(m)
}

fn special_tokens_map(tok: &ModelTokenizer) -> Value {
    let mut m = Map::new();
    for (k, v) in token_strings(tok) {
        let value = if k == "mask_token" && tok.specials.style == SpecialStyle::Roberta {
            json!({"content": v, "lstrip": true, "normalized": false, "rstrip": false, "single_word": false})
        } else {
            json!(v)
        };
        m.insert(k.into(), value);
    }
    Value::Object(m)
}
