//! Transformer token classification: an anonlm (or Hugging Face) masked LM with a linear layer
//! over the first subword of every word, trained on overlapping windows of whole documents.

pub mod model;
pub mod tagger;
pub mod train;
pub mod windows;
