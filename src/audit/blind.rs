//! The blind baseline (Das et al. 2024): an attack that never looks at the model. A bag-of-words
//! naive Bayes classifier, cross-validated, tells members from non-members by their text alone;
//! if it can, the two sets differ in kind and a membership result on them means nothing.

use std::collections::HashMap;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Out-of-fold scores (log-odds of "member") for every member and non-member text, from a
/// multinomial naive Bayes over lower-cased words with add-one smoothing, `folds`-fold
/// cross-validated. `groups` names the document of each text (members first): a document's
/// texts share a fold, so its own words (names, dates) cannot carry over from training to test.
/// Folds are drawn from `seed`. Returns (member scores, non-member scores).
pub fn blind_scores(
    members: &[&str],
    non_members: &[&str],
    groups: &[&str],
    folds: usize,
    seed: u64,
) -> (Vec<f64>, Vec<f64>) {
    assert!(folds >= 2, "at least two folds");
    assert_eq!(groups.len(), members.len() + non_members.len());
    let docs: Vec<(Vec<String>, bool)> = members
        .iter()
        .map(|t| (words(t), true))
        .chain(non_members.iter().map(|t| (words(t), false)))
        .collect();
    let mut distinct: Vec<&str> = groups.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let fold_of_group: HashMap<&str, usize> = distinct
        .iter()
        .enumerate()
        .map(|(position, g)| (*g, position % folds))
        .collect();
    let fold_of: Vec<usize> = groups.iter().map(|g| fold_of_group[g]).collect();
    let mut scores = vec![0.0; docs.len()];
    for fold in 0..folds {
        let model = NaiveBayes::fit(
            docs.iter()
                .enumerate()
                .filter(|(i, _)| fold_of[*i] != fold)
                .map(|(_, d)| (d.0.as_slice(), d.1)),
        );
        for (i, d) in docs.iter().enumerate() {
            if fold_of[i] == fold {
                scores[i] = model.log_odds(&d.0);
            }
        }
    }
    let split = members.len();
    (scores[..split].to_vec(), scores[split..].to_vec())
}

/// Lower-cased alphanumeric words.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

struct NaiveBayes {
    /// log P(word | member) − log P(word | non-member), smoothed.
    word_log_ratio: HashMap<String, f64>,
    /// The ratio of a word neither class saw in training.
    unseen_log_ratio: f64,
    prior_log_odds: f64,
}

impl NaiveBayes {
    fn fit<'a>(docs: impl Iterator<Item = (&'a [String], bool)>) -> Self {
        let mut counts: HashMap<&str, [f64; 2]> = HashMap::new();
        let mut totals = [0.0f64; 2];
        let mut docs_per_class = [0.0f64; 2];
        for (words, member) in docs {
            let c = usize::from(member);
            docs_per_class[c] += 1.0;
            for w in words {
                counts.entry(w.as_str()).or_insert([0.0; 2])[c] += 1.0;
                totals[c] += 1.0;
            }
        }
        let v = counts.len() as f64 + 1.0;
        let denom = [totals[0] + v, totals[1] + v];
        let word_log_ratio = counts
            .iter()
            .map(|(w, c)| {
                let ratio = ((c[1] + 1.0) / denom[1]).ln() - ((c[0] + 1.0) / denom[0]).ln();
                (w.to_string(), ratio)
            })
            .collect();
        NaiveBayes {
            word_log_ratio,
            unseen_log_ratio: (1.0 / denom[1]).ln() - (1.0 / denom[0]).ln(),
            prior_log_odds: ((docs_per_class[1] + 1.0) / (docs_per_class[0] + 1.0)).ln(),
        }
    }

    fn log_odds(&self, words: &[String]) -> f64 {
        self.prior_log_odds
            + words
                .iter()
                .map(|w| {
                    self.word_log_ratio
                        .get(w)
                        .copied()
                        .unwrap_or(self.unseen_log_ratio)
                })
                .sum::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::attack_metrics;

    /// Eight-word sentences drawn at random (seeded) from a small vocabulary.
    fn sentences(vocab: &[&str], n: usize, seed: u64) -> Vec<String> {
        use rand::Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                (0..8)
                    .map(|_| vocab[rng.gen_range(0..vocab.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    const WARD: [&str; 10] = [
        "patiënt",
        "koorts",
        "opname",
        "bloeddruk",
        "controle",
        "pijn",
        "medicatie",
        "arts",
        "afdeling",
        "ontslag",
    ];
    const RADIOLOGY: [&str; 10] = [
        "opname",
        "thorax",
        "contrast",
        "laesie",
        "afwijking",
        "beeld",
        "scan",
        "arts",
        "mri",
        "echo",
    ];

    #[test]
    fn text_of_another_kind_is_told_apart() {
        let members = sentences(&WARD, 100, 0);
        let non = sentences(&RADIOLOGY, 100, 1);
        let m: Vec<&str> = members.iter().map(String::as_str).collect();
        let n: Vec<&str> = non.iter().map(String::as_str).collect();
        let (sm, sn) = blind_scores(&m, &n, &groups(200), 5, 7);
        let metrics = attack_metrics(&sm, &sn, &[0.01]);
        assert!(metrics.auc.value > 0.9, "{:?}", metrics.auc);
    }

    #[test]
    fn one_kind_of_text_split_at_random_is_not() {
        let all = sentences(&WARD, 200, 0);
        let m: Vec<&str> = all.iter().step_by(2).map(String::as_str).collect();
        let n: Vec<&str> = all.iter().skip(1).step_by(2).map(String::as_str).collect();
        let (sm, sn) = blind_scores(&m, &n, &groups(200), 5, 7);
        let metrics = attack_metrics(&sm, &sn, &[0.01]);
        assert!(metrics.auc.value < 0.6, "{:?}", metrics.auc);
        // Same seed, same scores.
        assert_eq!(blind_scores(&m, &n, &groups(200), 5, 7), (sm, sn));
    }

    fn groups(n: usize) -> Vec<&'static str> {
        (0..n).map(|i| &*format!("doc{i}").leak()).collect()
    }

    #[test]
    fn words_of_one_document_do_not_cross_folds() {
        // Ten documents per side, one kind of text, each document with its own rare word in
        // all of its sentences: split by sentence the classifier would learn those words.
        let base = sentences(&WARD, 200, 3);
        let texts: Vec<String> = base
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{t} uniek{}", i / 10))
            .collect();
        let m: Vec<&str> = texts[..100].iter().map(String::as_str).collect();
        let n: Vec<&str> = texts[100..].iter().map(String::as_str).collect();
        let by_doc: Vec<&str> = (0..200).map(|i| &*format!("d{}", i / 10).leak()).collect();
        let (sm, sn) = blind_scores(&m, &n, &by_doc, 5, 1);
        assert!(attack_metrics(&sm, &sn, &[0.01]).auc.value < 0.6);
        let (sm, sn) = blind_scores(&m, &n, &groups(200), 5, 1);
        assert!(attack_metrics(&sm, &sn, &[0.01]).auc.value > 0.8);
    }
}
