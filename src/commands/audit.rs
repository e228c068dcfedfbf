//! `anonlm audit`: loads the spec, the model (and reference), picks members and non-members,
//! runs the attacks, reads the probe evidence, writes `audit.json` (schema `anonlm.audit/1`,
//! no text) and exits 1 unless the gate passes.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};

use super::common::{file_sha256, write_bytes_atomic};
use super::eval::read_all;
use super::mlm::open_runtime;
use crate::audit::examples::{from_manifest, from_sets, Examples};
use crate::audit::run::{decide, run_attacks, Outcome};
use crate::audit::AuditSpec;
use crate::cli::AuditArgs;
use crate::mlm::train::data::sha256_hex;

/// Version of audit.json; bump on any incompatible change.
pub const SCHEMA: &str = "anonlm.audit/1";

pub fn run(args: AuditArgs) -> Result<ExitCode> {
    let spec = AuditSpec::load(&args.spec).map_err(|e| anyhow!(e))?;
    let out_file = args.out.join("audit.json");
    if out_file.exists() && !args.overwrite {
        bail!(
            "{} exists (pass --overwrite to replace it)",
            out_file.display()
        );
    }
    let examples = load_examples(&spec)?;
    if examples.members.len() < 2 || examples.non_members.len() < 2 {
        bail!(
            "too few sentences to audit: {} members, {} non-members (at least 2 each, of {}+ words)",
            examples.members.len(),
            examples.non_members.len(),
            spec.data.min_words
        );
    }
    eprintln!(
        "audit: {} member and {} non-member sentences from {} and {} documents",
        examples.members.len(),
        examples.non_members.len(),
        examples.member_documents,
        examples.non_member_documents
    );
    let model = open_runtime(&spec.model.dir.display().to_string(), &spec.model.device)?;
    let reference = match (&spec.model.reference, spec.runs_reference_ratio()) {
        (Some(dir), true) => Some(open_runtime(
            &dir.display().to_string(),
            &spec.model.device,
        )?),
        _ => None,
    };
    let attacks = run_attacks(&spec, &examples, &model, reference.as_ref())?;
    let (probe, probe_failures) = probe_evidence(&spec)?;
    let decision = decide(&attacks, &probe_failures);

    let report = json!({
        "schema": SCHEMA,
        "tool": format!("anonlm {}", env!("CARGO_PKG_VERSION")),
        "identity": {
            "spec": {"path": args.spec.display().to_string(), "sha256": file_sha256(&args.spec)?},
            "model": model_identity(&spec.model.dir)?,
            "reference": spec.model.reference.as_deref().map(model_identity).transpose()?,
        },
        "data": {
            "unit": spec.data.unit,
            "member_sentences": examples.members.len(),
            "non_member_sentences": examples.non_members.len(),
            "member_documents": examples.member_documents,
            "non_member_documents": examples.non_member_documents,
            "skipped_documents": examples.skipped_documents,
        },
        "attacks": attacks,
        "probe_evidence": probe,
        "thresholds": spec.thresholds,
        "decision": decision,
        "reproducibility": {
            "seed": spec.data.seed,
            "settings": {"data": spec.data, "attacks": spec.attacks, "device": spec.model.device},
        },
    });
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut text = serde_json::to_string_pretty(&report)?;
    text.push('\n');
    write_bytes_atomic(&out_file, text.as_bytes(), args.overwrite)?;

    for a in &attacks {
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
    let outcome = match decision.outcome {
        Outcome::Pass => "PASS",
        Outcome::Fail => "FAIL",
        Outcome::Invalid => "INVALID",
    };
    eprintln!("decision: {outcome}; {}", out_file.display());
    for r in &decision.reasons {
        eprintln!("  - {r}");
    }
    Ok(if decision.outcome == Outcome::Pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn load_examples(spec: &AuditSpec) -> Result<Examples> {
    let d = &spec.data;
    match (&d.corpus, &d.members, &d.non_members) {
        (Some(corpus), _, _) => {
            let manifest_path = d
                .manifest
                .clone()
                .unwrap_or_else(|| spec.model.dir.join("manifest.json"));
            let manifest = crate::probe::read_manifest(&manifest_path)?;
            let docs = read_all(corpus, "jsonl", None, None)?;
            from_manifest(&docs, &manifest, d.max_per_set, d.min_words, d.seed)
                .map_err(|e| anyhow!("{}: {e}", manifest_path.display()))
        }
        (None, Some(m), Some(n)) => {
            let members = read_all(m, "jsonl", None, None)?;
            let non = read_all(n, "jsonl", None, None)?;
            Ok(from_sets(
                &members,
                &non,
                d.max_per_set,
                d.min_words,
                d.seed,
            ))
        }
        _ => unreachable!("checked when the spec was loaded"),
    }
}

/// The probe metrics JSON named by the spec, and the sets above the name-like threshold.
fn probe_evidence(spec: &AuditSpec) -> Result<(Option<Value>, Vec<String>)> {
    let Some(path) = &spec.evidence.probe_metrics else {
        return Ok((None, Vec::new()));
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    if v["schema"] != "anonlm.probe-metrics/1" {
        bail!("{}: not the output of probe metrics --out", path.display());
    }
    let max = spec.thresholds.max_name_like_share;
    let failures = v["sets"]
        .as_array()
        .map(|sets| {
            sets.iter()
                .filter(|s| {
                    s["name_like_predictions"]["estimate"]
                        .as_f64()
                        .is_some_and(|e| e > max)
                })
                .map(|s| {
                    format!(
                        "probe set {}: name-like share {:.4} > {max}",
                        s["set"].as_str().unwrap_or("?"),
                        s["name_like_predictions"]["estimate"]
                            .as_f64()
                            .unwrap_or(f64::NAN)
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((
        Some(
            json!({"path": path.display().to_string(), "sha256": sha256_hex(text.as_bytes()), "sets": v["sets"]}),
        ),
        failures,
    ))
}

fn model_identity(dir: &Path) -> Result<Value> {
    let hash = |name: &str| -> Result<Option<String>> {
        let p = dir.join(name);
        if p.is_file() {
            Ok(Some(file_sha256(&p)?))
        } else {
            Ok(None)
        }
    };
    Ok(json!({
        "dir": dir.display().to_string(),
        "weights_sha256": hash("model.safetensors")?,
        "tokenizer_sha256": hash("tokenizer.json")?,
        "manifest_sha256": hash("manifest.json")?,
    }))
}
