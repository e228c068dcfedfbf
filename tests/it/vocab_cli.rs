//! `anonlm vocab rewrite | check` end to end, for WordPiece, byte-level BPE and Unigram: a tiny
//! tokenizer and model trained by the binary on notes full of a few surnames, a review marking
//! them `remove`, the rewrite, and what must hold afterwards (loads, same ids and logits for
//! text without names, names no longer single tokens, checks pass, map protected, no names
//! printed without `--show`).

use crate::util::{anonlm, mlm_train, tempdir, tokenizer};
use anonlm::vocab::{write_review, Decision, ReviewRow};
use candle_core::{Device, Tensor};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

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

fn logits(model: &Path, text: &str) -> (Vec<u32>, Vec<f32>) {
    let tk = anonlm::tokenizer::load_dir(model).unwrap();
    let ids = tk.encode_ids(text).unwrap();
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

fn rewrite_and_check(kind: &str, vocab: usize) {
    let dir = tempdir();
    let notes = dir.path().join("notes.txt");
    corpus(&notes);
    let model = model_dir(dir.path(), &notes, kind, vocab);
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
    let review = dir.path().join("review.tsv");
    write_review(&review, &rows).unwrap();

    let out = dir.path().join("released");
    let map = dir.path().join("private").join("map.json");
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
    no_names(&output_text(&run));

    // A complete model dir, weights byte for byte, no checkpoint or log.
    for f in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "manifest.json",
    ] {
        assert!(out.join(f).is_file(), "{kind}: {f} missing");
    }
    assert_eq!(
        fs::read(model.join("model.safetensors")).unwrap(),
        fs::read(out.join("model.safetensors")).unwrap()
    );
    assert!(!out.join("checkpoint").exists() && !out.join("train_log.jsonl").exists());

    // The map: outside the model dir, owner-only, every confirmed token in it.
    assert!(!map.starts_with(&out));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&map).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{kind}: map mode {mode:o}");
    }
    let entries: Vec<Value> = serde_json::from_str(&fs::read_to_string(&map).unwrap()).unwrap();
    let confirmed = entries
        .iter()
        .filter(|e| e["reason"] == "confirmed")
        .count();
    assert_eq!(confirmed, rows.len() - 1);

    // Same vocabulary size; renamed ids hold unk + digits with the old marker; the rest as before.
    let after = vocab_of(&out);
    assert_eq!(after.len(), before.len());
    for ((id, old), (id2, new)) in before.iter().zip(&after) {
        assert_eq!(id, id2);
        match entries.iter().find(|e| e["id"] == *id) {
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
    if kind == "bpe" {
        // ĠJansens was built from ĠJansen: renamed as derived.
        let (id, _) = before
            .iter()
            .find(|(_, t)| t == "ĠJansens")
            .expect("the corpus makes ĠJansens a token");
        let e = entries
            .iter()
            .find(|e| e["id"] == *id)
            .expect("ĠJansens renamed");
        assert_eq!(e["reason"], "derived");
    }

    // Text without names: the same ids and the same logits.
    let (ids_a, logits_a) = logits(&model, PLAIN);
    let (ids_b, logits_b) = logits(&out, PLAIN);
    assert_eq!(ids_a, ids_b);
    assert_eq!(logits_a, logits_b);

    transformers_loads(&model, &out, &ids_b, &entries);

    // The names no longer come out as single tokens.
    let new_tk = anonlm::tokenizer::load_dir(&out).unwrap();
    let renamed: Vec<u32> = entries
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

    // The checks: the rewritten model passes, the original fails on the names.
    let names = dir.path().join("names.txt");
    fs::write(
        &names,
        format!("# removed surnames\n{}\n", SURNAMES.join("\n")),
    )
    .unwrap();
    let check = anonlm()
        .args(["vocab", "check", "--model"])
        .arg(&out)
        .arg("--removed")
        .arg(&map)
        .arg("--names")
        .arg(&names)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", output_text(&check));
    no_names(&output_text(&check));

    let check = anonlm()
        .args(["vocab", "check", "--json", "--model"])
        .arg(&model)
        .arg("--names")
        .arg(&names)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1), "{}", output_text(&check));
    no_names(&output_text(&check));
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["passed"], false);
    assert_eq!(report["merges"]["passed"], true);
    assert_eq!(report["loads"]["passed"], true);
    assert_eq!(report["names"]["matches"], confirmed);

    // The original model also fails the removed check (its names are still there) ...
    let check = anonlm()
        .args(["vocab", "check", "--model"])
        .arg(&model)
        .arg("--removed")
        .arg(&map)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    no_names(&output_text(&check));
    // ... and `--show` prints them (so the checks above could fail).
    let shown = anonlm()
        .args(["vocab", "check", "--show", "--model"])
        .arg(&model)
        .arg("--names")
        .arg(&names)
        .output()
        .unwrap();
    assert!(output_text(&shown).contains("Jansen"));
}

