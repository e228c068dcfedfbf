//! The `recognize` stage as a library call: find PHI spans in a corpus and write them (JSONL,
//! or brat beside copies of the text), published only when complete.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use super::settings::RecognizerSettings;
use crate::corpus::counts::LabelCounts;
use crate::corpus::source::{input_size, output_target, CorpusInput, InputSpans};
use crate::corpus::{open_output, BratTypeMap, Format, WriteOptions};
use crate::engine::{process_stream, BatchLimits};
use crate::error::{StageContext, StageError, StageResult};
use crate::labelmap::LabelMap;
use crate::progress;

#[derive(Clone, Debug)]
pub struct RecognizeSettings {
    /// Its own spans are read and checked, then replaced.
    pub input: CorpusInput,
    pub recognizers: RecognizerSettings,
    pub out: PathBuf,
    /// Default: brat for brat input, else JSONL.
    pub out_format: Option<Format>,
    pub overwrite: bool,
    /// Writes brat types in this scheme instead of the canonical labels.
    pub out_label_map: Option<String>,
    pub quiet: bool,
}

/// Recognizes every document; returns the counts per label.
pub fn run(s: &RecognizeSettings) -> StageResult<LabelCounts> {
    let in_format = s.input.resolved_format()?;
    let out_format = match s.out_format {
        Some(f) => f,
        None if in_format == Format::Brat => Format::Brat,
        None => Format::Jsonl,
    };
    let pipeline = s.recognizers.pipeline()?;
    let docs = s.input.documents(in_format, InputSpans::Ignore)?;
    let target = output_target(&s.out, out_format, &s.input.path, s.overwrite)?;
    let mut write_opts = WriteOptions::default();
    if let Some(spec) = &s.out_label_map {
        let map =
            Arc::new(LabelMap::load(spec).with_stage_context(|| format!("label map '{spec}'"))?);
        let to_scheme: BratTypeMap =
            Arc::new(move |l| map.to_scheme(l).unwrap_or_else(|| l.tag_form()));
        write_opts.brat_type = Some(to_scheme);
    }
    let mut writer = open_output(out_format, target, &write_opts)?;
    let bar = progress::bar(input_size(&s.input.path), s.quiet);
    let mut counts = LabelCounts::default();
    process_stream::<_, StageError, _, _, _>(
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
            Ok(writer.write(&doc)?)
        },
    )?;
    writer.finish()?;
    bar.finish_and_clear();
    Ok(counts)
}
