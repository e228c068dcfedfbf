//! `anonlm eval --risk`: de-identify the gold documents in memory, pass by pass, and count the
//! gold entities left (the Hungarian study's §3.5 analysis).

use super::common;
use crate::cli::{EvalArgs, InputArgs};
use crate::corpus::{Document, ReadOptions};
use crate::deid::apply::{Deidentifier, OpRecord};
use crate::eval::{EvalOptions, Replacement, RiskCounter, RiskReport};
use crate::keys::Key;
use crate::labels::Label;
use anyhow::{Context, Result};
use rayon::prelude::*;

/// The recognizer flags of `eval --risk` as the corpus commands' input flags, so the pipeline
/// is built exactly as `recognize` and `deid` build theirs (a new recognizer flag is one more
/// field here).
pub fn input_args(args: &EvalArgs) -> InputArgs {
    let r = &args.risk;
    InputArgs {
        input: args.gold.clone(),
        format: args.format.clone(),
        lang: r.lang,
        fallback_lang: r.fallback_lang,
        lists: r.lists.clone(),
        label_map: args.label_map.clone(),
        model: r.model.clone(),
        models: r.models.clone(),
        no_rules: false,
        max_doc_bytes: args
            .max_doc_bytes
            .unwrap_or(ReadOptions::DEFAULT_MAX_DOC_BYTES),
        threads: None,
        quiet: true,
    }
}

/// The replacements of a multi-pass run, in the original text's coordinates (the ops' own
/// `start`/`end`, as the ops log records them; together they cover `MultiPassOutput::replaced`).
fn replacements_of(ops: &[OpRecord]) -> Vec<Replacement> {
    ops.iter()
        .filter(|op| op.start < op.end)
        .map(|op| Replacement {
            start: op.start,
            end: op.end,
            label: Label {
                category: op.label,
                subtype: op.subtype,
            },
            pass: op.pass,
        })
        .collect()
}

/// De-identifies every gold text with `args.risk.passes` passes and counts, after each pass,
/// what is left of the gold entities. Documents run in parallel; nothing is written.
pub fn run(args: &EvalArgs, gold: &[Document], opts: &EvalOptions) -> Result<RiskReport> {
    let r = &args.risk;
    let passes = r.passes.max(1);
    let pipeline = common::pipeline(&input_args(args))?;
    let policy = super::deid::load_policy(&r.policy)?;
    let policy_source = policy.source.clone();
    let key = r
        .key_file
        .as_deref()
        .map(Key::from_file)
        .transpose()
        .context("loading the key file")?;
    let deid = Deidentifier::new(policy, key, 0)?;
    let replacements: Vec<Vec<Replacement>> = gold
        .par_iter()
        .map(|doc| {
            let lang = pipeline.lang_for(&doc.text);
            let out = deid.run_passes(&doc.id, lang, None, &doc.text, passes, |t| {
                pipeline.recognize_as(t, lang)
            });
            replacements_of(&out.ops)
        })
        .collect();
    let mut counter = RiskCounter::new(passes, opts);
    for (doc, reps) in gold.iter().zip(&replacements) {
        counter.add(doc, reps)?;
    }
    Ok(counter.finish(&policy_source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deid::policy::Policy;
    use crate::lang::Lang;
    use crate::span::Entity;

    #[test]
    fn default_risk_args_are_off_with_the_flag_defaults() {
        let r = crate::cli::RiskArgs::default();
        assert!(!r.risk && r.risk_svg.is_none() && r.key_file.is_none());
        assert_eq!((r.passes, r.policy.as_str()), (2, "default"));
        assert_eq!(r.lang, crate::lang::LangChoice::Auto);
    }

    /// Bytes covered by `ranges`, one flag per byte of a text of `len` bytes.
    fn covered(len: usize, ranges: impl Iterator<Item = (usize, usize)>) -> Vec<bool> {
        let mut v = vec![false; len];
        for (s, e) in ranges {
            v[s..e].iter_mut().for_each(|b| *b = true);
        }
        v
    }

    #[test]
    fn ops_up_to_pass_k_cover_what_a_k_pass_run_replaces() {
        let text = "Dr. Ádám Szabó called. Szabó will call back; ring Kovács in Pécs.";
        // Pass 1 finds the full name and the city; later passes the lone surnames too (as a
        // per-document name cache would), also inside text pass 1 wrote.
        let recognize = |calls: &std::cell::Cell<usize>, t: &str| {
            calls.set(calls.get() + 1);
            let words: &[(&str, &str)] = if calls.get() == 1 {
                &[("Ádám Szabó", "NAME/DOCTOR"), ("Pécs", "LOCATION/CITY")]
            } else {
                &[
                    ("Szabó", "NAME/DOCTOR"),
                    ("Kovács", "NAME/PATIENT"),
                    ("NAME", "NAME"),
                ]
            };
            let mut v = Vec::new();
            for (w, l) in words {
                for (i, _) in t.match_indices(w) {
                    v.push(Entity::new(
                        i,
                        i + w.len(),
                        Label::parse(l).unwrap(),
                        "t",
                        1.0,
                    ));
                }
            }
            crate::span::resolve_overlaps(v)
        };
        let deid = Deidentifier::new(Policy::default(), None, 0).unwrap();
        let run = |passes| {
            let calls = std::cell::Cell::new(0);
            deid.run_passes("d", Lang::Hu, None, text, passes, |t| recognize(&calls, t))
        };
        let two = run(2);
        let reps = replacements_of(&two.ops);
        assert!(
            reps.iter().any(|r| r.pass == 2),
            "pass 2 replaced something"
        );
        for k in 1..=2 {
            let k_run = run(k);
            let by_ops = covered(
                text.len(),
                reps.iter()
                    .filter(|r| r.pass <= k)
                    .map(|r| (r.start, r.end)),
            );
            assert_eq!(
                by_ops,
                covered(text.len(), k_run.replaced.iter().copied()),
                "pass {k}"
            );
        }
        let labels: Vec<(&str, String)> = reps
            .iter()
            .map(|r| (&text[r.start..r.end], r.label.to_string()))
            .collect();
        assert!(
            labels.contains(&("Pécs", "LOCATION/CITY".to_string())),
            "{labels:?}"
        );
        assert!(
            labels.contains(&("Kovács", "NAME/PATIENT".to_string())),
            "{labels:?}"
        );
    }
}
