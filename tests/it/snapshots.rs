//! Snapshots of what users read and scripts parse: `--help` of every command and subcommand,
//! the Markdown of a report rendered from the library's fixed example, and the stats file of
//! `deid` on fixed synthetic notes. Snapshots live in `tests/it/snapshots/`; after a deliberate
//! change, review and accept them with `INSTA_UPDATE=always cargo test --test it snapshots::`
//! (CI, where `CI` is set, fails on a mismatch and writes nothing).

use crate::util::{anonlm, read_json, report_render, synth, tempdir, write_json};
use serde_json::Value;
use std::fs;

/// `anonlm ARGS --help`, at a fixed width: clap wraps help to `COLUMNS` when it wraps at all.
fn help(args: &[&str]) -> String {
    let out = anonlm()
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommand names listed under `Commands:` in a help text, without `help`.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // Entries start two spaces in; deeper indents continue a wrapped description.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path reachable from `anonlm --help` (the top level first, as `[]`), read from
/// the help texts themselves so that a new command gets a snapshot without editing this file.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = vec![Vec::new()];
    let mut i = 0;
    while i < paths.len() {
        let path: Vec<&str> = paths[i].iter().map(String::as_str).collect();
        for sub in subcommands(&help(&path)) {
            let mut next = paths[i].clone();
            next.push(sub);
            paths.push(next);
        }
        i += 1;
    }
    paths
}

#[test]
fn help_of_every_command() {
    let paths = command_paths();
    // A floor, so that a broken `Commands:` parse cannot pass with the top-level help alone.
    assert!(paths.len() > 30, "{paths:?}");
    for path in paths {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let name = if path.is_empty() {
            "help".to_string()
        } else {
            format!("help_{}", path.join("_"))
        };
        insta::assert_snapshot!(
            name,
            help(&args),
            &format!("anonlm {} --help", args.join(" "))
        );
    }
}

#[test]
fn rendered_report_markdown() {
    let dir = tempdir();
    let d = dir.path();
    write_json(&d.join("report.json"), &anonlm::report::fixture::example());
    report_render(d).assert().success();
    let md = fs::read_to_string(d.join("out/report.md")).unwrap();
    insta::assert_snapshot!("report_md", md);
}

/// Keys of the deid stats that differ from run to run (wall time, memory of this process).
const RUN_SPECIFIC: [&str; 2] = ["seconds", "peak_rss_bytes"];

#[test]
fn deid_stats_of_fixed_notes() {
    let dir = tempdir();
    let d = dir.path();
    let notes = synth(&d.join("notes.jsonl"), "nl", 5, 7);
    anonlm()
        .args(["deid", "-q", "--lang", "nl", "--out"])
        .arg(d.join("deid.jsonl"))
        .arg(&notes)
        .assert()
        .success();
    let mut stats = read_json(&d.join("deid.stats.json"));
    let top = stats.as_object_mut().unwrap();
    for key in RUN_SPECIFIC {
        // Kept as a key, so that the snapshot still shows the field is written.
        let v = top.get_mut(key).unwrap_or_else(|| panic!("{key} missing"));
        *v = Value::String("[run-specific]".into());
    }
    insta::assert_json_snapshot!("deid_stats", stats);
}
