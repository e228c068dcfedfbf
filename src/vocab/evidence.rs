//! The evidence a name-likeness judgement draws on (name lists, corpus counts inside replaced
//! names, the pieces ordinary words need, the tokenizer's markers and case): shared by the `vocab harvest` and `probe metrics`
//! stages. A list or corpus that cannot be read stops the stage.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{Judge, OrdinaryUses};
use crate::corpus::Document;
use crate::error::{StageContext, StageResult, ValueError};
use crate::eval::job::read_all;
use crate::tokenizer::ModelTokenizer;
use crate::vocab::namelike::{InNameCounts, NameLists, SubwordKind, Weights};

/// Where the evidence comes from.
#[derive(Clone, Debug)]
pub struct NameEvidenceSettings {
    /// The original corpus, with `ops_log`: counts of each token inside replaced names.
    pub corpus: Option<PathBuf>,
    pub format: String,
    pub ops_log: Option<PathBuf>,
    /// The ops-log labels that count as names.
    pub labels: Vec<String>,
    /// The model's training text: pieces its ordinary words use are never proposed (default:
    /// `corpus` outside its names).
    pub reference: Option<PathBuf>,
    /// Extra name lists.
    pub names: Vec<PathBuf>,
    pub no_builtin_lists: bool,
    pub threshold: f64,
}

/// Everything a [`Judge`] borrows, owned.
pub struct NameEvidence {
    lists: NameLists,
    counts: Option<InNameCounts>,
    /// Pieces the corpus's ordinary words use: never proposed.
    ordinary: Option<OrdinaryUses>,
    kind: SubwordKind,
    lowercased: bool,
    threshold: f64,
    builtin_lists: bool,
    user_lists: usize,
}

impl NameEvidence {
    /// Loads the lists and, with a corpus and its ops log, the in-name counts. A list or corpus
    /// that cannot be read stops the command.
    pub fn load(tok: &ModelTokenizer, args: &NameEvidenceSettings) -> StageResult<Self> {
        let mut lists = if args.no_builtin_lists {
            NameLists::default()
        } else {
            NameLists::builtin().stage_context("loading the built-in name lists")?
        };
        for path in &args.names {
            lists
                .add_file(path)
                .with_stage_context(|| format!("reading --names {}", path.display()))?;
        }
        let named = args
            .corpus
            .as_deref()
            .map(|c| named_docs(c, &args.format, args.ops_log.as_deref(), &args.labels))
            .transpose()?;
        let counts = match (&named, &args.ops_log) {
            (Some((docs, spans)), Some(_)) => Some(in_name_counts(tok, docs, spans)?),
            _ => None,
        };
        let ordinary = match &args.reference {
            Some(reference) => {
                let (docs, spans) = named_docs(reference, "auto", None, &[])?;
                Some(ordinary_in(tok, &docs, &spans)?)
            }
            None => named
                .as_ref()
                .map(|(docs, spans)| ordinary_in(tok, docs, spans))
                .transpose()?,
        };
        Ok(NameEvidence {
            lists,
            counts,
            ordinary,
            kind: SubwordKind::of(&tok.inner),
            lowercased: lowercases(tok),
            threshold: args.threshold,
            builtin_lists: !args.no_builtin_lists,
            user_lists: args.names.len(),
        })
    }

    pub fn judge(&self) -> Judge<'_> {
        Judge {
            kind: self.kind,
            lists: (!self.lists.is_empty()).then_some(&self.lists),
            counts: self.counts.as_ref(),
            lowercased: self.lowercased,
            ordinary: self.ordinary.as_ref(),
            weights: Weights {
                threshold: self.threshold,
                ..Weights::default()
            },
        }
    }

    /// What the judgement drew on, for summaries and reports (counts, no names).
    pub fn summary(&self) -> Value {
        json!({
            "builtin_lists": self.builtin_lists,
            "user_lists": self.user_lists,
            "corpus_documents": self.counts.as_ref().map(|c| c.documents),
            "ordinary_words": self.ordinary.as_ref().map(|o| o.words),
            "threshold": self.threshold,
        })
    }
}

