//! Training a WordPiece, byte-level BPE or Unigram tokenizer on a document stream with the
//! `tokenizers` trainers, made deterministic (same corpus and options, same `tokenizer.json`).
//!
//! The crate's trainers iterate hash maps with per-process random seeds in two places that
//! reach the result; both are closed here rather than by re-implementing the trainers:
//! - WordPiece: the `##x` continuation pieces get ids in word-map order, and merge ties are
//!   broken by id. We find those pieces while feeding and register them up front (sorted), so
//!   their ids no longer depend on the map.
//! - Unigram: the word list and the E-step sums follow map order and thread scheduling, and
//!   characters dropped during EM are re-added with scores in set order. We count words
//!   ourselves (sorted), train on one thread, give every character one extra single-character
//!   occurrence so it keeps a learned score, and order pieces of equal score by their text.

use crate::error::ValueError;

use super::pipeline::{self, set_front};
use super::specials::{SpecialStrings, SpecialStyle};
use super::{tk_err, ModelTokenizer, TokenizerError};
use crate::corpus::{CorpusError, Document};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use tokenizers::models::bpe::{BpeTrainer, BPE};
use tokenizers::models::unigram::{Unigram, UnigramTrainer};
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{
    AddedToken, NormalizedString, Normalizer, OffsetReferential, OffsetType, PreTokenizedString,
    PreTokenizer, Tokenizer, Trainer,
};

/// The subword model to train.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    WordPiece,
    /// Byte-level BPE as in GPT-2 / RoBERTa.
    Bpe,
    /// SentencePiece-style Unigram with `▁` word boundaries.
    Unigram,
}

impl FromStr for Kind {
    type Err = crate::error::ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        match s.to_ascii_lowercase().as_str() {
            "wordpiece" => Ok(Kind::WordPiece),
            "bpe" => Ok(Kind::Bpe),
            "unigram" => Ok(Kind::Unigram),
            _ => Err(ValueError::from(format!(
                "unknown tokenizer kind '{s}' (expected wordpiece, bpe or unigram)"
            ))),
        }
    }
}

impl Kind {
    /// BERT tokens for WordPiece, RoBERTa tokens for BPE and Unigram.
    pub fn default_specials(self) -> SpecialStyle {
        match self {
            Kind::WordPiece => SpecialStyle::Bert,
            Kind::Bpe | Kind::Unigram => SpecialStyle::Roberta,
        }
    }
}

/// What to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub kind: Kind,
    /// Target vocabulary size, special tokens included.
    pub vocab_size: usize,
    /// Least count of a merge (WordPiece, BPE); default 2. Not used by Unigram.
    pub min_frequency: Option<u64>,
    /// Bert or Roberta; default by kind.
    pub specials: Option<SpecialStyle>,
    pub lowercase: bool,
    pub show_progress: bool,
}

impl TrainOptions {
    pub fn new(kind: Kind, vocab_size: usize) -> Self {
        TrainOptions {
            kind,
            vocab_size,
            min_frequency: None,
            specials: None,
            lowercase: false,
            show_progress: false,
        }
    }

    pub fn style(&self) -> SpecialStyle {
        self.specials.unwrap_or(self.kind.default_specials())
    }
}

/// What a training run saw and reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainStats {
    pub documents: usize,
    pub vocab_size: usize,
}

/// Normalizes and pre-tokenizes text into the words the trainers count.
struct Splitter {
    normalizer: Option<NormalizerWrapper>,
    pre: PreTokenizerWrapper,
}

impl Splitter {
    fn new(kind: Kind, lowercase: bool) -> Self {
        Splitter {
            normalizer: pipeline::normalizer(kind, lowercase),
            pre: pipeline::pre_tokenizer(kind),
        }
    }

    fn words(&self, text: &str) -> tokenizers::Result<Vec<String>> {
        let mut n = NormalizedString::from(text);
        if let Some(norm) = &self.normalizer {
            norm.normalize(&mut n)?;
        }
        let mut pt = PreTokenizedString::from(n);
        self.pre.pre_tokenize(&mut pt)?;
        Ok(pt
            .get_splits(OffsetReferential::Original, OffsetType::Byte)
            .into_iter()
            .map(|(s, _, _)| s.to_owned())
            .collect())
    }
}

/// Document texts of a stream; the first read error is kept and ends the stream.
struct Texts<'a, I> {
    inner: I,
    error: &'a Mutex<Option<CorpusError>>,
    count: &'a AtomicUsize,
}

