//! `anonlm deid`: recognize and replace PHI over a corpus, with an ops log and counts.

use super::common::{self, InputSpans};
use crate::cli::DeidArgs;
use crate::corpus::{open_output, prepare, Document, Format, OutputTarget, Prepared, WriteOptions};
use crate::deid::apply::Deidentifier;
use crate::deid::policy::Policy;
use crate::deid::stats::DeidStats;
use crate::deid::tag::TagStyle;
use crate::engine::{process_stream, BatchLimits};
use crate::fsio::{Inputs, Kind, OutputSet};
use crate::keys::Key;
use crate::opslog::OpsLogLine;

/// The recognizer name the ops log gives to spans taken from the input (`--use-input-spans`).
const INPUT_SPAN_SOURCE: &str = "input";
use crate::progress;
use crate::span::Entity;
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// A built-in policy name, or a TOML file (a name ending in `.toml` or an existing file).
pub fn load_policy(spec: &str) -> Result<Policy> {
    Ok(if spec.ends_with(".toml") || Path::new(spec).is_file() {
        Policy::from_file(spec)?
    } else {
        Policy::builtin(spec)?
    })
}

/// A built-in policy name, or a TOML file, with the flag overrides applied.
pub fn build_policy(args: &DeidArgs) -> Result<Policy> {
    let mut policy = load_policy(&args.policy)?;
    if let Some(op) = &args.operator {
        policy.set("default", op)?;
    }
    for pair in &args.ops {
        let (label, op) = pair
            .split_once('=')
            .with_context(|| format!("--op '{pair}': expected LABEL=OPERATOR"))?;
        policy.set(label.trim(), op.trim())?;
    }
    if let Some(style) = &args.tag_style {
        policy.tag_style = TagStyle::parse(style, false, None).map_err(anyhow::Error::msg)?;
    }
    Ok(policy)
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

pub fn run(args: DeidArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let inp = &args.input;
    common::init_threads(inp.threads);
    let in_format = common::resolve_format(&inp.format, &inp.input)?;
    let out_format = match &args.output.out_format {
        Some(f) => f.parse::<Format>().map_err(anyhow::Error::msg)?,
        None => in_format,
    };
    let policy = build_policy(&args)?;
    let key = args
        .key_file
        .as_deref()
        .map(Key::from_file)
        .transpose()
        .context("loading the key file")?;
    let key_fingerprint = key.as_ref().map(Key::fingerprint);
    let policy_source = policy.source.clone();
    let deid = Deidentifier::new(policy, key, args.seed)?;
    let pipeline = common::pipeline(inp)?;

    let to_stdout = crate::corpus::input::is_stdio(&args.output.out);
    let ops_path = args
        .ops_log
        .clone()
        .or_else(|| (!to_stdout).then(|| sibling(&args.output.out, ".ops.jsonl")));
    let stats_path = args
        .stats
        .clone()
        .or_else(|| (!to_stdout).then(|| sibling(&args.output.out, ".stats.json")));
    // Every output of the run is claimed (checked and locked) before any work, and published
    // together at the end: a failure or a concurrent run leaves no partial set behind.
    let input_is_dir = inp.input.is_dir();
    let main_kind = if OutputTarget::wants_dir(out_format, input_is_dir) {
        Kind::Dir
    } else {
        Kind::File
    };
    let mut claims = vec![(args.output.out.as_path(), main_kind)];
    claims.extend(
        [&ops_path, &stats_path]
            .into_iter()
            .flatten()
            .map(|p| (p.as_path(), Kind::File)),
    );
    let mut inputs = Inputs::of([&inp.input]);
    if let Some(k) = &args.key_file {
        inputs.add(k);
    }
    let set = OutputSet::claim(&claims, args.output.overwrite, inputs)?;
    let docs = common::open_documents(
        &inp.input,
        in_format,
        inp.max_doc_bytes,
        inp.label_map.as_deref(),
        if args.use_input_spans {
            InputSpans::Keep
        } else {
            InputSpans::Ignore
        },
    )?;
    let target = OutputTarget::in_set(&set, &args.output.out, out_format, input_is_dir)?;
    let mut writer = open_output(out_format, target, &WriteOptions::default())?;
    let mut ops_target = ops_path
        .as_deref()
        .map(|p| OutputTarget::in_set(&set, p, Format::Jsonl, false))
        .transpose()?;
    let mut stats_target = stats_path
        .as_deref()
        .map(|p| OutputTarget::in_set(&set, p, Format::Jsonl, false))
        .transpose()?;

    let bar = progress::bar(common::input_size(&inp.input), inp.quiet);
    let mut stats = DeidStats::default();
    let mut input_bytes = 0usize;
    let passes = args.passes.max(1);
    let patient_key = args.patient_key.as_deref();
    let n_docs = process_stream::<_, anyhow::Error, _, _, _>(
        docs,
        BatchLimits::default(),
        |doc| {
            let lang = pipeline.lang_for(&doc.text);
            let patient = patient_key
                .and_then(|k| doc.meta.get(k))
                .and_then(Value::as_str)
                .map(str::to_string);
            let given: Vec<Entity> = if args.use_input_spans {
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
    let summary = json!({
        "tool": "anonlm",
        "version": env!("CARGO_PKG_VERSION"),
        "documents": n_docs,
        "input_bytes": input_bytes,
        "seconds": elapsed,
        "policy": policy_source,
        "passes": passes,
        "seed": args.seed,
        "key_fingerprint": key_fingerprint,
        "peak_rss_bytes": peak_rss_bytes(),
        "stats": stats,
    });
    if let Some(t) = stats_target.as_mut() {
        let stream = t.stream().expect("file target");
        stream.write_all(serde_json::to_string_pretty(&summary)?.as_bytes())?;
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
    if !inp.quiet {
        eprintln!(
            "{n_docs} documents, {} replacements in {elapsed:.2}s",
            stats.spans
        );
        for (label, n) in &stats.by_label {
            eprintln!("  {label:<28} {n:>9}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
