//! anonlm: release masked language models trained on private clinical text without releasing
//! the people in it.
//!
//! Data flow (every arrow is a subcommand, every artifact a documented file):
//! corpus (text | jsonl | brat | conll) → `recognize` → entities → `deid` → de-identified corpus
//! (+ ops log without raw PII) → tokenizer / masked LM → probes → vocabulary rewrite → audit → report.
//! The modules below follow that order; the README's "Where each stage lives" table maps each
//! stage to its command, module and artifact.

// Foundations every stage uses.
/// Typed, versioned artifacts one stage writes and another reads.
pub mod artifact;
/// Parallel, order-preserving processing of a document stream.
pub mod engine;
/// Errors shared by the stages: bad input at a file and line, a bad value, a stage's context.
pub mod error;
/// The only writer of output files: private, staged, never over an input or an existing file.
pub mod fsio;
/// Byte offsets inside the process, code points in files.
pub mod offsets;
/// The panic hook: where, never what, and exit code 2.
pub mod panic_hook;
/// Progress bars that show counts, never document text.
pub mod progress;

// Language knowledge: languages, word lists, dates, sentences and words.
/// Check digits of national and hospital identifiers.
pub mod checksum;
/// Dates as written: month and weekday names, parsing, rendering, shifting.
pub mod dates;
/// Supported languages and the `--lang auto` guess.
pub mod lang;
/// Sentences and word tokens: the one splitter and the one tokenizer every stage uses.
pub mod text;
/// The built-in word lists (`wordlists/`) and user lists.
pub mod wordlists;

// Corpora and their annotations.
/// Documents and the formats they are read from and written to.
pub mod corpus;
/// Maps from other annotation schemes' labels to the canonical ones.
pub mod labelmap;
/// Canonical PHI categories and subcategories.
pub mod labels;
/// The Label Studio pre-annotation loop.
pub mod labelstudio;
/// Entity spans and overlap resolution.
pub mod span;

// Finding PHI: rules, lists and learned taggers.
/// Learned taggers (BiLSTM-CRF, transformer) run beside the rules.
pub mod ner;
/// Pattern, list and context recognizers and the per-language pipeline.
pub mod recognize;

// De-identification and its measurement.
/// Operators, policies and passes that replace recognized spans.
pub mod deid;
/// Scores against gold spans, residual PII and risk.
pub mod eval;
/// Secret keys and the keyed derivations of pseudonyms and date shifts.
pub mod keys;
/// The ops log: every replacement, no raw values.
pub mod opslog;
/// Realistic fake values by PHI type and language.
pub mod surrogate;
/// Synthetic notes with gold spans.
pub mod synth;

// Models: tokenizer, masked LM and the pieces they share with the taggers.
/// Masked language models: model, training, fill-mask and scores.
pub mod mlm;
/// Initial weights, dropout, CPU kernels, AdamW and schedules shared by `mlm` and `ner`.
pub mod neural;
/// Subword tokenizers: train, load, save.
pub mod tokenizer;

// The model's vocabulary and what it remembers.
/// The leakage audit and its gate.
pub mod audit;
/// Canaries: templates, secrets, the protected file, training setup and exposure.
pub mod canary;
/// Name probes of a masked LM and their metrics.
pub mod probe;
/// Binomial intervals and the sign test.
pub mod stats;
/// The model's vocabulary: harvest of name-like tokens, rewrite, check.
pub mod vocab;

// What a privacy office reads, and the whole chain.
/// The release chain, resumable stage by stage.
pub mod release;
/// Reports: JSON, Markdown, HTML, and the diff after retraining.
pub mod report;

// The command line.
/// Flags of every command.
pub mod cli;
/// One module per command: flags to settings, a library call, a summary.
pub mod commands;

#[doc(hidden)]
pub mod testdata;

pub use corpus::{Document, Format};
pub use labels::{Category, Label, Subtype};
pub use lang::Lang;
pub use span::Entity;
