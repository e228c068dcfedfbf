//! The `eval` stage as a library call: span scores against gold, residual PII after deid,
//! name recall on NER gold and the multi-pass risk analysis, written as one typed result
//! ([`EvalFile`]) that the audit reads back.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::names::{NameCounter, NameReport};
use super::ner_gold::{read_gold, GoldFormat};
use super::{
    evaluate, residual_report, risk_svg, EvalOptions, EvalReport, Replacement, ResidualReport,
    RiskCounter, RiskReport,
};
use crate::artifact::Artifact;
use crate::corpus::source::{open_documents, resolve_format, InputSpans};
use crate::corpus::{Document, ReadOptions};
use crate::deid::apply::{Deidentifier, OpRecord};
use crate::deid::policy::Policy;
use crate::error::{StageContext, StageResult, ValueError};
use crate::fsio::Inputs;
use crate::keys::Key;
use crate::labels::Label;
use crate::recognize::settings::RecognizerSettings;

/// Everything one evaluation needs.
#[derive(Clone, Debug)]
pub struct EvalSettings {
    pub gold: PathBuf,
    /// A format name, or `auto`.
    pub format: String,
    pub label_map: Option<String>,
    pub pred: Option<PathBuf>,
    /// Default: the gold's format.
    pub pred_format: Option<String>,
    pub pred_label_map: Option<String>,
    pub exclude: Vec<Label>,
    pub ops_log: Option<PathBuf>,
    pub deid: Option<PathBuf>,
    pub max_doc_bytes: Option<usize>,
    /// Name and place recall of these recognizers on NER gold (alone: no other part runs).
    pub names: Option<RecognizerSettings>,
    pub risk: Option<RiskSettings>,
    pub json: Option<PathBuf>,
    pub overwrite: bool,
}

/// The multi-pass risk analysis: the gold de-identified in memory, pass by pass.
#[derive(Clone, Debug)]
pub struct RiskSettings {
    pub recognizers: RecognizerSettings,
    pub policy: Policy,
    pub key_file: Option<PathBuf>,
    pub passes: usize,
    pub svg: Option<PathBuf>,
}

/// The parts of an evaluation that ran.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EvalParts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<NameReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans: Option<EvalReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual: Option<ResidualReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<RiskReport>,
}

/// `eval --json`: what the audit reads as de-identification evidence.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EvalFile {
    pub schema: String,
    pub tool: String,
    pub version: String,
    pub report: EvalParts,
}

impl Artifact for EvalFile {
    const SCHEMA: &'static str = "anonlm.eval/1";
    fn schema(&self) -> &str {
        &self.schema
    }
}

/// Every document of a corpus, spans kept (through the label map when given).
pub fn read_all(
    path: &Path,
    format: &str,
    max: Option<usize>,
    map: Option<&str>,
) -> StageResult<Vec<Document>> {
    let format = resolve_format(format, path)?;
    let max = max.unwrap_or(ReadOptions::DEFAULT_MAX_DOC_BYTES);
    let docs = open_documents(path, format, max, map, InputSpans::Keep)?;
    Ok(docs.collect::<Result<Vec<_>, _>>()?)
}

/// Runs the parts the settings ask for and writes `json` (and the risk SVG) when given;
/// outputs are checked before any work, and never land on an input.
pub fn run(s: &EvalSettings) -> StageResult<EvalFile> {
    let opts = EvalOptions {
        exclude: s.exclude.clone(),
    };
    let inputs: Vec<&Path> = [
        Some(&s.gold),
        s.pred.as_ref(),
        s.ops_log.as_ref(),
        s.deid.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|p| p.as_path())
    .collect();
    let inputs = Inputs::of(inputs.iter().copied());
    let svg = s.risk.as_ref().and_then(|r| r.svg.as_deref());
    for out in [s.json.as_deref(), svg].into_iter().flatten() {
        crate::fsio::check_dest(out, false, s.overwrite, &inputs)?;
    }
    let mut parts = EvalParts::default();
    if let Some(recognizers) = &s.names {
        parts.names = Some(name_recall(s, recognizers)?);
        return finish(s, parts, &inputs);
    }
    let gold = read_all(&s.gold, &s.format, s.max_doc_bytes, s.label_map.as_deref())
        .stage_context("reading gold")?;
    if let Some(pred_path) = &s.pred {
        let pred_format = s.pred_format.as_deref().unwrap_or(&s.format);
        let pred = read_all(
            pred_path,
            pred_format,
            s.max_doc_bytes,
            s.pred_label_map.as_deref(),
        )
        .stage_context("reading predictions")?;
        parts.spans = Some(evaluate(&gold, &pred, &opts)?);
    }
    if s.ops_log.is_some() || s.deid.is_some() {
        let replaced = s
            .ops_log
            .as_deref()
            .map(|p| crate::opslog::read_replaced_ranges(p, &gold))
            .transpose()?;
        let output = match &s.deid {
            Some(p) => Some(read_all(p, "auto", s.max_doc_bytes, None)?),
            None => None,
        };
        let generated = match (&s.ops_log, &output) {
            (Some(log), Some(out)) => Some(crate::opslog::read_generated_ranges(log, out)?),
            _ => None,
        };
        parts.residual = Some(residual_report(
            &gold,
            replaced.as_ref(),
            output.as_deref(),
            generated.as_ref(),
            &opts,
        )?);
    }
    if let Some(r) = &s.risk {
        let risk = risk_analysis(r, &gold, &opts)?;
        if let Some(path) = &r.svg {
            crate::fsio::write_file(path, risk_svg(&risk).as_bytes(), s.overwrite, &inputs)?;
        }
        parts.risk = Some(risk);
    }
    if parts.spans.is_none() && parts.residual.is_none() && parts.risk.is_none() {
        return Err(ValueError::new(
            "nothing to evaluate: give --pred, --ops-log / --deid for residual PII, or --risk",
        )
        .into());
    }
    finish(s, parts, &inputs)
}

