//! `anonlm report render` (report.md and report.html from a report JSON) and `anonlm report
//! diff` (what changed between two reports; informs, never gates: exit 0 when both parse).

use std::process::ExitCode;

use anyhow::{Context, Result};

use super::common::write_bytes_atomic;
use crate::cli::{ReportCommand, ReportDiffArgs, ReportRenderArgs};
use crate::report::diff::{diff, to_text};
use crate::report::write::{read_report, write_renderings, HTML_FILE, MARKDOWN_FILE};

pub fn run(cmd: ReportCommand) -> Result<ExitCode> {
    match cmd {
        ReportCommand::Render(a) => render(a),
        ReportCommand::Diff(a) => run_diff(a),
    }
}

fn render(args: ReportRenderArgs) -> Result<ExitCode> {
    let report = read_report(&args.report)?;
    write_renderings(&report, &args.out, args.overwrite.allowed)?;
    eprintln!(
        "report render: {} and {} in {}",
        MARKDOWN_FILE,
        HTML_FILE,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn run_diff(args: ReportDiffArgs) -> Result<ExitCode> {
    let old = read_report(&args.old)?;
    let new = read_report(&args.new)?;
    let d = diff(
        &old,
        &new,
        &args.old.display().to_string(),
        &args.new.display().to_string(),
    );
    let text = if args.json {
        let mut t = serde_json::to_string_pretty(&d)?;
        t.push('\n');
        t
    } else {
        to_text(&d)
    };
    match &args.out {
        Some(path) => {
            write_bytes_atomic(
                path,
                text.as_bytes(),
                args.overwrite.allowed,
                &[&args.old, &args.new],
            )
            .with_context(|| format!("writing {}", path.display()))?;
            eprintln!("report diff: {} change(s); {}", d.changes, path.display());
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
