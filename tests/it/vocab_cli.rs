//! `anonlm vocab rewrite | check` end to end, for WordPiece, byte-level BPE and Unigram: a tiny
//! tokenizer and model trained by the binary on notes full of a few surnames, a review marking
//! them `remove`, the rewrite, and what must hold afterwards (loads, same ids and logits for
//! text without names, names no longer single tokens, checks pass, map protected, no names
//! printed without `--show`). Each kind's model and rewrite are built once and shared by one
//! test per behaviour; the refused requests share the WordPiece model.

use crate::util::{anonlm, fixture_dir, mlm_train, shared, tempdir, tokenizer};
use anonlm::vocab::{write_review, Decision, ReviewRow};
use candle_core::{Device, Tensor};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

const SURNAMES: [&str; 5] = ["Jansen", "Bakker", "Visser", "Mulder", "Smit"];
const FIRST: [&str; 3] = ["Pieter", "Anna", "Karel"];
/// Text without any name: must encode and score the same before and after.
const PLAIN: &str = "De bloeddruk was normaal en het onderzoek toonde geen afwijkingen.";

/// Notes written for this test: surnames often enough to become single tokens, the
/// possessive `Jansens` often enough to become a token built from `Jansen` in BPE.
fn corpus(path: &Path) {
    let templates = [
        "Patient {f} {n} kwam op controle met pijn op de borst.",
        "Dokter {n} zag de patient vandaag op de poli.",
        "Mevrouw {n} heeft koorts en hoest al drie dagen.",
        "De bloeddruk van {f} {n} was normaal.",
        "Familie {n}s kwam op bezoek.",
        "De familie Jansens belde over de uitslag van het bloedonderzoek.",
        "Het onderzoek toonde geen afwijkingen aan het hart.",
        "De bloeddruk was normaal en de patient voelde zich beter.",
    ];
    let mut state = 7u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    let mut text = String::new();
    for _ in 0..500 {
        let t = templates[next(templates.len())];
        let line = t
            .replace("{f}", FIRST[next(FIRST.len())])
            .replace("{n}", SURNAMES[next(SURNAMES.len())]);
        text.push_str(&line);
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

/// A tokenizer of `kind` and a model trained 2 steps on it, in `dir/<kind>`.
fn model_dir(dir: &Path, corpus: &Path, kind: &str, vocab: usize) -> PathBuf {
    let tok = tokenizer(corpus, kind, vocab, &dir.join(format!("tok_{kind}")));
    #[rustfmt::skip]
    let flags = [
        "--config", "tiny", "--steps", "2", "--batch", "2", "--seq-len", "32", "--held-out",
        "0.1", "-q",
    ];
    mlm_train(corpus, &tok, &dir.join(format!("model_{kind}")), &flags)
}

fn vocab_of(model: &Path) -> Vec<(u32, String)> {
    let tk = anonlm::tokenizer::load_dir(model).unwrap();
    let mut v: Vec<(u32, String)> = tk
        .inner
        .get_vocab(false)
        .into_iter()
        .map(|(t, i)| (i, t))
        .collect();
    v.sort();
    v
}

fn bare(token: &str) -> &str {
    token
        .trim_start_matches("##")
        .trim_start_matches('Ġ')
        .trim_start_matches('▁')
}

fn ids_of(model: &Path, text: &str) -> Vec<u32> {
    let tk = anonlm::tokenizer::load_dir(model).unwrap();
    tk.encode_ids(text).unwrap()
}

fn logits(model: &Path, text: &str) -> (Vec<u32>, Vec<f32>) {
    let ids = ids_of(model, text);
    let loaded = anonlm::mlm::load_model_dir(model, &Device::Cpu).unwrap();
    let input = Tensor::new(ids.as_slice(), &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    let mask = Tensor::ones((1, ids.len()), candle_core::DType::U32, &Device::Cpu).unwrap();
    let out = loaded.model.forward(&input, &mask, None).unwrap();
    (ids, out.flatten_all().unwrap().to_vec1::<f32>().unwrap())
}

fn output_text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn no_names(text: &str) {
    for n in SURNAMES {
        assert!(!text.contains(n), "name printed:\n{text}");
    }
}

/// Python transformers loads the rewritten dir (AutoTokenizer, AutoModelForMaskedLM): the same
/// ids as here, the same logits as the original, renamed ids decode to their new strings.
/// Needs ANONLM_PYTHON, a python with transformers and torch; skipped with a note without it,
/// a failure when `ANONLM_REQUIRE_DATA` or `CI` is set.
fn transformers_loads(original: &Path, out: &Path, ids: &[u32], entries: &[Value]) {
    let Some(python) = std::env::var_os("ANONLM_PYTHON") else {
        assert!(
            !anonlm::testdata::required(),
            "ANONLM_PYTHON is not set (CI runs this check with .ci/venv)"
        );
        println!("skip transformers check: ANONLM_PYTHON is not set");
        return;
    };
    let script = r#"
import json, sys, torch
from transformers import AutoTokenizer, AutoModelForMaskedLM
orig, out, text, id0 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tok = AutoTokenizer.from_pretrained(out)
a = AutoModelForMaskedLM.from_pretrained(orig).eval()
b = AutoModelForMaskedLM.from_pretrained(out).eval()
enc = tok(text, return_tensors="pt")
with torch.no_grad():
    diff = (a(**enc).logits - b(**enc).logits).abs().max().item()
print(json.dumps({"ids": enc["input_ids"][0].tolist(), "diff": diff,
                  "renamed": tok.convert_ids_to_tokens(id0)}))
"#;
    let id0 = entries[0]["id"].as_u64().unwrap().to_string();
    let run = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(original)
        .arg(out)
        .arg(PLAIN)
        .arg(&id0)
        .output()
        .unwrap();
    let text = output_text(&run);
    assert!(run.status.success(), "transformers:\n{text}");
    let last = String::from_utf8_lossy(&run.stdout);
    let got: Value = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    let got_ids: Vec<u32> = serde_json::from_value(got["ids"].clone()).unwrap();
    assert_eq!(got_ids, ids);
    assert_eq!(got["diff"].as_f64().unwrap(), 0.0);
    assert_eq!(got["renamed"], entries[0]["new"]);
}

/// A model of one tokenizer kind, its vocabulary, and its rewrite: what the per-kind tests share.
struct Rewritten {
    kind: &'static str,
    /// The trained model (the rewrite's input).
    model: PathBuf,
    /// The released (rewritten) model dir.
    out: PathBuf,
    /// The private map of renamed tokens.
    map: PathBuf,
    /// The vocabulary of `model`, by id.
    before: Vec<(u32, String)>,
    /// The review rows: the surnames marked remove, then one ordinary word kept.
    rows: Vec<ReviewRow>,
    /// stdout + stderr of `vocab rewrite`.
    rewrite_output: String,
    /// The map's entries.
    entries: Vec<Value>,
    /// Entries renamed because the review confirmed them.
    confirmed: usize,
    /// A `--names` file listing the surnames.
    names: PathBuf,
}

/// Trains a `kind` tokenizer of `vocab` entries and a tiny model, marks the surnames that
/// became single tokens `remove` (one ordinary word `keep`) and runs `vocab rewrite`.
fn rewrite(kind: &'static str, vocab: usize) -> Rewritten {
    let dir = fixture_dir(&format!("vocab_cli-{kind}"));
    let notes = dir.join("notes.txt");
    corpus(&notes);
    let model = model_dir(&dir, &notes, kind, vocab);
    let before = vocab_of(&model);

    // The surnames that became single tokens, marked remove; one ordinary word kept.
    let mut rows: Vec<ReviewRow> = before
        .iter()
        .filter(|(_, t)| SURNAMES.contains(&bare(t)))
        .map(|(id, t)| ReviewRow {
            token: t.clone(),
            id: *id,
            score: 0.9,
            evidence: "surname list".into(),
            decision: Decision::Remove,
        })
        .collect();
    let names_in_vocab: Vec<&str> = rows.iter().map(|r| bare(&r.token)).collect();
    assert!(
        names_in_vocab.contains(&"Jansen") && rows.len() >= 3,
        "{kind}: too few surnames became tokens ({})",
        rows.len()
    );
    let kept = before
        .iter()
        .find(|(_, t)| bare(t) == "bloeddruk" || bare(t) == "de")
        .unwrap();
    rows.push(ReviewRow {
        token: kept.1.clone(),
        id: kept.0,
        score: 0.1,
        evidence: String::new(),
        decision: Decision::Keep,
    });
    let review = dir.join("review.tsv");
    write_review(&review, &rows).unwrap();

    let out = dir.join("released");
    let map = dir.join("private").join("map.json");
    fs::create_dir_all(map.parent().unwrap()).unwrap();
    let run = anonlm()
        .args(["vocab", "rewrite", "--model"])
        .arg(&model)
        .arg("--tokens")
        .arg(&review)
        .arg("--out")
        .arg(&out)
        .arg("--map")
        .arg(&map)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", output_text(&run));

    let entries: Vec<Value> = serde_json::from_str(&fs::read_to_string(&map).unwrap()).unwrap();
    let confirmed = entries
        .iter()
        .filter(|e| e["reason"] == "confirmed")
        .count();
    let names = dir.join("names.txt");
    fs::write(
        &names,
        format!("# removed surnames\n{}\n", SURNAMES.join("\n")),
    )
    .unwrap();
    Rewritten {
        kind,
        rewrite_output: output_text(&run),
        model,
        out,
        map,
        before,
        rows,
        entries,
        confirmed,
        names,
    }
}

fn the_rewrite_prints_no_names(f: &Rewritten) {
    no_names(&f.rewrite_output);
}

/// A complete model dir, weights byte for byte, no checkpoint or log.
fn the_released_dir_is_complete_with_the_same_weights_and_no_training_files(f: &Rewritten) {
    let (kind, out) = (f.kind, &f.out);
    for file in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "manifest.json",
    ] {
        assert!(out.join(file).is_file(), "{kind}: {file} missing");
    }
    assert_eq!(
        fs::read(f.model.join("model.safetensors")).unwrap(),
        fs::read(out.join("model.safetensors")).unwrap()
    );
    assert!(!out.join("checkpoint").exists() && !out.join("train_log.jsonl").exists());
}

/// The map: outside the model dir, owner-only, every confirmed token in it.
fn the_map_is_outside_the_release_owner_only_and_lists_every_confirmed_token(f: &Rewritten) {
    assert!(!f.map.starts_with(&f.out));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&f.map).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}: map mode {mode:o}", f.kind);
    }
    assert_eq!(f.confirmed, f.rows.len() - 1);
}

