//! The `deid` stage as a library call: recognize and replace PHI over a corpus, writing the
//! de-identified corpus, its ops log and its stats as one unit (all published, or none).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::apply::Deidentifier;
use super::policy::Policy;
use super::stats::DeidStats;
use crate::artifact::Artifact;
use crate::corpus::source::{input_size, CorpusInput, InputSpans};
use crate::corpus::{open_output, prepare, Document, Format, OutputTarget, Prepared, WriteOptions};
use crate::engine::{process_stream, BatchLimits};
use crate::error::{StageContext, StageError, StageResult};
use crate::fsio::{Inputs, Kind, OutputSet};
use crate::keys::Key;
use crate::opslog::OpsLogLine;
use crate::progress;
use crate::recognize::settings::RecognizerSettings;
use crate::span::Entity;

/// The recognizer name the ops log gives to spans taken from the input (`use_input_spans`).
const INPUT_SPAN_SOURCE: &str = "input";

/// Everything one `deid` run needs.
#[derive(Clone, Debug)]
pub struct DeidSettings {
    pub input: CorpusInput,
    pub recognizers: RecognizerSettings,
    pub out: PathBuf,
    /// Default: the input's format.
    pub out_format: Option<Format>,
    pub overwrite: bool,
    pub policy: Policy,
    pub key_file: Option<PathBuf>,
    pub seed: u64,
    pub passes: usize,
    /// Default: next to `out` as `<out>.ops.jsonl` (none when writing to stdout).
    pub ops_log: Option<PathBuf>,
    /// Default: next to `out` as `<out>.stats.json` (none when writing to stdout).
    pub stats: Option<PathBuf>,
    /// Metadata key holding the patient id (per-patient date shifts); default: the doc id.
    pub patient_key: Option<String>,
    /// Also replace the spans already in the input.
    pub use_input_spans: bool,
    pub quiet: bool,
}

/// The stats file of a run (`<out>.stats.json`): what the audit reads as evidence.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeidStatsFile {
    pub schema: String,
    pub tool: String,
    pub version: String,
    pub documents: u64,
    pub input_bytes: u64,
    pub seconds: f64,
    pub policy: String,
    pub passes: usize,
    pub seed: u64,
    pub key_fingerprint: Option<String>,
    pub peak_rss_bytes: Option<u64>,
    pub stats: DeidStats,
}

impl Artifact for DeidStatsFile {
    const SCHEMA: &'static str = "anonlm.deid-stats/1";
    fn schema(&self) -> &str {
        &self.schema
    }
}

/// What a finished run reports back.
#[derive(Clone, Debug)]
pub struct DeidSummary {
    pub stats: DeidStatsFile,
    pub seconds: f64,
}

/// A built-in policy name, or a TOML file (a name ending in `.toml` or an existing file).
pub fn load_policy(spec: &str) -> StageResult<Policy> {
    Ok(if spec.ends_with(".toml") || Path::new(spec).is_file() {
        Policy::from_file(spec)?
    } else {
        Policy::builtin(spec)?
    })
}

/// `out.jsonl` → `out.ops.jsonl`; a directory `out` → `out.ops.jsonl`.
fn sibling(out: &Path, suffix: &str) -> PathBuf {
    let stem = match out.extension().and_then(|e| e.to_str()) {
        Some("jsonl" | "txt" | "conll" | "iob" | "json") => out.with_extension(""),
        _ => out.to_path_buf(),
    };
    PathBuf::from(format!("{}{suffix}", stem.display()))
}

/// Peak resident memory of this process (Linux), for the run summary and the benchmark.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// One document's outcome, encoded on the worker thread so the writing thread only copies.
struct DocResult {
    doc: Prepared,
    /// The ops-log line, JSON with its newline.
    log_line: Vec<u8>,
    stats: DeidStats,
    input_bytes: usize,
}

