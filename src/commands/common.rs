//! Plumbing shared by the corpus commands: formats, label maps, inputs, outputs, threads, counts.

use crate::cli::InputArgs;
use crate::corpus::{self, ensure_not_input, Document, Format, OutputOptions, OutputTarget};
use crate::fsio::Inputs;
use crate::recognize::settings::RecognizerSettings;
use crate::recognize::Pipeline;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;

pub use crate::corpus::source::{input_size, open_documents, resolve_format, InputSpans};

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

/// The recognizer settings of the input flags (and ANONLM_MODELS).
pub fn recognizer_settings(args: &InputArgs) -> RecognizerSettings {
    RecognizerSettings {
        lang: args.lang,
        fallback_lang: args.fallback_lang,
        lists: args.lists.clone(),
        model: args.model.clone(),
        models: models_dir(args),
        no_rules: args.no_rules,
    }
}

/// The recognition pipeline for the input flags (fails closed on any list error).
pub fn pipeline(args: &InputArgs) -> Result<Pipeline> {
    Ok(recognizer_settings(args).pipeline()?)
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