/// Same vocabulary size; renamed ids hold unk + digits with the old marker; the rest as before.
fn renamed_ids_hold_unk_digits_with_the_old_marker_and_the_rest_is_unchanged(f: &Rewritten) {
    let kind = f.kind;
    let after = vocab_of(&f.out);
    assert_eq!(after.len(), f.before.len());
    for ((id, old), (id2, new)) in f.before.iter().zip(&after) {
        assert_eq!(id, id2);
        match f.entries.iter().find(|e| e["id"] == *id) {
            Some(e) => {
                assert_eq!(e["old"], old.as_str());
                assert_eq!(e["new"], new.as_str());
                let marker = &old[..old.len() - bare(old).len()];
                let digits = new
                    .strip_prefix(marker)
                    .and_then(|r| r.strip_prefix("unk"))
                    .unwrap_or_else(|| panic!("{kind}: {new} has not the form {marker}unkDIGITS"));
                assert!(digits.len() >= 6 && digits.chars().all(|c| c.is_ascii_digit()));
            }
            None => assert_eq!(old, new),
        }
    }
}

/// Text without names: the same ids and the same logits.
fn text_without_names_keeps_its_ids_and_logits(f: &Rewritten) {
    let (ids_a, logits_a) = logits(&f.model, PLAIN);
    let (ids_b, logits_b) = logits(&f.out, PLAIN);
    assert_eq!(ids_a, ids_b);
    assert_eq!(logits_a, logits_b);
}

