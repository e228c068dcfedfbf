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
    {
        let vars = varmap.data().lock().expect("varmap lock poisoned");
        for (name, var) in vars.iter() {
            let found = candidate_names(name, arch)
                .iter()
                .find_map(|n| tensors.get(n))
                .ok_or_else(|| MlmError::MissingTensor {
                    name: name.clone(),
                    file: file.clone(),
                })?;
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
    Ok(LoadedModel {
        config,
        varmap,
        model,
    })
}

/// Writes `config.json` (masked-LM architecture, float32) and `model.safetensors` with
/// Hugging Face tensor names into `dir` (created if needed). The tied decoder weight is not
/// written, as `save_pretrained` does. Each file is written to a temporary file and renamed.
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
