//! Member and non-member examples of an audit: sentences of the training and held-out documents
//! (by the manifest, each text checked against its SHA-256) or of two given sets, sampled with a
//! seed. Only ids and counts leave this module in reports.

use std::collections::BTreeMap;

use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::corpus::Document;
use crate::mlm::train::data::sha256_hex;
use crate::mlm::train::manifest::Manifest;
use crate::probe::sentences::{split, Abbreviations};
use crate::probe::SetKind;

/// One scored example: a sentence and the document it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub doc_id: String,
    pub text: String,
}

/// The two sides of a membership audit, with what was left out.
#[derive(Clone, Debug, Default)]
pub struct Examples {
    pub members: Vec<Example>,
    pub non_members: Vec<Example>,
    pub member_documents: usize,
    pub non_member_documents: usize,
    /// Corpus documents the manifest does not list, or whose text no longer matches its hash.
    pub skipped_documents: usize,
}

/// Members and non-members of `corpus` by the manifest.
pub fn from_manifest(
    corpus: &[Document],
    manifest: &Manifest,
    max_per_set: usize,
    min_words: usize,
    seed: u64,
) -> Result<Examples, String> {
    let sets = crate::probe::build::manifest_sets(manifest).map_err(|e| e.to_string())?;
    let (mut members, mut non) = (Vec::new(), Vec::new());
    let mut skipped = 0;
    for d in corpus {
        match sets.get(d.id.as_str()) {
            Some((set, hash)) if *hash == sha256_hex(d.text.as_bytes()) => match set {
                SetKind::Seen => members.push(d),
                _ => non.push(d),
            },
            _ => skipped += 1,
        }
    }
    Ok(sample_both(
        &members,
        &non,
        skipped,
        max_per_set,
        min_words,
        seed,
    ))
}

/// Members and non-members given as two sets.
pub fn from_sets(
    members: &[Document],
    non_members: &[Document],
    max_per_set: usize,
    min_words: usize,
    seed: u64,
) -> Examples {
    let m: Vec<&Document> = members.iter().collect();
    let n: Vec<&Document> = non_members.iter().collect();
    sample_both(&m, &n, 0, max_per_set, min_words, seed)
}

fn sample_both(
    members: &[&Document],
    non: &[&Document],
    skipped: usize,
    max_per_set: usize,
    min_words: usize,
    seed: u64,
) -> Examples {
    let abbreviations = Abbreviations::builtin();
    Examples {
        members: sentences(members, &abbreviations, max_per_set, min_words, seed),
        non_members: sentences(non, &abbreviations, max_per_set, min_words, seed ^ 0x5a5a),
        member_documents: members.len(),
        non_member_documents: non.len(),
        skipped_documents: skipped,
    }
}

/// Up to `max` sentences of at least `min_words` words, sampled with `seed`, in corpus order.
fn sentences(
    docs: &[&Document],
    abbreviations: &Abbreviations,
    max: usize,
    min_words: usize,
    seed: u64,
) -> Vec<Example> {
    let all: Vec<Example> = docs
        .iter()
        .flat_map(|d| {
            split(&d.text, abbreviations)
                .into_iter()
                .map(move |(s, e)| (d, d.text[s..e].trim()))
        })
        .filter(|(_, t)| t.split_whitespace().count() >= min_words)
        .map(|(d, t)| Example {
            doc_id: d.id.clone(),
            text: t.to_string(),
        })
        .collect();
    if all.len() <= max {
        return all;
    }
    let mut picked = sample(&mut ChaCha8Rng::seed_from_u64(seed), all.len(), max).into_vec();
    picked.sort_unstable();
    picked.into_iter().map(|i| all[i].clone()).collect()
}

/// Mean score per document, documents in id order.
pub fn per_document(examples: &[Example], scores: &[f64]) -> Vec<f64> {
    let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for (e, s) in examples.iter().zip(scores) {
        let entry = sums.entry(e.doc_id.as_str()).or_default();
        entry.0 += s;
        entry.1 += 1;
    }
    sums.values().map(|(s, n)| s / *n as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str, text: &str) -> Document {
        Document {
            id: id.into(),
            text: text.into(),
            ..Default::default()
        }
    }

    #[test]
    fn sentences_are_sampled_with_a_seed_and_short_ones_skipped() {
        let docs: Vec<Document> = (0..20)
            .map(|i| doc(&format!("d{i}"), "Kort. Dit is een wat langere zin over de patiënt. Nog een zin met genoeg woorden erin."))
            .collect();
        let e = from_sets(&docs[..10], &docs[10..], 8, 5, 3);
        assert_eq!((e.members.len(), e.non_members.len()), (8, 8));
        assert!(e
            .members
            .iter()
            .all(|x| x.text.split_whitespace().count() >= 5));
        let again = from_sets(&docs[..10], &docs[10..], 8, 5, 3);
        assert_eq!(e.members, again.members);
        let all = from_sets(&docs[..10], &docs[10..], 100, 5, 3);
        assert_eq!(all.members.len(), 20);
    }

    #[test]
    fn document_means() {
        let ex = |d: &str| Example {
            doc_id: d.into(),
            text: String::new(),
        };
        let examples = [ex("b"), ex("a"), ex("b")];
        assert_eq!(per_document(&examples, &[1.0, 5.0, 3.0]), vec![5.0, 2.0]);
    }
}
