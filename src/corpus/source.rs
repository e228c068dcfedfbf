//! Opening a stage's input corpus: the format (`auto` resolved from the path), the label
//! resolver for spans already in the input, and the document stream.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    detect_format, ensure_not_input, open_input, DocIter, Format, OutputOptions, OutputTarget,
    ReadOptions, SharedResolver,
};
use crate::error::{StageContext, StageResult, ValueError};
use crate::labelmap::LabelMap;

/// A stage's input corpus: a file, a folder (brat) or `-` for stdin.
#[derive(Clone, Debug)]
pub struct CorpusInput {
    pub path: PathBuf,
    /// A format name, or `auto` (from the path; JSONL on stdin when it starts with `{`).
    pub format: String,
    /// Resolves the input's own labels (brat types, JSONL labels, IOB tags).
    pub label_map: Option<String>,
    pub max_doc_bytes: usize,
}

impl CorpusInput {
    /// The format, `auto` resolved.
    pub fn resolved_format(&self) -> StageResult<Format> {
        resolve_format(&self.format, &self.path)
    }

    /// The document stream, read as `format` (from [`CorpusInput::resolved_format`]).
    pub fn documents(&self, format: Format, spans: InputSpans) -> StageResult<DocIter> {
        open_documents(
            &self.path,
            format,
            self.max_doc_bytes,
            self.label_map.as_deref(),
            spans,
        )
    }
}

/// What to do with spans already present in the input (brat `.ann`, JSONL entities, IOB tags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputSpans {
    /// Read and validate them (labels through the label map, or canonical).
    Keep,
    /// The stage replaces them: offsets are still checked, labels are not interpreted.
    Ignore,
}

/// `auto` resolves from the input path; anything else names a format.
pub fn resolve_format(spec: &str, input: &Path) -> StageResult<Format> {
    if spec.eq_ignore_ascii_case("auto") {
        Ok(detect_format(input)?)
    } else {
        Ok(spec.parse::<Format>()?)
    }
}

/// A label resolver for scheme labels, from a built-in map name or a TOML file.
pub fn resolver(label_map: Option<&str>) -> StageResult<Option<SharedResolver>> {
    let Some(spec) = label_map else {
        return Ok(None);
    };
    let map = Arc::new(LabelMap::load(spec).with_stage_context(|| format!("label map '{spec}'"))?);
    Ok(Some(Arc::new(move |raw: &str| map.resolve(raw))))
}

/// The document stream of a corpus stage.
pub fn open_documents(
    input: &Path,
    format: Format,
    max_doc_bytes: usize,
    label_map: Option<&str>,
    spans: InputSpans,
) -> StageResult<DocIter> {
    let opts = ReadOptions { max_doc_bytes };
    let resolver = match spans {
        InputSpans::Keep => resolver(label_map)?,
        InputSpans::Ignore => Some(Arc::new(|_: &str| Ok::<_, ValueError>(None)) as SharedResolver),
    };
    Ok(open_input(format, input, &opts, resolver)?)
}

/// Total bytes of a file or of the files directly inside a directory (for the progress bar).
pub fn input_size(input: &Path) -> Option<u64> {
    if super::input::is_stdio(input) {
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

/// The staged output target; refuses to write onto the input.
pub fn output_target(
    out: &Path,
    format: Format,
    input: &Path,
    overwrite: bool,
) -> StageResult<OutputTarget> {
    if !super::input::is_stdio(out) && !super::input::is_stdio(input) {
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
