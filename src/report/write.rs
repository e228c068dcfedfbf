//! Reading a report JSON (refusing any other schema) and writing a report folder:
//! `report.json`, `report.md` and `report.html`, each staged and renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{StageContext, StageResult};

use super::model::{Report, REPORT_SCHEMA};
use super::{html::to_html, markdown::to_markdown};
use crate::fsio::{Inputs, Kind, OutputSet};

/// Names of the files [`write_report`] writes.
pub const JSON_FILE: &str = "report.json";
pub const MARKDOWN_FILE: &str = "report.md";
pub const HTML_FILE: &str = "report.html";

/// Reads a report; errors name the file, and a `schema` other than [`REPORT_SCHEMA`] is refused.
pub fn read_report(path: &Path) -> StageResult<Report> {
    let text = std::fs::read_to_string(path)
        .with_stage_context(|| format!("reading {}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_stage_context(|| format!("{}: not JSON", path.display()))?;
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(REPORT_SCHEMA) => {}
        Some(other) => {
            return Err(crate::error::ValueError::new(format!(
                "{}: schema is '{other}', expected '{REPORT_SCHEMA}'",
                path.display()
            ))
            .into())
        }
        None => {
            return Err(crate::error::ValueError::new(format!(
                "{}: no schema string (expected '{REPORT_SCHEMA}')",
                path.display()
            ))
            .into())
        }
    }
    serde_json::from_value(value)
        .with_stage_context(|| format!("{}: not a valid {REPORT_SCHEMA} report", path.display()))
}

/// The report as pretty JSON with a trailing newline.
pub fn to_json(r: &Report) -> StageResult<String> {
    let mut text = serde_json::to_string_pretty(r)?;
    text.push('\n');
    Ok(text)
}

/// Writes `report.json`, `report.md` and `report.html` into `dir` (created when missing). Without
/// `overwrite`, nothing is written when any of the three exists.
pub fn write_report(r: &Report, dir: &Path, overwrite: bool) -> StageResult<()> {
    write_files(dir, &[(JSON_FILE, to_json(r)?)], r, overwrite)
}

/// Writes `report.md` and `report.html` (not the JSON) into `dir`.
pub fn write_renderings(r: &Report, dir: &Path, overwrite: bool) -> StageResult<()> {
    write_files(dir, &[], r, overwrite)
}

fn write_files(
    dir: &Path,
    extra: &[(&str, String)],
    r: &Report,
    overwrite: bool,
) -> StageResult<()> {
    let mut files: Vec<(&str, String)> = extra.to_vec();
    files.push((MARKDOWN_FILE, to_markdown(r)));
    files.push((HTML_FILE, to_html(r)));
    if !overwrite {
        if let Some((name, _)) = files.iter().find(|(n, _)| dir.join(n).exists()) {
            return Err(crate::error::ValueError::new(format!(
                "{} exists (pass --overwrite to replace it)",
                dir.join(name).display()
            ))
            .into());
        }
    }
    crate::fsio::create_private_dir(dir)?;
    // The three renderings are one unit: published together or not at all.
    let paths: Vec<PathBuf> = files.iter().map(|(n, _)| dir.join(n)).collect();
    let claims: Vec<(&Path, Kind)> = paths.iter().map(|p| (p.as_path(), Kind::File)).collect();
    let set = OutputSet::claim(&claims, overwrite, Inputs::new())?;
    let mut stages = Vec::new();
    for ((_, text), path) in files.iter().zip(&paths) {
        let mut f = set.file(path)?;
        f.write_all(text.as_bytes())
            .with_stage_context(|| format!("writing {}", path.display()))?;
        stages.push(f.into());
    }
    set.publish(stages)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::example;

    #[test]
    fn writes_three_files_and_reads_the_json_back() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("report");
        let r = example();
        write_report(&r, &out, false).unwrap();
        let json = std::fs::read_to_string(out.join(JSON_FILE)).unwrap();
        assert!(json.ends_with("}\n"));
        assert!(out.join(MARKDOWN_FILE).is_file() && out.join(HTML_FILE).is_file());
        let back = read_report(&out.join(JSON_FILE)).unwrap();
        assert_eq!(back.title, r.title);
        // No overwrite without asking; with it, fine.
        let err = write_report(&r, &out, false).unwrap_err().to_string();
        assert!(err.contains("--overwrite"), "{err}");
        write_report(&r, &out, true).unwrap();
    }

    #[test]
    fn another_schema_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("old.json");
        let mut v = serde_json::to_value(example()).unwrap();
        v["schema"] = "anonlm.audit/1".into();
        std::fs::write(&p, v.to_string()).unwrap();
        let err = format!("{:#}", read_report(&p).unwrap_err());
        assert!(
            err.contains("old.json") && err.contains("anonlm.audit/1"),
            "{err}"
        );
    }
}