pub fn run(s: &DeidSettings) -> StageResult<DeidSummary> {
    let started = Instant::now();
    let in_format = s.input.resolved_format()?;
    let out_format = s.out_format.unwrap_or(in_format);
    let policy = s.policy.clone();
    let key = s
        .key_file
        .as_deref()
        .map(Key::from_file)
        .transpose()
        .stage_context("loading the key file")?;
    let key_fingerprint = key.as_ref().map(Key::fingerprint);
    let policy_source = policy.source.clone();
    let deid = Deidentifier::new(policy, key, s.seed)?;
    let pipeline = s.recognizers.pipeline()?;

    let to_stdout = crate::corpus::input::is_stdio(&s.out);
    let ops_path = s
        .ops_log
        .clone()
        .or_else(|| (!to_stdout).then(|| sibling(&s.out, ".ops.jsonl")));
    let stats_path = s
        .stats
        .clone()
        .or_else(|| (!to_stdout).then(|| sibling(&s.out, ".stats.json")));
    // Every output of the run is claimed (checked and locked) before any work, and published
    // together at the end: a failure or a concurrent run leaves no partial set behind.
    let input_is_dir = s.input.path.is_dir();
    let main_kind = if OutputTarget::wants_dir(out_format, input_is_dir) {
        Kind::Dir
    } else {
        Kind::File
    };
    let mut claims = vec![(s.out.as_path(), main_kind)];
    claims.extend(
        [&ops_path, &stats_path]
            .into_iter()
            .flatten()
            .map(|p| (p.as_path(), Kind::File)),
    );
    let mut inputs = Inputs::of([&s.input.path]);
    if let Some(k) = &s.key_file {
        inputs.add(k);
    }
    let set = OutputSet::claim(&claims, s.overwrite, inputs)?;
    let docs = s.input.documents(
        in_format,
        if s.use_input_spans {
            InputSpans::Keep
        } else {
            InputSpans::Ignore
        },
    )?;
    let target = OutputTarget::in_set(&set, &s.out, out_format, input_is_dir)?;
    let mut writer = open_output(out_format, target, &WriteOptions::default())?;
    let mut ops_target = ops_path
        .as_deref()
        .map(|p| OutputTarget::in_set(&set, p, Format::Jsonl, false))
        .transpose()?;
    let mut stats_target = stats_path
        .as_deref()
        .map(|p| OutputTarget::in_set(&set, p, Format::Jsonl, false))
        .transpose()?;

    let bar = progress::bar(input_size(&s.input.path), s.quiet);
    let mut stats = DeidStats::default();
    let mut input_bytes = 0usize;
    let passes = s.passes.max(1);
    let patient_key = s.patient_key.as_deref();
    let n_docs = process_stream::<_, StageError, _, _, _>(
        docs,
        BatchLimits::default(),
        |doc| {
            let lang = pipeline.lang_for(&doc.text);
            let patient = patient_key
                .and_then(|k| doc.meta.get(k))
                .and_then(Value::as_str)
                .map(str::to_string);
            let given: Vec<Entity> = if s.use_input_spans {
                // The input's `source` field is free text that the ops log would copy: the
                // ops log names such spans only as coming from the input.
                doc.entities
                    .iter()
                    .map(|e| Entity {
                        source: INPUT_SPAN_SOURCE.into(),
                        ..e.clone()
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let first_pass = std::cell::Cell::new(true);
            let out = deid.run_passes(&doc.id, lang, patient.as_deref(), &doc.text, passes, |t| {
                let mut found = pipeline.recognize_as(t, lang);
                if first_pass.replace(false) && !given.is_empty() {
                    found.extend(given.iter().cloned());
                    found = crate::span::resolve_overlaps(found);
                }
                found
            });
            let log = OpsLogLine::new(
                &doc.id,
                lang.code(),
                out.passes_run,
                &doc.text,
                &out.text,
                out.ops.clone(),
            );
            let entities = out
                .ops
                .iter()
                .map(|op| {
                    let label = crate::labels::Label {
                        category: op.label,
                        subtype: op.subtype,
                    };
                    Entity::new(op.out_start, op.out_end, label, op.operator.clone(), 1.0)
                })
                .collect();
            let mut meta = doc.meta;
            meta.insert("lang".into(), Value::from(lang.code()));
            let input_bytes = doc.text.len();
            let doc = Document {
                id: doc.id,
                text: out.text,
                entities,
                meta,
            };
            let mut doc_stats = DeidStats::default();
            doc_stats.add_document(&log.ops);
            let mut log_line = serde_json::to_vec(&log).expect("ops-log lines serialize");
            log_line.push(b'\n');
            DocResult {
                doc: prepare(out_format, doc),
                log_line,
                stats: doc_stats,
                input_bytes,
            }
        },
        |r| {
            bar.inc(r.input_bytes as u64);
            input_bytes += r.input_bytes;
            stats.merge(&r.stats);
            writer.write_prepared(r.doc)?;
            if let Some(t) = ops_target.as_mut() {
                t.stream().expect("file target").write_all(&r.log_line)?;
            }
            Ok(())
        },
    )?;
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    let summary = DeidStatsFile {
        schema: DeidStatsFile::SCHEMA.into(),
        tool: "anonlm".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        documents: n_docs as u64,
        input_bytes: input_bytes as u64,
        seconds: elapsed,
        policy: policy_source,
        passes,
        seed: s.seed,
        key_fingerprint,
        peak_rss_bytes: peak_rss_bytes(),
        stats,
    };
    if let Some(t) = stats_target.as_mut() {
        let stream = t.stream().expect("file target");
        stream.write_all(&crate::artifact::to_bytes(&summary))?;
    }
    // Everything succeeded: only now do the outputs appear at their destinations, together.
    let mut stages = Vec::new();
    for t in [Some(writer.into_target()?), ops_target, stats_target]
        .into_iter()
        .flatten()
    {
        stages.extend(t.into_staged()?);
    }
    set.publish(stages)?;
    Ok(DeidSummary {
        stats: summary,
        seconds: elapsed,
    })
}
