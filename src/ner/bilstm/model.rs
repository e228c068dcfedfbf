//! The BiLSTM-CRF of Lample et al. (2016): a character BiLSTM per word, word and shape
//! embeddings, a word-level BiLSTM and a CRF over BIOES tags.

use super::crf::Crf;
use super::lstm::{bidirectional, last_index, permute_time, reversal_index, uniform_linear, Lstm};
use super::vocab::{shape, Vocab, PAD, SHAPES};
use crate::ner::rules::{TokenFeatures, LIST_FEATURES, RULE_FEATURES};
use crate::neural::dropout::DropoutRng;
use candle_core::{Device, Module, Result, Tensor, D};
use candle_nn::{Embedding, Init, Linear, VarBuilder};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Layer sizes; saved in the model directory.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Dims {
    pub word_dim: usize,
    pub char_dim: usize,
    pub char_hidden: usize,
    pub shape_dim: usize,
    pub hidden: usize,
    /// Longest word the character BiLSTM reads; longer words keep their first and last halves.
    pub max_word_chars: usize,
    /// Size of the embedding of each token's rule hit (see `ner::rules`); 0: the model does
    /// not read rule hits.
    #[serde(default)]
    pub rule_dim: usize,
    /// Size of the embedding of which word lists hold each token, case ignored (see
    /// `ner::rules`); 0: the model does not read them (models saved before it existed).
    #[serde(default)]
    pub list_dim: usize,
}

impl Dims {
    /// Whether the model reads the built-in recognizers' output (rule hits or list words).
    pub fn reads_recognizers(&self) -> bool {
        self.rule_dim > 0 || self.list_dim > 0
    }
}

impl Default for Dims {
    fn default() -> Self {
        Dims {
            word_dim: 100,
            char_dim: 25,
            char_hidden: 25,
            shape_dim: 8,
            hidden: 100,
            max_word_chars: 24,
            rule_dim: 16,
            list_dim: 8,
        }
    }
}

pub struct BiLstmCrf {
    pub dims: Dims,
    words: Embedding,
    chars: Embedding,
    shapes: Embedding,
    rules: Option<Embedding>,
    lists: Option<Embedding>,
    char_fwd: Lstm,
    char_bwd: Lstm,
    word_fwd: Lstm,
    word_bwd: Lstm,
    out: Linear,
    pub crf: Crf,
}

/// A padded batch of sentences as index tensors.
pub struct Batch {
    pub words: Tensor,
    pub shapes: Tensor,
    /// Rule-hit feature ids (batch, width), when the model reads them.
    pub rules: Option<Tensor>,
    /// List ids (batch, width), when the model reads them.
    pub lists: Option<Tensor>,
    pub lengths: Vec<usize>,
    pub width: usize,
    /// Characters of each distinct word of the batch (distinct, width of the longest).
    chars: Tensor,
    char_lengths: Vec<usize>,
    /// For every (sentence, position): the row of its word in `chars`.
    word_rows: Tensor,
}

impl Batch {
    /// Index tensors for `sentences` (each non-empty) and their rule-hit and list ids (one
    /// slice per sentence, when the model reads either); `unk_words` says, per sentence and token, whether
    /// to hide the word from the word embedding (word dropout in training).
    pub fn new(
        vocab: &Vocab,
        dims: &Dims,
        sentences: &[&[String]],
        features: Option<&[&[TokenFeatures]]>,
        unk_words: Option<&dyn Fn(usize, usize) -> bool>,
        device: &Device,
    ) -> Result<Batch> {
        let b = sentences.len();
        let width = sentences.iter().map(|s| s.len()).max().unwrap_or(1).max(1);
        let mut words = vec![PAD; b * width];
        let mut shapes = vec![0u32; b * width];
        let mut rows = vec![0u32; b * width];
        // Row 0 of the character grid is the padding word.
        let mut distinct: HashMap<&str, u32> = HashMap::new();
        let mut char_rows: Vec<Vec<u32>> = vec![vec![PAD]];
        for (i, sentence) in sentences.iter().enumerate() {
            for (j, w) in sentence.iter().enumerate() {
                let at = i * width + j;
                let hidden = unk_words.is_some_and(|f| f(i, j));
                words[at] = if hidden {
                    super::vocab::UNK
                } else {
                    vocab.word(w)
                };
                shapes[at] = shape(w);
                rows[at] = *distinct.entry(w.as_str()).or_insert_with(|| {
                    char_rows.push(word_chars(vocab, w, dims.max_word_chars));
                    (char_rows.len() - 1) as u32
                });
            }
        }
        let char_width = char_rows.iter().map(Vec::len).max().unwrap_or(1);
        let char_lengths: Vec<usize> = char_rows.iter().map(Vec::len).collect();
        let mut chars = vec![PAD; char_rows.len() * char_width];
        for (r, cs) in char_rows.iter().enumerate() {
            chars[r * char_width..r * char_width + cs.len()].copy_from_slice(cs);
        }
        let n = char_rows.len();
        let ids = |dim: usize, id: fn(&TokenFeatures) -> u32| -> Result<Option<Tensor>> {
            let Some(features) = features.filter(|_| dim > 0) else {
                return Ok(None);
            };
            let mut ids = vec![0u32; b * width];
            for (i, f) in features.iter().enumerate() {
                for (slot, t) in ids[i * width..].iter_mut().zip(f.iter()) {
                    *slot = id(t);
                }
            }
            Ok(Some(Tensor::from_vec(ids, (b, width), device)?))
        };
        Ok(Batch {
            rules: ids(dims.rule_dim, |t| t.rule)?,
            lists: ids(dims.list_dim, |t| t.list)?,
            words: Tensor::from_vec(words, (b, width), device)?,
            shapes: Tensor::from_vec(shapes, (b, width), device)?,
            lengths: sentences.iter().map(|s| s.len()).collect(),
            width,
            chars: Tensor::from_vec(chars, (n, char_width), device)?,
            char_lengths,
            word_rows: Tensor::from_vec(rows, b * width, device)?,
        })
    }
}

