//! The Label Studio stages as library calls: export a corpus with predicted (or given) spans as
//! pre-annotation tasks (and a labeling config), and import reviewed tasks back as Document
//! JSONL.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{config, export, import};
use crate::corpus::counts::LabelCounts;
use crate::corpus::source::{input_size, output_target, CorpusInput, InputSpans};
use crate::corpus::{open_output, Format, OutputOptions, OutputTarget, WriteOptions};
use crate::engine::{process_stream, BatchLimits};
use crate::error::{InputError, StageContext, StageError, StageResult, ValueError};
use crate::labelmap::LabelMap;
use crate::labels::{Category, Label};
use crate::recognize::settings::RecognizerSettings;

#[derive(Clone, Debug)]
pub struct ExportSettings {
    pub input: CorpusInput,
    pub recognizers: RecognizerSettings,
    /// Export the input's own spans instead of recognizing.
    pub use_input_spans: bool,
    pub out: PathBuf,
    pub overwrite: bool,
    /// Label names in this scheme instead of the canonical ones.
    pub out_label_map: Option<String>,
    /// Where the labeling config (XML) goes.
    pub config: Option<PathBuf>,
    pub model_version: Option<String>,
    pub quiet: bool,
}

#[derive(Clone, Debug)]
pub struct ImportSettings {
    /// Label Studio's JSON export (or `-`).
    pub export: PathBuf,
    pub out: PathBuf,
    pub overwrite: bool,
    pub label_map: Option<String>,
    /// Take predictions of tasks nobody annotated.
    pub include_predictions: bool,
    pub max_bytes: u64,
}

fn load_map(spec: Option<&str>) -> StageResult<Option<LabelMap>> {
    spec.map(|s| LabelMap::load(s).with_stage_context(|| format!("label map '{s}'")))
        .transpose()
}

pub fn export_corpus(args: &ExportSettings) -> StageResult<LabelCounts> {
    let in_format = args.input.resolved_format()?;
    let pipeline = if args.use_input_spans {
        None
    } else {
        Some(args.recognizers.pipeline()?)
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
    let docs = args.input.documents(
        in_format,
        if args.use_input_spans {
            InputSpans::Keep
        } else {
            InputSpans::Ignore
        },
    )?;
    // One JSON file (or stdout): the same target and input checks as a JSONL output.
    let mut target = output_target(&args.out, Format::Jsonl, &args.input.path, args.overwrite)?;
    let mut config_target = match &args.config {
        Some(path) => {
            if path.as_path() == args.out.as_path() {
                return Err(ValueError::new("--config and --out are the same file").into());
            }
            if !crate::corpus::input::is_stdio(&args.input.path) {
                crate::corpus::ensure_not_input(path, &[&args.input.path])?;
            }
            let opts = OutputOptions {
                overwrite: args.overwrite,
            };
            Some(OutputTarget::file(path, &opts)?)
        }
        None => None,
    };
    let bar = crate::progress::bar(input_size(&args.input.path), args.quiet);
    let mut counts = LabelCounts::default();
    let mut used: Vec<(String, Option<Category>)> = Vec::new();
    let sink_path = target.path().to_path_buf();
    let stream = target.stream().expect("a file or stdout target");
    let io_err = |e: std::io::Error| StageError::from(InputError::io(&sink_path, e));
    stream.write_all(b"[").map_err(io_err)?;
    let mut first = true;
    process_stream::<_, StageError, _, _, _>(
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
            let task = task.map_err(|e| ValueError::new(e.to_string()))?;
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
            .with_stage_context(|| format!("writing {}", path.display()))?;
        t.commit()?;
    }
    Ok(counts)
}

/// The whole export file (or stdin), refusing more than `max` bytes.
fn read_capped(path: &Path, max: u64) -> StageResult<Vec<u8>> {
    let reader: Box<dyn Read> = if crate::corpus::input::is_stdio(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| InputError::io(path, e))?)
    };
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(InputError::file(path, format!("larger than --max-bytes {max}")).into());
    }
    Ok(bytes)
}

pub fn import_tasks(args: &ImportSettings) -> StageResult<(import::ImportSummary, LabelCounts)> {
    let bytes = read_capped(&args.export, args.max_bytes)?;
    // serde_json's syntax errors give line and column, never the offending text.
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| InputError::json(&args.export, &e))?;
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
    let (docs, summary) = import::import(&value, resolve, &opts)
        .map_err(|e| InputError::file(&args.export, e.to_string()))?;
    drop(value);
    let target = output_target(&args.out, Format::Jsonl, &args.export, args.overwrite)?;
    let mut writer = open_output(Format::Jsonl, target, &WriteOptions::default())?;
    let mut counts = LabelCounts::default();
    for d in &docs {
        writer.write(d)?;
        counts.add(d);
    }
    writer.finish()?;
    Ok((summary, counts))
}
