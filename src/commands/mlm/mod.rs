//! `anonlm mlm ...`: masked language models — prepare data, train, fill-mask, score, benchmark.

mod bench;
mod fill;
mod prepare;
mod score;
mod train;

use crate::cli::MlmCommand;
use crate::mlm::runtime::MlmRuntime;
use anyhow::Result;
use std::process::ExitCode;

pub fn run(command: MlmCommand) -> Result<ExitCode> {
    match command {
        MlmCommand::Prepare(a) => prepare::run(a),
        MlmCommand::Train(a) => train::run(*a),
        MlmCommand::Fill(a) => fill::run(a),
        MlmCommand::Score(a) => score::run(a),
        MlmCommand::Bench(a) => bench::run(a),
    }
}

pub(crate) use crate::corpus::records::JsonlSink;

/// Loads a model dir or hub id with its tokenizer onto the device named by `--device`.
pub(crate) fn open_runtime(spec: &str, device: &str) -> Result<MlmRuntime> {
    Ok(MlmRuntime::open_named(spec, device)?)
}

/// Errors from the inference code name the input's position in the chunk; turn it into the
/// sentence's id (file line or JSONL id), never its text.
pub(crate) fn name_sentence(
    err: crate::mlm::runtime::InferError,
    chunk: &[crate::mlm::sentences::Sentence],
) -> anyhow::Error {
    let id = err
        .input_index()
        .and_then(|i| chunk.get(i))
        .map(|s| s.id.clone());
    let err = anyhow::Error::new(err);
    match id {
        Some(id) => err.context(format!("sentence {id}")),
        None => err,
    }
}
