//! The `audit` stage as a library call: loads the model (and reference, and the model before
//! the rewrite), picks members and non-members, runs the attacks, gathers the evidence of the
//! other stages and returns the report with its decision.

use std::path::Path;

use crate::error::StageResult;

use super::evidence::{
    deid_summary, file_hash, probe_evidence, utility, utility_failures, validity_reasons,
    vocabulary_summary,
};
use super::examples::{from_manifest, from_sets, Cut, Examples, Sampling};
use super::run::decide;
use super::run::run_attacks;
use super::spec::Examples as ExampleKind;
use super::AuditSpec;
use crate::artifact::file_sha256;
use crate::canary::exposure::{canary_exposure, CanaryGate};
use crate::eval::job::read_all;
use crate::mlm::runtime::MlmRuntime;
use crate::mlm::train::manifest::Manifest;
use crate::report::model::{
    DataSummary, Identity, ModelIdentity, Report, Reproducibility, SignOff, REPORT_SCHEMA,
};
use crate::vocab::EncodingReference;

/// Runs the audit of `spec` (read from `spec_path`) and returns its report.
pub fn run(spec: &AuditSpec, spec_path: &Path, title: &str, command: &str) -> StageResult<Report> {
    let model_spec = spec.model()?;
    let model = MlmRuntime::open_named(&model_spec.dir.display().to_string(), model_spec.device)?;
    let examples = load_examples(spec, &model)?;
    if examples.members.len() < 2 || examples.non_members.len() < 2 {
        return Err(crate::error::ValueError::new(format!(
            "too few examples to audit: {} members, {} non-members (at least 2 each, of {}+ words)",
            examples.members.len(),
            examples.non_members.len(),
            spec.data.min_words
        ))
        .into());
    }
    eprintln!(
        "audit: {} member and {} non-member examples from {} and {} documents",
        examples.members.len(),
        examples.non_members.len(),
        examples.member_documents,
        examples.non_member_documents
    );
    let open = |dir: &Path| MlmRuntime::open_named(&dir.display().to_string(), model_spec.device);
    let reference = match (model_spec.reference, spec.runs_reference_ratio()) {
        (Some(dir), true) => Some(open(dir)?),
        _ => None,
    };
    let attacks = run_attacks(spec, &examples, &model, reference.as_ref())?;

    let t = &spec.thresholds;
    let probe = spec
        .evidence
        .probe_metrics
        .as_deref()
        .map(|p| probe_evidence(p, t.max_name_like_share))
        .transpose()?;
    // The rewrite must leave ordinary words as the original encoded them: checked on the
    // held-out examples.
    let encoding = model_spec.original.map(|original| EncodingReference {
        original: original.to_path_buf(),
        texts: examples
            .non_members
            .iter()
            .map(|x| x.text.clone())
            .collect(),
    });
    let vocabulary = vocabulary_summary(&spec.evidence, model_spec.dir, encoding)?;
    let original = model_spec.original.map(open).transpose()?;
    let utility = utility(
        (&model, model_spec.dir),
        original.as_ref().zip(model_spec.original),
        &examples.members,
        &examples.non_members,
        spec.data.seed,
        spec.attacks.mask_prob,
    )?;

    let canaries = match (&spec.data.canaries, spec.runs_canaries()) {
        (Some(file), true) => {
            eprintln!(
                "audit: canary exposure among {} candidates each",
                spec.attacks.canary_candidates
            );
            Some(canary_exposure(
                &model,
                file,
                spec.attacks.canary_candidates,
                spec.data.seed,
                CanaryGate {
                    max_mean_exposure: t.max_mean_canary_exposure,
                    max_repeats: t.canary_gate_max_repeats,
                },
            )?)
        }
        _ => None,
    };

    let deid = deid_summary(&spec.evidence, t)?;
    let mut failures: Vec<String> = canaries.iter().flat_map(|c| c.reasons.clone()).collect();
    failures.extend(
        deid.iter()
            .flat_map(|d| d.residual.iter())
            .flat_map(|r| r.reasons.clone()),
    );
    failures.extend(probe.iter().flat_map(|p| p.reasons.clone()));
    if let Some(v) = &vocabulary {
        failures.extend(
            v.checks
                .iter()
                .filter(|c| !c.passed)
                .map(|c| format!("vocab check failed: {} ({})", c.name, c.detail)),
        );
    }
    failures.extend(utility_failures(&utility, t.max_utility_loss));
    let invalid = validity_reasons(&utility, t.min_gain_over_unigram);
    let decision = decide(&attacks, &invalid, &failures);

    Ok(Report {
        schema: REPORT_SCHEMA.into(),
        tool: format!("anonlm {}", env!("CARGO_PKG_VERSION")),
        title: title.into(),
        identity: Identity {
            spec: file_hash(spec_path)?,
            model: model_identity(model_spec.dir)?,
            reference: model_spec.reference.map(model_identity).transpose()?,
            data_files: [
                &spec.data.corpus,
                &spec.data.members,
                &spec.data.non_members,
            ]
            .into_iter()
            .flatten()
            .map(|p| file_hash(p))
            .collect::<StageResult<_>>()?,
        },
        data: DataSummary {
            unit: spec.data.unit,
            member_sentences: examples.members.len(),
            non_member_sentences: examples.non_members.len(),
            member_documents: examples.member_documents,
            non_member_documents: examples.non_member_documents,
            skipped_documents: examples.skipped_documents,
        },
        deid,
        vocabulary,
        attacks,
        canaries,
        probe,
        utility: Some(utility),
        thresholds: spec.thresholds.clone(),
        decision,
        reproducibility: Reproducibility {
            tool_version: env!("CARGO_PKG_VERSION").into(),
            seed: spec.data.seed,
            settings: serde_json::json!({
                "data": spec.data,
                "attacks": spec.attacks,
                "device": model_spec.device,
            }),
            command: command.into(),
        },
        sign_off: SignOff::blank(),
    })
}

