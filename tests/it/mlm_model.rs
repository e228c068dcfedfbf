//! Masked-LM model tests: gradients reach every parameter, training lowers the loss, dropout,
//! save/load round trips, padding invariance and loading errors, for BERT and RoBERTa layouts.

use crate::util::tempdir;
use std::collections::HashMap;
use std::path::Path;

use anonlm::mlm::{
    check_vocab, cross_entropy, labelled_positions, load_model_dir, masked_lm_loss, save_model_dir,
    Arch, MaskedLm, MlmConfig, MlmError,
};
use anonlm::neural::dropout::DropoutRng;
use candle_core::{DType, Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarBuilder, VarMap};

const VOCAB: usize = 40;

fn pad_of(arch: Arch) -> u32 {
    match arch {
        Arch::Bert => 0,
        Arch::Roberta => 1,
    }
}

fn tiny(arch: Arch) -> MlmConfig {
    MlmConfig::preset("tiny", arch, VOCAB, pad_of(arch)).unwrap()
}

fn build(config: &MlmConfig) -> (VarMap, MaskedLm) {
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    let model = MaskedLm::new(config, vb).unwrap();
    (varmap, model)
}

/// A fixed batch: two sequences of 8 tokens, the second padded after 5.
fn batch(arch: Arch) -> (Tensor, Tensor, Tensor) {
    let p = pad_of(arch);
    let ids = vec![
        vec![2u32, 5, 9, 13, 17, 21, 25, 3],
        vec![2u32, 30, 11, 7, 3, p, p, p],
    ];
    let mask = vec![vec![1u32; 8], vec![1u32, 1, 1, 1, 1, 0, 0, 0]];
    let labels = vec![
        vec![-100i64, 5, -100, 13, -100, 21, 25, -100],
        vec![-100i64, 30, 11, -100, -100, -100, -100, -100],
    ];
    let dev = Device::Cpu;
    (
        Tensor::new(ids, &dev).unwrap(),
        Tensor::new(mask, &dev).unwrap(),
        Tensor::new(labels, &dev).unwrap(),
    )
}

fn max_abs_diff(a: &Tensor, b: &Tensor) -> f32 {
    (a - b)
        .unwrap()
        .abs()
        .unwrap()
        .max_all()
        .unwrap()
        .to_scalar()
        .unwrap()
}

fn scalar(t: &Tensor) -> f32 {
    t.to_scalar::<f32>().unwrap()
}

#[test]
fn hugging_face_tensor_names() {
    let (vm, _) = build(&tiny(Arch::Bert));
    let names: Vec<String> = vm.data().lock().unwrap().keys().cloned().collect();
    for n in [
        "bert.embeddings.word_embeddings.weight",
        "bert.embeddings.position_embeddings.weight",
        "bert.embeddings.token_type_embeddings.weight",
        "bert.embeddings.LayerNorm.weight",
        "bert.encoder.layer.0.attention.self.query.weight",
        "bert.encoder.layer.1.attention.output.LayerNorm.bias",
        "bert.encoder.layer.1.intermediate.dense.weight",
        "bert.encoder.layer.1.output.dense.bias",
        "cls.predictions.transform.dense.weight",
        "cls.predictions.transform.LayerNorm.weight",
        "cls.predictions.bias",
    ] {
        assert!(names.iter().any(|x| x == n), "missing {n} in {names:?}");
    }
    // 5 embedding tensors + 16 per layer + 5 head tensors
    assert_eq!(names.len(), 5 + 16 * 2 + 5, "{names:?}");
    let (vm, _) = build(&tiny(Arch::Roberta));
    let data = vm.data().lock().unwrap();
    for n in [
        "roberta.embeddings.word_embeddings.weight",
        "lm_head.dense.weight",
        "lm_head.layer_norm.weight",
        "lm_head.bias",
    ] {
        assert!(data.contains_key(n), "missing {n}");
    }
    // transformers zeroes the padding embedding row at initialisation.
    let word = data["roberta.embeddings.word_embeddings.weight"].as_tensor();
    let pad_row: f32 = scalar(&word.get(1).unwrap().abs().unwrap().sum_all().unwrap());
    assert_eq!(pad_row, 0.0);
}

