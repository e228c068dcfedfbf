//! Training examples for the taggers: documents cut into sentences of tokens with BIOES tags.

use super::rules::{RuleFeatures, TokenFeatures};
use super::tags::TagSet;
use crate::corpus::Document;
use crate::labels::Label;
use crate::text::{token_sentences as sentences, tokenize, Tok};
use rayon::prelude::*;

/// Longest sentence, in tokens, that training and tagging use.
pub const MAX_SENTENCE_TOKENS: usize = 128;

/// One sentence: token surfaces and, for training data, one tag per token.
#[derive(Clone, Debug, PartialEq)]
pub struct Sentence {
    pub words: Vec<String>,
    pub tags: Vec<usize>,
    /// Rule-hit and list ids, one per token (empty when the tagger reads neither).
    pub features: Vec<TokenFeatures>,
    /// Which document it came from (for messages and clustering; never its text).
    pub doc: usize,
}

/// A document's tokens and sentence ranges, as the taggers read it.
pub struct Segmented {
    pub tokens: Vec<Tok>,
    pub sentences: Vec<std::ops::Range<usize>>,
}

pub fn segment(text: &str) -> Segmented {
    let tokens = tokenize(text);
    let sentences = sentences(text, &tokens, MAX_SENTENCE_TOKENS);
    Segmented { tokens, sentences }
}

/// The labels used by the gold entities of `docs`, sorted.
pub fn labels_of(docs: &[Document]) -> Vec<Label> {
    let mut labels: Vec<Label> = docs
        .iter()
        .flat_map(|d| d.entities.iter().map(|e| e.label))
        .collect();
    labels.sort();
    labels.dedup();
    labels
}

/// Tagged sentences of `docs` (with the rule hits of `rules`, if given), and how many gold
/// entities could not be tagged (overlapping another, or no whole token inside).
pub fn tagged_sentences(
    docs: &[Document],
    tagset: &TagSet,
    rules: Option<&RuleFeatures>,
) -> crate::error::StageResult<(Vec<Sentence>, usize)> {
    let mut out = Vec::new();
    let mut dropped = 0;
    let per_doc: Vec<(Segmented, Vec<TokenFeatures>)> = docs
        .par_iter()
        .map(|doc| {
            let seg = segment(&doc.text);
            let hits = match rules {
                Some(r) => r.token_features(&doc.text, &seg.tokens)?,
                None => Vec::new(),
            };
            Ok((seg, hits))
        })
        .collect::<crate::error::StageResult<_>>()?;
    for (index, (doc, (seg, hits))) in docs.iter().zip(per_doc).enumerate() {
        let (tags, d) = tagset.encode(&seg.tokens, &doc.entities);
        dropped += d;
        for r in seg.sentences {
            out.push(Sentence {
                words: seg.tokens[r.clone()]
                    .iter()
                    .map(|&(s, e)| doc.text[s..e].to_string())
                    .collect(),
                tags: tags[r.clone()].to_vec(),
                features: if hits.is_empty() {
                    Vec::new()
                } else {
                    hits[r].to_vec()
                },
                doc: index,
            });
        }
    }
    Ok((out, dropped))
}

/// For each token of each document: whether it lies inside a gold entity. The word vocabulary
/// is built from the other tokens, so a saved model holds no PHI word in clear.
pub fn words_outside_entities(docs: &[Document]) -> Vec<String> {
    let mut out = Vec::new();
    for doc in docs {
        let spans: Vec<(usize, usize)> = doc.entities.iter().map(|e| (e.start, e.end)).collect();
        for (s, e) in tokenize(&doc.text) {
            let inside = spans.iter().any(|&(a, b)| s < b && a < e);
            if !inside {
                out.push(doc.text[s..e].to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::{Category, Subtype};
    use crate::span::Entity;

    #[test]
    fn sentences_carry_tags_and_vocabulary_skips_phi() {
        let mut doc = Document::new("d1", "Paciente: Ana Ruiz.\nEdad: 40 años.");
        let name = Label::new(Category::Name, Subtype::Patient);
        doc.entities.push(Entity::new(10, 18, name, "gold", 1.0));
        let ts = TagSet::new(labels_of(std::slice::from_ref(&doc)));
        let (sents, dropped) = tagged_sentences(std::slice::from_ref(&doc), &ts, None).unwrap();
        assert_eq!(dropped, 0);
        assert_eq!(sents.len(), 2);
        assert_eq!(sents[0].words, ["Paciente", ":", "Ana", "Ruiz", "."]);
        let names = ts.names();
        let shown: Vec<&str> = sents[0].tags.iter().map(|&t| names[t].as_str()).collect();
        assert_eq!(shown, ["O", "O", "B-NAME_PATIENT", "E-NAME_PATIENT", "O"]);
        let vocab = words_outside_entities(std::slice::from_ref(&doc));
        assert!(vocab.contains(&"Paciente".to_string()));
        assert!(!vocab.contains(&"Ana".to_string()) && !vocab.contains(&"Ruiz".to_string()));
    }
}
