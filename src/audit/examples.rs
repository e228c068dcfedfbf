//! Member and non-member examples of an audit: sentences, or the documents' parts of the
//! training blocks, of the training and held-out documents (by the manifest, each text checked
//! against its SHA-256) or of two given sets, sampled with a seed. Only ids and counts leave
//! this module in reports.

use crate::error::ValueError;

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::corpus::Document;
use crate::mlm::train::data::sha256_hex;
use crate::mlm::train::manifest::Manifest;
use crate::probe::SetKind;
use crate::text::{sentences, Abbreviations};

/// The byte span of each token of a text (no specials), or why it cannot be tokenized.
pub type TokenOffsets<'a> = &'a dyn Fn(&str) -> Result<Vec<(usize, usize)>, ValueError>;

/// How documents are cut into scored examples.
pub enum Cut<'a> {
    /// Sentences, as a probe or a person would quote them; one longer than `room` tokens (the
    /// model's positions less the two specials) is scored in pieces of `room` tokens, so a
    /// long list without full stops neither stops the audit nor goes unscored.
    Sentences {
        room: usize,
        offsets: TokenOffsets<'a>,
    },
    /// Each document's part of every block `mlm train` packed it into: the model saw exactly
    /// that stretch at those positions, so memorized text is scored in the context it was
    /// learned in. Documents are packed in the order given, `room` tokens a block (the
    /// sequence length less the two specials), a separator between documents. `offsets`
    /// gives the byte span of each token of a text (no specials).
    Blocks {
        room: usize,
        offsets: TokenOffsets<'a>,
    },
}

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

/// Members and non-members of `corpus` by the manifest, in the manifest's packing order.
pub fn from_manifest(
    corpus: &[Document],
    manifest: &Manifest,
    cut: &Cut<'_>,
    sampling: &Sampling,
) -> Result<Examples, ValueError> {
    let sets = crate::probe::build::manifest_sets(manifest).map_err(|e| e.to_string())?;
    let by_id: BTreeMap<&str, &Document> = corpus.iter().map(|d| (d.id.as_str(), d)).collect();
    let mut skipped = 0;
    for d in corpus {
        match sets.get(d.id.as_str()) {
            Some((_, hash)) if *hash == sha256_hex(d.text.as_bytes()) => {}
            _ => skipped += 1,
        }
    }
    // Canonical documents in packing order, with the token counts training packed them by.
    let listed =
        |set: &crate::mlm::train::data::DocSet, kind: SetKind| -> Vec<(&Document, usize)> {
            set.documents
                .iter()
                .filter_map(|e| {
                    let d = by_id.get(e.doc_id.as_str())?;
                    let fits = sets.get(e.doc_id.as_str()).map(|(k, _)| *k) == Some(kind)
                        && e.sha256 == sha256_hex(d.text.as_bytes());
                    fits.then_some((*d, e.n_tokens as usize))
                })
                .collect()
        };
    let members = listed(&manifest.train, SetKind::Seen);
    let non = listed(&manifest.held_out, SetKind::Unseen);
    sample_both(&members, &non, skipped, cut, sampling)
}

/// Members and non-members given as two sets (packed in file order for `Cut::Blocks`).
pub fn from_sets(
    members: &[Document],
    non_members: &[Document],
    cut: &Cut<'_>,
    sampling: &Sampling,
) -> Result<Examples, ValueError> {
    let m: Vec<(&Document, usize)> = members.iter().map(|d| (d, usize::MAX)).collect();
    let n: Vec<(&Document, usize)> = non_members.iter().map(|d| (d, usize::MAX)).collect();
    sample_both(&m, &n, 0, cut, sampling)
}

/// How many examples to draw and which to skip.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    pub max_per_set: usize,
    pub min_words: usize,
    pub seed: u64,
}

/// Documents with the token count they were packed by (`usize::MAX`: their own encoding's).
type Packed<'a> = [(&'a Document, usize)];