fn load_examples(spec: &AuditSpec, model: &MlmRuntime) -> StageResult<Examples> {
    let d = &spec.data;
    let sampling = Sampling {
        max_per_set: d.max_per_set,
        min_words: d.min_words,
        seed: d.seed,
    };
    let manifest = match &d.corpus {
        Some(_) => {
            let path = match &d.manifest {
                Some(p) => p.clone(),
                None => spec.model()?.dir.join("manifest.json"),
            };
            Some((crate::probe::read_manifest(&path)?, path))
        }
        None => None,
    };
    let offsets = |text: &str| -> Result<Vec<(usize, usize)>, crate::error::ValueError> {
        model
            .tokenizer
            .inner
            .encode(text, false)
            .map(|e| e.get_offsets().to_vec())
            .map_err(|e| crate::error::ValueError::new(e.to_string()))
    };
    let cut = match d.examples {
        ExampleKind::Sentences => Cut::Sentences {
            room: model.max_tokens().saturating_sub(2),
            offsets: &offsets,
        },
        ExampleKind::Blocks => {
            let seq_len = d
                .block_tokens
                .or(manifest.as_ref().map(|(m, _): &(Manifest, _)| m.seq_len))
                .ok_or_else(|| {
                    crate::error::ValueError::new(
                        "[data] examples = \"blocks\" with two sets needs block_tokens",
                    )
                })?;
            if seq_len < 3 || seq_len > model.max_tokens() {
                return Err(crate::error::ValueError::new(format!(
                    "[data] block_tokens {seq_len} must lie between 3 and the model's {}",
                    model.max_tokens()
                ))
                .into());
            }
            Cut::Blocks {
                room: seq_len - 2,
                offsets: &offsets,
            }
        }
    };
    match (&d.corpus, &manifest, &d.members, &d.non_members) {
        (Some(corpus), Some((manifest, path)), _, _) => {
            let docs = read_all(corpus, "jsonl", None, None)?;
            from_manifest(&docs, manifest, &cut, &sampling).map_err(|e| {
                crate::error::ValueError::new(format!("{}: {e}", path.display())).into()
            })
        }
        (None, _, Some(m), Some(n)) => {
            let members = read_all(m, "jsonl", None, None)?;
            let non = read_all(n, "jsonl", None, None)?;
            Ok(from_sets(&members, &non, &cut, &sampling)?)
        }
        _ => unreachable!("checked when the spec was loaded"),
    }
}

fn model_identity(dir: &Path) -> StageResult<ModelIdentity> {
    let hash = |name: &str| -> StageResult<Option<String>> {
        let p = dir.join(name);
        if p.is_file() {
            Ok(Some(file_sha256(&p)?))
        } else {
            Ok(None)
        }
    };
    let corpus_digest = Manifest::read(dir).ok().map(|m| m.corpus_digest);
    Ok(ModelIdentity {
        dir: dir.display().to_string(),
        weights_sha256: hash("model.safetensors")?,
        tokenizer_sha256: hash("tokenizer.json")?,
        manifest_sha256: hash("manifest.json")?,
        corpus_digest,
    })
}
