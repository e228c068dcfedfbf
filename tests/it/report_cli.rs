//! `anonlm report render` and `anonlm report diff` through the binary: renders a report JSON to
//! Markdown and HTML, diffs two reports as text and JSON, refuses another schema with exit 2.

use crate::util::{anonlm, report_render, tempdir, write_json};
use serde_json::Value;
use std::fs;

fn example() -> Value {
    serde_json::to_value(anonlm::report::fixture::example()).unwrap()
}

#[test]
fn render_writes_markdown_and_html_and_refuses_to_overwrite() {
    let dir = tempdir();
    let d = dir.path();
    write_json(&d.join("report.json"), &example());
    report_render(d).assert().success();
    let md = fs::read_to_string(d.join("out/report.md")).unwrap();
    let html = fs::read_to_string(d.join("out/report.html")).unwrap();
    assert!(md.contains("## Decision: FAIL"));
    assert!(html.contains("<svg") && !html.contains("<script"));
    // The plots beside the Markdown, linked by relative names.
    for name in ["roc.svg", "canary.svg", "name-like.svg"] {
        assert!(md.contains(&format!("]({name})")), "{name}");
        assert!(fs::read_to_string(d.join("out").join(name))
            .unwrap()
            .starts_with("<svg "));
    }
    // The residual share beside the decision.
    assert!(md.contains("| residual PII (1.08% of gold entities left) | FAIL | 1 |"));
    let o = report_render(d).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--overwrite"));
    report_render(d).arg("--overwrite").assert().success();
}

#[test]
fn diff_as_text_and_json_exits_0_and_wrong_schema_exits_2() {
    let dir = tempdir();
    let d = dir.path();
    let old = example();
    let mut new = old.clone();
    // Retrained: the loss attack's AUC falls well outside its old interval.
    let auc = &mut new["attacks"][1]["metrics"]["auc"];
    auc["value"] = 0.501.into();
    auc["lower"] = 0.461.into();
    auc["upper"] = 0.541.into();
    new["identity"]["model"]["weights_sha256"] = "ab".repeat(32).into();
    write_json(&d.join("old.json"), &old);
    write_json(&d.join("new.json"), &new);

    let o = anonlm()
        .current_dir(d)
        .args(["report", "diff", "old.json", "new.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("attack masked_token_loss") && l.contains(" auc "))
        .expect("an AUC row");
    assert!(line.contains("OUTSIDE"), "{line}");
    assert!(text.contains("model weights sha256"));

    anonlm()
        .current_dir(d)
        .args(["report", "diff", "old.json", "new.json", "--json"])
        .args(["--out", "diff.json"])
        .assert()
        .success();
    let v: Value = serde_json::from_str(&fs::read_to_string(d.join("diff.json")).unwrap()).unwrap();
    assert_eq!(v["schema"], "anonlm.report-diff/1");
    assert_eq!(v["changes"], 2);
    let row = v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["item"] == "attack masked_token_loss" && m["metric"] == "auc")
        .unwrap();
    assert_eq!(row["change"], "outside");

    // Identical reports: no change, still exit 0.
    let o = anonlm()
        .current_dir(d)
        .args(["report", "diff", "old.json", "old.json", "--json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["changes"], 0);

    let mut bad = old.clone();
    bad["schema"] = "anonlm.audit/1".into();
    write_json(&d.join("bad.json"), &bad);
    let o = anonlm()
        .current_dir(d)
        .args(["report", "diff", "old.json", "bad.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.json") && err.contains("anonlm.report/1"),
        "{err}"
    );

    fs::write(d.join("broken.json"), "{ not json").unwrap();
    let o = anonlm()
        .current_dir(d)
        .args(["report", "diff", "broken.json", "old.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("broken.json"));
}
