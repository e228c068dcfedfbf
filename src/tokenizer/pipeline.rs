//! The pipelines around each model kind: normalizer, pre-tokenizer, decoder and post-processor
//! as BERT (WordPiece), RoBERTa (byte-level BPE) and SentencePiece-style Unigram use them.

use super::specials::{SpecialStrings, SpecialStyle};
use super::{tk_err, Kind, TokenizerError};
use tokenizers::decoders::wordpiece::WordPiece as WordPieceDecoder;
use tokenizers::decoders::DecoderWrapper;
use tokenizers::normalizers::{BertNormalizer, Lowercase, NormalizerWrapper};
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::metaspace::{Metaspace, PrependScheme};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::processors::bert::BertProcessing;
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::processors::template::TemplateProcessing;
use tokenizers::processors::PostProcessorWrapper;
use tokenizers::Tokenizer;

/// The SentencePiece word-boundary mark used by the Unigram pipeline.
pub const METASPACE: char = '\u{2581}';

/// Normalizer of a kind. WordPiece uses BERT's (clean-up, CJK spacing, optional lowercase; accents
/// are stripped only with lowercase, as in BERT); the others only lowercase when asked.
pub fn normalizer(kind: Kind, lowercase: bool) -> Option<NormalizerWrapper> {
    match kind {
        Kind::WordPiece => Some(BertNormalizer::new(true, true, None, lowercase).into()),
        Kind::Bpe | Kind::Unigram => lowercase.then(|| Lowercase.into()),
    }
}

/// Byte-level pre-tokenizer as RoBERTa's: no prefix space, offsets trimmed.
pub fn byte_level() -> ByteLevel {
    ByteLevel::new(false, true, true)
}

pub fn metaspace() -> Metaspace {
    Metaspace::new(METASPACE, PrependScheme::Always, true)
}

pub fn pre_tokenizer(kind: Kind) -> PreTokenizerWrapper {
    match kind {
        Kind::WordPiece => BertPreTokenizer.into(),
        Kind::Bpe => byte_level().into(),
        Kind::Unigram => metaspace().into(),
    }
}

pub fn decoder(kind: Kind) -> DecoderWrapper {
    match kind {
        Kind::WordPiece => WordPieceDecoder::new("##".into(), true).into(),
        Kind::Bpe => byte_level().into(),
        Kind::Unigram => metaspace().into(),
    }
}

/// `[CLS] A [SEP]` (BERT) or `<s> A </s>` (RoBERTa) with the ids of `tk`: BERT's and RoBERTa's
/// own processors for their usual models, a template otherwise.
pub fn post_processor(
    kind: Kind,
    style: SpecialStyle,
    strings: &SpecialStrings,
    tk: &Tokenizer,
) -> Result<PostProcessorWrapper, TokenizerError> {
    let id = |t: &str| {
        tk.token_to_id(t)
            .ok_or_else(|| TokenizerError::Train(format!("special token {t} has no id")))
    };
    let cls = (strings.cls.clone(), id(&strings.cls)?);
    let sep = (strings.sep.clone(), id(&strings.sep)?);
    Ok(match (kind, style) {
        (Kind::WordPiece, SpecialStyle::Bert) => BertProcessing::new(sep, cls).into(),
        (Kind::Bpe, SpecialStyle::Roberta) => RobertaProcessing::new(sep, cls)
            .trim_offsets(true)
            .add_prefix_space(false)
            .into(),
        (_, SpecialStyle::Roberta) => {
            let (c, s) = (&cls.0, &sep.0);
            let pair = format!("{c} $A {s} {s} $B {s}");
            template(format!("{c} $A {s}"), pair, cls.clone(), sep.clone())?.into()
        }
        _ => {
            let (c, s) = (&cls.0, &sep.0);
            let pair = format!("{c} $A {s} $B:1 {s}:1");
            template(format!("{c} $A {s}"), pair, cls.clone(), sep.clone())?.into()
        }
    })
}

fn template(
    single: String,
    pair: String,
    cls: (String, u32),
    sep: (String, u32),
) -> Result<TemplateProcessing, TokenizerError> {
    let err = |e: String| TokenizerError::Train(format!("post-processor template: {e}"));
    let mut b = TemplateProcessing::builder();
    b.try_single(single.as_str()).map_err(err)?;
    b.try_pair(pair.as_str()).map_err(err)?;
    b.special_tokens(vec![cls, sep]);
    b.build().map_err(|e| err(e.to_string()))
}

/// Sets the front of the pipeline (normalizer, pre-tokenizer, decoder) of `kind` on `tk`.
pub fn set_front(tk: &mut Tokenizer, kind: Kind, lowercase: bool) -> Result<(), TokenizerError> {
    tk.with_normalizer(normalizer(kind, lowercase))
        .map_err(tk_err)?;
    tk.with_pre_tokenizer(Some(pre_tokenizer(kind)));
    tk.with_decoder(Some(decoder(kind)));
    Ok(())
}