fn every_parameter_gets_a_gradient(arch: Arch) {
    let config = tiny(arch);
    let (varmap, model) = build(&config);
    let (ids, mask, labels) = batch(arch);
    let mut rng = DropoutRng::new(3);
    let logits = model.forward(&ids, &mask, Some(&mut rng)).unwrap();
    assert_eq!(logits.dims(), &[2, 8, VOCAB]);
    let loss = masked_lm_loss(&logits, &labels).unwrap();
    let grads = loss.backward().unwrap();
    let n_vars = varmap.all_vars().len();
    let data = varmap.data().lock().unwrap();
    assert_eq!(data.len(), n_vars);
    let mut checked = 0;
    for (name, var) in data.iter() {
        let g = grads
            .get(var.as_tensor())
            .unwrap_or_else(|| panic!("{arch:?}: no gradient for {name}"));
        let norm = scalar(&g.abs().unwrap().sum_all().unwrap());
        assert!(
            norm > 0.0 && norm.is_finite(),
            "{arch:?}: zero gradient for {name}"
        );
        checked += 1;
    }
    assert_eq!(checked, 42);
}

#[test]
fn every_parameter_gets_a_gradient_bert() {
    every_parameter_gets_a_gradient(Arch::Bert);
}

#[test]
fn every_parameter_gets_a_gradient_roberta() {
    every_parameter_gets_a_gradient(Arch::Roberta);
}

/// Training projects to the vocabulary only at masked positions: the loss and every gradient
/// equal those of the full logits with ignored labels.
fn masked_rows_only_match_full_logits(arch: Arch) {
    let (varmap, model) = build(&tiny(arch));
    let (ids, mask, labels) = batch(arch);
    let full = masked_lm_loss(
        &model
            .forward(&ids, &mask, Some(&mut DropoutRng::new(5)))
            .unwrap(),
        &labels,
    )
    .unwrap();
    let at = labelled_positions(&labels, VOCAB).unwrap().unwrap();
    let logits = model
        .forward_at(&ids, &mask, &at.rows, Some(&mut DropoutRng::new(5)))
        .unwrap();
    assert_eq!(logits.dims()[1], VOCAB);
    let rows = cross_entropy(&logits, &at.targets).unwrap();
    assert!((scalar(&full) - scalar(&rows)).abs() < 1e-6);
    let (g_full, g_rows) = (full.backward().unwrap(), rows.backward().unwrap());
    for var in varmap.all_vars() {
        let a = g_full.get(var.as_tensor()).unwrap();
        let b = g_rows.get(var.as_tensor()).unwrap();
        assert!(max_abs_diff(a, b) < 1e-6, "{arch:?}: gradients differ");
    }
}

#[test]
fn masked_rows_only_match_full_logits_bert() {
    masked_rows_only_match_full_logits(Arch::Bert);
}

#[test]
fn masked_rows_only_match_full_logits_roberta() {
    masked_rows_only_match_full_logits(Arch::Roberta);
}

fn adamw_lowers_the_loss(arch: Arch) {
    let config = tiny(arch);
    let (varmap, model) = build(&config);
    let (ids, mask, labels) = batch(arch);
    let params = ParamsAdamW {
        lr: 3e-3,
        ..Default::default()
    };
    let mut opt = AdamW::new(varmap.all_vars(), params).unwrap();
    let mut rng = DropoutRng::new(11);
    let eval = || {
        let logits = model.forward(&ids, &mask, None).unwrap();
        scalar(&masked_lm_loss(&logits, &labels).unwrap())
    };
    let first = eval();
    for _ in 0..40 {
        let logits = model.forward(&ids, &mask, Some(&mut rng)).unwrap();
        let loss = masked_lm_loss(&logits, &labels).unwrap();
        opt.backward_step(&loss).unwrap();
    }
    let last = eval();
    assert!(
        first > 3.0,
        "{arch:?}: initial loss {first} should be near ln(40)"
    );
    assert!(last < 0.3 * first, "{arch:?}: loss {first} -> {last}");
}

#[test]
fn adamw_lowers_the_loss_bert() {
    adamw_lowers_the_loss(Arch::Bert);
}

#[test]
fn adamw_lowers_the_loss_roberta() {
    adamw_lowers_the_loss(Arch::Roberta);
}

