//! The integration tests, one binary (`cargo test --test it`; one module: `-- cli::`): each
//! module checks one command or stage through the binary or the library; `util` holds what
//! they share. Tests that train a model or start Spark are ignored without `--features
//! slow-tests` (the quick suite); CI runs them all.

mod util;

mod anonymize_e2e;
mod audit_cli;
mod canary_cli;
mod cli;
mod corpus_io;
// Needs a build with the CUDA backend (and an NVIDIA GPU to run).
#[cfg(feature = "cuda")]
mod cuda_device;
mod ddp_script;
mod eval_risk_cli;
mod failclosed;
mod fsio_cli;
mod fuzz_inputs;
mod labelstudio_cli;
mod lexicon_meddocan;
mod meddocan;
mod mlm_cli;
mod mlm_crosscheck;
mod mlm_learning;
mod mlm_model;
mod ner_cli;
mod ner_meddocan;
mod nursing_notes;
mod pattern_meddocan;
mod probe_cli;
mod regression;
mod release_cli;
mod release_resume;
mod report_cli;
mod snapshots;
mod spark_pipe;
mod synth_recall;
mod tokenizer_cli;
mod vocab_cli;
mod wordlist_sources;
