//! Audit reports: the report value (JSON, schema `anonlm.report/1`), its Markdown and
//! self-contained HTML renderings, and the diff of two reports after retraining.

pub mod model;

pub use model::{Report, REPORT_SCHEMA};

/// Writes `report.json` into `dir` (created), atomically.
pub fn write_report(r: &Report, dir: &std::path::Path, overwrite: bool) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut text = serde_json::to_string_pretty(r)?;
    text.push('\n');
    let path = dir.join("report.json");
    if path.exists() && !overwrite {
        anyhow::bail!("{} exists", path.display());
    }
    let tmp = dir.join("report.json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)?;
    Ok(())
}