fn transformers_loads_the_release_with_the_same_ids_and_logits(f: &Rewritten) {
    transformers_loads(&f.model, &f.out, &ids_of(&f.out, PLAIN), &f.entries);
}

/// The names no longer come out as single tokens.
fn names_no_longer_encode_as_single_or_renamed_tokens(f: &Rewritten) {
    let kind = f.kind;
    let new_tk = anonlm::tokenizer::load_dir(&f.out).unwrap();
    let renamed: Vec<u32> = f
        .entries
        .iter()
        .map(|e| e["id"].as_u64().unwrap() as u32)
        .collect();
    for n in SURNAMES {
        let enc = new_tk
            .inner
            .encode(format!("Dokter {n} zag {n}s."), false)
            .unwrap();
        assert!(
            enc.get_ids().iter().all(|i| !renamed.contains(i)),
            "{kind}: {n}"
        );
        assert!(enc.get_tokens().iter().all(|t| bare(t) != n), "{kind}: {n}");
    }
}

/// The rewritten model passes the removed and names checks, printing no name.
fn check_passes_on_the_rewritten_model_without_printing_names(f: &Rewritten) {
    let check = anonlm()
        .args(["vocab", "check", "--model"])
        .arg(&f.out)
        .arg("--removed")
        .arg(&f.map)
        .arg("--names")
        .arg(&f.names)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", output_text(&check));
    no_names(&output_text(&check));
}