/// Character indices of a word, the middle cut out when it is longer than `max`.
fn word_chars(vocab: &Vocab, word: &str, max: usize) -> Vec<u32> {
    let cs: Vec<u32> = word.chars().map(|c| vocab.char(c)).collect();
    if cs.len() <= max {
        return cs;
    }
    let half = max / 2;
    cs[..half]
        .iter()
        .chain(&cs[cs.len() - (max - half)..])
        .copied()
        .collect()
}

impl BiLstmCrf {
    pub fn new(vb: VarBuilder, dims: Dims, vocab: &Vocab, tags: usize) -> Result<Self> {
        let emb = |n: usize, d: usize, name: &str| -> Result<Embedding> {
            let w = vb.get_with_hints(
                (n, d),
                name,
                Init::Randn {
                    mean: 0.0,
                    stdev: 0.1,
                },
            )?;
            Ok(Embedding::new(w, d))
        };
        let word_in =
            dims.word_dim + 2 * dims.char_hidden + dims.shape_dim + dims.rule_dim + dims.list_dim;
        Ok(BiLstmCrf {
            dims,
            words: emb(vocab.word_count(), dims.word_dim, "words")?,
            chars: emb(vocab.char_count(), dims.char_dim, "chars")?,
            shapes: emb(SHAPES, dims.shape_dim, "shapes")?,
            rules: if dims.rule_dim > 0 {
                Some(emb(RULE_FEATURES, dims.rule_dim, "rules")?)
            } else {
                None
            },
            lists: if dims.list_dim > 0 {
                Some(emb(LIST_FEATURES, dims.list_dim, "lists")?)
            } else {
                None
            },
            char_fwd: Lstm::new(vb.pp("char_fwd"), dims.char_dim, dims.char_hidden)?,
            char_bwd: Lstm::new(vb.pp("char_bwd"), dims.char_dim, dims.char_hidden)?,
            word_fwd: Lstm::new(vb.pp("word_fwd"), word_in, dims.hidden)?,
            word_bwd: Lstm::new(vb.pp("word_bwd"), word_in, dims.hidden)?,
            out: uniform_linear(vb.pp("out"), 2 * dims.hidden, tags)?,
            crf: Crf::new(vb.pp("crf"), tags)?,
        })
    }

    /// Keeps each LSTM's recurrent weight transposed, for a model that only tags from now on.
    pub fn keep_transposed(&mut self) -> Result<()> {
        for lstm in [
            &mut self.char_fwd,
            &mut self.char_bwd,
            &mut self.word_fwd,
            &mut self.word_bwd,
        ] {
            lstm.keep_transposed()?;
        }
        Ok(())
    }

