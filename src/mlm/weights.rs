//! Reading and writing model directories in the Hugging Face layout (config.json + weights).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};

use super::config::{Arch, MlmConfig};
use super::error::MlmError;
use super::model::MaskedLm;

pub const CONFIG_FILE: &str = "config.json";
pub const SAFETENSORS_FILE: &str = "model.safetensors";
pub const PYTORCH_FILE: &str = "pytorch_model.bin";

/// A model read from disk: its config, its parameters (trainable, under Hugging Face names)
/// and the model built on them.
pub struct LoadedModel {
    pub config: MlmConfig,
    pub varmap: VarMap,
    pub model: MaskedLm,
    /// The weights file read.
    pub weights_file: PathBuf,
    /// Tensors of the file the masked LM does not use (extra heads, pooler, next-sentence
    /// head, ...), sorted; they are not kept, so a model saved again has none of them.
    pub unused_tensors: Vec<String>,
}

/// How many unused tensor names the notice spells out.
const NOTICE_NAMES: usize = 5;

impl LoadedModel {
    /// One notice line about [`LoadedModel::unused_tensors`] (tensor names and a count, never
    /// values), as transformers warns "Some weights of the model checkpoint were not used";
    /// `None` when every tensor is used. Callers that use some of those tensors themselves
    /// (the NER tagger's classifier) do not print it.
    pub fn unused_notice(&self) -> Option<String> {
        unused_notice(&self.weights_file, &self.unused_tensors)
    }
}

/// See [`LoadedModel::unused_notice`].
pub fn unused_notice(file: &Path, unused: &[String]) -> Option<String> {
    if unused.is_empty() {
        return None;
    }
    let shown = unused[..unused.len().min(NOTICE_NAMES)].join(", ");
    let more = match unused.len().saturating_sub(NOTICE_NAMES) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "note: {}: {} tensor(s) not used by the masked LM, ignored (extra heads, pooler, ...): \
         {shown}{more}",
        file.display(),
        unused.len()
    ))
}

/// Whether `name` (an anonlm parameter name) belongs to the masked-LM head rather than the
/// encoder.
fn is_head(name: &str, arch: Arch) -> bool {
    match arch {
        Arch::Bert => name.starts_with("cls.predictions."),
        Arch::Roberta => name.starts_with("lm_head."),
    }
}

/// Checkpoint tensors that carry nothing to load: the position-id buffer older transformers
/// versions saved, and the head bias stored a second time as the decoder bias.
fn is_known_duplicate(name: &str, arch: Arch) -> bool {
    name.ends_with("embeddings.position_ids")
        || name
            == match arch {
                Arch::Bert => "cls.predictions.decoder.bias",
                Arch::Roberta => "lm_head.decoder.bias",
            }
}

/// Errors if the tokenizer has more tokens than the model has embedding rows (ids past the end
/// would index outside the embeddings). A smaller tokenizer is fine (unused rows).
pub fn check_vocab(model_vocab: usize, tokenizer_vocab: usize) -> Result<(), MlmError> {
    if tokenizer_vocab > model_vocab {
        return Err(MlmError::TokenizerLargerThanModel {
            tokenizer: tokenizer_vocab,
            model: model_vocab,
        });
    }
    Ok(())
}

/// The weights file of a model dir: `model.safetensors`, else `pytorch_model.bin`.
pub fn weights_file(dir: &Path) -> Result<PathBuf, MlmError> {
    [SAFETENSORS_FILE, PYTORCH_FILE]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
        .ok_or_else(|| MlmError::NoWeights {
            dir: dir.to_path_buf(),
        })
}

fn read_tensors(file: &Path) -> Result<HashMap<String, Tensor>, MlmError> {
    let ctx = || format!("{}: cannot read tensors", file.display());
    let tensors = if file.extension().and_then(|e| e.to_str()) == Some("safetensors") {
        candle_core::safetensors::load(file, &Device::Cpu)
            .map_err(|e| MlmError::candle(ctx(), e))?
    } else {
        candle_core::pickle::read_all(file)
            .map_err(|e| MlmError::candle(ctx(), e))?
            .into_iter()
            .collect()
    };
    check_finite(file, &tensors)?;
    Ok(tensors)
}

