//! The `probe metrics` stage as a library call: the figures of `probe run` output per set
//! (name-like share with an exact interval, slots with any, best rank, recoveries), written as
//! the typed [`ProbeMetricsFile`] that the audit reads, with the gate on the name-like share.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    probe_metrics, read_probe_results, MetricsSettings, ProbeResult, RankedPrediction, Recovery,
    SetMetrics,
};
use crate::artifact::{file_sha256, Artifact};
use crate::error::{StageContext, StageResult, ValueError};
use crate::fsio::Inputs;
use crate::tokenizer::{self, ModelTokenizer};
use crate::vocab::evidence::{NameEvidence, NameEvidenceSettings};
use crate::vocab::{read_review, Decision};

#[derive(Clone, Debug)]
pub struct ProbeMetricsSettings {
    /// `probe run` outputs of the model.
    pub probe: Vec<PathBuf>,
    pub model: PathBuf,
    /// A review file whose decisions take precedence over the judge's.
    pub review: Option<PathBuf>,
    pub evidence: NameEvidenceSettings,
    /// `probe run --originals` outputs of a reference model on the same slots.
    pub reference_probe: Vec<PathBuf>,
    pub top_k: Option<usize>,
    pub out: Option<PathBuf>,
    pub overwrite: bool,
    /// The gate: the largest name-like share a set may have.
    pub max_name_like_share: Option<f64>,
}

/// A file and its SHA-256.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileIdentity {
    pub path: String,
    pub sha256: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelIdentity {
    pub dir: String,
    pub tokenizer_sha256: String,
}

/// How the predicted tokens were judged (counts, no tokens).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Judgement {
    pub review: Option<String>,
    pub evidence: serde_json::Value,
    pub distinct_tokens: usize,
    pub decided_by_review: usize,
    pub decided_automatically: usize,
    pub name_like_by_review: usize,
    pub name_like_automatically: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Gate {
    pub max_name_like_share: f64,
    pub passed: bool,
    /// The sets above the maximum.
    #[serde(default)]
    pub exceeded: Vec<String>,
}

/// `probe metrics --out`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProbeMetricsFile {
    pub schema: String,
    pub tool: String,
    pub model: ModelIdentity,
    pub probe_files: Vec<FileIdentity>,
    pub reference_probe_files: Vec<FileIdentity>,
    pub top_k: Option<usize>,
    pub judgement: Judgement,
    pub sets: Vec<SetMetrics>,
    pub gate: Option<Gate>,
}

impl Artifact for ProbeMetricsFile {
    /// Bump on any incompatible change.
    const SCHEMA: &'static str = "anonlm.probe-metrics/1";
    fn schema(&self) -> &str {
        &self.schema
    }
}

/// The file, and what the command shows beside it (the decisions and the results, for
/// `--show-tokens`).
pub struct ProbeMetricsOutcome {
    pub file: ProbeMetricsFile,
    pub decided: BTreeMap<u32, Decided>,
    pub results: Vec<ProbeResult>,
}

