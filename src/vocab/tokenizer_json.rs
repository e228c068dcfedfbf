//! The `model` section of a `tokenizer.json` as data: kind, vocabulary by id, merges (in the
//! form found: `"a b"` strings or `["a", "b"]` pairs), special tokens and word-boundary marker;
//! and the in-place edit that renames tokens and drops merges, leaving every other part as is.

use super::json_order::{Order, Ordered};
use super::AnonymizeError;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The subword model of a tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    WordPiece,
    Bpe,
    Unigram,
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelKind::WordPiece => "wordpiece",
            ModelKind::Bpe => "bpe",
            ModelKind::Unigram => "unigram",
        })
    }
}

/// A parsed `tokenizer.json`: the whole document plus what the vocabulary tools need of it.
#[derive(Clone, Debug)]
pub struct TokenizerJson {
    pub path: PathBuf,
    pub value: Value,
    /// Key order of the original text (kept when written back).
    order: Order,
    pub kind: ModelKind,
    /// id → token string of the model's vocabulary.
    pub by_id: BTreeMap<u32, String>,
    /// token string → id.
    pub ids: HashMap<String, u32>,
    /// BPE merges in order (empty for the other kinds).
    pub merges: Vec<(String, String)>,
    /// Strings of the added tokens (special or not), with their ids and special flag.
    pub added: Vec<(u32, String, bool)>,
    /// The model's unknown token, if any (never renamed).
    pub unk: Option<String>,
    /// Byte-level BPE (the pre-tokenizer or decoder is ByteLevel).
    pub byte_level: bool,
    /// The normalizer lowercases.
    pub lowercase: bool,
    /// WordPiece continuing-subword prefix (`##`) or Metaspace replacement (`▁`).
    marker: String,
}

