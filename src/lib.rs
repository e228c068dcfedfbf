//! anonlm: release masked language models trained on private clinical text without releasing
//! the people in it.
//!
//! Data flow (every arrow is a subcommand, every artifact a documented file):
//! corpus (text | jsonl | brat | conll) → `recognize` → entities → `deid` → de-identified corpus
//! (+ ops log without raw PII) → tokenizer / masked LM → probes → vocabulary rewrite → audit → report.

pub mod anonymize;
pub mod artifact;
pub mod audit;
pub mod canary;
pub mod checksum;
pub mod cli;
pub mod commands;
pub mod corpus;
pub mod dates;
pub mod deid;
pub mod engine;
pub mod error;
pub mod eval;
pub mod fsio;
pub mod keys;
pub mod labelmap;
pub mod labels;
pub mod labelstudio;
pub mod lang;
pub mod mlm;
pub mod namelike;
pub mod ner;
pub mod offsets;
pub mod opslog;
pub mod panic_hook;
pub mod probe;
pub mod progress;
pub mod recognize;
pub mod release;
pub mod report;
pub mod span;
pub mod stats;
pub mod surrogate;
pub mod synth;
#[doc(hidden)]
pub mod testdata;
pub mod tokenizer;
pub mod wordlists;

pub use corpus::{Document, Format};
pub use labels::{Category, Label, Subtype};
pub use lang::Lang;
pub use span::Entity;
