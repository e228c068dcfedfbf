//! The evidence a name-likeness judgement draws on, loaded from the command line (name lists,
//! corpus counts inside replaced names, the tokenizer's markers and case): shared by
//! `vocab harvest` and `probe metrics`.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::eval::read_all;
use crate::anonymize::Judge;
use crate::cli::NameEvidenceArgs;
use crate::corpus::Document;
use crate::namelike::{InNameCounts, NameLists, SubwordKind, Weights};
use crate::tokenizer::ModelTokenizer;

/// Everything a [`Judge`] borrows, owned.
pub(crate) struct NameEvidence {
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
    pub(crate) fn load(tok: &ModelTokenizer, args: &NameEvidenceArgs) -> Result<Self> {
        let mut lists = if args.no_builtin_lists {
            NameLists::default()
        } else {
            NameLists::builtin().context("loading the built-in name lists")?
        };
        for path in &args.names {
            lists
                .add_file(path)
                .with_context(|| format!("reading --names {}", path.display()))?;
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

    pub(crate) fn judge(&self) -> Judge<'_> {
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
    pub(crate) fn summary(&self) -> Value {
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
) -> Result<InNameCounts> {
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

pub(crate) fn count_in(
    tok: &ModelTokenizer,
    docs: &[Document],
    ranges: impl Fn(&Document) -> Vec<(usize, usize)>,
) -> Result<InNameCounts> {
    let spans: Vec<Vec<(usize, usize)>> = docs.iter().map(&ranges).collect();
    InNameCounts::count(
        tok,
        docs.iter()
            .zip(&spans)
            .map(|(d, r)| (d.text.as_str(), r.as_slice())),
    )
    .map_err(|(i, e)| anyhow::anyhow!("tokenizing document '{}': {e}", docs[i].id))
}

/// Whether the tokenizer's normalizer lower-cases.
fn lowercases(tok: &ModelTokenizer) -> bool {
    tok.inner
        .encode("Zwanenburg", false)
        .ok()
        .and_then(|e| tok.inner.decode(e.get_ids(), true).ok())
        .is_some_and(|d| !d.chars().any(char::is_uppercase))
}
