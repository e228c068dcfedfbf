//! Recovery of a slot's original value: whether it is a top-k prediction as one token, and its
//! pseudo-log-likelihood rank among candidate names written into the slot (multi-piece names
//! scored one masked copy per piece). Only ranks and counts leave this module, never a name.

use super::error::ProbeError;
use super::run::RankedPrediction;
use super::set::ProbeSlot;
use crate::lang::Lang;
use crate::mlm::runtime::MlmRuntime;
use crate::mlm::score::candidate_scores;
use crate::wordlists::ListSources;
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// Recovery figures of one slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recovery {
    /// The original, as one token (word-boundary marker and spaces stripped, case-sensitive),
    /// is among the top-k prediction texts.
    pub in_top_k: bool,
    /// Its rank among the predictions when it is there (lets metrics count it at a smaller k).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k_rank: Option<usize>,
    /// Rank of the original by pseudo-log-likelihood among all candidates (1 = best; ties
    /// count against the original).
    /// `null` when the vocabulary cannot spell the original (it holds the unknown token): the
    /// model cannot produce it at all.
    pub pll_rank: Option<usize>,
    /// Candidates scored, the original included (candidates the vocabulary cannot spell are
    /// passed over).
    pub n_candidates: usize,
    /// Token pieces of the original in the slot.
    pub n_pieces: usize,
}

/// Where candidate names come from.
#[derive(Clone, Debug)]
pub enum CandidatePool {
    /// A user list (`--candidates FILE`), used as given for every slot.
    List(Vec<String>),
    /// The built-in name lists per language, bucketed by word count: surnames and first names,
    /// and first name + surname. An original of n words competes with candidates of n words
    /// (all candidates when there are none of that length).
    Builtin(HashMap<Lang, BTreeMap<usize, Vec<String>>>),
}

impl CandidatePool {
    /// One name per line (`#` comments and blank lines skipped, duplicates dropped).
    pub fn from_file(path: &Path) -> Result<Self, ProbeError> {
        let bytes = std::fs::read(path).map_err(|e| ProbeError::io(path, e))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ProbeError::file(path.to_path_buf(), "not valid UTF-8"))?;
        let list = dedup(crate::wordlists::parse_list(&text).map(str::to_string));
        if list.is_empty() {
            return Err(ProbeError::file(path.to_path_buf(), "no candidate names"));
        }
        Ok(CandidatePool::List(list))
    }

    /// The built-in surname and first-name lists of `langs`.
    pub fn builtin(langs: &[Lang]) -> Result<Self, ProbeError> {
        let sources = ListSources::default();
        let mut out = HashMap::new();
        for &lang in langs {
            let surnames = sources.load(lang, "surnames")?;
            let first = sources.load(lang, "first_names")?;
            let mut buckets: BTreeMap<usize, Vec<String>> = BTreeMap::new();
            let full = first
                .iter()
                .flat_map(|f| surnames.iter().map(move |s| format!("{f} {s}")));
            for name in dedup(surnames.iter().chain(&first).cloned().chain(full)) {
                buckets
                    .entry(name.split_whitespace().count())
                    .or_default()
                    .push(name);
            }
            out.insert(lang, buckets);
        }
        Ok(CandidatePool::Builtin(out))
    }

    /// The candidates for one slot: the original first, then up to `max - 1` others that
    /// `keep` accepts, drawn in a seeded random order from `seed` and the slot id (so a slot
    /// gets the same candidates in any run order).
    pub fn candidates_for(
        &self,
        slot: &ProbeSlot,
        original: &str,
        lang: Option<Lang>,
        max: usize,
        seed: u64,
        mut keep: impl FnMut(&str) -> Result<bool, ProbeError>,
    ) -> Result<Vec<String>, ProbeError> {
        let pool: Vec<&String> = match self {
            CandidatePool::List(list) => list.iter().collect(),
            CandidatePool::Builtin(by_lang) => {
                let lang = lang.ok_or_else(|| ProbeError::Slot {
                    slot_id: slot.slot_id.clone(),
                    msg:
                        "no language for the built-in candidate names (give --lang or --candidates)"
                            .into(),
                })?;
                let buckets = by_lang.get(&lang).ok_or_else(|| ProbeError::Slot {
                    slot_id: slot.slot_id.clone(),
                    msg: format!("no built-in candidate names loaded for '{}'", lang.code()),
                })?;
                match buckets.get(&original.split_whitespace().count()) {
                    Some(b) if b.iter().any(|c| c != original) => b.iter().collect(),
                    _ => buckets.values().flatten().collect(),
                }
            }
        };
        let others: Vec<&String> = pool.into_iter().filter(|c| *c != original).collect();
        let want = max.saturating_sub(1);
        let mut out = Vec::with_capacity(want.min(others.len()) + 1);
        out.push(original.to_string());
        let order = sample(
            &mut slot_rng(seed, &slot.slot_id),
            others.len(),
            others.len(),
        );
        for i in order {
            if out.len() > want {
                break;
            }
            if keep(others[i])? {
                out.push(others[i].clone());
            }
        }
        Ok(out)
    }
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    items.filter(|s| seen.insert(s.clone())).collect()
}

