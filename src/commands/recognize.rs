//! `anonlm recognize`: find PHI spans and write them (JSONL, or brat beside copies of the text).

use super::common::{self, InputSpans, LabelCounts};
use crate::cli::RecognizeArgs;
use crate::corpus::{open_output, BratTypeMap, Format, WriteOptions};
use crate::engine::{process_stream, BatchLimits};
use crate::labelmap::LabelMap;
use crate::progress;
use anyhow::{Context, Result};
use serde_json::Value;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: RecognizeArgs) -> Result<ExitCode> {
    let inp = &args.input;
    common::init_threads(inp.threads);
    let in_format = common::resolve_format(&inp.format, &inp.input)?;
    let out_format = match &args.output.out_format {
        Some(f) => f.parse::<Format>().map_err(anyhow::Error::msg)?,
        None if in_format == Format::Brat => Format::Brat,
        None => Format::Jsonl,
    };
    let pipeline = common::pipeline(inp)?;
    let docs = common::open_documents(
        &inp.input,
        in_format,
        inp.max_doc_bytes,
        inp.label_map.as_deref(),
        InputSpans::Ignore,
    )?;
    let target = common::output_target(
        &args.output.out,
        out_format,
        &inp.input,
        args.output.overwrite,
    )?;
    let mut write_opts = WriteOptions::default();
    if let Some(spec) = &args.out_label_map {
        let map = Arc::new(LabelMap::load(spec).with_context(|| format!("label map '{spec}'"))?);
        let to_scheme: BratTypeMap =
            Arc::new(move |l| map.to_scheme(l).unwrap_or_else(|| l.tag_form()));
        write_opts.brat_type = Some(to_scheme);
    }
    let mut writer = open_output(out_format, target, &write_opts)?;
    let bar = progress::bar(common::input_size(&inp.input), inp.quiet);
    let mut counts = LabelCounts::default();
    process_stream::<_, anyhow::Error, _, _, _>(
        docs,
        BatchLimits::default(),
        |mut doc| {
            let (lang, entities) = pipeline.recognize(&doc.text);
            doc.entities = entities;
            doc.meta.insert("lang".into(), Value::from(lang.code()));
            doc
        },
        |doc| {
            bar.inc(doc.text.len() as u64);
            counts.add(&doc);
            writer.write(&doc).map_err(anyhow::Error::from)
        },
    )?;
    writer.finish()?;
    bar.finish_and_clear();
    if !inp.quiet {
        eprint!("{}", counts.table());
    }
    Ok(ExitCode::SUCCESS)
}
