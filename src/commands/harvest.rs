//! `anonlm vocab harvest`: the tokens a model predicted at name slots, judged for name-likeness
//! and written as a review file; with `--gold`, precision and recall of the proposals.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::json;

use std::io::Write;

use super::eval::read_all;
use super::name_evidence::{count_in, NameEvidence};
use crate::anonymize::{self, Decision, Harvested, PredictedToken, ReviewRow};
use crate::cli::VocabHarvestArgs;
use crate::fsio::{Inputs, Kind, OutputSet};
use crate::tokenizer::{self, ModelTokenizer};

pub fn run(args: VocabHarvestArgs) -> Result<ExitCode> {
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
        .with_context(|| format!("loading the tokenizer of {}", args.model.display()))?;
    let (predictions, slots) = read_probes(&args.probe, tok.vocab_size())?;
    let mut harvested = anonymize::gather(&predictions);
    if args.all_tokens {
        add_unpredicted(&tok, &mut harvested);
    }

    let evidence = NameEvidence::load(&tok, &args.evidence)?;
    let judge = evidence.judge();
    let rows = anonymize::review_rows(&judge, &harvested);
    let mut review = set.file(&args.out)?;
    review
        .write_all(anonymize::render_review(&args.out, &rows)?.as_bytes())
        .with_context(|| format!("writing {}", args.out.display()))?;
    let mut stages = vec![review.into()];
    let proposed = rows
        .iter()
        .filter(|r| r.decision == Decision::Remove)
        .count();
    eprintln!(
        "vocab harvest: {slots} slots, {} predictions, {} distinct tokens; {proposed} proposed for removal; review file {}",
        predictions.len(),
        rows.len(),
        args.out.display()
    );
    let mut summary = json!({
        "slots": slots,
        "predictions": predictions.len(),
        "tokens": rows.len(),
        "proposed_remove": proposed,
        "evidence": evidence.summary(),
    });
    if let Some(gold) = &args.gold {
        let g = gold_agreement(&tok, gold, &harvested, &rows)?;
        eprintln!(
            "against the gold names of {}: {} name tokens among the harvested; precision {:.3}, recall {:.3}",
            gold.display(),
            g["gold_name_tokens"],
            g["precision"].as_f64().unwrap_or(f64::NAN),
            g["recall"].as_f64().unwrap_or(f64::NAN)
        );
        summary["gold"] = g;
    }
    if let Some(path) = &args.summary {
        let mut text = serde_json::to_string_pretty(&summary)?;
        text.push('\n');
        let mut f = set.file(path)?;
        f.write_all(text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        stages.push(f.into());
    }
    set.publish(stages)?;
    Ok(ExitCode::SUCCESS)
}

/// Every prediction of every probe file (`probe run` output); ids outside the vocabulary mean
/// the file was made with another model. Returns the predictions and the number of slots.
fn read_probes(paths: &[std::path::PathBuf], vocab: usize) -> Result<(Vec<PredictedToken>, usize)> {
    let mut out = Vec::new();
    let mut slots = 0;
    for path in paths {
        for result in crate::probe::read_probe_results(path)? {
            slots += 1;
            for p in result.predictions {
                if p.id as usize >= vocab {
                    bail!(
                        "{}: slot '{}': token id {} is outside this model's vocabulary of {vocab}",
                        path.display(),
                        result.slot_id,
                        p.id
                    );
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
) -> Result<serde_json::Value> {
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
