//! `anonlm mlm ...`: masked language models — train, fill-mask, score, benchmark.

mod bench;
mod canaries;
mod fill;
mod score;
mod train;

use crate::cli::MlmCommand;
use crate::corpus::{ensure_not_input, OutputOptions, OutputTarget};
use crate::mlm::device::select_device;
use crate::mlm::runtime::MlmRuntime;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

pub fn run(command: MlmCommand) -> Result<ExitCode> {
    match command {
        MlmCommand::Train(a) => train::run(*a),
        MlmCommand::Fill(a) => fill::run(a),
        MlmCommand::Score(a) => score::run(a),
        MlmCommand::Bench(a) => bench::run(a),
    }
}

/// Loads a model dir or hub id with its tokenizer onto the device named by `--device`.
pub(crate) fn open_runtime(spec: &str, device: &str) -> Result<MlmRuntime> {
    let device = select_device(device)?;
    MlmRuntime::open(spec, &device).with_context(|| format!("loading model '{spec}'"))
}

/// JSONL written to a staged file (renamed into place on success) or to stdout.
pub(crate) struct JsonlSink {
    target: OutputTarget,
    written: usize,
}

impl JsonlSink {
    pub fn stdout() -> Self {
        Self {
            target: OutputTarget::stdout(),
            written: 0,
        }
    }

    /// A staged file at `out`; refuses to write onto `input`.
    pub fn file(out: &Path, input: Option<&Path>, overwrite: bool) -> Result<Self> {
        if out == Path::new("-") {
            return Ok(Self::stdout());
        }
        if let Some(input) = input.filter(|p| *p != Path::new("-")) {
            ensure_not_input(out, &[input])?;
        }
        Ok(Self {
            target: OutputTarget::file(out, &OutputOptions { overwrite })?,
            written: 0,
        })
    }

    pub fn write(&mut self, value: &impl Serialize) -> Result<()> {
        let path = self.target.path().to_path_buf();
        let stream = self
            .target
            .stream()
            .context("JSONL output is not a stream")?;
        serde_json::to_writer(&mut *stream, value)?;
        stream
            .write_all(b"\n")
            .with_context(|| format!("writing {}", path.display()))?;
        self.written += 1;
        Ok(())
    }

    /// Commits the output; returns the number of lines written.
    pub fn finish(self) -> Result<usize> {
        self.target.commit()?;
        Ok(self.written)
    }
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