impl TokenizerJson {
    /// Reads and parses `path`.
    pub fn read(path: &Path) -> Result<Self, AnonymizeError> {
        let text = std::fs::read_to_string(path).map_err(|e| AnonymizeError::io(path, e))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| AnonymizeError::file(path, format!("invalid JSON: {e}")))?;
        let order: Order = serde_json::from_str(&text)
            .map_err(|e| AnonymizeError::file(path, format!("invalid JSON: {e}")))?;
        let mut tj = Self::from_value(path, value)?;
        tj.order = order;
        Ok(tj)
    }

    /// Interprets a parsed document (`path` only names it in errors).
    pub fn from_value(path: &Path, value: Value) -> Result<Self, AnonymizeError> {
        let bad = |msg: &str| AnonymizeError::file(path, msg.to_string());
        let model = value
            .get("model")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("no \"model\" object"))?;
        let kind = match model.get("type").and_then(Value::as_str) {
            Some("WordPiece") => ModelKind::WordPiece,
            Some("BPE") => ModelKind::Bpe,
            Some("Unigram") => ModelKind::Unigram,
            _ if model.contains_key("merges") => ModelKind::Bpe,
            _ => return Err(bad("model type must be WordPiece, BPE or Unigram")),
        };
        let mut by_id = BTreeMap::new();
        match kind {
            ModelKind::WordPiece | ModelKind::Bpe => {
                let vocab = model
                    .get("vocab")
                    .and_then(Value::as_object)
                    .ok_or_else(|| bad("model.vocab must be an object of token ids"))?;
                for (tok, id) in vocab {
                    let id = id
                        .as_u64()
                        .and_then(|i| u32::try_from(i).ok())
                        .ok_or_else(|| bad("model.vocab: an id is not a whole number"))?;
                    if by_id.insert(id, tok.clone()).is_some() {
                        return Err(AnonymizeError::file(
                            path,
                            format!("model.vocab: id {id} appears twice"),
                        ));
                    }
                }
            }
            ModelKind::Unigram => {
                let vocab = model
                    .get("vocab")
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad("model.vocab must be a list of [token, score]"))?;
                for (i, entry) in vocab.iter().enumerate() {
                    let tok = entry
                        .get(0)
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad("model.vocab: an entry is not [token, score]"))?;
                    by_id.insert(i as u32, tok.to_string());
                }
            }
        }
        let mut ids = HashMap::with_capacity(by_id.len());
        for (id, tok) in &by_id {
            if let Some(first) = ids.insert(tok.clone(), *id) {
                return Err(AnonymizeError::file(
                    path,
                    format!("model.vocab: ids {first} and {id} have the same string"),
                ));
            }
        }
        let merges = match model.get("merges") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    parse_merge(m).ok_or_else(|| {
                        AnonymizeError::file(
                            path,
                            format!("model.merges[{i}]: expected \"a b\" or [\"a\", \"b\"]"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(bad("model.merges must be a list")),
        };
        let added = value
            .get("added_tokens")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|t| {
                        Some((
                            u32::try_from(t.get("id")?.as_u64()?).ok()?,
                            t.get("content")?.as_str()?.to_string(),
                            t.get("special").and_then(Value::as_bool).unwrap_or(false),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let unk = match kind {
            ModelKind::Unigram => model
                .get("unk_id")
                .and_then(Value::as_u64)
                .and_then(|i| by_id.get(&(i as u32)).cloned()),
            _ => model
                .get("unk_token")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let byte_level = kind == ModelKind::Bpe
            && (has_type(value.get("pre_tokenizer"), "ByteLevel")
                || has_type(value.get("decoder"), "ByteLevel"));
        let lowercase = lowercases(value.get("normalizer"));
        let marker = match kind {
            ModelKind::WordPiece => model
                .get("continuing_subword_prefix")
                .and_then(Value::as_str)
                .unwrap_or("##")
                .to_string(),
            ModelKind::Bpe => "Ġ".to_string(),
            ModelKind::Unigram => find_field(value.get("pre_tokenizer"), "replacement")
                .or_else(|| find_field(value.get("decoder"), "replacement"))
                .unwrap_or_else(|| "▁".to_string()),
        };
        Ok(TokenizerJson {
            path: path.to_path_buf(),
            value,
            order: Order::Leaf,
            kind,
            by_id,
            ids,
            merges,
            added,
            unk,
            byte_level,
            lowercase,
            marker,
        })
    }

    /// Vocabulary size of the model section (added tokens outside it not counted).
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Every string the tokenizer can emit: the vocabulary and the added tokens.
    pub fn all_strings(&self) -> HashSet<&str> {
        self.by_id
            .values()
            .map(String::as_str)
            .chain(self.added.iter().map(|(_, s, _)| s.as_str()))
            .collect()
    }

    /// Whether `id` is a special or added token, or the model's unknown token.
    pub fn is_protected(&self, id: u32) -> bool {
        self.added.iter().any(|(i, _, _)| *i == id)
            || self
                .unk
                .as_deref()
                .is_some_and(|u| self.by_id.get(&id).map(String::as_str) == Some(u))
    }

    /// Splits `token` into its word-boundary marker (`##` of a WordPiece continuation, `Ġ` of a
    /// byte-level BPE word start, `▁` of a Unigram word start; empty when absent) and the rest.
    pub fn split_marker<'a>(&self, token: &'a str) -> (&'a str, &'a str) {
        match token.strip_prefix(self.marker.as_str()) {
            Some(rest) if !rest.is_empty() => (&token[..self.marker.len()], rest),
            _ => ("", token),
        }
    }

    /// Whether `token` starts a word (no `##`; or `Ġ` / `▁` present).
    pub fn starts_word(&self, token: &str) -> bool {
        let has = !self.split_marker(token).0.is_empty();
        match self.kind {
            ModelKind::WordPiece => !has,
            _ => has,
        }
    }

    /// The text a token stands for, marker removed (byte-level BPE decoded to UTF-8); `None`
    /// when it is not whole UTF-8 (a piece of a multi-byte character).
    pub fn surface(&self, token: &str) -> Option<String> {
        let rest = self.split_marker(token).1;
        if self.byte_level {
            byte_level_decode(rest)
        } else {
            Some(rest.to_string())
        }
    }

    /// Renames tokens (id → new string) in the model section and drops the merges at the given
    /// indices. The rest of the document stays as it was.
    pub fn apply(
        &mut self,
        renames: &BTreeMap<u32, String>,
        drop_merges: &HashSet<usize>,
    ) -> Result<(), AnonymizeError> {
        let path = self.path.clone();
        let model = self
            .value
            .get_mut("model")
            .and_then(Value::as_object_mut)
            .ok_or_else(|| AnonymizeError::file(&path, "no \"model\" object"))?;
        for (id, new) in renames {
            let old = self.by_id.get(id).cloned().ok_or_else(|| {
                AnonymizeError::file(&path, format!("id {id} is not in the vocabulary"))
            })?;
            match self.kind {
                ModelKind::WordPiece | ModelKind::Bpe => {
                    let vocab = model
                        .get_mut("vocab")
                        .and_then(Value::as_object_mut)
                        .expect("checked when parsed");
                    vocab.remove(&old);
                    vocab.insert(new.clone(), Value::from(*id));
                }
                ModelKind::Unigram => {
                    let entry = model
                        .get_mut("vocab")
                        .and_then(Value::as_array_mut)
                        .and_then(|v| v.get_mut(*id as usize))
                        .and_then(Value::as_array_mut)
                        .expect("checked when parsed");
                    entry[0] = Value::from(new.clone());
                }
            }
            self.ids.remove(&old);
            self.ids.insert(new.clone(), *id);
            self.by_id.insert(*id, new.clone());
        }
        if !drop_merges.is_empty() {
            if let Some(list) = model.get_mut("merges").and_then(Value::as_array_mut) {
                let mut i = 0;
                list.retain(|_| {
                    let keep = !drop_merges.contains(&i);
                    i += 1;
                    keep
                });
            }
            let mut i = 0;
            self.merges.retain(|_| {
                let keep = !drop_merges.contains(&i);
                i += 1;
                keep
            });
        }
        Ok(())
    }

    /// The document as pretty JSON with a final newline, objects in the key order of the
    /// original text (vocabularies by id).
    pub fn to_bytes(&self) -> Vec<u8> {
        let ordered = Ordered {
            value: &self.value,
            order: &self.order,
        };
        let mut s = serde_json::to_string_pretty(&ordered).expect("JSON values serialize");
        s.push('\n');
        s.into_bytes()
    }
}

fn parse_merge(m: &Value) -> Option<(String, String)> {
    match m {
        Value::String(s) => {
            let (a, b) = s.split_once(' ')?;
            (!b.contains(' ')).then(|| (a.to_string(), b.to_string()))
        }
        Value::Array(p) if p.len() == 2 => {
            Some((p[0].as_str()?.to_string(), p[1].as_str()?.to_string()))
        }
        _ => None,
    }
}

/// Whether a component, or one inside a `Sequence`, has this `type`.
fn has_type(part: Option<&Value>, ty: &str) -> bool {
    let Some(part) = part else { return false };
    if part.get("type").and_then(Value::as_str) == Some(ty) {
        return true;
    }
    ["pretokenizers", "normalizers", "decoders"]
        .iter()
        .filter_map(|k| part.get(*k).and_then(Value::as_array))
        .flatten()
        .any(|p| has_type(Some(p), ty))
}

/// A string field of a component or of the first one inside a `Sequence` that has it.
fn find_field(part: Option<&Value>, key: &str) -> Option<String> {
    let part = part?;
    if let Some(s) = part.get(key).and_then(Value::as_str) {
        return Some(s.to_string());
    }
    ["pretokenizers", "decoders"]
        .iter()
        .filter_map(|k| part.get(*k).and_then(Value::as_array))
        .flatten()
        .find_map(|p| find_field(Some(p), key))
}

fn lowercases(norm: Option<&Value>) -> bool {
    let Some(n) = norm else { return false };
    match n.get("type").and_then(Value::as_str) {
        Some("Lowercase") => true,
        Some("BertNormalizer") => n.get("lowercase").and_then(Value::as_bool).unwrap_or(true),
        Some("Sequence") => n
            .get("normalizers")
            .and_then(Value::as_array)
            .is_some_and(|l| l.iter().any(|x| lowercases(Some(x)))),
        _ => false,
    }
}

/// GPT-2's byte ↔ character table of byte-level BPE: printable bytes map to themselves, the
/// rest to U+0100 onwards in byte order.
fn byte_chars() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut next = 256u32;
    for b in 0..=255u8 {
        let printable = matches!(b, 33..=126 | 161..=172 | 174..=255);
        table[b as usize] = if printable {
            b as char
        } else {
            let c = char::from_u32(next).expect("below the surrogates");
            next += 1;
            c
        };
    }
    table
}

/// The UTF-8 text of a byte-level token, or `None` (a char outside the table, or bytes that
/// are not whole UTF-8).
pub fn byte_level_decode(token: &str) -> Option<String> {
    let table = byte_chars();
    let bytes: Option<Vec<u8>> = token
        .chars()
        .map(|c| table.iter().position(|&t| t == c).map(|b| b as u8))
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bpe(merges: Value) -> TokenizerJson {
        let v = json!({
            "added_tokens": [{"id": 0, "content": "<s>", "special": true}],
            "normalizer": null,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false},
            "decoder": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": {"<s>": 0, "Ġ": 1, "J": 2, "Ġ J": 99, "ĠJ": 3, "s": 4, "ĠJs": 5},
                      "merges": merges}
        });
        TokenizerJson::from_value(Path::new("t.json"), v).unwrap()
    }

    #[test]
    fn merges_keep_the_form_found() {
        for merges in [json!(["Ġ J", "ĠJ s"]), json!([["Ġ", "J"], ["ĠJ", "s"]])] {
            let mut t = bpe(merges.clone());
            assert_eq!(t.merges.len(), 2);
            assert_eq!(t.merges[1], ("ĠJ".into(), "s".into()));
            let renames = BTreeMap::from([(3, "Ġunk1".to_string())]);
            t.apply(&renames, &HashSet::from([0])).unwrap();
            let left = &t.value["model"]["merges"];
            assert_eq!(left.as_array().unwrap().len(), 1);
            assert_eq!(left[0], merges[1]);
            assert_eq!(t.value["model"]["vocab"]["Ġunk1"], 3);
            assert!(t.value["model"]["vocab"].get("ĠJ").is_none());
            assert_eq!(t.ids["Ġunk1"], 3);
        }
    }

    #[test]
    fn markers_and_surfaces() {
        let t = bpe(json!([]));
        assert!(t.byte_level);
        assert_eq!(t.split_marker("ĠJansen"), ("Ġ", "Jansen"));
        assert_eq!(t.split_marker("Ġ"), ("", "Ġ"));
        assert!(t.starts_word("ĠJansen") && !t.starts_word("sen"));
        // "é" is the two bytes C3 A9, written Ã© in byte-level characters.
        assert_eq!(t.surface("ĠJÃ©r").as_deref(), Some("Jér"));
        assert_eq!(t.surface("Ã").as_deref(), None);
        assert!(t.is_protected(0) && !t.is_protected(3));
    }

    #[test]
    fn unigram_and_wordpiece_sections() {
        let u = json!({"pre_tokenizer": {"type": "Metaspace", "replacement": "▁"},
            "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁Jansen", -3.5], ["s", -2.0]]}});
        let mut u = TokenizerJson::from_value(Path::new("u.json"), u).unwrap();
        assert_eq!(u.kind, ModelKind::Unigram);
        assert!(u.is_protected(0));
        assert_eq!(u.split_marker("▁Jansen"), ("▁", "Jansen"));
        u.apply(&BTreeMap::from([(1, "▁unk7".to_string())]), &HashSet::new())
            .unwrap();
        assert_eq!(u.value["model"]["vocab"][1], json!(["▁unk7", -3.5]));

        let w = json!({"normalizer": {"type": "BertNormalizer", "lowercase": true},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "vocab": {"[UNK]": 0, "jansen": 1, "##sen": 2}}});
        let w = TokenizerJson::from_value(Path::new("w.json"), w).unwrap();
        assert!(w.lowercase && w.is_protected(0));
        assert_eq!(w.split_marker("##sen"), ("##", "sen"));
        assert!(w.starts_word("jansen") && !w.starts_word("##sen"));
    }

    #[test]
    fn bad_documents_are_refused() {
        for v in [
            json!({}),
            json!({"model": {"type": "WordLevel", "vocab": {}}}),
            json!({"model": {"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []}}),
            json!({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b c"]}}),
        ] {
            assert!(TokenizerJson::from_value(Path::new("x.json"), v).is_err());
        }
    }
}