/// The name of the first tensor (by name) holding a NaN or an infinity, `None` when every
/// floating-point tensor is finite. Such a model would tag nothing or print NaN scores, so
/// every loader refuses it.
pub fn first_non_finite(
    tensors: &HashMap<String, Tensor>,
) -> Result<Option<String>, candle_core::Error> {
    let mut names: Vec<&String> = tensors.keys().collect();
    names.sort();
    for name in names {
        let t = &tensors[name];
        if !t.dtype().is_float() {
            continue;
        }
        let values = t.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()?;
        if values.iter().any(|v| !v.is_finite()) {
            return Ok(Some(name.clone()));
        }
    }
    Ok(None)
}

/// [`first_non_finite`] as an error naming the file and the tensor.
pub fn check_finite(file: &Path, tensors: &HashMap<String, Tensor>) -> Result<(), MlmError> {
    match first_non_finite(tensors)
        .map_err(|e| MlmError::candle(format!("{}: reading tensors", file.display()), e))?
    {
        Some(name) => Err(MlmError::NonFinite {
            name,
            file: file.to_path_buf(),
        }),
        None => Ok(()),
    }
}

/// Names under which a checkpoint may store the parameter anonlm calls `name`: with or without
/// the encoder prefix, old `gamma`/`beta` layer-norm names, the head bias duplicated as the
/// decoder bias.
fn candidate_names(name: &str, arch: Arch) -> Vec<String> {
    let mut base = vec![name.to_string()];
    let prefix = format!("{}.", arch.prefix());
    if let Some(rest) = name.strip_prefix(&prefix) {
        base.push(rest.to_string());
    }
    match name {
        "cls.predictions.bias" => base.push("cls.predictions.decoder.bias".into()),
        "lm_head.bias" => base.push("lm_head.decoder.bias".into()),
        _ => {}
    }
    let mut out = base.clone();
    for b in &base {
        if let Some(stem) = b.strip_suffix("LayerNorm.weight") {
            out.push(format!("{stem}LayerNorm.gamma"));
        } else if let Some(stem) = b.strip_suffix("LayerNorm.bias") {
            out.push(format!("{stem}LayerNorm.beta"));
        }
    }
    out
}

fn decoder_weight_name(arch: Arch) -> &'static str {
    match arch {
        Arch::Bert => "cls.predictions.decoder.weight",
        Arch::Roberta => "lm_head.decoder.weight",
    }
}