pub fn run(args: &ProbeMetricsSettings) -> StageResult<ProbeMetricsOutcome> {
    if args.top_k == Some(0) {
        return Err(ValueError::new("--top-k must be at least 1").into());
    }
    if let Some(max) = args.max_name_like_share {
        if !(0.0..=1.0).contains(&max) {
            return Err(ValueError::new(format!(
                "--max-name-like-share {max} is not a share between 0 and 1"
            ))
            .into());
        }
    }
    if let Some(out) = &args.out {
        crate::fsio::check_dest(out, false, args.overwrite, &Inputs::of(inputs_of(args)))?;
    }
    let tok = tokenizer::load_dir(&args.model)
        .with_stage_context(|| format!("loading the tokenizer of {}", args.model.display()))?;
    let mut results = Vec::new();
    for path in &args.probe {
        let file = read_probe_results(path)?;
        check_against_model(path, &file, &tok, &args.model)?;
        results.extend(file);
    }
    if results.is_empty() {
        return Err(
            ValueError::new(format!("no probe slots in {}", join_paths(&args.probe))).into(),
        );
    }
    let reviewed = match &args.review {
        Some(path) => read_review(path)?
            .into_iter()
            .map(|r| (r.id, (r.token, r.decision)))
            .collect(),
        None => HashMap::new(),
    };
    let evidence = NameEvidence::load(&tok, &args.evidence)?;
    let judge = evidence.judge();

    // One decision per vocabulary entry: the review's when it lists the same id and string
    // (a rewritten model keeps the id under a new string: judged afresh), else the judge's.
    let decided: RefCell<BTreeMap<u32, Decided>> = RefCell::new(BTreeMap::new());
    let name_like = |p: &RankedPrediction| -> bool {
        let mut cache = decided.borrow_mut();
        let d = cache
            .entry(p.id)
            .or_insert_with(|| match reviewed.get(&p.id) {
                Some((token, decision)) if *token == p.token => Decided {
                    name_like: *decision == Decision::Remove,
                    by_review: true,
                    token: p.token.clone(),
                },
                _ => Decided {
                    name_like: judge.assess(p.id, &p.token).remove,
                    by_review: false,
                    token: p.token.clone(),
                },
            });
        d.name_like
    };
    let reference = read_reference(&args.reference_probe)?;
    let sets = probe_metrics(
        &results,
        &MetricsSettings {
            top_k: args.top_k,
            name_like: &name_like,
            reference: &reference,
        },
    );
    let decided = decided.into_inner();

    let by_review = decided.values().filter(|d| d.by_review).count();
    let name_like_by = |review: bool| {
        decided
            .values()
            .filter(|d| d.by_review == review && d.name_like)
            .count()
    };
    let exceeded: Vec<&SetMetrics> = match args.max_name_like_share {
        Some(max) => sets
            .iter()
            .filter(|s| s.name_like_predictions.estimate.is_some_and(|e| e > max))
            .collect(),
        None => Vec::new(),
    };
    let file = ProbeMetricsFile {
        schema: ProbeMetricsFile::SCHEMA.into(),
        tool: format!("anonlm {}", env!("CARGO_PKG_VERSION")),
        model: ModelIdentity {
            dir: args.model.display().to_string(),
            tokenizer_sha256: file_sha256(&args.model.join("tokenizer.json"))?,
        },
        probe_files: described(&args.probe)?,
        reference_probe_files: described(&args.reference_probe)?,
        top_k: args.top_k,
        judgement: Judgement {
            review: args.review.as_ref().map(|p| p.display().to_string()),
            evidence: evidence.summary(),
            distinct_tokens: decided.len(),
            decided_by_review: by_review,
            decided_automatically: decided.len() - by_review,
            name_like_by_review: name_like_by(true),
            name_like_automatically: name_like_by(false),
        },
        gate: args.max_name_like_share.map(|max| Gate {
            max_name_like_share: max,
            passed: exceeded.is_empty(),
            exceeded: exceeded.iter().map(|s| s.set.clone()).collect(),
        }),
        sets: sets.clone(),
    };
    if let Some(out) = &args.out {
        crate::fsio::write_file(
            out,
            &crate::artifact::to_bytes(&file),
            args.overwrite,
            &Inputs::of(inputs_of(args)),
        )?;
    }
    Ok(ProbeMetricsOutcome {
        file,
        decided,
        results,
    })
}

/// The decision on one predicted vocabulary entry.
#[derive(Clone, Debug)]
pub struct Decided {
    pub name_like: bool,
    pub by_review: bool,
    pub token: String,
}

/// Every prediction must name this model's vocabulary entry at its id: a run of another model
/// (or of the model before its rewrite) would otherwise be judged on the wrong strings.
fn check_against_model(
    path: &Path,
    results: &[ProbeResult],
    tok: &ModelTokenizer,
    model: &Path,
) -> StageResult<()> {
    for r in results {
        for p in &r.predictions {
            if tok.inner.id_to_token(p.id).as_deref() != Some(p.token.as_str()) {
                return Err(ValueError::new(format!(
                    "{}: slot {}: prediction id {} is another vocabulary entry in {} (was the run made with another model?)",
                    path.display(),
                    crate::corpus::show_id(&r.slot_id),
                    p.id,
                    model.display()
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// Recovery figures of reference runs by slot id; a run without any is refused.
fn read_reference(paths: &[PathBuf]) -> StageResult<HashMap<String, Recovery>> {
    let mut out = HashMap::new();
    for path in paths {
        let before = out.len();
        for r in read_probe_results(path)? {
            if let Some(rec) = r.recovery {
                if out.insert(r.slot_id.clone(), rec).is_some() {
                    return Err(ValueError::new(format!(
                        "{}: slot {} appears twice in the reference runs",
                        path.display(),
                        crate::corpus::show_id(&r.slot_id)
                    ))
                    .into());
                }
            }
        }
        if out.len() == before {
            return Err(ValueError::new(format!(
                "{}: no recovery figures (run the reference model with probe run --originals)",
                path.display()
            ))
            .into());
        }
    }
    Ok(out)
}

fn described(paths: &[PathBuf]) -> StageResult<Vec<FileIdentity>> {
    paths
        .iter()
        .map(|p| {
            Ok(FileIdentity {
                path: p.display().to_string(),
                sha256: file_sha256(p)?,
            })
        })
        .collect()
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The files a `probe metrics` run reads, which its output must not replace.
fn inputs_of(args: &ProbeMetricsSettings) -> Vec<&Path> {
    let mut inputs: Vec<&Path> = args
        .probe
        .iter()
        .chain(&args.reference_probe)
        .map(PathBuf::as_path)
        .collect();
    inputs.extend(args.review.as_deref());
    inputs.push(&args.model);
    inputs
}