fn sample_both(
    members: &Packed<'_>,
    non: &Packed<'_>,
    skipped: usize,
    cut: &Cut<'_>,
    sampling: &Sampling,
) -> Result<Examples, ValueError> {
    let s = sampling;
    Ok(Examples {
        members: sample(cut_all(members, cut)?, s.max_per_set, s.min_words, s.seed),
        non_members: sample(
            cut_all(non, cut)?,
            s.max_per_set,
            s.min_words,
            s.seed ^ 0x5a5a,
        ),
        member_documents: members.len(),
        non_member_documents: non.len(),
        skipped_documents: skipped,
    })
}

/// Every example of `docs`, in order.
fn cut_all(docs: &Packed<'_>, cut: &Cut<'_>) -> Result<Vec<Example>, ValueError> {
    let example = |d: &Document, text: &str| Example {
        doc_id: d.id.clone(),
        text: text.trim().to_string(),
    };
    match cut {
        Cut::Sentences { room, offsets } => {
            let abbreviations = Abbreviations::builtin();
            let mut out = Vec::new();
            for (d, _) in docs {
                let failed = |e: ValueError| {
                    ValueError::from(format!("document {}: {e}", crate::corpus::show_id(&d.id)))
                };
                for (s, e) in sentences(&d.text, abbreviations) {
                    for (a, b) in fitting_pieces(&d.text[s..e], *room, *offsets).map_err(failed)? {
                        out.push(example(d, &d.text[s + a..s + b]));
                    }
                }
            }
            Ok(out)
        }
        Cut::Blocks { room, offsets } => {
            let spans = docs
                .iter()
                .map(|(d, _)| {
                    offsets(&d.text).map_err(|e| {
                        ValueError::from(format!("document {}: {e}", crate::corpus::show_id(&d.id)))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let lengths: Vec<usize> = docs
                .iter()
                .zip(&spans)
                .map(|((_, n), sp)| if *n == usize::MAX { sp.len() } else { *n })
                .collect();
            let mut out = Vec::new();
            for (((d, _), sp), segments) in
                docs.iter().zip(&spans).zip(block_segments(&lengths, *room))
            {
                for (a, b) in segments {
                    // The manifest's counts define the blocks; this tokenizer's encoding maps
                    // them back to text (after a vocabulary rewrite the two may differ slightly).
                    let (a, b) = (a.min(sp.len()), b.min(sp.len()));
                    if a < b {
                        out.push(example(d, &d.text[sp[a].0..sp[b - 1].1]));
                    }
                }
            }
            Ok(out)
        }
    }
}

/// `text` whole when its own encoding has at most `room` tokens, else consecutive pieces of it
/// (byte ranges, each cut at token edges) whose own encodings have at most `room` tokens each.
/// Each piece is encoded alone, as it will be scored: a word at its start may encode to more
/// tokens than inside the sentence, so a piece that grew is shortened until it fits.
fn fitting_pieces(
    text: &str,
    room: usize,
    offsets: TokenOffsets<'_>,
) -> Result<Vec<(usize, usize)>, ValueError> {
    let room = room.max(1);
    let tokens = offsets(text)?;
    if tokens.len() <= room {
        return Ok(vec![(0, text.len())]);
    }
    let mut out = Vec::new();
    let mut first = 0;
    while first < tokens.len() {
        let mut last = (first + room).min(tokens.len());
        loop {
            let (a, b) = (tokens[first].0, tokens[last - 1].1);
            if last == first + 1 || offsets(&text[a..b])?.len() <= room {
                out.push((a, b));
                break;
            }
            last -= 1;
        }
        first = last;
    }
    Ok(out)
}

/// Token ranges of each document inside the blocks `mlm train` packs documents of these
/// lengths into (`room` tokens a block, a separator between documents, as its `pack`).
pub fn block_segments(lengths: &[usize], room: usize) -> Vec<Vec<(usize, usize)>> {
    assert!(room > 0);
    let mut fill = 0;
    let mut out = Vec::with_capacity(lengths.len());
    for &len in lengths {
        let mut segments = Vec::new();
        if len > 0 {
            if fill > 0 {
                fill += 1;
                if fill == room {
                    fill = 0;
                }
            }
            let mut start = 0;
            while start < len {
                let take = (room - fill).min(len - start);
                segments.push((start, start + take));
                start += take;
                fill = (fill + take) % room;
            }
        }
        out.push(segments);
    }
    out
}

/// Up to `max` examples of at least `min_words` words, sampled with `seed`, in order.
fn sample(all: Vec<Example>, max: usize, min_words: usize, seed: u64) -> Vec<Example> {
    let all: Vec<Example> = all
        .into_iter()
        .filter(|x| x.text.split_whitespace().count() >= min_words)
        .collect();
    if all.len() <= max {
        return all;
    }
    let mut picked =
        rand::seq::index::sample(&mut ChaCha8Rng::seed_from_u64(seed), all.len(), max).into_vec();
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

    /// One token per word: offsets of whitespace-separated words.
    fn word_offsets(t: &str) -> Result<Vec<(usize, usize)>, ValueError> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in t.char_indices().chain([(t.len(), ' ')]) {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn sentence_cut(room: usize) -> Cut<'static> {
        Cut::Sentences {
            room,
            offsets: &word_offsets,
        }
    }

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
        let sampling = |max| Sampling {
            max_per_set: max,
            min_words: 5,
            seed: 3,
        };
        let e = from_sets(&docs[..10], &docs[10..], &sentence_cut(100), &sampling(8)).unwrap();
        assert_eq!((e.members.len(), e.non_members.len()), (8, 8));
        assert!(e
            .members
            .iter()
            .all(|x| x.text.split_whitespace().count() >= 5));
        let again = from_sets(&docs[..10], &docs[10..], &sentence_cut(100), &sampling(8)).unwrap();
        assert_eq!(e.members, again.members);
        let all = from_sets(&docs[..10], &docs[10..], &sentence_cut(100), &sampling(100)).unwrap();
        assert_eq!(all.members.len(), 20);
    }

    #[test]
    fn sentences_longer_than_the_model_are_scored_in_pieces() {
        let docs = [doc(
            "a",
            "Lijst zonder punten een twee drie vier vijf zes zeven. Kort daarna klaar.",
        )];
        let s = Sampling {
            max_per_set: 100,
            min_words: 1,
            seed: 0,
        };
        let e = from_sets(&docs, &docs, &sentence_cut(4), &s).unwrap();
        let mut texts: Vec<&str> = e.members.iter().map(|x| x.text.as_str()).collect();
        texts.sort();
        assert_eq!(
            texts,
            [
                "Kort daarna klaar.",
                "Lijst zonder punten een",
                "twee drie vier vijf",
                "zes zeven."
            ]
        );
    }

    #[test]
    fn block_segments_follow_the_packing() {
        // As `pack`'s test: lengths 3, 0, 2, 1 with room 4 -> stream 10 11 12 SEP | 13 14 SEP 15.
        assert_eq!(
            block_segments(&[3, 0, 2, 1], 4),
            vec![vec![(0, 3)], vec![], vec![(0, 2)], vec![(0, 1)]]
        );
        // A long document wraps; the next one starts after a separator in the same block.
        assert_eq!(
            block_segments(&[6, 3], 4),
            vec![vec![(0, 4), (4, 6)], vec![(0, 1), (1, 3)]]
        );
        // A document that ends a block exactly: the next starts a block without a separator.
        assert_eq!(block_segments(&[4, 2], 4), vec![vec![(0, 4)], vec![(0, 2)]]);
    }

    #[test]
    fn blocks_cut_documents_at_the_packed_token_boundaries() {
        let docs = [doc("a", "w1 w2 w3 w4 w5 w6"), doc("b", "v1 v2 v3")];
        let cut = Cut::Blocks {
            room: 4,
            offsets: &word_offsets,
        };
        let s = Sampling {
            max_per_set: 100,
            min_words: 1,
            seed: 0,
        };
        let e = from_sets(&docs, &docs[..1], &cut, &s).unwrap();
        let texts: Vec<&str> = e.members.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(texts, ["w1 w2 w3 w4", "w5 w6", "v1", "v2 v3"]);
        assert_eq!(e.members[2].doc_id, "b");
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
