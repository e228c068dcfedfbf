//! `anonlm labelstudio export|import`: the pre-annotation loop through Label Studio.

use super::common::{self, InputSpans, LabelCounts};
use crate::cli::{LabelStudioCommand, LabelStudioExportArgs, LabelStudioImportArgs};
use crate::corpus::{open_output, Format, OutputOptions, OutputTarget, WriteOptions};
use crate::engine::{process_stream, BatchLimits};
use crate::labelmap::LabelMap;
use crate::labels::{Category, Label};
use crate::labelstudio::{config, export, import};
use anyhow::{Context, Result};
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

pub fn run(cmd: LabelStudioCommand) -> Result<ExitCode> {
    match cmd {
        LabelStudioCommand::Export(a) => run_export(a),
        LabelStudioCommand::Import(a) => run_import(a),
    }
}

fn load_map(spec: Option<&str>) -> Result<Option<LabelMap>> {
    spec.map(|s| LabelMap::load(s).with_context(|| format!("label map '{s}'")))
        .transpose()
}

fn run_export(args: LabelStudioExportArgs) -> Result<ExitCode> {
    let inp = &args.input;
    common::init_threads(inp.threads);
    let in_format = common::resolve_format(&inp.format, &inp.input)?;
    let pipeline = if args.use_input_spans {
        None
    } else {
        Some(common::pipeline(inp)?)
    };
    let scheme = load_map(args.out_label_map.as_deref())?;
    let label_name = |l: Label| {
        scheme
            .as_ref()
            .and_then(|m| m.to_scheme(l))
            .unwrap_or_else(|| export::canonical_name(l))
    };
    let model_version = match (&args.model_version, args.use_input_spans) {
        (Some(v), _) => v.clone(),
        (None, true) => "input".to_string(),
        (None, false) => format!("anonlm {}", env!("CARGO_PKG_VERSION")),
    };
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
    // One JSON file (or stdout): the same target and input checks as a JSONL output.
    let mut target = common::output_target(&args.out, Format::Jsonl, &inp.input, args.overwrite)?;
    let mut config_target = match &args.config {
        Some(path) => {
            anyhow::ensure!(
                path.as_path() != args.out.as_path(),
                "--config and --out are the same file"
            );
            if !crate::corpus::input::is_stdio(&inp.input) {
                crate::corpus::ensure_not_input(path, &[&inp.input])?;
            }
            let opts = OutputOptions {
                overwrite: args.overwrite,
            };
            Some(OutputTarget::file(path, &opts)?)
        }
        None => None,
    };
    let bar = crate::progress::bar(common::input_size(&inp.input), inp.quiet);
    let mut counts = LabelCounts::default();
    let mut used: Vec<(String, Option<Category>)> = Vec::new();
    let sink_path = target.path().to_path_buf();
    let stream = target.stream().expect("a file or stdout target");
    let io_err = |e: std::io::Error| anyhow::anyhow!("{}: {e}", sink_path.display());
    stream.write_all(b"[").map_err(io_err)?;
    let mut first = true;
    process_stream::<_, anyhow::Error, _, _, _>(
        docs,
        BatchLimits::default(),
        |mut doc| {
            if let Some(p) = &pipeline {
                let (lang, entities) = p.recognize(&doc.text);
                doc.entities = entities;
                doc.meta.insert("lang".into(), Value::from(lang.code()));
            }
            let task = export::task(&doc, &model_version, &label_name)
                .map(|t| serde_json::to_vec(&t).expect("a JSON value always serializes"));
            (doc, task)
        },
        |(doc, task)| {
            let task = task?;
            bar.inc(doc.text.len() as u64);
            counts.add(&doc);
            for e in &doc.entities {
                let name = label_name(e.label);
                if !used.iter().any(|(n, _)| *n == name) {
                    used.push((name, Some(e.label.category)));
                }
            }
            let sep: &[u8] = if first { b"\n" } else { b",\n" };
            first = false;
            stream.write_all(sep).map_err(io_err)?;
            stream.write_all(&task).map_err(io_err)?;
            Ok(())
        },
    )?;
    stream.write_all(b"\n]\n").map_err(io_err)?;
    bar.finish_and_clear();
    // Everything succeeded: only now do the outputs appear.
    target.commit()?;
    if let Some(mut t) = config_target.take() {
        let mut labels = match &scheme {
            Some(map) => config::scheme_labels(map),
            None => config::canonical_labels(),
        };
        labels.extend(used);
        let xml = config::labeling_config(&labels);
        let path = t.path().to_path_buf();
        t.stream()
            .expect("a file target")
            .write_all(xml.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        t.commit()?;
    }
    if !inp.quiet {
        eprint!("{}", counts.table());
    }
    Ok(ExitCode::SUCCESS)
}

/// The whole export file (or stdin), refusing more than `max` bytes.
fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>> {
    let shown = path.display();
    let reader: Box<dyn Read> = if crate::corpus::input::is_stdio(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("reading {shown}"))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {shown}"))?;
    anyhow::ensure!(
        bytes.len() as u64 <= max,
        "{shown}: larger than --max-bytes {max}"
    );
    Ok(bytes)
}

fn run_import(args: LabelStudioImportArgs) -> Result<ExitCode> {
    let shown = args.export.display().to_string();
    let bytes = read_capped(&args.export, args.max_bytes)?;
    // serde_json's syntax errors give line and column, never the offending text.
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("{shown}: malformed JSON: {e}"))?;
    drop(bytes);
    let map = load_map(args.label_map.as_deref())?;
    let canonical = crate::corpus::brat::canonical_labels;
    let by_map = map.as_ref().map(|m| m.resolver());
    let resolve: &crate::corpus::brat::LabelResolver = match &by_map {
        Some(r) => r,
        None => &canonical,
    };
    let opts = import::ImportOptions {
        include_predictions: args.include_predictions,
    };
    let (docs, summary) =
        import::import(&value, resolve, &opts).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
    drop(value);
    let target = common::output_target(&args.out, Format::Jsonl, &args.export, args.overwrite)?;
    let mut writer = open_output(Format::Jsonl, target, &WriteOptions::default())?;
    let mut counts = LabelCounts::default();
    for d in &docs {
        writer.write(d)?;
        counts.add(d);
    }
    writer.finish()?;
    eprint!("{}", summary.to_text());
    eprint!("{}", counts.table());
    Ok(ExitCode::SUCCESS)
}