fn finish(s: &EvalSettings, report: EvalParts, inputs: &Inputs) -> StageResult<EvalFile> {
    let file = EvalFile {
        schema: EvalFile::SCHEMA.into(),
        tool: "anonlm".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        report,
    };
    if let Some(path) = &s.json {
        crate::fsio::write_file(path, &crate::artifact::to_bytes(&file), s.overwrite, inputs)?;
    }
    Ok(file)
}

/// Reads NER gold, runs the recognizers on every document (in parallel) and counts; nothing
/// of the text leaves this function.
fn name_recall(s: &EvalSettings, recognizers: &RecognizerSettings) -> StageResult<NameReport> {
    let format = match s.format.as_str() {
        "auto" => GoldFormat::detect(&s.gold),
        f => f.parse::<GoldFormat>()?,
    };
    let docs = read_gold(&s.gold, format).stage_context("reading NER gold")?;
    let pipeline = recognizers.pipeline()?;
    let preds: Vec<_> = docs
        .par_iter()
        .map(|d| pipeline.recognize(&d.text).1)
        .collect();
    let mut counter = NameCounter::default();
    for (d, p) in docs.iter().zip(&preds) {
        counter.add(d, p);
    }
    Ok(counter.finish())
}

/// The replacements of a multi-pass run, in the original text's coordinates (the ops' own
/// `start`/`end`, as the ops log records them; together they cover `MultiPassOutput::replaced`).
fn replacements_of(ops: &[OpRecord]) -> Vec<Replacement> {
    ops.iter()
        .filter(|op| op.start < op.end)
        .map(|op| Replacement {
            start: op.start,
            end: op.end,
            label: Label {
                category: op.label,
                subtype: op.subtype,
            },
            pass: op.pass,
        })
        .collect()
}

/// De-identifies every gold text with `passes` passes and counts, after each pass, what is
/// left of the gold entities (the Hungarian study's §3.5 analysis). Documents run in
/// parallel; nothing is written.
fn risk_analysis(
    r: &RiskSettings,
    gold: &[Document],
    opts: &EvalOptions,
) -> StageResult<RiskReport> {
    let passes = r.passes.max(1);
    let pipeline = r.recognizers.pipeline()?;
    let policy_source = r.policy.source.clone();
    let key = r
        .key_file
        .as_deref()
        .map(Key::from_file)
        .transpose()
        .stage_context("loading the key file")?;
    let deid = Deidentifier::new(r.policy.clone(), key, 0)?;
    let replacements: Vec<Vec<Replacement>> = gold
        .par_iter()
        .map(|doc| {
            let lang = pipeline.lang_for(&doc.text);
            let out = deid.run_passes(&doc.id, lang, None, &doc.text, passes, |t| {
                pipeline.recognize_as(t, lang)
            });
            replacements_of(&out.ops)
        })
        .collect();
    let mut counter = RiskCounter::new(passes, opts);
    for (doc, reps) in gold.iter().zip(&replacements) {
        counter.add(doc, reps)?;
    }
    Ok(counter.finish(&policy_source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deid::policy::Policy;
    use crate::lang::Lang;

    /// Bytes covered by `ranges`, one flag per byte of a text of `len` bytes.
    fn covered(len: usize, ranges: impl Iterator<Item = (usize, usize)>) -> Vec<bool> {
        let mut v = vec![false; len];
        for (s, e) in ranges {
            v[s..e].iter_mut().for_each(|b| *b = true);
        }
        v
    }

    #[test]
    fn ops_up_to_pass_k_cover_what_a_k_pass_run_replaces() {
        let text = "Dr. Ádám Szabó called. Szabó will call back; ring Kovács in Pécs.";
        // Pass 1 finds the full name and the city; later passes the lone surnames too (as a
        // per-document name cache would), also inside text pass 1 wrote.
        let recognize = |calls: &std::cell::Cell<usize>, t: &str| {
            calls.set(calls.get() + 1);
            let words: &[(&str, &str)] = if calls.get() == 1 {
                &[("Ádám Szabó", "NAME/DOCTOR"), ("Pécs", "LOCATION/CITY")]
            } else {
                &[
                    ("Szabó", "NAME/DOCTOR"),
                    ("Kovács", "NAME/PATIENT"),
                    ("NAME", "NAME"),
                ]
            };
            crate::deid::passes::tests::every_occurrence(t, words)
        };
        let deid = Deidentifier::new(Policy::default(), None, 0).unwrap();
        let run = |passes| {
            let calls = std::cell::Cell::new(0);
            deid.run_passes("d", Lang::Hu, None, text, passes, |t| recognize(&calls, t))
        };
        let two = run(2);
        let reps = replacements_of(&two.ops);
        assert!(
            reps.iter().any(|r| r.pass == 2),
            "pass 2 replaced something"
        );
        for k in 1..=2 {
            let k_run = run(k);
            let by_ops = covered(
                text.len(),
                reps.iter()
                    .filter(|r| r.pass <= k)
                    .map(|r| (r.start, r.end)),
            );
            assert_eq!(
                by_ops,
                covered(text.len(), k_run.replaced.iter().copied()),
                "pass {k}"
            );
        }
        let labels: Vec<(&str, String)> = reps
            .iter()
            .map(|r| (&text[r.start..r.end], r.label.to_string()))
            .collect();
        assert!(
            labels.contains(&("Pécs", "LOCATION/CITY".to_string())),
            "{labels:?}"
        );
        assert!(
            labels.contains(&("Kovács", "NAME/PATIENT".to_string())),
            "{labels:?}"
        );
    }
}
