//! Model anonymization end to end through the binary: generated notes with planted names, a tiny
//! model trained without de-identification, probes at the name slots, harvest, rewrite, and the
//! same probes again (no harvested token, no recovery), `vocab check`, ordinary text unchanged.

use crate::util::{anonlm, fails, fixture_dir, mlm_train, read_jsonl, shared, tokenizer};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Planted surnames: frequent enough to become tokens. Two are on no built-in list, so the
/// corpus evidence has to find them.
const PLANTED: [&str; 4] = ["Vermeulen", "Zwanenburg", "Hoekstra", "Quakkelaar"];

/// Note templates written for this test; `@` is the name slot.
const TEMPLATES: [&str; 6] = [
    "De patiënt werd gezien door dokter @ op de polikliniek.",
    "Controle over twee weken bij dokter @.",
    "Bloeddruk was normaal en de pols regelmatig.",
    "Met collegiale groet, dokter @, internist.",
    "Medicatie werd niet gewijzigd.",
    "Overleg met dokter @ over de uitslagen.",
];

/// `n` notes as Document JSONL with gold NAME entities (code-point offsets).
fn notes(n: usize) -> String {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |m: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) % m as u64) as usize
    };
    let mut out = String::new();
    for d in 0..n {
        let mut text = String::new();
        let mut entities = Vec::new();
        for _ in 0..4 {
            let t = TEMPLATES[next(TEMPLATES.len())];
            let name = PLANTED[next(PLANTED.len())];
            if let Some(at) = t.find('@') {
                let start = text.chars().count() + t[..at].chars().count();
                entities.push(
                    json!({"start": start, "end": start + name.chars().count(), "label": "NAME"}),
                );
            }
            text.push_str(&t.replace('@', name));
            text.push(' ');
        }
        let doc =
            json!({"id": format!("note-{d:04}"), "text": text.trim_end(), "entities": entities});
        out.push_str(&doc.to_string());
        out.push('\n');
    }
    out
}