/// Reads `config.json` and `model.safetensors` (or `pytorch_model.bin`) from `dir` into a fresh
/// `VarMap` on `device`, so the model can be used for inference or trained further.
///
/// `model_type` picks the layout; the tensors decide the rest, whatever class `architectures`
/// names: the encoder and the masked-LM head must be present (a missing head is refused naming
/// the missing tensors), and other tensors (extra heads of a subclass, the pooler, the
/// next-sentence head) are listed in [`LoadedModel::unused_tensors`].
pub fn load_model_dir(dir: &Path, device: &Device) -> Result<LoadedModel, MlmError> {
    let config = MlmConfig::from_file(&dir.join(CONFIG_FILE))?;
    let arch = config.arch()?;
    let file = weights_file(dir)?;
    let tensors = read_tensors(&file)?;

    // The word embeddings decide the vocabulary check before any generic shape check.
    let word_name = format!("{}.embeddings.word_embeddings.weight", arch.prefix());
    let word = candidate_names(&word_name, arch)
        .iter()
        .find_map(|n| tensors.get(n))
        .ok_or_else(|| MlmError::MissingTensor {
            name: word_name.clone(),
            file: file.clone(),
        })?;
    let rows = word.dims().first().copied().unwrap_or(0);
    if rows != config.vocab_size {
        return Err(MlmError::VocabMismatch {
            file: file.clone(),
            config: config.vocab_size,
            embeddings: rows,
        });
    }

    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, device);
    let model = MaskedLm::new(&config, vb)
        .map_err(|e| MlmError::candle(format!("{}: building the model", dir.display()), e))?;
    let mut used: std::collections::HashSet<&str> = std::collections::HashSet::new();
    {
        let vars = varmap.data().lock().expect("varmap lock poisoned");
        let mut names: Vec<&String> = vars.keys().collect();
        names.sort();
        let found_name = |name: &str| {
            candidate_names(name, arch)
                .into_iter()
                .find_map(|n| tensors.get_key_value(&n).map(|(k, _)| k.as_str()))
        };
        let missing: Vec<&str> = names
            .iter()
            .map(|n| n.as_str())
            .filter(|n| found_name(n).is_none())
            .collect();
        if let Some(enc) = missing.iter().find(|n| !is_head(n, arch)) {
            return Err(MlmError::MissingTensor {
                name: enc.to_string(),
                file: file.clone(),
            });
        }
        if !missing.is_empty() {
            return Err(MlmError::MissingHead {
                file: file.clone(),
                count: missing.len(),
                names: missing.join(", "),
            });
        }
        for name in names {
            let var = &vars[name];
            let key = found_name(name).expect("checked above");
            used.insert(key);
            let found = &tensors[key];
            if found.dims() != var.dims() {
                return Err(MlmError::ShapeMismatch {
                    name: name.clone(),
                    file: file.clone(),
                    expected: var.dims().to_vec(),
                    found: found.dims().to_vec(),
                });
            }
            found
                .to_dtype(DType::F32)
                .and_then(|t| t.to_device(device))
                .and_then(|t| t.contiguous())
                .and_then(|t| var.set(&t))
                .map_err(|e| MlmError::candle(format!("{}: tensor {name}", file.display()), e))?;
        }
        // A stored decoder weight must be the word embeddings (tied); anything else would be
        // silently replaced, so refuse it.
        if let Some(dec) = tensors.get(decoder_weight_name(arch)) {
            let emb = &vars[&word_name];
            let same = dec.dims() == emb.dims()
                && dec
                    .to_dtype(DType::F32)
                    .and_then(|d| d.to_device(device))
                    .and_then(|d| (d - emb.as_tensor())?.abs()?.max_all()?.to_scalar::<f32>())
                    .map(|m| m <= 1e-6)
                    .unwrap_or(false);
            if !same {
                return Err(MlmError::UntiedDecoder {
                    name: decoder_weight_name(arch).into(),
                    file,
                });
            }
        }
    }
    let mut unused: Vec<String> = tensors
        .keys()
        .filter(|k| {
            !used.contains(k.as_str())
                && k.as_str() != decoder_weight_name(arch)
                && !is_known_duplicate(k, arch)
        })
        .cloned()
        .collect();
    unused.sort();
    Ok(LoadedModel {
        config,
        varmap,
        model,
        weights_file: file,
        unused_tensors: unused,
    })
}

