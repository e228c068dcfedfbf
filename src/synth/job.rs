//! The `synth` stage as a library call: seeded synthetic notes with gold spans, written
//! atomically in any corpus format.

use std::path::{Path, PathBuf};

use crate::corpus::{open_output, Document, Format, OutputOptions, OutputTarget, WriteOptions};
use crate::error::StageResult;
use crate::lang::Lang;

#[derive(Clone, Debug)]
pub struct SynthSettings {
    pub langs: Vec<Lang>,
    /// Documents per language.
    pub docs: usize,
    /// Each language draws from its own stream derived from this seed.
    pub seed: u64,
    pub out: PathBuf,
    pub format: Format,
    pub overwrite: bool,
}

/// Documents for every language in `langs`, `docs` each.
pub fn generate_all(langs: &[Lang], docs: usize, seed: u64) -> Vec<Document> {
    langs
        .iter()
        .flat_map(|&l| super::generate(l, docs, seed))
        .collect()
}

/// Writes documents to `out` (`-` for stdout) in `format`, published only when complete.
pub fn write_documents(
    docs: &[Document],
    out: &Path,
    format: Format,
    overwrite: bool,
) -> StageResult<()> {
    let target = if crate::corpus::input::is_stdio(out) {
        OutputTarget::stdout()
    } else if format == Format::Brat {
        OutputTarget::dir(out, &OutputOptions { overwrite })?
    } else {
        OutputTarget::file(out, &OutputOptions { overwrite })?
    };
    let mut writer = open_output(format, target, &WriteOptions::default())?;
    for d in docs {
        writer.write(d)?;
    }
    writer.finish()?;
    Ok(())
}

/// Generates and writes the notes; returns them (for counts).
pub fn run(s: &SynthSettings) -> StageResult<Vec<Document>> {
    let docs = generate_all(&s.langs, s.docs, s.seed);
    write_documents(&docs, &s.out, s.format, s.overwrite)?;
    Ok(docs)
}
