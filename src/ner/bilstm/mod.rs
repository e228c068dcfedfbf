//! The BiLSTM-CRF tagger: vocabulary, layers, training and tagging.

pub mod crf;
mod fastmath;
pub mod lstm;
pub mod model;
pub mod partition;
pub mod recurrence;
pub mod tagger;
pub mod train;
pub mod vocab;