fn run_ok(args: &[&str], paths: &[(&str, &Path)]) -> String {
    let mut cmd = anonlm();
    cmd.args(args);
    for (flag, p) in paths {
        if !flag.is_empty() {
            cmd.arg(flag);
        }
        cmd.arg(p);
    }
    let out = cmd.assert().success();
    let o = out.get_output();
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Prediction texts at every slot of a probe-run output.
fn predicted_texts(run: &[Value]) -> Vec<HashSet<String>> {
    run.iter()
        .map(|l| {
            l["predictions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["text"].as_str().unwrap().trim().to_string())
                .collect()
        })
        .collect()
}

fn encode(dir: &Path, text: &str) -> Vec<u32> {
    let tok = anonlm::tokenizer::load_dir(dir).unwrap();
    tok.encode_ids(text).unwrap()
}

/// The chain the tests look at, run once by [`anonymized`]: notes with planted names,
/// de-identified with tags; a tokenizer and a tiny model trained on the raw notes; a probe set
/// and its run (`before.jsonl`); the harvest's review; the rewritten model and its run
/// (`after.jsonl`).
struct Anonymized {
    dir: PathBuf,
    tok: PathBuf,
    model: PathBuf,
    /// What `probe build` printed.
    built: String,
    before: Vec<Value>,
    review: PathBuf,
    /// The tokens the review marks `remove`.
    removed: Vec<String>,
    /// What `vocab harvest` printed.
    harvest_log: String,
    released: PathBuf,
    map: PathBuf,
    /// What `vocab rewrite` printed.
    rewrite_log: String,
    after: Vec<Value>,
}

/// Runs the chain of [`Anonymized`] for the first test that asks for it.
fn anonymized() -> &'static Anonymized {
    static CHAIN: OnceLock<Result<Anonymized, String>> = OnceLock::new();
    shared(&CHAIN, run_chain)
}

fn run_chain() -> Anonymized {
    let dir = fixture_dir("anonymize_e2e-chain");
    let d = dir.as_path();
    let raw = d.join("raw.jsonl");
    fs::write(&raw, notes(300)).unwrap();
    let deid = d.join("deid.jsonl");
    let ops = d.join("deid.ops.jsonl");
    run_ok(
        &[
            "deid",
            "--lang",
            "nl",
            "--operator",
            "tag",
            "--use-input-spans",
            "-q",
        ],
        &[("--out", &deid), ("--ops-log", &ops), ("", &raw)],
    );
    // 20 of the 220 entries are the digits and their ## forms, always present.
    let tok = tokenizer(&raw, "wordpiece", 220, &d.join("tok"));
    // Trained on the raw notes: the names are in the model.
    #[rustfmt::skip]
    let model = mlm_train(&raw, &tok, &d.join("model"), &[
        "--config", "tiny", "--steps", "800", "--batch", "32", "--seq-len", "16", "--lr", "3e-3",
        "--eval-every", "100", "--held-out", "0.2", "-q",
    ]);
    let probes = d.join("probes");
    let built = run_ok(
        &["probe", "build"],
        &[
            ("--corpus", &deid),
            ("--ops-log", &ops),
            ("--manifest", &model),
            ("--original", &raw),
            ("--out", &probes),
        ],
    );
    let originals = probes.join("originals.jsonl");
    let candidates = d.join("candidates.txt");
    fs::write(
        &candidates,
        "Vermeulen\nZwanenburg\nHoekstra\nQuakkelaar\nBakker\nVisser\nSmit\nMeijer\nMulder\nBos\n",
    )
    .unwrap();
    let probe = |model: &Path, out: &Path| {
        run_ok(
            &["probe", "run", "--top-k", "10"],
            &[
                ("--model", model),
                ("--set", &probes),
                ("--originals", &originals),
                ("--candidates", &candidates),
                ("--out", out),
            ],
        );
        read_jsonl(out)
    };
    let before = probe(&model, &d.join("before.jsonl"));
    // Harvest with the corpus evidence.
    let review = d.join("review.tsv");
    let harvest_log = run_ok(
        &["vocab", "harvest"],
        &[
            ("--model", &model),
            ("--probe", &d.join("before.jsonl")),
            ("--corpus", &raw),
            ("--ops-log", &ops),
            ("--gold", &raw),
            ("--out", &review),
        ],
    );
    let removed: Vec<String> = fs::read_to_string(&review)
        .unwrap()
        .lines()
        .filter(|l| l.ends_with("\tremove"))
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    // Rewrite, then the same probes.
    let released = d.join("released");
    let map = d.join("map.json");
    let rewrite_log = run_ok(
        &["vocab", "rewrite"],
        &[
            ("--model", &model),
            ("--tokens", &review),
            ("--out", &released),
            ("--map", &map),
        ],
    );
    let after = probe(&released, &d.join("after.jsonl"));
    Anonymized {
        dir,
        tok,
        model,
        built,
        before,
        review,
        removed,
        harvest_log,
        released,
        map,
        rewrite_log,
        after,
    }
}

/// How many slots of the run before the rewrite have a planted name as their first prediction.
fn top1_planted(before: &[Value]) -> usize {
    before
        .iter()
        .filter(|l| PLANTED.contains(&l["predictions"][0]["text"].as_str().unwrap().trim()))
        .count()
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_planted_names_are_single_tokens() {
    let a = anonymized();
    for name in PLANTED {
        assert_eq!(encode(&a.tok, name).len(), 3, "{name} is not one token");
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_probe_set_matches_every_note_by_hash() {
    let built = &anonymized().built;
    assert!(built.contains("0 hash mismatches"), "{built}");
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_model_trained_on_raw_notes_predicts_and_recovers_the_planted_names() {
    let before = &anonymized().before;
    let sets: HashSet<&str> = before.iter().map(|l| l["set"].as_str().unwrap()).collect();
    assert_eq!(sets, HashSet::from(["seen", "unseen"]));
    let texts = predicted_texts(before);
    let top1_planted = top1_planted(before);
    assert!(
        top1_planted * 3 > before.len(),
        "planted names first at {top1_planted} of {} slots",
        before.len()
    );
    assert!(before.iter().any(|l| l["recovery"]["in_top_k"] == true));
    assert!(texts.iter().any(|s| PLANTED.iter().any(|n| s.contains(*n))));
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn harvest_proposes_every_planted_name_and_nothing_of_the_template() {
    let a = anonymized();
    // Harvest with the corpus evidence: every planted name is proposed, nothing of the template.
    let removed = &a.removed;
    for name in PLANTED {
        assert!(removed.iter().any(|t| t == name), "{name} not proposed");
    }
    for word in ["dokter", "De", "patiënt", "Controle", "."] {
        assert!(!removed.iter().any(|t| t == word), "{word} proposed");
    }
    for name in PLANTED {
        assert!(
            !a.harvest_log.contains(name),
            "a name in the harvest's output"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn after_the_rewrite_no_harvested_token_is_predicted_or_recovered() {
    let a = anonymized();
    for name in PLANTED {
        assert!(
            !a.rewrite_log.contains(name),
            "a name in the rewrite's output"
        );
    }
    // The same probes after the rewrite: no harvested token, no recovery.
    let after = &a.after;
    assert_eq!(after.len(), a.before.len());
    for slot in predicted_texts(after) {
        for t in &a.removed {
            assert!(
                !slot.contains(t.trim_start_matches("##")),
                "{t} still predicted"
            );
        }
    }
    assert!(after.iter().all(|l| l["recovery"]["in_top_k"] == false));
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn probe_metrics_fail_the_gate_before_the_rewrite_and_pass_it_after() {
    let a = anonymized();
    check_metrics(
        &a.dir,
        &a.model,
        &a.released,
        &a.review,
        &a.removed,
        &a.before,
        top1_planted(&a.before),
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_rewritten_model_passes_vocab_check_and_encodes_plain_text_as_before() {
    let a = anonymized();
    run_ok(
        &["vocab", "check"],
        &[("--model", &a.released), ("--removed", &a.map)],
    );
    // Ordinary text encodes as before; the names no longer come out whole.
    let plain = "De patiënt werd gezien op de polikliniek. Medicatie werd niet gewijzigd.";
    assert_eq!(encode(&a.model, plain), encode(&a.released, plain));
    for name in PLANTED {
        assert!(
            encode(&a.released, name).len() > 3,
            "{name} still one token"
        );
    }
}

/// `probe metrics` before and after the rewrite, against counts taken from the run files here.
fn check_metrics(
    d: &Path,
    model: &Path,
    released: &Path,
    review: &Path,
    removed: &[String],
    before: &[Value],
    top1_planted: usize,
) {
    let metrics = |model: &Path, run: &str, out: &str, gate: &str, reference: Option<&str>| {
        let mut cmd = anonlm();
        cmd.args(["probe", "metrics", "--max-name-like-share", gate]);
        if let Some(r) = reference {
            cmd.arg("--reference-probe").arg(d.join(r));
        }
        cmd.arg("--model")
            .arg(model)
            .arg("--probe")
            .arg(d.join(run))
            .arg("--review")
            .arg(review)
            .arg("--out")
            .arg(d.join(out));
        let o = cmd.output().unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        for name in PLANTED {
            assert!(!log.contains(name), "a name in the metrics output");
        }
        let json: Value = serde_json::from_str(&fs::read_to_string(d.join(out)).unwrap()).unwrap();
        (o.status.code(), json, log)
    };
    // Before: every predicted token is in the review under the same string, so the name-like
    // predictions are exactly those of tokens marked remove.
    let (code, m, log) = metrics(model, "before.jsonl", "before.metrics.json", "0.002", None);
    assert_eq!(
        code,
        Some(1),
        "the gate must fail before the rewrite: {log}"
    );
    assert_eq!(m["schema"], "anonlm.probe-metrics/1");
    assert_eq!(m["gate"]["passed"], false);
    let all = m["sets"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(all["set"], "all");
    let marked: u64 = before
        .iter()
        .flat_map(|l| l["predictions"].as_array().unwrap().iter())
        .filter(|p| removed.iter().any(|t| t == p["token"].as_str().unwrap()))
        .count() as u64;
    let predictions: u64 = before
        .iter()
        .map(|l| l["predictions"].as_array().unwrap().len() as u64)
        .sum();
    assert!(marked > 0);
    assert_eq!(all["name_like_predictions"]["successes"], marked);
    assert_eq!(all["name_like_predictions"]["trials"], predictions);
    assert_eq!(all["slots"], before.len() as u64);
    assert!(all["top1_name_like"]["successes"].as_u64().unwrap() >= top1_planted as u64);
    assert_eq!(all["best_name_like_rank"], 1);
    let recovered = before
        .iter()
        .filter(|l| l["recovery"]["in_top_k"] == true)
        .count() as u64;
    assert_eq!(all["recovery"]["in_top_k"]["successes"], recovered);
    assert_eq!(m["judgement"]["decided_automatically"], 0);

    // After: the renamed ids carry new strings, judged afresh (digits: never names); the
    // same probes give no name-like prediction and no recovery, and the gate passes.
    // The run before the rewrite serves as the reference run here (same slots, ranked).
    let (code, m, log) = metrics(
        released,
        "after.jsonl",
        "after.metrics.json",
        "0.002",
        Some("before.jsonl"),
    );
    assert_eq!(code, Some(0), "{log}");
    for set in m["sets"].as_array().unwrap() {
        assert_eq!(set["name_like_predictions"]["successes"], 0, "{set}");
        assert_eq!(set["recovery"]["in_top_k"]["successes"], 0, "{set}");
        let c = &set["recovery"]["reference"];
        let n = c["slots"].as_u64().unwrap();
        assert!(n > 0 && n <= set["slots"].as_u64().unwrap(), "{set}");
        let split = ["model_better", "reference_better", "ties"].map(|k| c[k].as_u64().unwrap());
        assert_eq!(split.iter().sum::<u64>(), n);
    }
    // Over all 7,850 predictions even the upper bound of the interval is below 0.2%.
    let all = m["sets"].as_array().unwrap().last().unwrap();
    assert!(
        all["name_like_predictions"]["upper"].as_f64().unwrap() < 0.002,
        "{all}"
    );
    assert!(m["judgement"]["decided_automatically"].as_u64().unwrap() > 0);

    // A run judged against the wrong model is refused, naming the file and slot.
    let err = fails(
        anonlm()
            .args(["probe", "metrics", "--model"])
            .arg(released)
            .arg("--probe")
            .arg(d.join("before.jsonl")),
    );
    assert!(
        err.contains("before.jsonl") && err.contains("another model"),
        "{err}"
    );
}