#[test]
fn rewrite_wordpiece() {
    rewrite_and_check("wordpiece", 400);
}

#[test]
fn rewrite_byte_level_bpe() {
    rewrite_and_check("bpe", 600);
}

#[test]
fn rewrite_unigram() {
    rewrite_and_check("unigram", 300);
}

#[test]
fn rewrite_refuses_bad_requests() {
    let dir = tempdir();
    let notes = dir.path().join("notes.txt");
    corpus(&notes);
    let model = model_dir(dir.path(), &notes, "wordpiece", 400);
    let vocab = vocab_of(&model);
    let id_of = |t: &str| vocab.iter().find(|(_, s)| s == t).unwrap().0;
    let row = |token: &str, id: u32| ReviewRow {
        token: token.into(),
        id,
        score: 1.0,
        evidence: String::new(),
        decision: Decision::Remove,
    };
    let review = dir.path().join("review.tsv");
    write_review(&review, &[row("Jansen", id_of("Jansen"))]).unwrap();
    let out = dir.path().join("released");
    let map = dir.path().join("map.json");
    let rewrite = |review: &Path, out: &Path, map: &Path, extra: &[&str]| {
        anonlm()
            .args(["vocab", "rewrite", "--model"])
            .arg(&model)
            .arg("--tokens")
            .arg(review)
            .arg("--out")
            .arg(out)
            .arg("--map")
            .arg(map)
            .args(extra)
            .output()
            .unwrap()
    };
    let err = |o: &std::process::Output| {
        assert_eq!(o.status.code(), Some(2), "{}", output_text(o));
        let text = output_text(o);
        no_names(&text);
        text
    };

    // The map inside the released dir.
    let inside = rewrite(&review, &out, &out.join("map.json"), &[]);
    assert!(err(&inside).contains("inside --out"));
    assert!(!out.exists());
    // A special token, named by its review line.
    let specials = dir.path().join("specials.tsv");
    write_review(
        &specials,
        &[row("Jansen", id_of("Jansen")), row("[CLS]", id_of("[CLS]"))],
    )
    .unwrap();
    let text = err(&rewrite(&specials, &out, &map, &[]));
    assert!(
        text.contains("specials.tsv:4:") && text.contains("special"),
        "{text}"
    );
    // A review made for another model: the id holds another token.
    let other = dir.path().join("other.tsv");
    write_review(&other, &[row("Jansen", id_of("Jansen") + 1)]).unwrap();
    let text = err(&rewrite(&other, &out, &map, &[]));
    assert!(
        text.contains("other.tsv:3:") && text.contains("another model"),
        "{text}"
    );
    assert!(!out.exists() && !map.exists());

    // Works once; refuses to replace without --overwrite; replaces with it.
    let ok = rewrite(&review, &out, &map, &[]);
    assert!(ok.status.success(), "{}", output_text(&ok));
    let first = fs::read_to_string(out.join("tokenizer.json")).unwrap();
    err(&rewrite(&review, &out, &map, &[]));
    let again = rewrite(&review, &out, &map, &["--overwrite"]);
    assert!(again.status.success(), "{}", output_text(&again));
    assert_ne!(
        first,
        fs::read_to_string(out.join("tokenizer.json")).unwrap(),
        "new random names"
    );
    // Never onto the input.
    let onto = rewrite(
        &review,
        &model,
        &dir.path().join("m2.json"),
        &["--overwrite"],
    );
    err(&onto);
    assert!(model.join("train_log.jsonl").is_file());
}