/// The RNG of one slot's candidate sample.
fn slot_rng(seed: u64, slot_id: &str) -> ChaCha8Rng {
    let digest = Sha256::new()
        .chain_update(b"probe-candidates")
        .chain_update(seed.to_le_bytes())
        .chain_update(slot_id.as_bytes())
        .finalize();
    let mut key = [0u8; 32];
    key.copy_from_slice(&digest);
    ChaCha8Rng::from_seed(key)
}

/// The rank of `original` among the predicted tokens, if it is one (texts compared after
/// trimming spaces).
pub fn top_k_rank(original: &str, predictions: &[RankedPrediction]) -> Option<usize> {
    let original = original.trim();
    predictions
        .iter()
        .find(|p| p.text == original)
        .map(|p| p.rank)
}

/// Rank of entry 0 among `scores` (1 = best); ties count against it.
pub fn rank_of_first(scores: &[f64]) -> usize {
    let first = scores[0];
    1 + scores[1..]
        .iter()
        .filter(|&&s| s >= first || s.is_nan())
        .count()
}

/// Settings shared by the recoveries of a run.
pub struct RecoverySettings<'a> {
    pub originals: &'a HashMap<String, String>,
    pub pool: &'a CandidatePool,
    pub max_candidates: usize,
    pub seed: u64,
    /// Language of slots that carry none (user files: `--lang`).
    pub default_lang: Option<Lang>,
}