#[test]
fn dropout_differs_from_inference_and_is_reproducible() {
    for arch in [Arch::Bert, Arch::Roberta] {
        let (_, model) = build(&tiny(arch));
        let (ids, mask, _) = batch(arch);
        let eval = model.forward(&ids, &mask, None).unwrap();
        let eval2 = model.forward(&ids, &mask, None).unwrap();
        assert_eq!(max_abs_diff(&eval, &eval2), 0.0);
        let a = model
            .forward(&ids, &mask, Some(&mut DropoutRng::new(5)))
            .unwrap();
        let b = model
            .forward(&ids, &mask, Some(&mut DropoutRng::new(5)))
            .unwrap();
        let c = model
            .forward(&ids, &mask, Some(&mut DropoutRng::new(6)))
            .unwrap();
        assert_eq!(
            max_abs_diff(&a, &b),
            0.0,
            "{arch:?}: same seed, same output"
        );
        assert!(
            max_abs_diff(&a, &eval) > 1e-3,
            "{arch:?}: dropout had no effect"
        );
        assert!(
            max_abs_diff(&a, &c) > 1e-3,
            "{arch:?}: seeds gave the same masks"
        );
    }
}

#[test]
fn padding_does_not_change_real_token_logits() {
    for arch in [Arch::Bert, Arch::Roberta] {
        let (_, model) = build(&tiny(arch));
        let (ids, mask, _) = batch(arch);
        let padded = model.forward(&ids, &mask, None).unwrap();
        let alone_ids = ids
            .get(1)
            .unwrap()
            .narrow(0, 0, 5)
            .unwrap()
            .unsqueeze(0)
            .unwrap();
        let alone_mask = Tensor::ones((1, 5), DType::U32, &Device::Cpu).unwrap();
        let alone = model.forward(&alone_ids, &alone_mask, None).unwrap();
        let from_batch = padded
            .get(1)
            .unwrap()
            .narrow(0, 0, 5)
            .unwrap()
            .unsqueeze(0)
            .unwrap();
        let d = max_abs_diff(&alone, &from_batch);
        assert!(d < 1e-5, "{arch:?}: padding changed logits by {d}");
    }
}

fn save_load_round_trip(arch: Arch) {
    let config = tiny(arch);
    let (varmap, model) = build(&config);
    let (ids, mask, labels) = batch(arch);
    // a few training steps so the weights are not just the initialisation
    let mut opt = AdamW::new(varmap.all_vars(), ParamsAdamW::default()).unwrap();
    let mut rng = DropoutRng::new(1);
    for _ in 0..3 {
        let logits = model.forward(&ids, &mask, Some(&mut rng)).unwrap();
        opt.backward_step(&masked_lm_loss(&logits, &labels).unwrap())
            .unwrap();
    }
    let before = model.forward(&ids, &mask, None).unwrap();
    let tmp = tempdir();
    let dir = tmp.path().join("model");
    save_model_dir(&config, &varmap, &dir, false).unwrap();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let class = match arch {
        Arch::Bert => "BertForMaskedLM",
        Arch::Roberta => "RobertaForMaskedLM",
    };
    assert_eq!(saved["architectures"][0], class);
    assert_eq!(saved["torch_dtype"], "float32");
    let names =
        candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap();
    assert!(
        !names.keys().any(|k| k.contains("decoder")),
        "tied decoder written"
    );

    let loaded = load_model_dir(&dir, &Device::Cpu).unwrap();
    assert_eq!(loaded.config, config.for_saving().unwrap());
    let after = loaded.model.forward(&ids, &mask, None).unwrap();
    assert_eq!(
        max_abs_diff(&before, &after),
        0.0,
        "{arch:?}: logits changed"
    );
    // the loaded varmap is trainable (a training-mode forward; inference keeps no graph)
    let logits = loaded
        .model
        .forward(&ids, &mask, Some(&mut DropoutRng::new(2)))
        .unwrap();
    let grads = masked_lm_loss(&logits, &labels)
        .unwrap()
        .backward()
        .unwrap();
    assert!(loaded
        .varmap
        .all_vars()
        .iter()
        .all(|v| grads.get(v.as_tensor()).is_some()));

    // refuses to overwrite unless told
    let e = save_model_dir(&config, &varmap, &dir, false).unwrap_err();
    assert!(matches!(e, MlmError::Exists { .. }), "{e}");
    save_model_dir(&config, &varmap, &dir, true).unwrap();
}

