//! Flag plumbing shared by the corpus commands: recognizer settings from the input flags (and
//! ANONLM_MODELS), the worker pool, small atomic writes.

use crate::cli::{InputArgs, TaggerArgs};
use crate::corpus::source::CorpusInput;
use crate::fsio::Inputs;
use crate::recognize::settings::RecognizerSettings;
use anyhow::Result;
use std::path::Path;

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
fn models_dir(args: &TaggerArgs) -> Option<std::path::PathBuf> {
    if args.model.is_some() {
        return None;
    }
    args.models.clone().or_else(|| {
        std::env::var_os("ANONLM_MODELS")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    })
}

/// The corpus of the input flags.
pub fn corpus_input(args: &InputArgs) -> CorpusInput {
    CorpusInput {
        path: args.input.clone(),
        format: args.format.clone(),
        label_map: args.label_map.clone(),
        max_doc_bytes: args.max_doc_bytes.bytes,
    }
}

/// The recognizer settings of the input flags (and ANONLM_MODELS).
pub fn recognizer_settings(args: &InputArgs) -> RecognizerSettings {
    RecognizerSettings {
        lang: args.language.lang,
        fallback_lang: args.language.fallback_lang,
        lists: args.language.lists.clone(),
        model: args.taggers.model.clone(),
        models: models_dir(&args.taggers),
        builtin_models: !args.taggers.no_builtin_models,
        no_rules: args.no_rules,
    }
}

pub use crate::corpus::counts::LabelCounts;

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
