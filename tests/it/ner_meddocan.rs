//! One epoch of BiLSTM-CRF training on MEDDOCAN train (read in place from
//! `../shared/data/meddocan/train`), scored on dev: the model alone (which reads the rules'
//! hits as features) reaches a strict entity F1 of at least 0.90 (0.927 measured), and rules +
//! model find at least as many PHI tokens as the rules alone. Skips when the data is absent. MEDDOCAN: CC BY 4.0, Secretaría de Estado para
//! el Avance Digital (SEAD), 2019.

use crate::util::{anonlm, tempdir};

use serde_json::Value;
use std::fs;
use std::path::Path;

/// Binary token recall and strict subcategory F1 of predictions `pred` on dev.
fn scores(d: &Path, dev: &Path, pred: &str) -> (f64, f64) {
    let dev = dev.to_str().unwrap();
    #[rustfmt::skip]
    let args = [
        "eval", "--gold", dev, "--format", "brat", "--label-map", "meddocan",
        "--pred", pred, "--pred-format", "jsonl", "--json", "eval.json", "--overwrite",
    ];
    anonlm().current_dir(d).args(args).assert().success();
    let v: Value = serde_json::from_str(&fs::read_to_string(d.join("eval.json")).unwrap()).unwrap();
    let spans = &v["report"]["spans"];
    (
        spans["token"]["binary"]["recall"].as_f64().unwrap(),
        spans["entity_strict"]["subcategory"]["f1"]
            .as_f64()
            .unwrap(),
    )
}

fn recognize(d: &Path, dev: &Path, out: &str, extra: &[&str]) {
    let dev = dev.to_str().unwrap();
    #[rustfmt::skip]
    let mut args = vec![
        "recognize", dev, "--format", "brat", "--label-map", "meddocan", "--lang", "es",
        "--out", out, "--out-format", "jsonl", "-q",
    ];
    args.extend_from_slice(extra);
    anonlm().current_dir(d).args(&args).assert().success();
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn one_epoch_on_meddocan_train_tags_dev() {
    let (Some(train), Some(dev)) = (
        crate::util::meddocan_split("train"),
        crate::util::meddocan_split("dev"),
    ) else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    #[rustfmt::skip]
    let args = [
        "ner", "train", "--arch", "bilstm-crf", "--format", "brat", "--label-map", "meddocan",
        "--train", train.to_str().unwrap(), "--dev", dev.to_str().unwrap(), "--out", "model",
        "--epochs", "1", "--eval-every", "100000", "-q",
    ];
    anonlm().current_dir(d).args(args).assert().success();

    recognize(d, &dev, "model.jsonl", &["--model", "model", "--no-rules"]);
    recognize(d, &dev, "rules.jsonl", &[]);
    recognize(d, &dev, "both.jsonl", &["--model", "model"]);
    let (_, model_f1) = scores(d, &dev, "model.jsonl");
    let (rules_recall, _) = scores(d, &dev, "rules.jsonl");
    let (both_recall, _) = scores(d, &dev, "both.jsonl");
    eprintln!("model strict F1 {model_f1:.4}; token recall rules {rules_recall:.4}, rules+model {both_recall:.4}");
    assert!(model_f1 >= 0.90, "model strict F1 {model_f1}");
    assert!(
        both_recall >= rules_recall,
        "{both_recall} < {rules_recall}"
    );
}