/// The original fails the names check: its JSON report counts every confirmed name, and the
/// merges and load checks still pass.
fn check_names_fails_on_the_original_and_reports_each_name_in_json(f: &Rewritten) {
    let check = anonlm()
        .args(["vocab", "check", "--json", "--model"])
        .arg(&f.model)
        .arg("--names")
        .arg(&f.names)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1), "{}", output_text(&check));
    no_names(&output_text(&check));
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["passed"], false);
    assert_eq!(report["merges"]["passed"], true);
    assert_eq!(report["loads"]["passed"], true);
    assert_eq!(report["names"]["matches"], f.confirmed);
}

/// The original model also fails the removed check (its names are still there).
fn check_removed_fails_on_the_original_without_printing_names(f: &Rewritten) {
    let check = anonlm()
        .args(["vocab", "check", "--model"])
        .arg(&f.model)
        .arg("--removed")
        .arg(&f.map)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    no_names(&output_text(&check));
}

/// `--show` prints the names (so the no-name checks above could fail).
fn check_show_prints_the_names(f: &Rewritten) {
    let shown = anonlm()
        .args(["vocab", "check", "--show", "--model"])
        .arg(&f.model)
        .arg("--names")
        .arg(&f.names)
        .output()
        .unwrap();
    assert!(output_text(&shown).contains("Jansen"));
}

/// One module per tokenizer kind: its fixture (a model with `$vocab` entries, rewritten) and
/// one test per behaviour, each running the check of the same name on that fixture.
macro_rules! per_kind {
    ($kind:ident, $vocab:expr, [$($check:ident),* $(,)?]) => {
        mod $kind {
            use super::{rewrite, shared, OnceLock, Rewritten};

            pub(super) fn fixture() -> &'static Rewritten {
                static REWRITTEN: OnceLock<Result<Rewritten, String>> = OnceLock::new();
                shared(&REWRITTEN, || rewrite(stringify!($kind), $vocab))
            }

            $(
                #[test]
                fn $check() {
                    super::$check(fixture());
                }
            )*
        }
    };
}

macro_rules! all_kinds {
    ($([$kind:ident, $vocab:expr]),* $(,)?) => {
        $(
            per_kind!($kind, $vocab, [
                the_rewrite_prints_no_names,
                the_released_dir_is_complete_with_the_same_weights_and_no_training_files,
                the_map_is_outside_the_release_owner_only_and_lists_every_confirmed_token,
                renamed_ids_hold_unk_digits_with_the_old_marker_and_the_rest_is_unchanged,
                text_without_names_keeps_its_ids_and_logits,
                transformers_loads_the_release_with_the_same_ids_and_logits,
                names_no_longer_encode_as_single_or_renamed_tokens,
                check_passes_on_the_rewritten_model_without_printing_names,
                check_names_fails_on_the_original_and_reports_each_name_in_json,
                check_removed_fails_on_the_original_without_printing_names,
                check_show_prints_the_names,
            ]);
        )*
    };
}

all_kinds!([wordpiece, 400], [bpe, 600], [unigram, 300]);

/// Byte-level BPE: ĠJansens was built from ĠJansen, so it is renamed as derived.
#[test]
fn bpe_a_token_built_from_a_removed_name_is_renamed_as_derived() {
    let f = bpe::fixture();
    let (id, _) = f
        .before
        .iter()
        .find(|(_, t)| t == "ĠJansens")
        .expect("the corpus makes ĠJansens a token");
    let e = f
        .entries
        .iter()
        .find(|e| e["id"] == *id)
        .expect("ĠJansens renamed");
    assert_eq!(e["reason"], "derived");
}

