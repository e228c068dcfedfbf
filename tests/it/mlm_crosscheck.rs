//! Cross-check against Python transformers. Needs ANONLM_PYTHON, a python with transformers and
//! torch (`.ci/run` installs them into `.ci/venv`). Without it the tests skip with a note, unless
//! `ANONLM_REQUIRE_DATA` or `CI` is set, where its absence fails them.

use crate::util::tempdir;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anonlm::mlm::{load_model_dir, masked_lm_loss, save_model_dir, Arch, MaskedLm, MlmConfig};
use anonlm::neural::dropout::DropoutRng;
use candle_core::{DType, Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarBuilder, VarMap};

const TOLERANCE: f32 = 1e-4;

fn setup() -> Option<(PathBuf, PathBuf)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/crosscheck_transformers.py");
    let Some(python) = std::env::var_os("ANONLM_PYTHON") else {
        assert!(
            !anonlm::testdata::required(),
            "ANONLM_PYTHON is not set (CI runs these checks with .ci/venv)"
        );
        println!("skip: ANONLM_PYTHON is not set (a python with transformers and torch)");
        return None;
    };
    assert!(script.is_file(), "{} is absent", script.display());
    Some((PathBuf::from(python), script))
}

fn run(python: &Path, script: &Path, args: &[&str]) -> String {
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .expect("running python");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "crosscheck {args:?} failed:\n{text}");
    text
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

/// (a) transformers writes random models; anonlm loads them and reproduces their logits.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn anonlm_reproduces_transformers_logits() {
    let Some((python, script)) = setup() else {
        return;
    };
    for arch in ["bert", "roberta"] {
        for format in ["safetensors", "bin"] {
            let tmp = tempdir();
            let dir = tmp.path().join("model");
            let dir_s = dir.to_str().unwrap();
            run(
                &python,
                &script,
                &["make", "--arch", arch, "--out", dir_s, "--format", format],
            );
            let weights = match format {
                "bin" => "pytorch_model.bin",
                _ => "model.safetensors",
            };
            assert!(dir.join(weights).is_file(), "{arch}/{format}: no {weights}");
            let reference =
                candle_core::safetensors::load(dir.join("reference.safetensors"), &Device::Cpu)
                    .unwrap();
            let loaded = load_model_dir(&dir, &Device::Cpu).unwrap();
            let ids = reference["input_ids"].to_dtype(DType::U32).unwrap();
            let mask = reference["attention_mask"].to_dtype(DType::U32).unwrap();
            let logits = loaded.model.forward(&ids, &mask, None).unwrap();
            let expect = reference["logits"].to_dtype(DType::F32).unwrap();
            assert_eq!(logits.dims(), expect.dims());
            // compare real-token positions only: pad positions are not defined outputs
            let m = mask
                .to_dtype(DType::F32)
                .unwrap()
                .unsqueeze(2)
                .unwrap()
                .broadcast_as(logits.shape())
                .unwrap();
            let d = max_abs_diff(&(logits * &m).unwrap(), &(expect * &m).unwrap());
            println!("crosscheck transformers->anonlm {arch} {format}: max_abs_diff {d:.3e}");
            assert!(d < TOLERANCE, "{arch}/{format}: max_abs_diff {d}");
        }
    }
}

/// (b) anonlm trains and saves tiny models; transformers loads them and reproduces anonlm's logits.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn transformers_reproduces_anonlm_logits() {
    let Some((python, script)) = setup() else {
        return;
    };
    for arch in [Arch::Bert, Arch::Roberta] {
        let pad = match arch {
            Arch::Bert => 0u32,
            Arch::Roberta => 1,
        };
        let config = MlmConfig::preset("tiny", arch, 60, pad).unwrap();
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let model = MaskedLm::new(&config, vb).unwrap();
        let dev = Device::Cpu;
        let ids_v = vec![
            vec![2u32, 7, 19, 23, 41, 5, 3, pad, pad],
            vec![2u32, 55, 8, 12, 33, 47, 9, 17, 3],
        ];
        let mask_v = vec![vec![1u32, 1, 1, 1, 1, 1, 1, 0, 0], vec![1u32; 9]];
        let ids = Tensor::new(ids_v.clone(), &dev).unwrap();
        let mask = Tensor::new(mask_v.clone(), &dev).unwrap();
        let labels = Tensor::new(
            vec![
                vec![-100i64, 7, -100, 23, -100, -100, -100, -100, -100],
                vec![-100i64, -100, 8, -100, 33, -100, 9, -100, -100],
            ],
            &dev,
        )
        .unwrap();
        let mut opt = AdamW::new(
            varmap.all_vars(),
            ParamsAdamW {
                lr: 1e-2,
                ..Default::default()
            },
        )
        .unwrap();
        let mut rng = DropoutRng::new(42);
        for _ in 0..5 {
            let logits = model.forward(&ids, &mask, Some(&mut rng)).unwrap();
            opt.backward_step(&masked_lm_loss(&logits, &labels).unwrap())
                .unwrap();
        }
        let logits = model.forward(&ids, &mask, None).unwrap();
        let tmp = tempdir();
        let dir = tmp.path().join("model");
        save_model_dir(&config, &varmap, &dir, false).unwrap();
        let expect = tmp.path().join("expect.safetensors");
        let to_i64 = |t: &Tensor| t.to_dtype(DType::I64).unwrap();
        let tensors: HashMap<String, Tensor> = HashMap::from([
            ("input_ids".to_string(), to_i64(&ids)),
            ("attention_mask".to_string(), to_i64(&mask)),
            ("logits".to_string(), logits),
        ]);
        candle_core::safetensors::save(&tensors, &expect).unwrap();
        let out = run(
            &python,
            &script,
            &[
                "check",
                "--model",
                dir.to_str().unwrap(),
                "--expect",
                expect.to_str().unwrap(),
            ],
        );
        println!("crosscheck anonlm->transformers {arch:?}: {}", out.trim());
        for warning in ["newly initialized", "MISSING", "UNEXPECTED"] {
            assert!(
                !out.contains(warning),
                "{arch:?}: transformers says {warning}:\n{out}"
            );
        }
    }
}