    /// Tag scores (batch, width, tags). With `dropout`, its rate is applied to the word-level
    /// BiLSTM's input and output (training only).
    pub fn emissions(
        &self,
        batch: &Batch,
        mut dropout: Option<(&mut DropoutRng, f32)>,
    ) -> Result<Tensor> {
        let dev = batch.words.device();
        // Character BiLSTM: final state of each direction, per distinct word.
        let (n, cw) = batch.chars.dims2()?;
        let ce = self.chars.forward(&batch.chars)?;
        let rev = Tensor::from_vec(reversal_index(&batch.char_lengths, cw), n * cw, dev)?;
        let last = Tensor::from_vec(last_index(&batch.char_lengths, cw), n, dev)?;
        let take_last = |x: Tensor| -> Result<Tensor> {
            let h = x.dim(D::Minus1)?;
            x.reshape((n * cw, h))?.index_select(&last, 0)
        };
        // The backward direction reads each word reversed within its length, so its final
        // state is at the same last position.
        let lengths = &batch.char_lengths;
        let fwd = take_last(self.char_fwd.forward(&ce, lengths)?)?;
        let bwd = take_last(self.char_bwd.forward(&permute_time(&ce, &rev)?, lengths)?)?;
        let char_repr = Tensor::cat(&[fwd, bwd], D::Minus1)?;
        let (b, w) = (batch.lengths.len(), batch.width);
        let char_repr = char_repr.index_select(&batch.word_rows, 0)?.reshape((
            b,
            w,
            2 * self.dims.char_hidden,
        ))?;
        let mut parts = vec![
            self.words.forward(&batch.words)?,
            char_repr,
            self.shapes.forward(&batch.shapes)?,
        ];
        for (table, ids) in [(&self.rules, &batch.rules), (&self.lists, &batch.lists)] {
            match (table, ids) {
                (Some(e), Some(ids)) => parts.push(e.forward(ids)?),
                (None, None) => {}
                _ => candle_core::bail!(
                    "rule-hit and list ids are given exactly when the model reads them"
                ),
            }
        }
        let x = Tensor::cat(&parts, D::Minus1)?;
        let word_rev = Tensor::from_vec(reversal_index(&batch.lengths, w), b * w, dev)?;
        let x = match &mut dropout {
            Some((rng, p)) => rng.apply(&x, *p)?,
            None => x,
        };
        let h = bidirectional(
            &self.word_fwd,
            &self.word_bwd,
            &x,
            &word_rev,
            &batch.lengths,
        )?;
        let h = match dropout {
            Some((rng, p)) => rng.apply(&h, p)?,
            None => h,
        };
        self.out.forward(&h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neural::init::seeded_var_builder;
    use candle_core::DType;
    use candle_nn::VarMap;

    #[test]
    fn dims_saved_before_list_features_read_none() {
        let json = r#"{"word_dim":100,"char_dim":25,"char_hidden":25,"shape_dim":8,
            "hidden":100,"max_word_chars":24,"rule_dim":16}"#;
        let dims: Dims = serde_json::from_str(json).unwrap();
        assert_eq!(dims.list_dim, 0);
        assert!(dims.reads_recognizers());
        let words_only = Dims {
            rule_dim: 0,
            list_dim: 0,
            ..Dims::default()
        };
        assert!(!words_only.reads_recognizers());
    }

    /// Emissions of one three-word sentence whose words carry the given list ids.
    fn emissions_with_lists(dims: Dims, lists: [u32; 3]) -> Vec<f32> {
        let words: Vec<String> = ["saw", "ryan", "today"].map(String::from).to_vec();
        let vocab = Vocab::build(
            words.iter().map(String::as_str),
            words.iter().map(String::as_str),
            1,
        );
        let varmap = VarMap::new();
        let vb = seeded_var_builder(&varmap, 7, DType::F32, &Device::Cpu);
        let model = BiLstmCrf::new(vb, dims, &vocab, 5).unwrap();
        let features: Vec<TokenFeatures> = lists
            .iter()
            .map(|&list| TokenFeatures { rule: 0, list })
            .collect();
        let sentences = [words.as_slice()];
        let hits = [features.as_slice()];
        let batch = Batch::new(&vocab, &dims, &sentences, Some(&hits), None, &Device::Cpu).unwrap();
        assert_eq!(batch.lists.is_some(), dims.list_dim > 0);
        let e = model.emissions(&batch, None).unwrap();
        e.flatten_all().unwrap().to_vec1().unwrap()
    }

    #[test]
    fn list_ids_reach_the_scores_only_of_a_model_that_reads_them() {
        for list_dim in [4, 0] {
            let dims = Dims {
                list_dim,
                ..Dims::default()
            };
            let plain = emissions_with_lists(dims, [0, 0, 0]);
            let listed = emissions_with_lists(dims, [0, 1, 0]);
            assert_eq!(plain == listed, list_dim == 0, "list_dim {list_dim}");
        }
    }
}