#[test]
fn save_load_round_trip_bert() {
    save_load_round_trip(Arch::Bert);
}

#[test]
fn save_load_round_trip_roberta() {
    save_load_round_trip(Arch::Roberta);
}

fn saved_model(arch: Arch, dir: &Path) -> (MlmConfig, Tensor) {
    let config = tiny(arch);
    let (varmap, model) = build(&config);
    let (ids, mask, _) = batch(arch);
    let logits = model.forward(&ids, &mask, None).unwrap();
    save_model_dir(&config, &varmap, dir, false).unwrap();
    (config, logits)
}

fn rewrite_weights(dir: &Path, edit: impl FnOnce(&mut HashMap<String, Tensor>)) {
    let path = dir.join("model.safetensors");
    let mut map = candle_core::safetensors::load(&path, &Device::Cpu).unwrap();
    edit(&mut map);
    candle_core::safetensors::save(&map, &path).unwrap();
}

#[test]
fn loads_name_variants_of_older_checkpoints() {
    for arch in [Arch::Bert, Arch::Roberta] {
        let tmp = tempdir();
        let (_, logits) = saved_model(arch, tmp.path());
        let prefix = format!("{}.", arch.prefix());
        let (dec_w, dec_b, bias) = match arch {
            Arch::Bert => (
                "cls.predictions.decoder.weight",
                "cls.predictions.decoder.bias",
                "cls.predictions.bias",
            ),
            Arch::Roberta => (
                "lm_head.decoder.weight",
                "lm_head.decoder.bias",
                "lm_head.bias",
            ),
        };
        rewrite_weights(tmp.path(), |map| {
            let old = std::mem::take(map);
            for (k, v) in old {
                // no encoder prefix, gamma/beta layer norms, head bias only as decoder bias
                let k = k.strip_prefix(&prefix).map(str::to_string).unwrap_or(k);
                let k = k
                    .replace("LayerNorm.weight", "LayerNorm.gamma")
                    .replace("LayerNorm.bias", "LayerNorm.beta");
                let k = if k == bias { dec_b.to_string() } else { k };
                map.insert(k, v);
            }
            let word = map["embeddings.word_embeddings.weight"].clone();
            map.insert(dec_w.into(), word);
            let pos = Tensor::arange(0i64, 130, &Device::Cpu)
                .unwrap()
                .unsqueeze(0)
                .unwrap();
            map.insert("embeddings.position_ids".into(), pos);
        });
        let loaded = load_model_dir(tmp.path(), &Device::Cpu).unwrap();
        let (ids, mask, _) = batch(arch);
        let again = loaded.model.forward(&ids, &mask, None).unwrap();
        assert_eq!(max_abs_diff(&logits, &again), 0.0, "{arch:?}");

        // an untied decoder weight is refused rather than silently replaced
        rewrite_weights(tmp.path(), |map| {
            let w = (map[dec_w].clone() + 1.0).unwrap();
            map.insert(dec_w.into(), w);
        });
        let e = load_model_dir(tmp.path(), &Device::Cpu).err().unwrap();
        assert!(e.to_string().contains(dec_w), "{e}");
    }
}

