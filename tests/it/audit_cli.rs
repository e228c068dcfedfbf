//! `anonlm audit` through the binary: a model overfit on its members FAILS; members and
//! non-members of one kind under a model that saw neither PASS with no interval above 0.5,
//! and are INVALID under a model that learned nothing;
//! sets of different kinds are INVALID by the blind baseline; the report holds no text; bad
//! specs exit 2.

use crate::util::{
    anonlm, fixture_dir, mlm_train, mlm_train_command, shared, synth, tempdir, tokenizer,
};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn ok(args: &[&str], dir: &Path) {
    anonlm().current_dir(dir).args(args).assert().success();
}

/// Runs an audit in `dir` of `spec` (written to `dir/<out>.toml`, so that tests sharing `dir`
/// do not overwrite each other's spec); returns the exit code and report.json.
fn audit(dir: &Path, spec: &str, out: &str) -> (Option<i32>, Value) {
    let spec_file = format!("{out}.toml");
    fs::write(dir.join(&spec_file), spec).unwrap();
    let o = anonlm()
        .current_dir(dir)
        .args(["audit", "--spec", &spec_file, "--out", out])
        .output()
        .unwrap();
    let text = fs::read_to_string(dir.join(out).join("report.json"))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    // The Markdown and HTML renderings lie beside the JSON, as `--help` promises.
    for name in ["report.md", "report.html"] {
        let body = fs::read_to_string(dir.join(out).join(name)).unwrap();
        assert!(body.contains("Leakage audit"), "{name}");
    }
    (o.status.code(), serde_json::from_str(&text).unwrap())
}

fn auc(report: &Value, name: &str) -> (f64, f64, f64) {
    let a = &attack(report, name)["metrics"]["auc"];
    let f = |k: &str| a[k].as_f64().unwrap();
    (f("value"), f("lower"), f("upper"))
}

