//! `anonlm audit`: loads the spec, runs the audit stage ([`crate::audit::stage::run`]),
//! writes the report (`report.json`, schema `anonlm.report/1`, no text) and exits 1 unless the
//! gate passes.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, Result};

use crate::audit::run::Outcome;
use crate::audit::AuditSpec;
use crate::cli::AuditArgs;
use crate::report::model::Report;
use crate::report::write::{HTML_FILE, MARKDOWN_FILE};

/// The report file inside `--out`.
pub const REPORT_FILE: &str = "report.json";

pub fn run(args: AuditArgs) -> Result<ExitCode> {
    let spec = AuditSpec::load(&args.spec).map_err(|e| anyhow!(e))?;
    let out_file = args.out.join(REPORT_FILE);
    // Checked before the audit runs: report.json, report.md and report.html are one unit.
    for name in [REPORT_FILE, MARKDOWN_FILE, HTML_FILE] {
        let none = crate::fsio::Inputs::new();
        crate::fsio::check_dest(&args.out.join(name), false, args.overwrite.allowed, &none)?;
    }
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let report = crate::audit::stage::run(&spec, &args.spec, "Leakage audit", &command)?;
    crate::report::write_report(&report, &args.out, args.overwrite.allowed)?;
    print_summary(&report, &out_file);
    Ok(exit_code(report.decision.outcome))
}

/// 0 PASS, 1 FAIL or INVALID.
pub(crate) fn exit_code(outcome: Outcome) -> ExitCode {
    if outcome == Outcome::Pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn print_summary(report: &Report, out_file: &Path) {
    for a in &report.attacks {
        eprintln!(
            "  {:<28} AUC {:.3} [{:.3}, {:.3}]  ε ≥ {:.2}  {:?}",
            a.name,
            a.metrics.auc.value,
            a.metrics.auc.lower,
            a.metrics.auc.upper,
            a.metrics.epsilon_lower_bound,
            a.outcome
        );
    }
    let outcome = match report.decision.outcome {
        Outcome::Pass => "PASS",
        Outcome::Fail => "FAIL",
        Outcome::Invalid => "INVALID",
    };
    eprintln!("decision: {outcome}; {}", out_file.display());
    for r in &report.decision.reasons {
        eprintln!("  - {r}");
    }
}
