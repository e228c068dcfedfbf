//! The ops log on disk: one JSON line per document with every replacement (label, offsets in
//! code points of the input and the output, operator, recognizer, pass) and no raw values.

use crate::corpus::Document;
use crate::deid::apply::OpRecord;
use crate::offsets::OffsetMap;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// One document's entry in the ops log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OpsLogLine {
    pub id: String,
    pub lang: String,
    /// Passes that replaced something.
    pub passes_run: usize,
    /// Replacements; `start`/`end` count code points of the input document, `out_*` of the output.
    pub ops: Vec<OpRecord>,
}

impl OpsLogLine {
    /// Converts byte offsets of `ops` (input `original`, output `output`) to code points.
    pub fn new(
        id: &str,
        lang: &str,
        passes_run: usize,
        original: &str,
        output: &str,
        mut ops: Vec<OpRecord>,
    ) -> Self {
        let (inp, out) = (OffsetMap::new(original), OffsetMap::new(output));
        let cp = |m: &OffsetMap, b: usize| {
            m.byte_to_char(b)
                .expect("deid offsets lie on char boundaries")
        };
        for op in &mut ops {
            op.start = cp(&inp, op.start);
            op.end = cp(&inp, op.end);
            op.out_start = cp(&out, op.out_start);
            op.out_end = cp(&out, op.out_end);
        }
        OpsLogLine {
            id: id.to_string(),
            lang: lang.to_string(),
            passes_run,
            ops,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OpsLogError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Line {
        path: String,
        line: usize,
        msg: String,
    },
}

/// Replaced ranges per document, as byte ranges of the gold texts (for residual-PII scoring).
/// Every ops-log document must be among `gold` and its offsets must fit its text.
pub fn read_replaced_ranges(
    path: &Path,
    gold: &[Document],
) -> Result<HashMap<String, Vec<(usize, usize)>>, OpsLogError> {
    let texts: HashMap<&str, &str> = gold
        .iter()
        .map(|d| (d.id.as_str(), d.text.as_str()))
        .collect();
    let mut out: HashMap<String, Vec<(usize, usize)>> =
        gold.iter().map(|d| (d.id.clone(), Vec::new())).collect();
    read_ranges(
        path,
        &texts,
        "gold set",
        |op| Some((op.start, op.end)),
        &mut out,
    )?;
    Ok(out)
}

/// Like [`read_replaced_ranges`], for the ops whose label `keep` accepts (e.g. names only),
/// as byte ranges of the input texts `input`.
pub fn read_replaced_ranges_where(
    path: &Path,
    input: &[Document],
    keep: impl Fn(&OpRecord) -> bool,
) -> Result<HashMap<String, Vec<(usize, usize)>>, OpsLogError> {
    let texts: HashMap<&str, &str> = input
        .iter()
        .map(|d| (d.id.as_str(), d.text.as_str()))
        .collect();
    let mut out: HashMap<String, Vec<(usize, usize)>> =
        input.iter().map(|d| (d.id.clone(), Vec::new())).collect();
    read_ranges(
        path,
        &texts,
        "corpus",
        |op| keep(op).then_some((op.start, op.end)),
        &mut out,
    )?;
    Ok(out)
}

/// Ranges of the de-identified `output` texts that the operators wrote (tags, surrogates,
/// pseudonyms), as byte ranges; words there were generated, not left over from the input.
pub fn read_generated_ranges(
    path: &Path,
    output: &[Document],
) -> Result<HashMap<String, Vec<(usize, usize)>>, OpsLogError> {
    let texts: HashMap<&str, &str> = output
        .iter()
        .map(|d| (d.id.as_str(), d.text.as_str()))
        .collect();
    let mut out: HashMap<String, Vec<(usize, usize)>> =
        output.iter().map(|d| (d.id.clone(), Vec::new())).collect();
    read_ranges(
        path,
        &texts,
        "de-identified output",
        |op| Some((op.out_start, op.out_end)),
        &mut out,
    )?;
    Ok(out)
}

/// Reads the ops log at `path`, turning the code-point range `pick` chooses from each op (None:
/// skip the op, its offsets still checked) into byte ranges of the matching text in `texts`.
fn read_ranges(
    path: &Path,
    texts: &HashMap<&str, &str>,
    side: &str,
    pick: impl Fn(&OpRecord) -> Option<(usize, usize)>,
    out: &mut HashMap<String, Vec<(usize, usize)>>,
) -> Result<(), OpsLogError> {
    let p = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| OpsLogError::Io {
        path: p.clone(),
        source: e,
    })?;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let err = |msg: String| OpsLogError::Line {
            path: p.clone(),
            line: i + 1,
            msg,
        };
        let line = line.map_err(|e| err(e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let entry: OpsLogLine = serde_json::from_str(&line)
            .map_err(|e| err(format!("not an ops-log line ({})", e.classify_kind())))?;
        let text = texts.get(entry.id.as_str()).ok_or_else(|| {
            err(format!(
                "document {} is not in the {side}",
                crate::corpus::show_id(&entry.id)
            ))
        })?;
        let map = OffsetMap::new(text);
        let ranges = out.entry(entry.id.clone()).or_default();
        for op in &entry.ops {
            let picked = pick(op);
            let (s, e) = picked.unwrap_or((op.start, op.end));
            match (map.char_to_byte(s), map.char_to_byte(e)) {
                (Some(bs), Some(be)) if bs <= be => {
                    if picked.is_some() {
                        ranges.push((bs, be));
                    }
                }
                _ => {
                    return Err(err(format!(
                        "offsets {s}-{e} lie outside document {} of the {side}",
                        crate::corpus::show_id(&entry.id)
                    )))
                }
            }
        }
    }
    Ok(())
}

trait ClassifyKind {
    fn classify_kind(&self) -> &'static str;
}

impl ClassifyKind for serde_json::Error {
    /// serde's messages can quote values; only the kind of error is reported.
    fn classify_kind(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "I/O error",
            serde_json::error::Category::Syntax => "malformed JSON",
            serde_json::error::Category::Data => "unexpected fields or types",
            serde_json::error::Category::Eof => "truncated JSON",
        }
    }
}
