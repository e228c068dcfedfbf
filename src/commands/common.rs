//! Plumbing shared by the corpus commands: formats, label maps, inputs, outputs, threads, counts.

use crate::cli::InputArgs;
use crate::corpus::{
    self, detect_format, ensure_not_input, open_input, DocIter, Document, Format, OutputOptions,
    OutputTarget, ReadOptions, SharedResolver,
};
use crate::fsio::Inputs;
use crate::labelmap::LabelMap;
use crate::recognize::build::build_pipeline;
use crate::recognize::Pipeline;
use crate::vocab::ListSources;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// `--format auto` resolves from the input path.
pub fn resolve_format(spec: &str, input: &Path) -> Result<Format> {
    if spec.eq_ignore_ascii_case("auto") {
        Ok(detect_format(input)?)
    } else {
        spec.parse().map_err(anyhow::Error::msg)
    }
}

/// A label resolver for scheme labels, from a built-in map name or a TOML file.
pub fn resolver(label_map: Option<&str>) -> Result<Option<SharedResolver>> {
    let Some(spec) = label_map else {
        return Ok(None);
    };
    let map = Arc::new(LabelMap::load(spec).with_context(|| format!("label map '{spec}'"))?);
    Ok(Some(Arc::new(move |raw: &str| map.resolve(raw))))
}

/// What to do with spans already present in the input (brat `.ann`, JSONL entities, IOB tags).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum InputSpans {
    /// Read and validate them (labels through the label map, or canonical).
    Keep,
    /// The command replaces them: offsets are still checked, labels are not interpreted.
    Ignore,
}

/// Opens the input stream of a corpus command.
pub fn open_documents(
    input: &Path,
    format: Format,
    max_doc_bytes: usize,
    label_map: Option<&str>,
    spans: InputSpans,
) -> Result<DocIter> {
    let opts = ReadOptions { max_doc_bytes };
    let resolver = match spans {
        InputSpans::Keep => resolver(label_map)?,
        InputSpans::Ignore => Some(Arc::new(|_: &str| Ok(None)) as SharedResolver),
    };
    Ok(open_input(format, input, &opts, resolver)?)
}

/// The staged output target; refuses to write onto the input.
pub fn output_target(
    out: &Path,
    format: Format,
    input: &Path,
    overwrite: bool,
) -> Result<OutputTarget> {
    if !corpus::input::is_stdio(out) && !corpus::input::is_stdio(input) {
        ensure_not_input(out, &[input])?;
    }
    let input_is_dir = input.is_dir();
    Ok(OutputTarget::for_format(
        out,
        format,
        input_is_dir,
        &OutputOptions { overwrite },
    )?)
}

/// Sets the size of the global worker pool once per process.
pub fn init_threads(threads: Option<usize>) {
    if let Some(n) = threads {
        // A second call (tests in one process) keeps the first pool: that is fine.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global();
    }
}

/// `--models DIR`, else a non-empty ANONLM_MODELS (ignored when --model names one model).
fn models_dir(args: &InputArgs) -> Option<std::path::PathBuf> {
    if args.model.is_some() {
        return None;
    }
    args.models.clone().or_else(|| {
        std::env::var_os("ANONLM_MODELS")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    })
}

/// The recognition pipeline for the input flags (fails closed on any list error).
pub fn pipeline(args: &InputArgs) -> Result<Pipeline> {
    let lists = match &args.lists {
        Some(dir) => ListSources::with_user_dir(dir).context("--lists")?,
        None => ListSources::default(),
    };
    let mut pipeline = build_pipeline(args.lang, args.fallback_lang, &lists)
        .context("building the recognizers")?;
    if let Some(dir) = &args.model {
        crate::ner::attach(&mut pipeline, dir, args.no_rules)
            .with_context(|| format!("loading the NER model {}", dir.display()))?;
    } else if let Some(dir) = models_dir(args) {
        anyhow::ensure!(dir.is_dir(), "--models {}: not a directory", dir.display());
        crate::ner::attach_per_lang(&mut pipeline, &dir, args.no_rules)?;
    }
    Ok(pipeline)
}

/// Total bytes of a file or of the files directly inside a directory (for the progress bar).
pub fn input_size(input: &Path) -> Option<u64> {
    if corpus::input::is_stdio(input) {
        return None;
    }
    let meta = std::fs::metadata(input).ok()?;
    if meta.is_file() {
        return Some(meta.len());
    }
    let total = std::fs::read_dir(input)
        .ok()?
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum();
    Some(total)
}

/// Entity counts per label: labels only, never text.
#[derive(Default, Debug, serde::Serialize)]
pub struct LabelCounts {
    pub documents: usize,
    pub entities: usize,
    /// Keyed by the label itself: no string is built per entity.
    #[serde(serialize_with = "labels_as_text")]
    pub per_label: BTreeMap<crate::labels::Label, usize>,
}

/// Writes label keys as their text form (`NAME/DOCTOR`), in alphabetical order.
fn labels_as_text<S: serde::Serializer>(
    counts: &BTreeMap<crate::labels::Label, usize>,
    ser: S,
) -> Result<S::Ok, S::Error> {
    let text: BTreeMap<String, usize> = counts.iter().map(|(l, n)| (l.to_string(), *n)).collect();
    ser.collect_map(text)
}

impl LabelCounts {
    pub fn add(&mut self, doc: &Document) {
        self.documents += 1;
        self.entities += doc.entities.len();
        for e in &doc.entities {
            *self.per_label.entry(e.label).or_default() += 1;
        }
    }

    /// A short table for stderr, labels in alphabetical order.
    pub fn table(&self) -> String {
        let mut s = format!("{} documents, {} entities\n", self.documents, self.entities);
        let mut rows: Vec<(String, usize)> = self
            .per_label
            .iter()
            .map(|(label, n)| (label.to_string(), *n))
            .collect();
        rows.sort();
        for (label, n) in rows {
            s.push_str(&format!("  {label:<28} {n:>9}\n"));
        }
        s
    }
}

/// SHA-256 (hex) of a file's bytes, for the identity blocks of reports.
pub fn file_sha256(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(crate::mlm::train::data::sha256_hex(&bytes))
}

/// Writes a whole small file (report, stats) atomically through [`crate::fsio`]: never over
/// an existing file without `overwrite`, never over one of `inputs` or a special file.
pub fn write_bytes_atomic(
    path: &Path,
    bytes: &[u8],
    overwrite: bool,
    inputs: &[&Path],
) -> Result<()> {
    crate::fsio::write_file(path, bytes, overwrite, &Inputs::of(inputs.iter().copied()))?;
    Ok(())
}