#[test]
fn loading_errors_name_the_problem() {
    let tmp = tempdir();
    let dir = tmp.path();
    saved_model(Arch::Bert, dir);

    // missing tensor
    let gone = "bert.encoder.layer.1.attention.self.key.weight";
    rewrite_weights(dir, |m| {
        m.remove(gone);
    });
    let e = load_model_dir(dir, &Device::Cpu).err().unwrap().to_string();
    assert!(e.contains(gone) && e.contains("model.safetensors"), "{e}");
    assert!(e.contains("missing tensor"), "{e}");

    // shape mismatch
    rewrite_weights(dir, |m| {
        m.insert(
            gone.into(),
            Tensor::zeros((64, 32), DType::F32, &Device::Cpu).unwrap(),
        );
    });
    let e = load_model_dir(dir, &Device::Cpu).err().unwrap().to_string();
    assert!(
        e.contains(gone) && e.contains("[64, 32]") && e.contains("[64, 64]"),
        "{e}"
    );

    // vocab_size in config differs from the embeddings
    let cfg_path = dir.join("config.json");
    let text = std::fs::read_to_string(&cfg_path).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["vocab_size"] = 45.into();
    std::fs::write(&cfg_path, v.to_string()).unwrap();
    let e = load_model_dir(dir, &Device::Cpu).err().unwrap();
    assert!(
        matches!(
            e,
            MlmError::VocabMismatch {
                config: 45,
                embeddings: 40,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("vocab_size 45"), "{e}");

    // unsupported architecture
    std::fs::write(
        &cfg_path,
        r#"{"model_type":"gpt2","architectures":["GPT2LMHeadModel"],"vocab_size":40}"#,
    )
    .unwrap();
    let e = load_model_dir(dir, &Device::Cpu).err().unwrap().to_string();
    assert!(
        e.contains("unsupported architecture") && e.contains("gpt2"),
        "{e}"
    );

    // no weights at all
    let empty = tempdir();
    std::fs::write(empty.path().join("config.json"), text).unwrap();
    let e = load_model_dir(empty.path(), &Device::Cpu)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("no model.safetensors or pytorch_model.bin"),
        "{e}"
    );

    // tokenizer larger than the embeddings
    assert!(check_vocab(40, 40).is_ok());
    assert!(check_vocab(40, 30).is_ok());
    let e = check_vocab(40, 41).unwrap_err().to_string();
    assert!(e.contains("41") && e.contains("40"), "{e}");
}

/// Minimal writer of PyTorch's zip checkpoint format (what `torch.save` writes for a state dict
/// of float32 tensors), so the test needs no Python. Stored (uncompressed) zip entries.
mod torch_bin {
    use std::path::Path;

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    fn unicode(p: &mut Vec<u8>, s: &str) {
        p.push(b'X');
        p.extend((s.len() as u32).to_le_bytes());
        p.extend(s.as_bytes());
    }

    fn int(p: &mut Vec<u8>, v: usize) {
        p.push(b'J');
        p.extend((v as i32).to_le_bytes());
    }

    fn tuple(p: &mut Vec<u8>, vs: &[usize]) {
        p.push(b'(');
        for &v in vs {
            int(p, v);
        }
        p.push(b't');
    }

    /// Pickle (protocol 2) of {name: torch._utils._rebuild_tensor_v2(storage i, 0, shape, stride, False, OrderedDict())}.
    fn pickle(entries: &[(String, Vec<usize>)]) -> Vec<u8> {
        let mut p = vec![0x80, 2, b'}', b'('];
        for (i, (name, shape)) in entries.iter().enumerate() {
            unicode(&mut p, name);
            p.extend(b"ctorch._utils\n_rebuild_tensor_v2\n");
            p.push(b'(');
            p.push(b'(');
            unicode(&mut p, "storage");
            p.extend(b"ctorch\nFloatStorage\n");
            unicode(&mut p, &i.to_string());
            unicode(&mut p, "cpu");
            int(&mut p, shape.iter().product());
            p.push(b't');
            p.push(b'Q');
            int(&mut p, 0);
            tuple(&mut p, shape);
            let mut stride = vec![1usize; shape.len()];
            for d in (0..shape.len().saturating_sub(1)).rev() {
                stride[d] = stride[d + 1] * shape[d + 1];
            }
            tuple(&mut p, &stride);
            p.push(0x89);
            p.extend(b"ccollections\nOrderedDict\n");
            p.push(b')');
            p.push(b'R');
            p.push(b't');
            p.push(b'R');
        }
        p.push(b'u');
        p.push(b'.');
        p
    }

    fn zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        let u16le = |v: &mut Vec<u8>, x: u16| v.extend(x.to_le_bytes());
        let u32le = |v: &mut Vec<u8>, x: u32| v.extend(x.to_le_bytes());
        for (name, data) in files {
            let offset = out.len() as u32;
            let crc = crc32(data);
            u32le(&mut out, 0x0403_4b50);
            for x in [20u16, 0, 0, 0, 0x21] {
                u16le(&mut out, x);
            }
            for x in [crc, data.len() as u32, data.len() as u32] {
                u32le(&mut out, x);
            }
            u16le(&mut out, name.len() as u16);
            u16le(&mut out, 0);
            out.extend(name.as_bytes());
            out.extend(data);

            u32le(&mut central, 0x0201_4b50);
            for x in [20u16, 20, 0, 0, 0, 0x21] {
                u16le(&mut central, x);
            }
            for x in [crc, data.len() as u32, data.len() as u32] {
                u32le(&mut central, x);
            }
            for x in [name.len() as u16, 0, 0, 0, 0] {
                u16le(&mut central, x);
            }
            u32le(&mut central, 0);
            u32le(&mut central, offset);
            central.extend(name.as_bytes());
        }
        let cd_offset = out.len() as u32;
        let cd_size = central.len() as u32;
        out.extend(&central);
        u32le(&mut out, 0x0605_4b50);
        for x in [0u16, 0, files.len() as u16, files.len() as u16] {
            u16le(&mut out, x);
        }
        u32le(&mut out, cd_size);
        u32le(&mut out, cd_offset);
        u16le(&mut out, 0);
        out
    }

    /// Writes float32 tensors (name, shape, values) as a PyTorch checkpoint.
    pub fn write(path: &Path, tensors: &[(String, Vec<usize>, Vec<f32>)]) {
        let entries: Vec<(String, Vec<usize>)> = tensors
            .iter()
            .map(|(n, s, _)| (n.clone(), s.clone()))
            .collect();
        let mut files = vec![("archive/data.pkl".to_string(), pickle(&entries))];
        for (i, (_, _, values)) in tensors.iter().enumerate() {
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            files.push((format!("archive/data/{i}"), bytes));
        }
        std::fs::write(path, zip(&files)).unwrap();
    }
}