impl<I: Iterator<Item = Result<Document, CorpusError>>> Iterator for Texts<'_, I> {
    type Item = String;
    fn next(&mut self) -> Option<String> {
        if self.error.lock().unwrap().is_some() {
            return None;
        }
        match self.inner.next()? {
            Ok(doc) => {
                self.count.fetch_add(1, Ordering::Relaxed);
                Some(doc.text)
            }
            Err(e) => {
                *self.error.lock().unwrap() = Some(e);
                None
            }
        }
    }
}

fn take_error(error: Mutex<Option<CorpusError>>) -> Result<(), TokenizerError> {
    match error.into_inner().unwrap() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// Trains a tokenizer on the documents of `docs` (read once, in order).
pub fn train<I>(
    docs: I,
    opts: &TrainOptions,
) -> Result<(ModelTokenizer, TrainStats), TokenizerError>
where
    I: Iterator<Item = Result<Document, CorpusError>> + Send,
{
    if opts.vocab_size < 10 {
        return Err(TokenizerError::Train(format!(
            "vocabulary size {} is too small",
            opts.vocab_size
        )));
    }
    if opts.kind == Kind::Unigram && opts.min_frequency.is_some() {
        return Err(TokenizerError::Train(
            "--min-frequency applies to wordpiece and bpe, not to unigram".into(),
        ));
    }
    let style = opts.style();
    let strings = SpecialStrings::of(style);
    let splitter = Splitter::new(opts.kind, opts.lowercase);
    let error = Mutex::new(None);
    let count = AtomicUsize::new(0);
    let texts = Texts {
        inner: docs,
        error: &error,
        count: &count,
    };
    let mut tk = match opts.kind {
        Kind::WordPiece | Kind::Bpe => {
            let trained = train_bpe_family(texts, &splitter, opts, &strings, style);
            take_error(error)?;
            trained?
        }
        Kind::Unigram => {
            let words = count_words(texts, &splitter);
            take_error(error)?;
            train_unigram(words?, opts, &strings, style)?
        }
    };
    let documents = count.into_inner();
    if documents == 0 {
        return Err(TokenizerError::Train(
            "the corpus holds no documents".into(),
        ));
    }
    set_front(&mut tk, opts.kind, opts.lowercase)?;
    tk.add_special_tokens(strings.added_tokens(style))
        .map_err(tk_err)?;
    let post = pipeline::post_processor(opts.kind, style, &strings, &tk)?;
    tk.with_post_processor(Some(post));
    let specials = super::specials::special_tokens(&tk, &strings, Path::new("<trained>"))?;
    let vocab_size = tk.get_vocab_size(true);
    Ok((
        ModelTokenizer {
            inner: tk,
            specials,
        },
        TrainStats {
            documents,
            vocab_size,
        },
    ))
}

fn train_bpe_family<I>(
    texts: I,
    splitter: &Splitter,
    opts: &TrainOptions,
    strings: &SpecialStrings,
    style: SpecialStyle,
) -> Result<Tokenizer, TokenizerError>
where
    I: Iterator<Item = String> + Send,
{
    let wordpiece = opts.kind == Kind::WordPiece;
    let mut builder = BpeTrainer::builder()
        .vocab_size(opts.vocab_size)
        .min_frequency(opts.min_frequency.unwrap_or(2))
        .show_progress(opts.show_progress);
    if wordpiece {
        // Every digit, first and inside a word, whatever the corpus: a de-identified corpus may
        // have lost most numbers, yet a word with an unknown character becomes [UNK] whole, and
        // doses, lab values and the audit's numeric canaries must stay spellable.
        builder = builder
            .continuing_subword_prefix("##".into())
            .initial_alphabet(('0'..='9').collect());
    } else {
        let alphabet: HashSet<char> = tokenizers::pre_tokenizers::byte_level::ByteLevel::alphabet()
            .into_iter()
            .collect();
        builder = builder.initial_alphabet(alphabet);
    }
    let mut trainer = builder.build();
    // Characters seen inside a word (not first): the `##x` pieces WordPiece will need.
    let inner_chars = Mutex::new(if wordpiece {
        ('0'..='9').collect()
    } else {
        BTreeSet::new()
    });
    trainer
        .feed(texts, |text| {
            let words = splitter.words(text)?;
            if wordpiece {
                let local: BTreeSet<char> = words.iter().flat_map(|w| w.chars().skip(1)).collect();
                inner_chars.lock().unwrap().extend(local);
            }
            Ok(words)
        })
        .map_err(|e| TokenizerError::Train(e.to_string()))?;
    let mut specials = strings.added_tokens(style);
    specials.extend(
        inner_chars
            .into_inner()
            .unwrap()
            .into_iter()
            .map(|c| AddedToken::from(format!("##{c}"), true)),
    );
    trainer.special_tokens = specials;
    let mut bpe = BPE::default();
    trainer
        .train(&mut bpe)
        .map_err(|e| TokenizerError::Train(e.to_string()))?;
    if wordpiece {
        let vocab: tokenizers::models::bpe::Vocab = bpe.get_vocab().into_iter().collect();
        let wp = WordPiece::builder()
            .vocab(vocab)
            .unk_token(strings.unk.clone())
            .continuing_subword_prefix("##".into())
            .max_input_chars_per_word(100)
            .build()
            .map_err(|e| TokenizerError::Train(e.to_string()))?;
        Ok(Tokenizer::new(wp))
    } else {
        Ok(Tokenizer::new(bpe))
    }
}

/// Word counts of the stream (documents split in parallel; counts do not depend on order).
fn count_words<I>(texts: I, splitter: &Splitter) -> Result<HashMap<String, u64>, TokenizerError>
where
    I: Iterator<Item = String> + Send,
{
    texts
        .par_bridge()
        .map(|text| -> Result<HashMap<String, u64>, TokenizerError> {
            let mut m: HashMap<String, u64> = HashMap::new();
            let words = splitter
                .words(&text)
                .map_err(|e| TokenizerError::Train(e.to_string()))?;
            for w in words {
                *m.entry(w).or_default() += 1;
            }
            Ok(m)
        })
        .try_reduce(HashMap::new, |a, b| {
            Ok(if a.len() < b.len() {
                merge_counts(b, a)
            } else {
                merge_counts(a, b)
            })
        })
}

fn merge_counts(
    mut into: HashMap<String, u64>,
    from: HashMap<String, u64>,
) -> HashMap<String, u64> {
    for (k, v) in from {
        *into.entry(k).or_default() += v;
    }
    into
}

fn train_unigram(
    words: HashMap<String, u64>,
    opts: &TrainOptions,
    strings: &SpecialStrings,
    style: SpecialStyle,
) -> Result<Tokenizer, TokenizerError> {
    // Sorted sentences, plus one occurrence of every character alone (see the module doc).
    let mut sorted: BTreeMap<String, u64> = words.into_iter().collect();
    let chars: BTreeSet<char> = sorted.keys().flat_map(|w| w.chars()).collect();
    for c in chars {
        *sorted.entry(c.to_string()).or_default() += 1;
    }
    let sentences: Vec<(String, u32)> = sorted
        .into_iter()
        .map(|(w, n)| (w, u32::try_from(n).unwrap_or(u32::MAX)))
        .collect();
    let specials = strings.added_tokens(style);
    let trainer = UnigramTrainer::builder()
        .vocab_size(u32::try_from(opts.vocab_size).unwrap_or(u32::MAX))
        .show_progress(opts.show_progress)
        .special_tokens(specials.clone())
        .unk_token(Some(strings.unk.clone()))
        .build()
        .map_err(|e| TokenizerError::Train(e.to_string()))?;
    let mut model = Unigram::default();
    // One thread: the E-step's floating-point sums then always run in the same order.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| TokenizerError::Train(e.to_string()))?;
    pool.install(|| trainer.do_train(sentences, &mut model))
        .map_err(|e| TokenizerError::Train(e.to_string()))?;
    // Pieces after the special tokens, by score, then text (ties in the trainer follow set order).
    let all: Vec<(String, f64)> = model.iter().cloned().collect();
    let n_special = specials.len();
    if all.len() < n_special
        || all[..n_special]
            .iter()
            .map(|p| &p.0)
            .ne(specials.iter().map(|t| &t.content))
    {
        return Err(TokenizerError::Train(
            "unigram training did not put the special tokens first".into(),
        ));
    }
    let mut rest = all[n_special..].to_vec();
    rest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let unk_id = specials.iter().position(|t| t.content == strings.unk);
    let vocab: Vec<(String, f64)> = all[..n_special].iter().cloned().chain(rest).collect();
    let model =
        Unigram::from(vocab, unk_id, false).map_err(|e| TokenizerError::Train(e.to_string()))?;
    Ok(Tokenizer::new(model))
}
