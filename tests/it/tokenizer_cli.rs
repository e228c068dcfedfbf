//! `anonlm tokenizer train` end to end: the binary on corpora made with `anonlm synth`, JSONL
//! and text giving the same tokenizer, byte-identical reruns, the files written, overwrite
//! refusal and bad input.

use crate::util::{anonlm, synth, tempdir};
use std::fs;
use std::path::{Path, PathBuf};

/// A JSONL corpus from the project's generator, and the same documents as a directory of .txt.
fn corpora(dir: &Path) -> (PathBuf, PathBuf) {
    let jsonl = dir.join("notes.jsonl");
    synth(&jsonl, "all", 12, 5);
    let txt = dir.join("notes-txt");
    fs::create_dir(&txt).unwrap();
    for line in fs::read_to_string(&jsonl).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["id"].as_str().unwrap();
        fs::write(txt.join(format!("{id}.txt")), v["text"].as_str().unwrap()).unwrap();
    }
    (jsonl, txt)
}

fn train(corpus: &Path, kind: &str, out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    anonlm()
        .args(["tokenizer", "train", "--quiet", "--kind", kind])
        .args(
            ["--vocab-size", "400", "--min-frequency", "1"]
                .iter()
                .take(if kind == "unigram" { 2 } else { 4 }),
        )
        .arg("--corpus")
        .arg(corpus)
        .arg("--out")
        .arg(out)
        .args(extra)
        .assert()
}

#[test]
fn jsonl_and_text_corpora_give_the_same_tokenizer_and_reruns_are_identical() {
    let dir = tempdir();
    let (jsonl, txt) = corpora(dir.path());
    for kind in ["wordpiece", "bpe", "unigram"] {
        let a = dir.path().join(format!("{kind}-a"));
        let b = dir.path().join(format!("{kind}-b"));
        let c = dir.path().join(format!("{kind}-txt"));
        let out = train(&jsonl, kind, &a, &[]).success();
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.contains("60 documents read"), "{stderr}");
        assert!(stderr.contains(&a.display().to_string()), "{stderr}");
        train(&jsonl, kind, &b, &[]).success();
        train(&txt, kind, &c, &[]).success();
        let read = |d: &Path| fs::read(d.join("tokenizer.json")).unwrap();
        assert!(read(&a) == read(&b), "{kind}: reruns differ");
        assert!(read(&a) == read(&c), "{kind}: jsonl and text differ");

        let mut want = vec![
            "special_tokens_map.json",
            "tokenizer.json",
            "tokenizer_config.json",
        ];
        match kind {
            "wordpiece" => want.push("vocab.txt"),
            "bpe" => want.extend(["merges.txt", "vocab.json"]),
            _ => {}
        }
        want.sort();
        let mut got: Vec<String> = fs::read_dir(&a)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        got.sort();
        assert_eq!(got, want, "{kind}");
        let config: serde_json::Value =
            serde_json::from_slice(&fs::read(a.join("tokenizer_config.json")).unwrap()).unwrap();
        let (class, mask) = match kind {
            "wordpiece" => ("BertTokenizerFast", "[MASK]"),
            "bpe" => ("RobertaTokenizerFast", "<mask>"),
            _ => ("PreTrainedTokenizerFast", "<mask>"),
        };
        assert_eq!(config["tokenizer_class"], class);
        assert_eq!(config["mask_token"], mask);
        assert_eq!(config["do_lower_case"], false);
        let tok = anonlm::tokenizer::load_dir(&a).unwrap();
        assert_eq!(tok.specials.mask_token, mask);
    }
}

#[test]
fn an_existing_tokenizer_is_kept_unless_overwrite() {
    let dir = tempdir();
    let (jsonl, _) = corpora(dir.path());
    let out = dir.path().join("tok");
    train(&jsonl, "bpe", &out, &[]).success();
    let before = fs::read(out.join("tokenizer.json")).unwrap();
    let failed = train(&jsonl, "wordpiece", &out, &[]).code(2);
    let stderr = String::from_utf8(failed.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(fs::read(out.join("tokenizer.json")).unwrap(), before);
    train(&jsonl, "wordpiece", &out, &["--overwrite"]).success();
    assert_ne!(fs::read(out.join("tokenizer.json")).unwrap(), before);
    assert!(out.join("vocab.txt").is_file());
    assert!(!out.join("merges.txt").exists(), "stale BPE files removed");
}

#[test]
fn lowercase_and_specials_flags_are_written() {
    let dir = tempdir();
    let (jsonl, _) = corpora(dir.path());
    let out = dir.path().join("wp-lower");
    train(
        &jsonl,
        "wordpiece",
        &out,
        &["--lowercase", "--specials", "roberta"],
    )
    .success();
    let config: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("tokenizer_config.json")).unwrap()).unwrap();
    assert_eq!(config["do_lower_case"], true);
    assert_eq!(config["tokenizer_class"], "PreTrainedTokenizerFast");
    let tok = anonlm::tokenizer::load_dir(&out).unwrap();
    assert_eq!(tok.specials.mask_token, "<mask>");
    let ids = tok.encode_ids("THE WARD").unwrap();
    assert_eq!(ids, tok.encode_ids("the ward").unwrap());
}

#[test]
fn bad_input_is_named_and_nothing_is_written() {
    let dir = tempdir();
    let bad = dir.path().join("bad.jsonl");
    fs::write(
        &bad,
        "{\"id\": \"a\", \"text\": \"Ward one\"}\nnot json at all\n",
    )
    .unwrap();
    let out = dir.path().join("tok");
    let failed = train(&bad, "bpe", &out, &[]).code(2);
    let stderr = String::from_utf8(failed.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("bad.jsonl:2"), "{stderr}");
    assert!(!stderr.contains("not json"), "{stderr}");
    assert!(!out.join("tokenizer.json").exists());
    let failed = train(&bad, "sentencepiece", &out, &[]).code(2);
    let stderr = String::from_utf8(failed.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("unknown tokenizer kind"), "{stderr}");
}
