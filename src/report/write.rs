//! Reading a report JSON (refusing any other schema) and writing a report folder:
//! `report.json`, `report.md`, `report.html` and the plots as SVG files beside them (which
//! `report.md` shows), each staged and renamed into place.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{StageContext, StageResult};

use super::doc::{sections, Block, Figure};
use super::html::figure_svg;
use super::model::{Report, REPORT_SCHEMA};
use super::{html::to_html, markdown::to_markdown};
use crate::fsio::{Inputs, Kind, OutputSet};

/// Names of the files [`write_report`] writes.
pub const JSON_FILE: &str = "report.json";
pub const MARKDOWN_FILE: &str = "report.md";
pub const HTML_FILE: &str = "report.html";

/// The SVG file a figure is written to beside the report: `roc.svg`, `histogram-N.svg` (N the
/// attack's place, from 1), `name-like.svg`, `canary.svg`.
pub fn figure_file(f: Figure) -> String {
    match f {
        Figure::Roc => "roc.svg".into(),
        Figure::Histogram(i) => format!("histogram-{}.svg", i + 1),
        Figure::NameLike => "name-like.svg".into(),
        Figure::Canary => "canary.svg".into(),
    }
}

/// The figures the report draws (those it has data for), as file names and SVG texts.
pub fn figure_files(r: &Report) -> Vec<(String, String)> {
    sections(r)
        .iter()
        .flat_map(|s| &s.blocks)
        .filter_map(|b| match b {
            Block::Figure(f) => figure_svg(*f, r).map(|(svg, _)| (figure_file(*f), svg)),
            _ => None,
        })
        .collect()
}

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

/// Writes `report.json`, `report.md`, `report.html` and the figures' SVG files into `dir`
/// (created when missing). Without `overwrite`, nothing is written when any of them exists.
pub fn write_report(r: &Report, dir: &Path, overwrite: bool) -> StageResult<()> {
    write_files(dir, vec![(JSON_FILE.into(), to_json(r)?)], r, overwrite)
}

/// Writes `report.md`, `report.html` and the SVG files (not the JSON) into `dir`.
pub fn write_renderings(r: &Report, dir: &Path, overwrite: bool) -> StageResult<()> {
    write_files(dir, Vec::new(), r, overwrite)
}

fn write_files(
    dir: &Path,
    mut files: Vec<(String, String)>,
    r: &Report,
    overwrite: bool,
) -> StageResult<()> {
    files.push((MARKDOWN_FILE.into(), to_markdown(r)));
    files.push((HTML_FILE.into(), to_html(r)));
    files.extend(figure_files(r));
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
    // The renderings and their plots are one unit: published together or not at all.
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
        // Every plot the Markdown links is written beside it.
        let md = std::fs::read_to_string(out.join(MARKDOWN_FILE)).unwrap();
        for name in [
            "roc.svg",
            "histogram-1.svg",
            "histogram-2.svg",
            "name-like.svg",
        ] {
            assert!(md.contains(&format!("]({name})")), "{name}");
            let svg = std::fs::read_to_string(out.join(name)).unwrap();
            assert!(
                svg.starts_with("<svg ") && svg.ends_with("</svg>"),
                "{name}"
            );
        }
        let canary = std::fs::read_to_string(out.join("canary.svg")).unwrap();
        assert!(canary.contains("Canary exposure per repeat group"));
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