/// Documents of random words from a made-up syllable inventory: nothing in one document tells
/// anything about another, so only memorization separates members from non-members.
fn random_word_documents(prefix: &str, docs: usize, seed: u64) -> String {
    use rand::{Rng, SeedableRng};
    let syllables = [
        "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "va", "lu", "ze", "bo", "fi", "ga",
        "he",
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let word = |rng: &mut rand_chacha::ChaCha8Rng| {
        let endings = ["", "n", "s", "r"];
        format!(
            "{}{}{}",
            syllables[rng.gen_range(0..syllables.len())],
            syllables[rng.gen_range(0..syllables.len())],
            endings[rng.gen_range(0..endings.len())]
        )
    };
    let mut out = String::new();
    for d in 0..docs {
        let sentences: Vec<String> = (0..10)
            .map(|_| {
                let n = rng.gen_range(8..=12);
                let words: Vec<String> = (0..n).map(|_| word(&mut rng)).collect();
                format!("{}.", words.join(" "))
            })
            .collect();
        let doc = serde_json::json!({"id": format!("{prefix}{d:02}"), "text": sentences.join(" ")});
        out.push_str(&doc.to_string());
        out.push('\n');
    }
    out
}

/// Eight member and eight other documents of random words, and a WordPiece tokenizer of the
/// members, in `d`.
fn members_others_and_tokenizer(d: &Path) {
    fs::write(d.join("members.jsonl"), random_word_documents("m", 8, 1)).unwrap();
    fs::write(d.join("others.jsonl"), random_word_documents("n", 8, 2)).unwrap();
    tokenizer(&d.join("members.jsonl"), "wordpiece", 300, &d.join("tok"));
}

/// `d/config.json`: a tiny BERT without dropout, to learn its few documents by heart.
fn write_memorizing_config(d: &Path) {
    fs::write(
        d.join("config.json"),
        r#"{"model_type": "bert", "vocab_size": 300, "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "intermediate_size": 256, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0,
            "max_position_embeddings": 64, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
            "pad_token_id": 0, "initializer_range": 0.02}"#,
    )
    .unwrap();
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_model_overfit_on_its_members_fails() {
    let dir = tempdir();
    let d = dir.path();
    members_others_and_tokenizer(d);
    // A tiny BERT without dropout, 200 passes over its 8 documents: it learns them by heart.
    write_memorizing_config(d);
    #[rustfmt::skip]
    let flags = [
        "--config", "config.json", "--steps", "400", "--batch", "16", "--seq-len", "32", "--lr",
        "5e-3", "--held-out", "0", "--eval-every", "0", "-q",
    ];
    let (members, tok, model) = (d.join("members.jsonl"), d.join("tok"), d.join("model"));
    // The config is named relative to `d`.
    mlm_train_command(&members, &tok, &model, &flags)
        .current_dir(d)
        .assert()
        .success();
    // Scored in the blocks the model was trained on.
    let (code, r) = audit(
        d,
        "[model]\ndir = \"model\"\n[data]\nmembers = \"members.jsonl\"\nnon_members = \"others.jsonl\"\n\
         examples = \"blocks\"\nblock_tokens = 32\nmin_per_set = 20\n",
        "overfit",
    );
    assert_eq!(r["decision"]["outcome"], "FAIL", "{r:#}");
    assert_eq!(code, Some(1));
    for name in ["masked_token_loss", "pseudo_log_likelihood"] {
        let (value, lower, _) = auc(&r, name);
        assert!(
            value > 0.85 && lower > 0.75,
            "{name}: {value} (lower {lower})"
        );
        assert_eq!(attack(&r, name)["outcome"], "FAIL");
    }
    // The text-only baseline finds nothing: the sets are of one kind.
    assert!(auc(&r, "blind_baseline").0 < 0.55);
}

/// `mlm prepare` shards, two torchrun processes (gloo, CPU) train a tiny BERT with
/// `scripts/train_ddp.py`, and `anonlm audit` reads its model dir unchanged: memorized members
/// fail the audit as with anonlm's own trainer. Needs ANONLM_PYTHON (torch, transformers).
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_model_trained_on_two_processes_by_the_pytorch_script_is_audited() {
    let python = std::env::var_os("ANONLM_PYTHON")
        .expect("ANONLM_PYTHON: a python with torch and transformers (.ci/run makes .ci/venv)");
    let dir = tempdir();
    let d = dir.path();
    members_others_and_tokenizer(d);
    ok(
        &[
            "mlm",
            "prepare",
            "--corpus",
            "members.jsonl",
            "--tokenizer",
            "tok",
            "--seq-len",
            "32",
            "--held-out",
            "0",
            "--out",
            "data",
            "-q",
        ],
        d,
    );
    write_memorizing_config(d);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/train_ddp.py");
    let o = std::process::Command::new(&python)
        .current_dir(d)
        .args([
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node",
            "2",
        ])
        .arg(&script)
        .args([
            "--data",
            "data",
            "--config",
            "config.json",
            "--steps",
            "400",
            "--batch",
            "8",
            "--lr",
            "5e-3",
            "--eval-every",
            "0",
            "--backend",
            "gloo",
            "--out",
            "model",
        ])
        .env("OMP_NUM_THREADS", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(d.join("model/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["train"]["documents"].as_array().unwrap().len(), 8);
    assert_eq!(manifest["settings"]["world_size"], 2);
    let (code, r) = audit(
        d,
        "[model]\ndir = \"model\"\n[data]\nmembers = \"members.jsonl\"\nnon_members = \"others.jsonl\"\n\
         examples = \"blocks\"\nblock_tokens = 32\nmin_per_set = 20\n",
        "ddp",
    );
    assert_eq!(r["decision"]["outcome"], "FAIL", "{r:#}");
    assert_eq!(code, Some(1));
    let (value, lower, _) = auc(&r, "masked_token_loss");
    assert!(value > 0.85 && lower > 0.75, "{value} (lower {lower})");
}

fn attack<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["attacks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap()
}

/// Steps of the null model: enough to learn something of the notes (10% below unigram).
const NULL_MODEL_STEPS: &str = "800";
/// The null model's audit, up to the end of its `[data]` section.
const NULL_SPEC: &str =
    "[model]\ndir = \"model\"\n[data]\nmembers = \"a.jsonl\"\nnon_members = \"b.jsonl\"\n";
/// The validity margin of the null model's audits (see where they run).
const NULL_MARGIN: &str = "[thresholds]\nmin_gain_over_unigram = 0.05\n";

/// The audits' data and models, built by the first test that asks for it: Dutch notes `a.jsonl`
/// and `b.jsonl` (members and non-members of one kind), Spanish notes `es.jsonl`, and a
/// tokenizer and two tiny models trained on other Dutch notes: `model` until it models them, and
/// `untrained`, a handful of steps.
fn null_models() -> &'static Path {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    shared::<PathBuf>(&DIR, || {
        let d = fixture_dir("audit_cli-null-models");
        synth(&d.join("a.jsonl"), "nl", 60, 21);
        synth(&d.join("b.jsonl"), "nl", 60, 25);
        synth(&d.join("es.jsonl"), "es", 40, 23);
        synth(&d.join("other.jsonl"), "nl", 60, 24);
        let tok = tokenizer(&d.join("other.jsonl"), "wordpiece", 300, &d.join("tok"));
        // A model trained on other notes until it models them: it saw neither a.jsonl nor b.jsonl.
        let train = |steps: &str, out: &str| {
            #[rustfmt::skip]
            let flags = [
                "--config", "tiny", "--steps", steps, "--batch", "64", "--seq-len", "16", "--lr",
                "3e-3", "--held-out", "0.1", "--eval-every", "0", "-q",
            ];
            mlm_train(&d.join("other.jsonl"), &tok, &d.join(out), &flags);
        };
        train(NULL_MODEL_STEPS, "model");
        train("5", "untrained");
        d
    })
}

/// The null model's audit of `a.jsonl` against `b.jsonl` (out dir `null`), run once: its exit
/// code and report.
fn null_audit() -> &'static (Option<i32>, Value) {
    static AUDIT: OnceLock<Result<(Option<i32>, Value), String>> = OnceLock::new();
    shared(&AUDIT, || {
        audit(
            null_models(),
            &format!("{NULL_SPEC}max_per_set = 400\n{NULL_MARGIN}"),
            "null",
        )
    })
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_model_that_learned_nothing_makes_the_audit_invalid() {
    let d = null_models();
    // A handful of steps: the model learned nothing, so attacks on it are at chance by
    // construction and a PASS would prove nothing.
    let (code, r) = audit(
        d,
        "[model]\ndir = \"untrained\"\n[data]\nmembers = \"a.jsonl\"\nnon_members = \"b.jsonl\"\nmax_per_set = 400\n",
        "untrained",
    );
    assert_eq!(r["decision"]["outcome"], "INVALID", "{:#}", r["decision"]);
    assert_eq!(code, Some(1));
    assert!(
        r["decision"]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("did not learn"),
        "{:#}",
        r["decision"]
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn members_and_non_members_of_one_kind_pass_with_every_interval_at_chance() {
    // Members and non-members drawn alike, a model that learned the kind of text but saw
    // neither: PASS, and every interval covers 0.5. Kept short, this model ends about 10% below
    // the unigram baseline (measured: 4.75 against 5.25), so the spec sets the validity margin
    // to 5% rather than the default 20%.
    let (code, r) = null_audit();
    assert_eq!(r["decision"]["outcome"], "PASS", "{:#}", r["decision"]);
    assert_eq!(*code, Some(0));
    for name in [
        "blind_baseline",
        "masked_token_loss",
        "pseudo_log_likelihood",
    ] {
        // No attack finds the members likelier: the interval reaches 0.5 from above or covers
        // it (a model that learned the notes may score the two sets a little differently, in
        // either direction: measured 0.457 [0.415, 0.499] for the loss attack).
        let (value, lower, upper) = auc(r, name);
        assert!(
            lower < 0.5 && upper > 0.45 && value < 0.55,
            "{name}: {value} [{lower}, {upper}]"
        );
        // Sentences are clustered by document: the interval says how many documents there were.
        assert_eq!(
            attack(r, name)["metrics"]["clusters"],
            serde_json::json!([60, 60])
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn another_seed_moves_every_metric_inside_its_interval() {
    let d = null_models();
    // The audit compared against, in `null`.
    null_audit();
    // The same audit with another sampling and masking seed: `report diff` finds every change
    // inside the intervals.
    let (_, again) = audit(
        d,
        &format!("{NULL_SPEC}max_per_set = 400\nseed = 7\n{NULL_MARGIN}"),
        "null-seed-7",
    );
    assert_eq!(again["decision"]["outcome"], "PASS");
    let o = anonlm()
        .current_dir(d)
        .args([
            "report",
            "diff",
            "null/report.json",
            "null-seed-7/report.json",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let diff: Value = serde_json::from_slice(&o.stdout).unwrap();
    let metrics = diff["metrics"].as_array().unwrap();
    let with_interval: Vec<&Value> = metrics
        .iter()
        .filter(|m| !m["old_interval"].is_null())
        .collect();
    assert!(
        with_interval.iter().any(|m| m["change"] == "inside"),
        "{diff:#}"
    );
    assert!(metrics.iter().all(|m| m["change"] != "outside"), "{diff:#}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn members_and_non_members_of_different_kinds_are_invalid_by_the_blind_baseline() {
    let d = null_models();
    // Dutch members, Spanish non-members: the blind baseline tells them apart.
    let (code, r) = audit(
        d,
        "[model]\ndir = \"model\"\n[data]\nmembers = \"a.jsonl\"\nnon_members = \"es.jsonl\"\nmax_per_set = 300\n",
        "shifted",
    );
    assert_eq!(r["decision"]["outcome"], "INVALID");
    assert_eq!(code, Some(1));
    assert!(
        attack(&r, "blind_baseline")["metrics"]["auc"]["value"]
            .as_f64()
            .unwrap()
            > 0.9
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_spec_with_an_unknown_key_exits_2_naming_the_file_and_line_not_the_key() {
    let d = null_models();
    // A spec naming an unknown key fails with exit 2, naming the file, the line and the keys
    // expected, not the key as written (a key is input too).
    fs::write(
        d.join("bad.toml"),
        "[model]\ndir = \"model\"\nwieghts = 1\n[data]\ncorpus = \"a.jsonl\"\n",
    )
    .unwrap();
    let o = anonlm()
        .current_dir(d)
        .args(["audit", "--spec", "bad.toml", "--out", "bad"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml:3:") && err.contains("unknown field") && !err.contains("wieghts"),
        "{err}"
    );
}
