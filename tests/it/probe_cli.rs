//! `anonlm probe build | run` end to end through the binary: generated Dutch notes,
//! de-identified with tags, a tiny model trained on the raw notes, a probe set with seen and
//! unseen slots and a protected originals file, a probe run with recovery figures that never
//! shows a name, and user sentence files (.txt, .csv) whose leading spaces are kept.

use crate::util::{
    anonlm, fails, fixture_dir, mlm_train, printed, read_jsonl, shared, synth, tempdir, tokenizer,
};
use assert_cmd::Command;
use serde_json::Value;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What the probe tests share, built once by [`pipeline`].
struct Pipeline {
    dir: PathBuf,
    model: PathBuf,
    set: PathBuf,
    /// stdout + stderr of `probe build`.
    build_output: String,
}

/// The pipeline of [`build_pipeline`], built by the first test that asks for it.
fn pipeline() -> &'static Pipeline {
    static PIPELINE: OnceLock<Result<Pipeline, String>> = OnceLock::new();
    shared(&PIPELINE, build_pipeline)
}

/// synth → deid (tags, gold spans) → tokenizer and tiny model on the raw notes → probe build,
/// refused a second time and rebuilt with `--overwrite`.
fn build_pipeline() -> Pipeline {
    let dir = fixture_dir("probe_cli-pipeline");
    let notes = dir.join("notes.jsonl");
    synth(&notes, "nl", 60, 5);
    let deid = dir.join("deid.jsonl");
    let ops = dir.join("deid.ops.jsonl");
    anonlm()
        .args(["deid", "--operator", "tag", "--use-input-spans", "-q"])
        .arg(&notes)
        .arg("--out")
        .arg(&deid)
        .arg("--ops-log")
        .arg(&ops)
        .assert()
        .success();
    let tok = tokenizer(&notes, "bpe", 800, &dir.join("tok"));
    #[rustfmt::skip]
    let model = mlm_train(&notes, &tok, &dir.join("model"), &[
        "--config", "tiny", "--steps", "30", "--batch", "16", "--seq-len", "32", "--held-out",
        "0.2", "--seed", "4", "-q",
    ]);
    let set = dir.join("set");
    let build = |overwrite: bool| {
        let mut cmd = anonlm();
        cmd.args(["probe", "build", "--max-per-set", "6", "--seed", "2"])
            .arg("--corpus")
            .arg(&deid)
            .arg("--ops-log")
            .arg(&ops)
            .arg("--manifest")
            .arg(model.join("manifest.json"))
            .arg("--original")
            .arg(&notes)
            .arg("--out")
            .arg(&set);
        if overwrite {
            cmd.arg("--overwrite");
        }
        cmd.assert()
    };
    let out = build(false).success().get_output().clone();
    let build_output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A second build into the same dir is refused, and allowed with --overwrite.
    let refused = build(false).code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&refused).contains("--overwrite"));
    build(true).success();
    Pipeline {
        dir,
        model,
        set,
        build_output,
    }
}

