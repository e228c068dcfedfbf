//! Nothing lost, through the binary: outputs never replace an input, an existing file without
//! `--overwrite`, or a special file; the outputs of one run are published together or not at
//! all, and a second run to the same outputs is refused; a killed training run does not block
//! its rerun; files that can hold document text are private (0600, dirs 0700).

use crate::util::{anonlm, synth, tempdir, tokenizer};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

fn run(dir: &Path, args: &[&str]) -> Output {
    anonlm().current_dir(dir).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with `needle` in the message.
fn refused(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn eval_never_replaces_an_input_or_an_existing_file_without_overwrite() {
    let dir = tempdir();
    let d = dir.path();
    let gold = synth(&d.join("g.jsonl"), "nl", 4, 1);
    let before = fs::read(&gold).unwrap();
    let eval = |extra: &[&str]| {
        let mut args = vec!["eval", "--gold", "g.jsonl", "--pred", "g.jsonl"];
        args.extend_from_slice(extra);
        run(d, &args)
    };
    // The gold/prediction file itself, with or without --overwrite.
    refused(&eval(&["--json", "g.jsonl"]), "is also an input");
    refused(
        &eval(&["--json", "g.jsonl", "--overwrite"]),
        "is also an input",
    );
    let risk = [
        "--risk",
        "--lang",
        "nl",
        "--risk-svg",
        "g.jsonl",
        "--overwrite",
    ];
    refused(&eval(&risk), "is also an input");
    assert_eq!(fs::read(&gold).unwrap(), before, "the gold file changed");

    // An existing report needs --overwrite.
    fs::write(d.join("old.json"), "keep me").unwrap();
    refused(&eval(&["--json", "old.json"]), "already exists");
    fs::write(d.join("old.svg"), "keep me").unwrap();
    let risk = ["--risk", "--lang", "nl", "--risk-svg", "old.svg"];
    refused(&eval(&risk), "already exists");
    assert_eq!(fs::read_to_string(d.join("old.json")).unwrap(), "keep me");
    assert_eq!(fs::read_to_string(d.join("old.svg")).unwrap(), "keep me");
    let o = eval(&["--json", "old.json", "--overwrite"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&fs::read_to_string(d.join("old.json")).unwrap()).unwrap();
    assert!(v["report"]["spans"].is_object());
}

#[test]
fn vocab_harvest_never_writes_onto_its_inputs() {
    let dir = tempdir();
    let d = dir.path();
    let corpus = synth(&d.join("c.jsonl"), "nl", 2, 2);
    fs::write(d.join("p.jsonl"), "{\"probe\":1}\n").unwrap();
    fs::write(d.join("ops.jsonl"), "{\"ops\":1}\n").unwrap();
    fs::write(d.join("s.json"), "{\"old\":1}\n").unwrap();
    fs::create_dir(d.join("model")).unwrap();
    let snapshot = |p: &str| fs::read(d.join(p)).unwrap();
    let kept = [
        ("c.jsonl", snapshot("c.jsonl")),
        ("p.jsonl", snapshot("p.jsonl")),
        ("ops.jsonl", snapshot("ops.jsonl")),
        ("s.json", snapshot("s.json")),
    ];
    let harvest = |extra: &[&str]| {
        let mut args = vec!["vocab", "harvest", "--probe", "p.jsonl", "--model", "model"];
        args.extend_from_slice(extra);
        run(d, &args)
    };
    refused(
        &harvest(&["--out", "r.tsv", "--summary", "p.jsonl", "--overwrite"]),
        "is also an input",
    );
    refused(
        &harvest(&["--out", "p.jsonl", "--overwrite"]),
        "is also an input",
    );
    let evidence = [
        "--corpus",
        "c.jsonl",
        "--ops-log",
        "ops.jsonl",
        "--overwrite",
    ];
    let mut args = vec!["--out", "c.jsonl"];
    args.extend_from_slice(&evidence);
    refused(&harvest(&args), "is also an input");
    let mut args = vec!["--out", "r.tsv", "--summary", "ops.jsonl"];
    args.extend_from_slice(&evidence);
    refused(&harvest(&args), "is also an input");
    // An existing summary needs --overwrite.
    refused(
        &harvest(&["--out", "r.tsv", "--summary", "s.json"]),
        "already exists",
    );
    for (name, bytes) in kept {
        assert_eq!(fs::read(d.join(name)).unwrap(), bytes, "{name} changed");
    }
    assert!(!d.join("r.tsv").exists());
    assert!(corpus.is_file());
}

/// Runs `deid` onto `out` with `--overwrite`; it must be refused with the device untouched and
/// no file written beside it.
fn deid_onto_special(dir: &Path, out: &Path) {
    let out_s = out.to_str().unwrap();
    for format in ["jsonl", "text"] {
        let o = run(
            dir,
            &[
                "deid",
                "n.jsonl",
                "--lang",
                "nl",
                "--out-format",
                format,
                "--out",
                out_s,
                "--overwrite",
                "-q",
            ],
        );
        refused(&o, "refusing to write to it");
    }
    let o = run(
        dir,
        &[
            "recognize",
            "n.jsonl",
            "--lang",
            "nl",
            "--out",
            out_s,
            "--overwrite",
            "-q",
        ],
    );
    refused(&o, "refusing to write to it");
    for side in [".ops.jsonl", ".stats.json", ".lock"] {
        let p = PathBuf::from(format!("{out_s}{side}"));
        assert!(!p.exists(), "{} was written", p.display());
    }
}

#[test]
fn special_files_are_never_outputs_even_with_overwrite() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("n.jsonl"), "nl", 3, 5);
    let fifo = d.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    deid_onto_special(d, &fifo);
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(names(d), vec!["fifo", "n.jsonl"]);

    let null = Path::new("/dev/null");
    deid_onto_special(d, null);
    assert!(fs::metadata(null).unwrap().file_type().is_char_device());
}

/// The number of lines of `path`.
fn lines(path: &Path) -> usize {
    fs::read_to_string(path).unwrap().lines().count()
}

#[test]
fn concurrent_deid_runs_never_mix_their_outputs() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("a.jsonl"), "nl", 3, 11);
    synth(&d.join("b.jsonl"), "nl", 7, 12);
    let bin = assert_cmd::cargo::cargo_bin("anonlm");
    let start = |input: &str| {
        std::process::Command::new(&bin)
            .current_dir(d)
            .args(["deid", input, "--lang", "nl", "--out", "out.jsonl"])
            .args(["--overwrite", "-q"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut refusals = 0;
    for _ in 0..20 {
        let (a, b) = (start("a.jsonl"), start("b.jsonl"));
        let mut ok = 0;
        for child in [a, b] {
            let o = child.wait_with_output().unwrap();
            match o.status.code() {
                Some(0) => ok += 1,
                _ => {
                    refused(&o, "another anonlm run");
                    refusals += 1;
                }
            }
        }
        assert!(ok >= 1, "both runs were refused");
        // Corpus, ops log and stats always come from one run.
        let docs = lines(&d.join("out.jsonl"));
        assert!(docs == 3 || docs == 7, "{docs} documents");
        assert_eq!(lines(&d.join("out.ops.jsonl")), docs);
        let stats: Value =
            serde_json::from_str(&fs::read_to_string(d.join("out.stats.json")).unwrap()).unwrap();
        assert_eq!(stats["documents"].as_u64(), Some(docs as u64));
    }
    eprintln!("{refusals} of 40 runs were refused while the other held the outputs");
    assert!(!d.join("out.jsonl.lock").exists());
    assert!(!names(d).iter().any(|n| n.starts_with(".anonlm-tmp-")));
}

#[test]
fn a_failed_deid_publishes_nothing() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("n.jsonl"), "nl", 3, 7);
    let deid = |extra: &[&str]| {
        let mut args = vec!["deid", "n.jsonl", "--lang", "nl", "-q"];
        args.extend_from_slice(extra);
        run(d, &args)
    };
    // A stale stats file of an earlier run.
    fs::write(d.join("out.stats.json"), "stale").unwrap();
    refused(&deid(&["--out", "out.jsonl"]), "already exists");
    assert_eq!(names(d), vec!["n.jsonl", "out.stats.json"]);
    assert_eq!(
        fs::read_to_string(d.join("out.stats.json")).unwrap(),
        "stale"
    );
    // A --stats path that cannot be written (its parent is a file).
    fs::write(d.join("plain"), "").unwrap();
    let o = deid(&["--out", "o2.jsonl", "--stats", "plain/stats.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(names(d), vec!["n.jsonl", "out.stats.json", "plain"]);
}

#[test]
fn a_training_run_killed_before_its_first_checkpoint_does_not_block_the_rerun() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("n.jsonl"), "nl", 20, 8);
    tokenizer(&d.join("n.jsonl"), "wordpiece", 300, &d.join("tok"));
    // What a run killed before its first checkpoint leaves: the manifest, the start of the log
    // and a staged file that was never renamed.
    let model = d.join("model");
    fs::create_dir(&model).unwrap();
    fs::write(model.join("manifest.json"), "{}").unwrap();
    fs::write(model.join("train_log.jsonl"), "").unwrap();
    let stale = model.join(".anonlm-tmp-model.safetensors.Ab12Cd");
    fs::write(&stale, "half").unwrap();
    let o = run(
        d,
        &[
            "mlm",
            "train",
            "--config",
            "tiny",
            "--steps",
            "4",
            "--batch",
            "4",
            "--seq-len",
            "32",
            "--corpus",
            "n.jsonl",
            "--tokenizer",
            "tok",
            "--out",
            "model",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(model.join("model.safetensors").is_file());
    assert!(!stale.exists(), "a stale staged file stayed behind");
    assert!(!d.join("model.lock").exists());
}

#[test]
fn outputs_holding_text_or_names_are_private() {
    let dir = tempdir();
    let d = dir.path();
    synth(&d.join("n.jsonl"), "nl", 3, 9);
    for (cmd, out) in [("recognize", "rec"), ("deid", "de")] {
        let o = run(
            d,
            &[
                cmd,
                "n.jsonl",
                "--lang",
                "nl",
                "--out-format",
                "brat",
                "--out",
                out,
                "-q",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let out = d.join(out);
        assert_eq!(mode(&out), 0o700, "{}", out.display());
        let files = names(&out);
        assert!(files.iter().any(|f| f.ends_with(".ann")), "{files:?}");
        for f in files {
            assert_eq!(mode(&out.join(&f)), 0o600, "{f}");
        }
    }
    let wp = tokenizer(&d.join("n.jsonl"), "wordpiece", 300, &d.join("wp"));
    let bpe = tokenizer(&d.join("n.jsonl"), "bpe", 300, &d.join("bpe"));
    for p in [
        wp.join("vocab.txt"),
        wp.join("tokenizer.json"),
        bpe.join("vocab.json"),
        bpe.join("merges.txt"),
    ] {
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
}
