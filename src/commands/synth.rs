//! `anonlm synth`: synthetic annotated clinical notes with gold spans, seeded.

use super::common;
use crate::cli::SynthArgs;
use crate::corpus::{open_output, Document, Format, OutputOptions, OutputTarget, WriteOptions};
use crate::lang::Lang;
use anyhow::Result;
use std::process::ExitCode;

/// `all` or one language code.
pub fn parse_langs(spec: &str) -> Result<Vec<Lang>> {
    if spec.eq_ignore_ascii_case("all") {
        return Ok(Lang::ALL.to_vec());
    }
    spec.split(',')
        .map(|s| s.parse::<Lang>().map_err(anyhow::Error::msg))
        .collect()
}

/// Documents for every language in `langs`, `docs` each, language-specific seeds from `seed`.
pub fn generate(langs: &[Lang], docs: usize, seed: u64) -> Vec<Document> {
    langs
        .iter()
        .flat_map(|&l| crate::synth::generate(l, docs, seed))
        .collect()
}

/// Writes documents to `out` in `format` atomically.
pub fn write_documents(
    docs: &[Document],
    out: &std::path::Path,
    format: Format,
    overwrite: bool,
) -> Result<()> {
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

pub fn run(args: SynthArgs) -> Result<ExitCode> {
    let format: Format = args.format.parse().map_err(anyhow::Error::msg)?;
    let docs = generate(&parse_langs(&args.lang)?, args.docs, args.seed);
    write_documents(&docs, &args.out, format, args.overwrite)?;
    let mut counts = common::LabelCounts::default();
    docs.iter().for_each(|d| counts.add(d));
    eprint!("{}", counts.table());
    Ok(ExitCode::SUCCESS)
}