/// Writes `config.json` (masked-LM architecture, float32) and `model.safetensors` with
/// Hugging Face tensor names into `dir` (created if needed). The tied decoder weight is not
/// written, as `save_pretrained` does. Only the parameters in `varmap` are written: tensors of
/// a loaded checkpoint the masked LM did not use (extra heads) are not carried over, and
/// `architectures` names the masked-LM class (see [`MlmConfig::for_saving`]). Each file is written to a temporary file and renamed.
/// Refuses to replace an existing config.json or model.safetensors unless `overwrite`.
pub fn save_model_dir(
    config: &MlmConfig,
    varmap: &VarMap,
    dir: &Path,
    overwrite: bool,
) -> Result<(), MlmError> {
    let config = config.for_saving()?;
    crate::fsio::create_private_dir(dir)?;
    let config_path = dir.join(CONFIG_FILE);
    let weights_path = dir.join(SAFETENSORS_FILE);
    if !overwrite {
        for p in [&config_path, &weights_path] {
            if p.exists() {
                return Err(MlmError::Exists { path: p.clone() });
            }
        }
    }

    // Collect f32 bytes in a stable (sorted) order.
    let mut named: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    {
        let vars = varmap.data().lock().expect("varmap lock poisoned");
        let mut names: Vec<&String> = vars.keys().collect();
        names.sort();
        for name in names {
            let t = vars[name].as_tensor();
            let flat: Vec<f32> = t
                .to_dtype(DType::F32)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1())
                .map_err(|e| MlmError::candle(format!("tensor {name}"), e))?;
            let bytes: Vec<u8> = flat.iter().flat_map(|v| v.to_le_bytes()).collect();
            named.push((name.clone(), t.dims().to_vec(), bytes));
        }
    }
    let views = named
        .iter()
        .map(|(n, shape, bytes)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), bytes)
                .map(|v| (n.clone(), v))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| MlmError::InvalidConfig(format!("safetensors view: {e}")))?;
    // transformers refuses safetensors files without format=pt metadata.
    let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
    let bytes = safetensors::serialize(views, Some(metadata))
        .map_err(|e| MlmError::io(&weights_path, std::io::Error::other(e.to_string())))?;
    crate::fsio::replace_file(&weights_path, &bytes)?;

    let json = serde_json::to_string_pretty(&config).map_err(|e| MlmError::Json {
        path: config_path.clone(),
        source: e,
    })?;
    crate::fsio::replace_file(&config_path, format!("{json}\n").as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cased WordPiece vocabulary: "Jan" and "jan" are both entries.
    const VOCAB_TXT: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nJan\njan\nwas\nseen\nby\nDr\n.\n";

    /// Writes a tiny BERT masked LM (vocab.txt, no tokenizer_config.json) into `dir` with
    /// `config.json` edited by `config` and the tensors edited by `tensors`.
    fn tiny_bert_dir(
        dir: &Path,
        config: impl FnOnce(&mut serde_json::Value),
        tensors: impl FnOnce(&mut HashMap<String, Tensor>),
    ) {
        let vocab = VOCAB_TXT.lines().count();
        let c = MlmConfig::preset("tiny", Arch::Bert, vocab, 0).unwrap();
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        MaskedLm::new(&c, vb).unwrap();
        save_model_dir(&c, &varmap, dir, false).unwrap();
        std::fs::write(dir.join("vocab.txt"), VOCAB_TXT).unwrap();
        let cfg_path = dir.join(CONFIG_FILE);
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&cfg_path).unwrap()).unwrap();
        config(&mut v);
        std::fs::write(&cfg_path, v.to_string()).unwrap();
        let w = dir.join(SAFETENSORS_FILE);
        let mut map = candle_core::safetensors::load(&w, &Device::Cpu).unwrap();
        tensors(&mut map);
        candle_core::safetensors::save(&map, &w).unwrap();
    }

    fn zeros(shape: &[usize]) -> Tensor {
        Tensor::zeros(shape, DType::F32, &Device::Cpu).unwrap()
    }

    #[test]
    fn a_subclass_with_extra_heads_loads_and_its_extra_tensors_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        tiny_bert_dir(
            tmp.path(),
            |v| {
                v["architectures"] = serde_json::json!(["MyBertWithExtraHeads"]);
                v["num_extra_labels"] = 3.into();
            },
            |m| {
                m.insert("extra_head.weight".into(), zeros(&[3, 64]));
                m.insert("bert.pooler.dense.weight".into(), zeros(&[64, 64]));
                m.insert("cls.seq_relationship.bias".into(), zeros(&[2]));
            },
        );
        let loaded = load_model_dir(tmp.path(), &Device::Cpu).unwrap();
        assert_eq!(
            loaded.unused_tensors,
            [
                "bert.pooler.dense.weight",
                "cls.seq_relationship.bias",
                "extra_head.weight"
            ]
        );
        let notice = loaded.unused_notice().unwrap();
        assert!(notice.contains("model.safetensors"), "{notice}");
        assert!(notice.contains("3 tensor(s)"), "{notice}");
        assert!(notice.contains("extra_head.weight"), "{notice}");
        assert_eq!(notice.lines().count(), 1);

        // The whole runtime loads it too (tokenizer from vocab.txt alone).
        let rt = crate::mlm::runtime::MlmRuntime::open(tmp.path().to_str().unwrap(), &Device::Cpu)
            .unwrap();
        assert_eq!(rt.tokenizer.vocab_size(), loaded.config.vocab_size);

        // Saved again: a plain masked LM that loads with nothing unused; the user's other
        // config fields are kept.
        let out = tmp.path().join("again");
        save_model_dir(&loaded.config, &loaded.varmap, &out, false).unwrap();
        let again = load_model_dir(&out, &Device::Cpu).unwrap();
        assert!(again.unused_tensors.is_empty());
        assert_eq!(again.unused_notice(), None);
        assert_eq!(
            again.config.architectures.as_deref(),
            Some(&["BertForMaskedLM".to_string()][..])
        );
        assert_eq!(again.config.extra["num_extra_labels"], 3);
    }

    #[test]
    fn the_notice_names_the_first_few_and_counts_the_rest() {
        let names: Vec<String> = (0..8).map(|i| format!("head.{i}.weight")).collect();
        let n = unused_notice(Path::new("m/model.safetensors"), &names).unwrap();
        assert!(
            n.contains("8 tensor(s)") && n.contains("head.4.weight"),
            "{n}"
        );
        assert!(
            !n.contains("head.5.weight") && n.contains("and 3 more"),
            "{n}"
        );
        assert_eq!(unused_notice(Path::new("x"), &[]), None);
    }

    #[test]
    fn a_bert_without_the_masked_lm_head_is_refused_naming_the_missing_tensors() {
        let tmp = tempfile::tempdir().unwrap();
        tiny_bert_dir(
            tmp.path(),
            |v| v["architectures"] = serde_json::json!(["BertForSequenceClassification"]),
            |m| {
                m.retain(|k, _| !k.starts_with("cls."));
                m.insert("classifier.weight".into(), zeros(&[2, 64]));
            },
        );
        let e = load_model_dir(tmp.path(), &Device::Cpu).err().unwrap();
        assert!(matches!(e, MlmError::MissingHead { count: 5, .. }), "{e}");
        let msg = e.to_string();
        for name in [
            "cls.predictions.bias",
            "cls.predictions.transform.dense.weight",
            "cls.predictions.transform.LayerNorm.bias",
        ] {
            assert!(msg.contains(name), "{msg}");
        }
        assert!(
            msg.contains("model.safetensors") && msg.contains("no masked-LM head"),
            "{msg}"
        );
    }

    #[test]
    fn other_model_types_are_still_refused() {
        let tmp = tempfile::tempdir().unwrap();
        tiny_bert_dir(
            tmp.path(),
            |v| {
                v["model_type"] = "gpt2".into();
                v["architectures"] = serde_json::json!(["GPT2LMHeadModel"]);
            },
            |_| {},
        );
        let e = load_model_dir(tmp.path(), &Device::Cpu)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("unsupported architecture") && e.contains("gpt2"),
            "{e}"
        );
    }

    #[test]
    fn a_cased_vocabulary_without_tokenizer_config_keeps_case() {
        let tmp = tempfile::tempdir().unwrap();
        tiny_bert_dir(tmp.path(), |_| {}, |_| {});
        assert!(!tmp.path().join("tokenizer_config.json").exists());
        let tok = crate::tokenizer::load_dir(tmp.path()).unwrap();
        let upper = tok.encode_ids("Jan").unwrap();
        let lower = tok.encode_ids("jan").unwrap();
        assert_ne!(upper, lower);
        assert!(!upper.contains(&tok.specials.unk), "{upper:?}");
    }

    #[test]
    fn non_finite_tensors_are_named() {
        let ok = Tensor::new(&[1.0f32, -2.0], &Device::Cpu).unwrap();
        let ids = Tensor::new(&[1u32, 2], &Device::Cpu).unwrap();
        let mut map = HashMap::from([("a.weight".to_string(), ok), ("ids".to_string(), ids)]);
        assert_eq!(first_non_finite(&map).unwrap(), None);
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let t = Tensor::new(&[0.5f32, bad], &Device::Cpu).unwrap();
            map.insert("b.bias".into(), t.to_dtype(DType::F16).unwrap());
            assert_eq!(first_non_finite(&map).unwrap().as_deref(), Some("b.bias"));
            let e = check_finite(Path::new("m/model.safetensors"), &map).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("model.safetensors") && msg.contains("b.bias"),
                "{msg}"
            );
        }
    }
}