/// A bad request to `vocab rewrite` of the shared WordPiece model: a fresh dir for its
/// review, output and map.
struct Request {
    dir: tempfile::TempDir,
    model: &'static Path,
    vocab: &'static [(u32, String)],
    /// A review removing `Jansen`.
    review: PathBuf,
    out: PathBuf,
    map: PathBuf,
}

impl Request {
    fn new() -> Request {
        let f = wordpiece::fixture();
        let dir = tempdir();
        let review = dir.path().join("review.tsv");
        let out = dir.path().join("released");
        let map = dir.path().join("map.json");
        let r = Request {
            dir,
            model: &f.model,
            vocab: &f.before,
            review,
            out,
            map,
        };
        write_review(&r.review, &[r.row("Jansen")]).unwrap();
        r
    }

    fn id_of(&self, t: &str) -> u32 {
        self.vocab.iter().find(|(_, s)| s == t).unwrap().0
    }

    fn row(&self, token: &str) -> ReviewRow {
        self.row_with_id(token, self.id_of(token))
    }

    fn row_with_id(&self, token: &str, id: u32) -> ReviewRow {
        ReviewRow {
            token: token.into(),
            id,
            score: 1.0,
            evidence: String::new(),
            decision: Decision::Remove,
        }
    }

    fn rewrite(&self, review: &Path, out: &Path, map: &Path, extra: &[&str]) -> Output {
        anonlm()
            .args(["vocab", "rewrite", "--model"])
            .arg(self.model)
            .arg("--tokens")
            .arg(review)
            .arg("--out")
            .arg(out)
            .arg("--map")
            .arg(map)
            .args(extra)
            .output()
            .unwrap()
    }
}

/// A refused request: exit 2, no name printed; returns what it printed.
fn refused(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", output_text(o));
    let text = output_text(o);
    no_names(&text);
    text
}

#[test]
fn rewrite_refuses_a_map_inside_the_released_dir() {
    let r = Request::new();
    let inside = r.rewrite(&r.review, &r.out, &r.out.join("map.json"), &[]);
    assert!(refused(&inside).contains("inside --out"));
    assert!(!r.out.exists());
}

#[test]
fn rewrite_refuses_a_special_token_naming_its_review_line() {
    let r = Request::new();
    let specials = r.dir.path().join("specials.tsv");
    write_review(&specials, &[r.row("Jansen"), r.row("[CLS]")]).unwrap();
    let text = refused(&r.rewrite(&specials, &r.out, &r.map, &[]));
    assert!(
        text.contains("specials.tsv:4:") && text.contains("special"),
        "{text}"
    );
    assert!(!r.out.exists() && !r.map.exists());
}

#[test]
fn rewrite_refuses_a_review_made_for_another_model() {
    let r = Request::new();
    // The id holds another token.
    let other = r.dir.path().join("other.tsv");
    write_review(&other, &[r.row_with_id("Jansen", r.id_of("Jansen") + 1)]).unwrap();
    let text = refused(&r.rewrite(&other, &r.out, &r.map, &[]));
    assert!(
        text.contains("other.tsv:3:") && text.contains("another model"),
        "{text}"
    );
    assert!(!r.out.exists() && !r.map.exists());
}

/// Works once; refuses to replace without --overwrite; replaces with it.
#[test]
fn rewrite_replaces_an_earlier_release_only_with_overwrite() {
    let r = Request::new();
    let ok = r.rewrite(&r.review, &r.out, &r.map, &[]);
    assert!(ok.status.success(), "{}", output_text(&ok));
    let first = fs::read_to_string(r.out.join("tokenizer.json")).unwrap();
    refused(&r.rewrite(&r.review, &r.out, &r.map, &[]));
    let again = r.rewrite(&r.review, &r.out, &r.map, &["--overwrite"]);
    assert!(again.status.success(), "{}", output_text(&again));
    assert_ne!(
        first,
        fs::read_to_string(r.out.join("tokenizer.json")).unwrap(),
        "new random names"
    );
}

#[test]
fn rewrite_never_writes_onto_its_input_model() {
    let r = Request::new();
    let onto = r.rewrite(
        &r.review,
        r.model,
        &r.dir.path().join("m2.json"),
        &["--overwrite"],
    );
    refused(&onto);
    assert!(r.model.join("train_log.jsonl").is_file());
}