#[test]
fn loads_pytorch_model_bin() {
    for arch in [Arch::Bert, Arch::Roberta] {
        let tmp = tempdir();
        let (_, logits) = saved_model(arch, tmp.path());
        let st = tmp.path().join("model.safetensors");
        let map = candle_core::safetensors::load(&st, &Device::Cpu).unwrap();
        let mut tensors: Vec<(String, Vec<usize>, Vec<f32>)> = map
            .iter()
            .map(|(n, t)| {
                let v = t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
                (n.clone(), t.dims().to_vec(), v)
            })
            .collect();
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        std::fs::remove_file(&st).unwrap();
        torch_bin::write(&tmp.path().join("pytorch_model.bin"), &tensors);
        let loaded = load_model_dir(tmp.path(), &Device::Cpu).unwrap();
        let (ids, mask, _) = batch(arch);
        let again = loaded.model.forward(&ids, &mask, None).unwrap();
        assert_eq!(max_abs_diff(&logits, &again), 0.0, "{arch:?}");
    }
}

/// Inference runs fused CPU kernels (attention, layer norm, softmax, exact GELU, the last
/// layer at the wanted rows only) outside the autograd graph; with dropout off the op-by-op
/// training path gives the same logits, padded keys included.
#[test]
fn fused_inference_matches_the_op_by_op_path() {
    for arch in [Arch::Bert, Arch::Roberta] {
        let mut config = tiny(arch);
        config.hidden_dropout_prob = 0.0;
        config.attention_probs_dropout_prob = 0.0;
        let (varmap, model) = build(&config);
        let (ids, mask, labels) = batch(arch);
        let ops = model
            .forward(&ids, &mask, Some(&mut DropoutRng::new(1)))
            .unwrap();
        let fused = model.forward(&ids, &mask, None).unwrap();
        let d = max_abs_diff(&ops, &fused);
        assert!(d < 1e-5, "{arch:?}: fused logits differ by {d}");

        let at = labelled_positions(&labels, VOCAB).unwrap().unwrap();
        let rows = model.forward_at(&ids, &mask, &at.rows, None).unwrap();
        let gathered = ops
            .reshape((16, VOCAB))
            .unwrap()
            .index_select(&at.rows, 0)
            .unwrap();
        let d = max_abs_diff(&rows, &gathered);
        assert!(d < 1e-5, "{arch:?}: logits at the rows differ by {d}");

        // Nothing of an inference forward leads back to the weights.
        let grads = rows.sum_all().unwrap().backward().unwrap();
        for var in varmap.all_vars() {
            assert!(grads.get(var.as_tensor()).is_none(), "{arch:?}: graph kept");
        }
    }
}