/// The recovery figures of `slot`, or `None` when its original is not known.
pub fn recover(
    rt: &MlmRuntime,
    slot: &ProbeSlot,
    predictions: &[RankedPrediction],
    settings: &RecoverySettings,
) -> Result<Option<Recovery>, ProbeError> {
    let Some(original) = settings.originals.get(&slot.slot_id) else {
        return Ok(None);
    };
    if original.trim().is_empty() {
        return Err(ProbeError::Slot {
            slot_id: slot.slot_id.clone(),
            msg: "the original value is empty".into(),
        });
    }
    let lang = match &slot.lang {
        Some(code) => Some(code.parse::<Lang>().map_err(|_| ProbeError::Slot {
            slot_id: slot.slot_id.clone(),
            msg: format!("unknown language code '{code}'"),
        })?),
        None => settings.default_lang,
    };
    let unk = rt.tokenizer.specials.unk;
    let pieces_of = |name: &str| -> Result<Vec<u32>, ProbeError> {
        let enc = rt
            .tokenizer
            .inner
            .encode(name, false)
            .map_err(|e| ProbeError::Slot {
                slot_id: slot.slot_id.clone(),
                msg: format!("tokenizer: {e}"),
            })?;
        Ok(enc.get_ids().to_vec())
    };
    let spellable = |name: &str| -> Result<bool, ProbeError> {
        let ids = pieces_of(name)?;
        Ok(!ids.is_empty() && !ids.contains(&unk))
    };
    let top_k_rank = top_k_rank(original, predictions);
    let in_top_k = top_k_rank.is_some();
    let candidates = settings.pool.candidates_for(
        slot,
        original,
        lang,
        settings.max_candidates,
        settings.seed,
        spellable,
    )?;
    if !spellable(original)? {
        return Ok(Some(Recovery {
            in_top_k,
            top_k_rank,
            pll_rank: None,
            n_candidates: candidates.len(),
            n_pieces: pieces_of(original)?.len(),
        }));
    }
    let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
    let scores = candidate_scores(rt, &slot.text, &refs).map_err(|e| {
        let what = match e.input_index() {
            Some(0) => "the original".to_string(),
            Some(i) => format!("candidate {i}"),
            None => "scoring".to_string(),
        };
        // The inner message names an index and a kind only, never a name.
        ProbeError::Slot {
            slot_id: slot.slot_id.clone(),
            msg: format!("{what}: {e}"),
        }
    })?;
    let plls: Vec<f64> = scores.iter().map(|s| s.pll).collect();
    Ok(Some(Recovery {
        in_top_k,
        top_k_rank,
        pll_rank: Some(rank_of_first(&plls)),
        n_candidates: candidates.len(),
        n_pieces: scores[0].n_pieces,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::set::SetKind;

    fn slot(id: &str) -> ProbeSlot {
        ProbeSlot {
            slot_id: id.into(),
            doc_id: None,
            set: SetKind::User,
            label: None,
            subtype: None,
            lang: None,
            text: "Dokter <mask> kwam.".into(),
        }
    }

    fn yes(_: &str) -> Result<bool, ProbeError> {
        Ok(true)
    }

    #[test]
    fn ties_count_against_the_original() {
        assert_eq!(rank_of_first(&[-1.0, -2.0, -3.0]), 1);
        assert_eq!(rank_of_first(&[-2.0, -1.0, -2.0, -3.0]), 3);
        assert_eq!(rank_of_first(&[-2.0]), 1);
        assert_eq!(rank_of_first(&[-2.0, f64::NAN]), 2);
    }

    #[test]
    fn candidates_start_with_the_original_are_capped_and_seeded() {
        let pool = CandidatePool::List((0..50).map(|i| format!("Naam{i}")).collect());
        let a = pool
            .candidates_for(&slot("line 1"), "Naam7", None, 10, 3, yes)
            .unwrap();
        assert_eq!(a.len(), 10);
        assert_eq!(a[0], "Naam7");
        assert_eq!(a.iter().filter(|c| *c == "Naam7").count(), 1);
        let b = pool
            .candidates_for(&slot("line 1"), "Naam7", None, 10, 3, yes)
            .unwrap();
        assert_eq!(a, b, "same seed and slot, same candidates");
        let c = pool
            .candidates_for(&slot("line 2"), "Naam7", None, 10, 3, yes)
            .unwrap();
        assert_ne!(a, c, "another slot draws another sample");
        let all = pool
            .candidates_for(&slot("line 1"), "Elders", None, 1000, 3, yes)
            .unwrap();
        assert_eq!(all.len(), 51);
        // Candidates the filter refuses are passed over, the cap still filled from the rest.
        let even = |c: &str| -> Result<bool, ProbeError> {
            Ok(c.trim_start_matches("Naam").parse::<u32>().unwrap() % 2 == 0)
        };
        let some = pool
            .candidates_for(&slot("line 1"), "Naam7", None, 10, 3, even)
            .unwrap();
        assert_eq!(some.len(), 10);
        assert!(some[1..].iter().all(|c| even(c).unwrap()));
    }

    #[test]
    fn builtin_candidates_match_the_originals_word_count() {
        let pool = CandidatePool::builtin(&[Lang::Nl]).unwrap();
        let one = pool
            .candidates_for(&slot("a#1"), "Zwaneveld", Some(Lang::Nl), 200, 0, yes)
            .unwrap();
        assert_eq!(one.len(), 200);
        assert!(one.iter().all(|c| c.split_whitespace().count() == 1));
        let two = pool
            .candidates_for(&slot("a#2"), "Anna Zwaneveld", Some(Lang::Nl), 50, 0, yes)
            .unwrap();
        assert!(two.iter().all(|c| c.split_whitespace().count() == 2));
        let err = pool
            .candidates_for(&slot("a#3"), "Zwaneveld", None, 50, 0, yes)
            .unwrap_err()
            .to_string();
        assert!(err.contains("a#3") && err.contains("--lang"), "{err}");
        assert!(!err.contains("Zwaneveld"));
    }

    #[test]
    fn top_k_rank_compares_whole_token_texts() {
        let p = |rank: usize, t: &str| RankedPrediction {
            rank,
            token: format!("Ġ{t}"),
            id: 1,
            text: t.into(),
            prob: 0.1,
        };
        assert_eq!(
            top_k_rank(" Jansen", &[p(1, "de"), p(2, "Jansen")]),
            Some(2)
        );
        assert_eq!(top_k_rank("jansen", &[p(1, "Jansen")]), None);
        assert_eq!(
            top_k_rank("Joachim Claes", &[p(1, "Joachim"), p(2, "Claes")]),
            None
        );
    }
}
