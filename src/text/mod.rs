//! Text as every stage cuts it: word tokens (`words`) and sentences (`sentences`), one rule each,
//! shared by the taggers, the CoNLL writer, the name probes, the audit's examples and the scores.

pub mod sentences;
pub mod words;

pub use sentences::{sentence_around, sentences, token_sentences, Abbreviations};
pub use words::{alnum_runs, intersecting, tokenize, tokenize_cut_at, Tok};
