//! The evidence a name-likeness judgement draws on (name lists, corpus counts inside replaced
//! names, the tokenizer's markers and case): shared by the `vocab harvest` and `probe metrics`
//! stages. A list or corpus that cannot be read stops the stage.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::Judge;
use crate::corpus::Document;
use crate::error::{StageContext, StageResult, ValueError};
use crate::eval::job::read_all;
use crate::namelike::{InNameCounts, NameLists, SubwordKind, Weights};
use crate::tokenizer::ModelTokenizer;

/// Where the evidence comes from.
#[derive(Clone, Debug)]
pub struct NameEvidenceSettings {
    /// The original corpus, with `ops_log`: counts of each token inside replaced names.
    pub corpus: Option<PathBuf>,
    pub format: String,
    pub ops_log: Option<PathBuf>,
    /// The ops-log labels that count as names.
    pub labels: Vec<String>,
    /// Extra name lists.
    pub names: Vec<PathBuf>,
    pub no_builtin_lists: bool,
    pub threshold: f64,
}

/// Everything a [`Judge`] borrows, owned.
pub struct NameEvidence {
    lists: NameLists,
    counts: Option<InNameCounts>,
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
        let counts = match (&args.corpus, &args.ops_log) {
            (Some(corpus), Some(ops)) => {
                Some(corpus_counts(tok, corpus, &args.format, ops, &args.labels)?)
            }
            _ => None,
        };
        Ok(NameEvidence {
            lists,
            counts,
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
            "threshold": self.threshold,
        })
    }
}

/// In-name counts of the original corpus, names being the ops whose label is in `labels`.
fn corpus_counts(
    tok: &ModelTokenizer,
    corpus: &Path,
    format: &str,
    ops_log: &Path,
    labels: &[String],
) -> StageResult<InNameCounts> {
    let docs = read_all(corpus, format, None, None)?;
    let ranges = crate::opslog::read_replaced_ranges_where(ops_log, &docs, |op| {
        labels
            .iter()
            .any(|l| l.eq_ignore_ascii_case(op.label.as_str()))
    })?;
    count_in(tok, &docs, |d| {
        ranges.get(&d.id).map(Vec::as_slice).unwrap_or(&[]).to_vec()
    })
}

pub fn count_in(
    tok: &ModelTokenizer,
    docs: &[Document],
    ranges: impl Fn(&Document) -> Vec<(usize, usize)>,
) -> StageResult<InNameCounts> {
    let spans: Vec<Vec<(usize, usize)>> = docs.iter().map(&ranges).collect();
    InNameCounts::count(
        tok,
        docs.iter()
            .zip(&spans)
            .map(|(d, r)| (d.text.as_str(), r.as_slice())),
    )
    .map_err(|(i, e)| {
        ValueError::new(format!(
            "tokenizing document {}: {e}",
            crate::corpus::show_id(&docs[i].id)
        ))
        .into()
    })
}

/// Whether the tokenizer's normalizer lower-cases.
fn lowercases(tok: &ModelTokenizer) -> bool {
    tok.inner
        .encode("Zwanenburg", false)
        .ok()
        .and_then(|e| tok.inner.decode(e.get_ids(), true).ok())
        .is_some_and(|d| !d.chars().any(char::is_uppercase))
}
