//! `scripts/spark_pipe.py` on a local Spark (`local[2]`): its output is byte for byte what one
//! `anonlm deid` run writes, each partition's ops log lies beside its part, and one bad document
//! fails the job (nonzero exit, no `_SUCCESS`).
//!
//! Needs `ANONLM_PYTHON`, a python with pyspark (`.ci/run` installs it into `.ci/venv`), and
//! Java 17. Without them it skips with a note, unless `ANONLM_REQUIRE_DATA` or `CI` is set, where
//! their absence fails the test.

use crate::util::{synth, tempdir};
use assert_cmd::Command;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Longest a spark-submit run may take (coreutils `timeout` syntax).
const SPARK_TIMEOUT: &str = "600";

/// spark-submit beside `ANONLM_PYTHON`, when that python has pyspark.
fn spark_submit() -> Option<(PathBuf, PathBuf)> {
    let python = match std::env::var_os("ANONLM_PYTHON") {
        Some(p) => PathBuf::from(p),
        None if anonlm::testdata::required() => {
            panic!("ANONLM_PYTHON is not set (CI runs this test with .ci/venv)")
        }
        None => {
            eprintln!("note: ANONLM_PYTHON is not set; skipping the Spark test");
            return None;
        }
    };
    let submit = python.parent().unwrap().join("spark-submit");
    assert!(
        submit.is_file(),
        "{} is absent: install pyspark into the python of ANONLM_PYTHON",
        submit.display()
    );
    Some((python, submit))
}

/// Concatenation of the part files of a Spark output folder, in part order.
fn parts(dir: &Path) -> Vec<u8> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("part-"))
        })
        .collect();
    names.sort();
    names.iter().flat_map(|p| fs::read(p).unwrap()).collect()
}

fn run_spark(python: &Path, submit: &Path, inp: &Path, out: &Path) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/spark_pipe.py");
    // Bounded: a Spark that hangs fails the test instead of the whole CI run.
    std::process::Command::new("timeout")
        .arg(SPARK_TIMEOUT)
        .arg(submit)
        .env("PYSPARK_PYTHON", python)
        .env("PYSPARK_DRIVER_PYTHON", python)
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .args(["--master", "local[2]", "--conf", "spark.ui.enabled=false"])
        .args(["--conf", "spark.task.maxFailures=1", "--files"])
        .arg(assert_cmd::cargo::cargo_bin("anonlm"))
        .arg(script)
        .arg(inp)
        .arg(out)
        .args(["--partitions", "3"])
        .output()
        .unwrap()
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn spark_pipe_matches_one_deid_run_and_fails_on_a_bad_document() {
    let Some((python, submit)) = spark_submit() else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    let corpus = d.join("corpus.jsonl");
    synth(&corpus, "all", 40, 8);
    let direct = d.join("direct.jsonl");
    Command::cargo_bin("anonlm")
        .unwrap()
        .args([
            "deid", "--format", "jsonl", "--lang", "auto", "--quiet", "--out",
        ])
        .arg(&direct)
        .arg(&corpus)
        .timeout(Duration::from_secs(120))
        .assert()
        .success();

    let out = d.join("spark-out");
    let run = run_spark(&python, &submit, &corpus, &out);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{log}");
    assert!(out.join("_SUCCESS").is_file());
    let got = parts(&out);
    assert!(!got.is_empty());
    assert!(
        got == fs::read(&direct).unwrap(),
        "Spark output differs from one deid run"
    );
    // The ops logs of the parts, in order, are the direct run's ops log.
    let ops = fs::read(d.join("direct.jsonl.ops.jsonl"))
        .or_else(|_| fs::read(d.join("direct.ops.jsonl")))
        .unwrap();
    assert!(parts(Path::new(&format!("{}.ops", out.display()))) == ops);
    let stats = parts(Path::new(&format!("{}.stats", out.display())));
    assert!(String::from_utf8(stats).unwrap().lines().count() >= 2);

    // One malformed document among good ones fails the job.
    let mut bad = fs::read_to_string(&corpus).unwrap();
    let at = bad.len() / 2 + bad[bad.len() / 2..].find('\n').unwrap() + 1;
    bad.insert_str(at, "{\"id\": \"broken\", \"text\": 7}\n");
    let bad_in = d.join("bad.jsonl");
    fs::write(&bad_in, bad).unwrap();
    let bad_out = d.join("bad-out");
    let run = run_spark(&python, &submit, &bad_in, &bad_out);
    assert!(
        !run.status.success(),
        "a failing partition must fail the job"
    );
    assert!(!bad_out.join("_SUCCESS").exists());
}
