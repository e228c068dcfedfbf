//! `vocab check`: the merges are consistent with the vocabulary, the tokenizer loads, removed
//! strings can no longer be produced, no vocabulary entry is a listed name, and (given the
//! original) reference text without names encodes as before. Reports counts
//! and ids; token strings only when asked (`show`).

use super::ordinary::{encoding_diff, EncodingDiff};
use super::rewrite::MapEntry;
use super::tokenizer_json::{ModelKind, TokenizerJson};
use super::AnonymizeError;
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A list of names to look for in the vocabulary.
#[derive(Clone, Debug)]
pub struct NameList {
    /// Where it came from (a path or `builtin:<lang>`); printed, so never a name itself.
    pub label: String,
    pub names: Vec<String>,
}

/// What to check besides the structure.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub names: Vec<NameList>,
    /// The map of a rewrite: its old strings must be gone.
    pub removed: Option<Vec<MapEntry>>,
    /// Put token strings into the report.
    pub show: bool,
    /// The model dir before the rewrite and reference texts: the texts must encode as before.
    pub encoding: Option<EncodingReference>,
}

/// What the encoding check compares: the tokenizer of `original` against the checked one, on
/// `texts` (held-out documents; their names may change, their ordinary words may not).
#[derive(Clone, Debug, Default)]
pub struct EncodingReference {
    pub original: PathBuf,
    pub texts: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MergeCheck {
    pub passed: bool,
    pub merges: usize,
    /// Merges whose parts or result are missing from the vocabulary.
    pub broken: usize,
    /// Their positions in the merge list.
    pub broken_indices: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broken_merges: Option<Vec<[String; 2]>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LoadCheck {
    pub passed: bool,
    /// The loader's message (it may quote tokens: only with `show`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RemovedCheck {
    pub passed: bool,
    pub entries: usize,
    /// Old strings still in the vocabulary or among the added tokens.
    pub still_in_vocab: usize,
    /// Old strings that encoding text still yields as a token.
    pub encodable: usize,
    /// Map entries whose new string is not at their id (a map of another model).
    pub id_mismatch: usize,
    /// Ids of the failing entries.
    pub failing_ids: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing: Option<Vec<String>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ListCount {
    pub list: String,
    pub names: usize,
    pub matches: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct NamesCheck {
    pub passed: bool,
    pub lists: Vec<ListCount>,
    /// Vocabulary entries equal to a listed name (marker stripped).
    pub matches: usize,
    pub ids: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Vec<String>>,
}

/// The outcome of every check.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub model: PathBuf,
    pub kind: ModelKind,
    pub vocab_size: usize,
    pub lowercase: bool,
    pub passed: bool,
    pub merges: MergeCheck,
    pub loads: LoadCheck,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<RemovedCheck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub names: Option<NamesCheck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<EncodingDiff>,
}

/// Checks the model dir `dir` (its `tokenizer.json`). Errors only for unreadable input; a
/// failed check is in the report.
pub fn check_model(dir: &Path, opts: &CheckOptions) -> Result<CheckReport, AnonymizeError> {
    let tj = TokenizerJson::read(&dir.join("tokenizer.json"))?;
    let merges = check_merges(&tj, opts.show);
    let (loads, tk) = match crate::tokenizer::load_dir(dir) {
        Ok(t) => (
            LoadCheck {
                passed: true,
                error: None,
            },
            Some(t.inner),
        ),
        Err(e) => (
            LoadCheck {
                passed: false,
                error: opts.show.then(|| e.to_string()),
            },
            None,
        ),
    };
    let removed = opts
        .removed
        .as_ref()
        .map(|m| check_removed(&tj, tk.as_ref(), m, opts.show));
    let names =
        (!opts.names.is_empty()).then(|| check_names(&tj, tk.as_ref(), &opts.names, opts.show));
    let encoding = match (&opts.encoding, &tk) {
        (Some(reference), Some(_)) => Some(check_encoding(dir, reference)?),
        // A tokenizer that does not load fails on its own; nothing to compare.
        _ => None,
    };
    let passed = merges.passed
        && loads.passed
        && removed.as_ref().is_none_or(|r| r.passed)
        && names.as_ref().is_none_or(|n| n.passed)
        && encoding.as_ref().is_none_or(|e| e.passed)
        && (opts.encoding.is_none() || encoding.is_some());
    Ok(CheckReport {
        model: dir.to_path_buf(),
        kind: tj.kind,
        vocab_size: tj.len(),
        lowercase: tj.lowercase,
        passed,
        merges,
        loads,
        removed,
        names,
        encoding,
    })
}

/// Encodes the reference texts with the original tokenizer and with the one in `dir`.
fn check_encoding(
    dir: &Path,
    reference: &EncodingReference,
) -> Result<EncodingDiff, AnonymizeError> {
    let before = crate::tokenizer::load_dir(&reference.original)?;
    let after = crate::tokenizer::load_dir(dir)?;
    encoding_diff(&before, &after, reference.texts.iter().map(String::as_str)).map_err(
        |(index, _)| {
            AnonymizeError::Usage(format!(
                "reference text {} could not be encoded (the tokenizer's message may quote it: not shown)",
                index + 1
            ))
        },
    )
}

fn check_merges(tj: &TokenizerJson, show: bool) -> MergeCheck {
    let mut broken_indices = Vec::new();
    for (i, (a, b)) in tj.merges.iter().enumerate() {
        let joined = format!("{a}{b}");
        if [a.as_str(), b.as_str(), joined.as_str()]
            .iter()
            .any(|t| !tj.ids.contains_key(*t))
        {
            broken_indices.push(i);
        }
    }
    MergeCheck {
        passed: broken_indices.is_empty(),
        merges: tj.merges.len(),
        broken: broken_indices.len(),
        broken_merges: show.then(|| {
            broken_indices
                .iter()
                .map(|&i| [tj.merges[i].0.clone(), tj.merges[i].1.clone()])
                .collect()
        }),
        broken_indices,
    }
}

/// Texts whose encoding would contain `token` if the tokenizer could still produce it.
fn probe_texts(tj: &TokenizerJson, token: &str) -> Vec<String> {
    let Some(surface) = tj.surface(token) else {
        return Vec::new();
    };
    let mut texts = vec![
        surface.clone(),
        format!(" {surface}"),
        format!("a {surface} b"),
    ];
    if !tj.starts_word(token) {
        // A continuation piece: glue it to a word start.
        texts.push(format!("x{surface}"));
        texts.push(format!("de{surface}"));
    }
    texts
}

fn check_removed(
    tj: &TokenizerJson,
    tk: Option<&tokenizers::Tokenizer>,
    map: &[MapEntry],
    show: bool,
) -> RemovedCheck {
    let strings = tj.all_strings();
    let (mut still, mut encodable, mut mismatch) = (0, 0, 0);
    let mut failing_ids = Vec::new();
    let mut failing = Vec::new();
    for e in map {
        let mut fail = false;
        if strings.contains(e.old.as_str()) {
            still += 1;
            fail = true;
        }
        if tj.by_id.get(&e.id) != Some(&e.new) {
            mismatch += 1;
            fail = true;
        }
        if let Some(tk) = tk {
            let produced = probe_texts(tj, &e.old).iter().any(|text| {
                tk.encode(text.as_str(), false)
                    .map(|enc| enc.get_tokens().contains(&e.old))
                    .unwrap_or(false)
            });
            if produced {
                encodable += 1;
                fail = true;
            }
        }
        if fail {
            failing_ids.push(e.id);
            failing.push(e.old.clone());
        }
    }
    RemovedCheck {
        passed: failing_ids.is_empty(),
        entries: map.len(),
        still_in_vocab: still,
        encodable,
        id_mismatch: mismatch,
        failing_ids,
        failing: show.then_some(failing),
    }
}

/// `name` as the tokenizer's normalizer would see it (lowercased, accents stripped, ...).
fn normalized(
    tk: Option<&tokenizers::Tokenizer>,
    tj: &TokenizerJson,
    name: &str,
) -> Option<String> {
    use tokenizers::{NormalizedString, Normalizer};
    if let Some(n) = tk.and_then(|t| t.get_normalizer()) {
        let mut s = NormalizedString::from(name);
        if n.normalize(&mut s).is_ok() {
            return Some(s.get().to_string());
        }
    }
    tj.lowercase.then(|| name.to_lowercase())
}

fn check_names(
    tj: &TokenizerJson,
    tk: Option<&tokenizers::Tokenizer>,
    lists: &[NameList],
    show: bool,
) -> NamesCheck {
    let mut counts = Vec::new();
    let mut hit_ids: HashSet<u32> = HashSet::new();
    for list in lists {
        let mut wanted: HashSet<String> = HashSet::new();
        for n in &list.names {
            wanted.insert(n.clone());
            if let Some(norm) = normalized(tk, tj, n) {
                wanted.insert(norm);
            }
        }
        let mut matches = 0;
        for (id, tok) in &tj.by_id {
            if tj.is_protected(*id) {
                continue;
            }
            let Some(surface) = tj.surface(tok) else {
                continue;
            };
            if wanted.contains(&surface) {
                matches += 1;
                hit_ids.insert(*id);
            }
        }
        counts.push(ListCount {
            list: list.label.clone(),
            names: list.names.len(),
            matches,
        });
    }
    let mut ids: Vec<u32> = hit_ids.into_iter().collect();
    ids.sort_unstable();
    NamesCheck {
        passed: ids.is_empty(),
        lists: counts,
        matches: ids.len(),
        tokens: show.then(|| ids.iter().map(|i| tj.by_id[i].clone()).collect()),
        ids,
    }
}

/// The names of `builtin:<lang>` (first names and surnames of that language; `all` for every
/// language) or of a list file (one per line, `#` comments).
pub fn load_name_list(spec: &str) -> Result<NameList, AnonymizeError> {
    if let Some(lang) = spec.strip_prefix("builtin:") {
        let langs: Vec<crate::lang::Lang> = if lang == "all" {
            crate::lang::Lang::ALL.to_vec()
        } else {
            vec![lang.parse().map_err(|_| {
                AnonymizeError::Usage(format!(
                    "--names {spec}: unknown language (nl, hu, es, it, en or all)"
                ))
            })?]
        };
        let sources = crate::wordlists::ListSources::default();
        let mut names = Vec::new();
        for l in langs {
            for list in ["first_names", "surnames"] {
                names.extend(
                    sources
                        .load(l, list)
                        .map_err(|e| AnonymizeError::Usage(e.to_string()))?,
                );
            }
        }
        return Ok(NameList {
            label: spec.to_string(),
            names,
        });
    }
    let path = Path::new(spec);
    let bytes = std::fs::read(path).map_err(|e| AnonymizeError::io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        AnonymizeError::line(
            path,
            crate::wordlists::invalid_utf8_line(&e),
            "invalid UTF-8",
        )
    })?;
    Ok(NameList {
        label: spec.to_string(),
        names: crate::wordlists::parse_list(&text)
            .map(str::to_string)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_dir(tk: serde_json::Value) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tokenizer.json"), tk.to_string()).unwrap();
        dir
    }

    #[test]
    fn broken_merges_are_counted_without_strings() {
        let dir = write_dir(
            json!({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
            "merges": ["a b", "ab c"]}}),
        );
        let r = check_model(dir.path(), &CheckOptions::default()).unwrap();
        assert!(!r.passed && !r.merges.passed);
        assert_eq!((r.merges.merges, r.merges.broken), (2, 1));
        assert_eq!(r.merges.broken_indices, vec![1]);
        assert!(r.merges.broken_merges.is_none());
        let shown = check_model(
            dir.path(),
            &CheckOptions {
                show: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            shown.merges.broken_merges.unwrap()[0],
            ["ab".to_string(), "c".to_string()]
        );
    }

    #[test]
    fn names_match_after_marker_and_case() {
        let dir = write_dir(json!({"normalizer": {"type": "Lowercase"},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "vocab": {"[UNK]": 0, "jansen": 1, "##bakker": 2, "de": 3}}}));
        let names = vec![NameList {
            label: "mine".into(),
            names: vec!["Jansen".into(), "Bakker".into(), "Visser".into()],
        }];
        let r = check_model(
            dir.path(),
            &CheckOptions {
                names,
                ..Default::default()
            },
        )
        .unwrap();
        let n = r.names.unwrap();
        assert!(!n.passed);
        assert_eq!(n.ids, vec![1, 2]);
        assert!(n.tokens.is_none());
        let text = serde_json::to_string(&r.loads).unwrap();
        assert!(!text.contains("jansen"));
    }

    #[test]
    fn byte_level_tokens_are_decoded_before_comparing() {
        // "ĠJÃ©r" is " Jér" in byte-level characters.
        let dir = write_dir(json!({"pre_tokenizer": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": {"Ġ": 0, "J": 1, "ĠJÃ©r": 2, "Ã": 3}, "merges": []}}));
        let names = vec![NameList {
            label: "mine".into(),
            names: vec!["Jér".into()],
        }];
        let r = check_model(
            dir.path(),
            &CheckOptions {
                names,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.names.unwrap().ids, vec![2]);
    }

    #[test]
    fn builtin_lists_load() {
        let l = load_name_list("builtin:nl").unwrap();
        assert!(l.names.len() > 20);
        assert!(load_name_list("builtin:xx").is_err());
    }

    fn wordpiece(renamed: &[(&str, &str)]) -> tempfile::TempDir {
        let mut vocab = serde_json::Map::new();
        let pieces = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "l", "##i", "##j", "##k", "##t", "Jan",
            "##sen", "J", "##a", "##n", "##s", "##e", "de",
        ];
        for (id, p) in pieces.iter().enumerate() {
            let name = renamed
                .iter()
                .find(|(old, _)| old == p)
                .map_or(*p, |(_, new)| *new);
            vocab.insert(name.to_string(), json!(id));
        }
        write_dir(json!({"pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}}))
    }

    #[test]
    fn held_out_text_must_encode_as_before_but_for_the_names() {
        let original = wordpiece(&[]);
        let texts = vec!["de Jansen lijkt de lijkt".to_string()];
        let reference = EncodingReference {
            original: original.path().to_path_buf(),
            texts,
        };
        let opts = CheckOptions {
            encoding: Some(reference),
            ..Default::default()
        };
        // A name renamed: the name's own encoding changes, the ordinary words do not.
        let good = wordpiece(&[("Jan", "unk12345678")]);
        let r = check_model(good.path(), &opts).unwrap();
        let d = r.encoding.unwrap();
        assert!(r.passed && d.passed, "{d:?}");
        assert_eq!((d.words, d.ordinary_words, d.changed_words), (5, 4, 1));
        assert_eq!(
            (d.changed_ordinary_words, d.unk_before, d.unk_after),
            (0, 0, 0)
        );
        // A letter renamed: `lijkt` becomes [UNK] and the check fails.
        let bad = wordpiece(&[("##j", "##unk12345678")]);
        let r = check_model(bad.path(), &opts).unwrap();
        let d = r.encoding.unwrap();
        assert!(!r.passed && !d.passed);
        assert_eq!(
            (d.changed_ordinary_words, d.unk_before, d.unk_after),
            (2, 0, 2)
        );
        assert!(!d.summary().contains("lijkt"));
    }
}