/// slot id → original, from the protected side file.
fn originals(set: &Path) -> HashMap<String, String> {
    read_jsonl(&set.join("originals.jsonl"))
        .into_iter()
        .map(|v| {
            (
                v["slot_id"].as_str().unwrap().to_string(),
                v["original"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_summary_counts_seen_and_unseen_slots_matched_by_the_raw_notes_hashes() {
    let p = pipeline();
    // Summary: both sets non-empty, matched by the hashes of the raw notes.
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(p.set.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["manifest_hashes"], "original", "{summary}");
    assert_eq!(summary["documents"]["hash_mismatch"], 0);
    assert_eq!(summary["slots"]["seen"]["NAME"], 6, "{summary}");
    assert_eq!(summary["slots"]["unseen"]["NAME"], 6, "{summary}");
    assert!(summary["slots_found"]["seen"].as_u64().unwrap() > 6);
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn probes_are_masked_deidentified_sentences_and_build_shows_no_original() {
    let p = pipeline();
    // probes.jsonl: one masked, de-identified sentence per slot, no original anywhere.
    let probes = read_jsonl(&p.set.join("probes.jsonl"));
    assert_eq!(probes.len(), 12);
    let originals = originals(&p.set);
    assert_eq!(originals.len(), 12);
    let probes_raw = fs::read_to_string(p.set.join("probes.jsonl")).unwrap();
    for (slot_id, original) in &originals {
        assert!(!original.trim().is_empty());
        assert!(
            !probes_raw.contains(original.as_str()),
            "original of {slot_id} in probes.jsonl"
        );
        assert!(
            !p.build_output.contains(original.as_str()),
            "original printed by build"
        );
    }
    for probe in &probes {
        let text = probe["text"].as_str().unwrap();
        assert_eq!(text.matches("<mask>").count(), 1, "{probe}");
        assert!(["seen", "unseen"].contains(&probe["set"].as_str().unwrap()));
        assert_eq!(probe["label"], "NAME");
        assert_eq!(probe["lang"], "nl");
        let slot_id = probe["slot_id"].as_str().unwrap();
        assert!(slot_id.starts_with(probe["doc_id"].as_str().unwrap()));
        assert!(originals.contains_key(slot_id));
    }
}

#[cfg(unix)]
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_originals_file_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let p = pipeline();
    let meta = fs::metadata(p.set.join("originals.jsonl")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
}

/// `probe run` with `flags` of the pipeline's model on `set` into `out`, not yet run.
fn probe_run(p: &Pipeline, flags: &[&str], set: &Path, out: &Path) -> Command {
    let mut cmd = anonlm();
    cmd.args(["probe", "run"])
        .args(flags)
        .arg("--model")
        .arg(&p.model)
        .arg("--set")
        .arg(set)
        .arg("--out")
        .arg(out);
    cmd
}

/// `probe run --top-k 5 --max-candidates 12` of `set` (the set dir or its probes.jsonl) with the
/// originals, into `out`; returns what it printed.
fn run_with_recovery(p: &Pipeline, set: &Path, out: &Path) -> String {
    let run = probe_run(p, &["--top-k", "5", "--max-candidates", "12"], set, out)
        .arg("--originals")
        .arg(p.set.join("originals.jsonl"))
        .assert()
        .success()
        .get_output()
        .clone();
    printed(&run)
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_run_ranks_predictions_and_scores_recovery_without_showing_an_original() {
    let p = pipeline();
    let probes = read_jsonl(&p.set.join("probes.jsonl"));
    let originals = originals(&p.set);
    // probe run with recovery.
    let out = p.dir.join("probe_out.jsonl");
    let printed = run_with_recovery(p, &p.set, &out);
    assert!(printed.contains("12 slots probed"), "{printed}");
    let results = read_jsonl(&out);
    assert_eq!(results.len(), probes.len(), "one line per slot");
    let out_lines: Vec<String> = fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    for ((r, probe), line) in results.iter().zip(&probes).zip(&out_lines) {
        assert_eq!(r["slot_id"], probe["slot_id"]);
        assert_eq!(r["set"], probe["set"]);
        assert_eq!(r["doc_id"], probe["doc_id"]);
        let preds = r["predictions"].as_array().unwrap();
        assert_eq!(preds.len(), 5);
        for (i, pr) in preds.iter().enumerate() {
            assert_eq!(pr["rank"], i + 1);
            assert!(pr["token"].is_string() && pr["text"].is_string() && pr["id"].is_u64());
            if i > 0 {
                assert!(pr["prob"].as_f64().unwrap() <= preds[i - 1]["prob"].as_f64().unwrap());
            }
        }
        let rec = &r["recovery"];
        let n = rec["n_candidates"].as_u64().unwrap();
        assert_eq!(n, 12, "{rec}");
        let rank = rec["pll_rank"].as_u64().unwrap();
        assert!((1..=n).contains(&rank), "{rec}");
        assert!(rec["n_pieces"].as_u64().unwrap() >= 1);
        // The original never appears, unless the model predicted it as a token (then in_top_k).
        let original = &originals[r["slot_id"].as_str().unwrap()];
        let predicted = preds.iter().any(|pr| pr["text"] == original.as_str());
        assert_eq!(rec["in_top_k"], predicted);
        if !predicted {
            assert!(!line.contains(original.as_str()), "original in the output");
        }
        assert!(
            !printed.contains(original.as_str()),
            "original printed by run"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_second_run_gives_the_same_file_and_does_not_replace_it_without_overwrite() {
    let p = pipeline();
    let out = p.dir.join("probe_out_first.jsonl");
    run_with_recovery(p, &p.set, &out);
    // Deterministic: a second run gives the same file.
    let again = p.dir.join("probe_out2.jsonl");
    run_with_recovery(p, &p.set.join("probes.jsonl"), &again);
    assert_eq!(fs::read(&out).unwrap(), fs::read(&again).unwrap());
    // The output is not replaced without --overwrite.
    probe_run(p, &["--top-k", "5"], &p.set, &out)
        .assert()
        .code(2);
}

/// Two user sentences, the first with a leading space, as a line file.
const USER_LINES: &str = " Dokter <mask> zei het.\nDokter <mask> zei het.\n";

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn user_line_and_csv_files_keep_leading_spaces() {
    let p = pipeline();
    // User files: leading spaces are kept byte-exact, in a line file and in a CSV.
    let txt = p.dir.join("user.txt");
    fs::write(&txt, USER_LINES).unwrap();
    let csv = p.dir.join("user.csv");
    fs::write(
        &csv,
        "id,sentences\n1, Dokter <mask> zei het.\n2,\"Dokter [MASK] zei het.\"\n",
    )
    .unwrap();
    let mut by_file = Vec::new();
    for (input, name) in [(&txt, "user_txt.jsonl"), (&csv, "user_csv.jsonl")] {
        let out = p.dir.join(name);
        probe_run(p, &["--top-k", "3"], input, &out)
            .assert()
            .success();
        by_file.push(read_jsonl(&out));
    }
    let (lines, rows) = (&by_file[0], &by_file[1]);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["slot_id"], "line 1");
    assert_eq!(rows[1]["slot_id"], "row 2");
    assert_eq!(lines[0]["set"], "user");
    assert!(lines[0]["doc_id"].is_null());
    assert!(lines[0].get("recovery").is_none());
    assert_eq!(lines[0]["predictions"].as_array().unwrap().len(), 3);
    // Same sentences, same predictions; the leading space makes a different input.
    assert_eq!(lines[0]["predictions"], rows[0]["predictions"]);
    assert_eq!(lines[1]["predictions"], rows[1]["predictions"]);
    assert_ne!(lines[0]["predictions"], lines[1]["predictions"]);
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn a_user_sentence_is_scored_against_its_own_originals_through_lang() {
    let p = pipeline();
    let txt = p.dir.join("user_rec.txt");
    fs::write(&txt, USER_LINES).unwrap();
    // A user sentence with a recovery through --lang (built-in Dutch names) and its own
    // originals file.
    let orig = p.dir.join("user_originals.jsonl");
    fs::write(
        &orig,
        "{\"slot_id\":\"line 2\",\"original\":\"Verhoeven\"}\n",
    )
    .unwrap();
    let out = p.dir.join("user_rec.jsonl");
    let flags = ["--top-k", "3", "--max-candidates", "8", "--lang", "nl"];
    let run = probe_run(p, &flags, &txt, &out)
        .arg("--originals")
        .arg(&orig)
        .assert()
        .success()
        .get_output()
        .clone();
    let rec = read_jsonl(&out);
    assert!(rec[0].get("recovery").is_none());
    assert_eq!(rec[1]["recovery"]["n_candidates"], 8);
    assert!(!String::from_utf8_lossy(&run.stderr).contains("Verhoeven"));
    assert!(
        !fs::read_to_string(&out).unwrap().contains("Verhoeven")
            || rec[1]["recovery"]["in_top_k"] == true
    );
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn bad_inputs_fail_naming_the_line_or_document() {
    let tmp = tempdir();
    let dir = tmp.path();
    let run_fails = |set: &Path| {
        fails(
            anonlm()
                .args(["probe", "run", "--model", "nowhere", "--top-k", "3"])
                .arg("--set")
                .arg(set)
                .arg("--out")
                .arg(dir.join("o.jsonl")),
        )
    };
    // A user file: the second line has no mask; the third two.
    let txt = dir.join("bad.txt");
    fs::write(&txt, "Dokter <mask> kwam.\nMevrouw Zwaneveld kwam.\n").unwrap();
    let err = run_fails(&txt);
    assert!(
        err.contains("bad.txt:2") && err.contains("no mask"),
        "{err}"
    );
    assert!(!err.contains("Zwaneveld"), "{err}");
    let csv = dir.join("bad.csv");
    fs::write(&csv, "sentences\n<mask> en [MASK] kwamen.\n").unwrap();
    let err = run_fails(&csv);
    assert!(
        err.contains("bad.csv:2") && err.contains("row 1 has 2 masks"),
        "{err}"
    );

    // probe build: an ops-log line for a document that is not in the corpus.
    let corpus = dir.join("deid.jsonl");
    fs::write(
        &corpus,
        "{\"id\":\"a\",\"text\":\"Mevrouw [NAME] kwam.\"}\n",
    )
    .unwrap();
    let ops = dir.join("ops.jsonl");
    fs::write(
        &ops,
        "{\"id\":\"a\",\"lang\":\"nl\",\"passes_run\":1,\"ops\":[]}\n{\"id\":\"b\",\"lang\":\"nl\",\"passes_run\":1,\"ops\":[]}\n",
    )
    .unwrap();
    let manifest = dir.join("manifest.json");
    fs::write(
        &manifest,
        r#"{"tool":"anonlm","version":"0","seed":0,"settings":{},"pack":{"cls":0,"sep":1,"pad":2,"mask":3,"vocab_size":9,"special_ids":[]},"seq_len":8,"held_out_fraction":0.5,"n_input_documents":1,"n_distinct_documents":1,"corpus_digest":"","data_digest":"","train":{"n_documents":1,"n_tokens":1,"n_blocks":1,"documents":[{"doc_id":"a","sha256":"00","n_tokens":1}],"duplicates":[]},"held_out":{"n_documents":0,"n_tokens":0,"n_blocks":0,"documents":[],"duplicates":[]}}"#,
    )
    .unwrap();
    let err = fails(
        anonlm()
            .args(["probe", "build"])
            .arg("--corpus")
            .arg(&corpus)
            .arg("--ops-log")
            .arg(&ops)
            .arg("--manifest")
            .arg(&manifest)
            .arg("--out")
            .arg(dir.join("set")),
    );
    assert!(err.contains("ops.jsonl:2") && err.contains("'b'"), "{err}");
    assert!(!dir.join("set").join("probes.jsonl").exists());
}

/// Sentences written for this test; the planted name is the doctor's.
const PLANTED: [&str; 5] = [
    "Patiënt werd gezien door dokter Brouwersma.",
    "Temperatuur was verhoogd.",
    "Geen allergieën bekend.",
    "Zij slaapt slecht sinds maandag.",
    "Terugkomen na drie dagen.",
];

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn recovery_finds_a_name_the_model_learned() {
    let tmp = tempdir();
    let dir = tmp.path();
    // 300 documents: the five sentences in rotating orders, odd documents reversed.
    let mut corpus = String::new();
    for i in 0..300 {
        let mut doc: Vec<&str> = (0..5).map(|k| PLANTED[(i + k) % 5]).collect();
        if i % 2 == 1 {
            doc.reverse();
        }
        corpus.push_str(&doc.join(" "));
        corpus.push('\n');
    }
    let corpus_path = dir.join("corpus.txt");
    fs::write(&corpus_path, corpus).unwrap();
    // 20 of the 170 entries are the digits and their ## forms, always present.
    let tok = tokenizer(&corpus_path, "wordpiece", 170, &dir.join("tok"));
    #[rustfmt::skip]
    let model = mlm_train(&corpus_path, &tok, &dir.join("model"), &[
        "--config", "tiny", "-q", "--patience", "0", "--steps", "400", "--batch", "32",
        "--seq-len", "16", "--lr", "3e-3", "--eval-every", "100",
    ]);
    let set = dir.join("slots.txt");
    fs::write(
        &set,
        "Patiënt werd gezien door dokter <mask>.\nPatiënt werd gezien door dokter <mask>.\n",
    )
    .unwrap();
    // Line 1: the planted name. Line 2: a name with a letter the vocabulary never saw.
    let originals = dir.join("originals.jsonl");
    fs::write(
        &originals,
        "{\"slot_id\":\"line 1\",\"original\":\"Brouwersma\"}\n{\"slot_id\":\"line 2\",\"original\":\"Jongsma\"}\n",
    )
    .unwrap();
    let candidates = dir.join("candidates.txt");
    fs::write(
        &candidates,
        "# surnames spelled with letters of the corpus\nBrouwer\nBosma\nTerpstra\nZandstra\nPostma\nGerritsma\nTromp\nGeertsma\nZwart\nBrands\n",
    )
    .unwrap();
    let out = dir.join("out.jsonl");
    let run = anonlm()
        .args(["probe", "run", "--top-k", "5"])
        .arg("--model")
        .arg(&model)
        .arg("--set")
        .arg(&set)
        .arg("--originals")
        .arg(&originals)
        .arg("--candidates")
        .arg(&candidates)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .clone();
    let printed = String::from_utf8_lossy(&run.stderr);
    assert!(!printed.contains("Brouwersma") && !printed.contains("Jongsma"));
    let results = read_jsonl(&out);
    let found = &results[0]["recovery"];
    assert_eq!(found["in_top_k"], true, "{}", results[0]);
    assert_eq!(found["pll_rank"], 1, "{found}");
    assert_eq!(found["n_candidates"], 11, "{found}");
    assert_eq!(found["n_pieces"], 1, "{found}");
    let unspellable = &results[1]["recovery"];
    assert_eq!(unspellable["in_top_k"], false, "{unspellable}");
    assert!(unspellable["pll_rank"].is_null(), "{unspellable}");
}
