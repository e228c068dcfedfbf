//! JSONL records that are not documents (probe predictions, scores) written to a staged
//! file, published on success, or to stdout.

use std::path::Path;

use serde::Serialize;

use super::{ensure_not_input, OutputOptions, OutputTarget};
use crate::error::{StageContext, StageResult};

pub struct JsonlSink {
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

    /// A staged file at `out` (`-`: stdout); refuses to write onto `input`.
    pub fn file(out: &Path, input: Option<&Path>, overwrite: bool) -> StageResult<Self> {
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

    pub fn write(&mut self, value: &impl Serialize) -> StageResult<()> {
        let path = self.target.path().to_path_buf();
        let stream = self
            .target
            .stream()
            .expect("a JSONL sink is a stream or a file");
        serde_json::to_writer(&mut *stream, value)?;
        stream
            .write_all(b"\n")
            .with_stage_context(|| format!("writing {}", path.display()))?;
        self.written += 1;
        Ok(())
    }

    /// Publishes the output; returns the number of lines written.
    pub fn finish(self) -> StageResult<usize> {
        self.target.commit()?;
        Ok(self.written)
    }
}