/// The pieces of `model_dir`'s tokenizer that ordinary words of `corpus` use (outside the
/// names its ops log replaced, when given): what `vocab rewrite` must not rename.
pub fn ordinary_uses(
    model_dir: &Path,
    corpus: &Path,
    format: &str,
    ops_log: Option<&Path>,
) -> StageResult<OrdinaryUses> {
    let tok = crate::tokenizer::load_dir(model_dir)
        .with_stage_context(|| format!("loading the tokenizer of {}", model_dir.display()))?;
    let (docs, spans) = named_docs(corpus, format, ops_log, &["NAME".to_string()])?;
    ordinary_in(&tok, &docs, &spans)
}

/// A corpus and, per document, the byte ranges of the names its ops log replaced (the ops
/// whose label is in `labels`; none without an ops log).
type NamedDocs = (Vec<Document>, Vec<Vec<(usize, usize)>>);

fn named_docs(
    corpus: &Path,
    format: &str,
    ops_log: Option<&Path>,
    labels: &[String],
) -> StageResult<NamedDocs> {
    let docs = read_all(corpus, format, None, None)?;
    let ranges = match ops_log {
        Some(ops) => crate::opslog::read_replaced_ranges_where(ops, &docs, |op| {
            labels
                .iter()
                .any(|l| l.eq_ignore_ascii_case(op.label.as_str()))
        })?,
        None => Default::default(),
    };
    let spans = docs
        .iter()
        .map(|d| ranges.get(&d.id).cloned().unwrap_or_default())
        .collect();
    Ok((docs, spans))
}

/// `(text, name ranges)` of every document, as the counters take them.
fn with_spans<'a>(
    docs: &'a [Document],
    spans: &'a [Vec<(usize, usize)>],
) -> impl Iterator<Item = (&'a str, &'a [(usize, usize)])> {
    docs.iter()
        .zip(spans)
        .map(|(d, r)| (d.text.as_str(), r.as_slice()))
}

/// The error of a document the tokenizer could not encode, named by its (escaped) id.
fn tokenizing_error(docs: &[Document], index: usize, e: impl std::fmt::Display) -> ValueError {
    ValueError::new(format!(
        "tokenizing document {}: {e}",
        crate::corpus::show_id(&docs[index].id)
    ))
}

fn in_name_counts(
    tok: &ModelTokenizer,
    docs: &[Document],
    spans: &[Vec<(usize, usize)>],
) -> StageResult<InNameCounts> {
    InNameCounts::count(tok, with_spans(docs, spans))
        .map_err(|(i, e)| tokenizing_error(docs, i, e).into())
}

fn ordinary_in(
    tok: &ModelTokenizer,
    docs: &[Document],
    spans: &[Vec<(usize, usize)>],
) -> StageResult<OrdinaryUses> {
    OrdinaryUses::count(tok, with_spans(docs, spans))
        .map_err(|(i, e)| tokenizing_error(docs, i, e).into())
}

/// In-name counts of `docs`, names being the byte ranges `ranges` gives each document.
pub fn count_in(
    tok: &ModelTokenizer,
    docs: &[Document],
    ranges: impl Fn(&Document) -> Vec<(usize, usize)>,
) -> StageResult<InNameCounts> {
    let spans: Vec<Vec<(usize, usize)>> = docs.iter().map(ranges).collect();
    in_name_counts(tok, docs, &spans)
}

/// Whether the tokenizer's normalizer lower-cases.
fn lowercases(tok: &ModelTokenizer) -> bool {
    tok.inner
        .encode("Zwanenburg", false)
        .ok()
        .and_then(|e| tok.inner.decode(e.get_ids(), true).ok())
        .is_some_and(|d| !d.chars().any(char::is_uppercase))
}
