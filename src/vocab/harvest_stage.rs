//! The `vocab harvest` stage as a library call: the tokens a model predicted at name slots
//! (or its whole vocabulary), judged for name-likeness and written as a review file; with a
//! gold corpus, precision and recall of the proposals.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::evidence::{count_in, NameEvidence, NameEvidenceSettings};
use super::{Decision, Harvested, PredictedToken, ReviewRow};
use crate::error::{StageContext, StageResult, ValueError};
use crate::eval::job::read_all;
use crate::fsio::{Inputs, Kind, OutputSet};
use crate::tokenizer::{self, ModelTokenizer};
use crate::vocab;

#[derive(Clone, Debug)]
pub struct HarvestSettings {
    /// `probe run` outputs.
    pub probe: Vec<PathBuf>,
    pub model: PathBuf,
    /// The review file.
    pub out: PathBuf,
    pub evidence: NameEvidenceSettings,
    /// Judge every ordinary vocabulary entry, not only what the probes brought up.
    pub all_tokens: bool,
    /// A corpus with gold NAME spans, for precision and recall of the proposals.
    pub gold: Option<PathBuf>,
    /// Where the summary JSON goes.
    pub summary: Option<PathBuf>,
    pub overwrite: bool,
}

/// Counts of the run (no tokens), as written to the summary file.
#[derive(Clone, Debug)]
pub struct HarvestSummary {
    pub summary: serde_json::Value,
}

pub fn run(args: &HarvestSettings) -> StageResult<HarvestSummary> {
    // The review file and the summary are one unit, never written onto a file this run reads.
    let ev = &args.evidence;
    let inputs = Inputs::of(
        args.probe
            .iter()
            .chain([&args.model])
            .chain(ev.corpus.as_ref())
            .chain(ev.ops_log.as_ref())
            .chain(ev.names.iter())
            .chain(args.gold.as_ref()),
    );
    let mut claims = vec![(args.out.as_path(), Kind::File)];
    claims.extend(args.summary.as_deref().map(|p| (p, Kind::File)));
    let set = OutputSet::claim(&claims, args.overwrite, inputs)?;
    let tok = tokenizer::load_dir(&args.model)
        .with_stage_context(|| format!("loading the tokenizer of {}", args.model.display()))?;
    let (predictions, slots) = read_probes(&args.probe, tok.vocab_size())?;
    let mut harvested = vocab::gather(&predictions);
    if args.all_tokens {
        add_unpredicted(&tok, &mut harvested);
    }

    let evidence = NameEvidence::load(&tok, &args.evidence)?;
    let judge = evidence.judge();
    let rows = vocab::review_rows(&judge, &harvested);
    let mut review = set.file(&args.out)?;
    review
        .write_all(vocab::render_review(&args.out, &rows)?.as_bytes())
        .with_stage_context(|| format!("writing {}", args.out.display()))?;
    let mut stages = vec![review.into()];
    let proposed = rows
        .iter()
        .filter(|r| r.decision == Decision::Remove)
        .count();
    let mut summary = json!({
        "slots": slots,
        "predictions": predictions.len(),
        "tokens": rows.len(),
        "proposed_remove": proposed,
        "evidence": evidence.summary(),
    });
    if let Some(gold) = &args.gold {
        let g = gold_agreement(&tok, gold, &harvested, &rows)?;
        summary["gold"] = g;
    }
    if let Some(path) = &args.summary {
        let mut text = serde_json::to_string_pretty(&summary)?;
        text.push('\n');
        let mut f = set.file(path)?;
        f.write_all(text.as_bytes())
            .with_stage_context(|| format!("writing {}", path.display()))?;
        stages.push(f.into());
    }
    set.publish(stages)?;
    Ok(HarvestSummary { summary })
}

/// Every prediction of every probe file (`probe run` output); ids outside the vocabulary mean
/// the file was made with another model. Returns the predictions and the number of slots.
fn read_probes(paths: &[PathBuf], vocab: usize) -> StageResult<(Vec<PredictedToken>, usize)> {
    let mut out = Vec::new();
    let mut slots = 0;
    for path in paths {
        for result in crate::probe::read_probe_results(path)? {
            slots += 1;
            for p in result.predictions {
                if p.id as usize >= vocab {
                    return Err(ValueError::new(format!(
                        "{}: slot {}: token id {} is outside this model's vocabulary of {vocab}",
                        path.display(),
                        crate::corpus::show_id(&result.slot_id),
                        p.id
                    ))
                    .into());
                }
                out.push(PredictedToken {
                    id: p.id,
                    token: p.token,
                    rank: p.rank,
                    prob: f64::from(p.prob),
                });
            }
        }
    }
    Ok((out, slots))
}

/// Every ordinary vocabulary entry the probes did not bring up, with no probe figures.
fn add_unpredicted(tok: &ModelTokenizer, harvested: &mut Vec<Harvested>) {
    let seen: HashSet<u32> = harvested.iter().map(|h| h.id).collect();
    let specials = tok.special_ids();
    for (token, id) in tok.inner.get_vocab(true) {
        if !seen.contains(&id) && specials.binary_search(&id).is_err() {
            harvested.push(Harvested {
                id,
                token,
                slots: 0,
                best_rank: 0,
                max_prob: 0.0,
            });
        }
    }
    harvested.sort_by_key(|h| h.id);
}

/// Precision and recall of the proposals against gold: a harvested token is a name token when
/// the gold documents use it more often inside NAME entities than elsewhere.
fn gold_agreement(
    tok: &ModelTokenizer,
    gold: &Path,
    harvested: &[Harvested],
    rows: &[ReviewRow],
) -> StageResult<serde_json::Value> {
    let docs = read_all(gold, "auto", None, None)?;
    let counts = count_in(tok, &docs, |d| {
        d.entities
            .iter()
            .filter(|e| e.label.category == crate::labels::Category::Name)
            .map(|e| (e.start, e.end))
            .collect()
    })?;
    let is_name: HashSet<u32> = harvested
        .iter()
        .filter(|h| {
            let c = counts.get(h.id);
            c.in_names > c.elsewhere
        })
        .map(|h| h.id)
        .collect();
    let mut table: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        let key = match (r.decision == Decision::Remove, is_name.contains(&r.id)) {
            (true, true) => "true_positive",
            (true, false) => "false_positive",
            (false, true) => "false_negative",
            (false, false) => "true_negative",
        };
        *table.entry(key).or_default() += 1;
    }
    let get = |k: &str| table.get(k).copied().unwrap_or(0) as f64;
    let (tp, fp, fn_) = (
        get("true_positive"),
        get("false_positive"),
        get("false_negative"),
    );
    Ok(json!({
        "gold_documents": docs.len(),
        "gold_name_tokens": is_name.len(),
        "table": table,
        "precision": if tp + fp > 0.0 { Some(tp / (tp + fp)) } else { None },
        "recall": if tp + fn_ > 0.0 { Some(tp / (tp + fn_)) } else { None },
    }))
}
