//! `anonlm mlm prepare`: a corpus into a data dir of token-id shards (counts only on stderr).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::MlmPrepareArgs;
use crate::mlm::train::prepare_stage::{self, MlmPrepareSettings};

pub fn run(a: MlmPrepareArgs) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let index = prepare_stage::run(&MlmPrepareSettings {
        corpus: a.corpus.clone(),
        format: a.format,
        tokenizer: a.tokenizer,
        seq_len: a.seq_len,
        held_out: a.held_out,
        seed: a.seed,
        max_doc_bytes: a.max_doc_bytes.bytes,
        out: a.out.clone(),
        overwrite: a.overwrite.allowed,
        quiet: a.quiet.on,
        canary: a.canary.settings(),
    })?;
    let secs = started.elapsed().as_secs_f64();
    let mb = crate::corpus::source::input_size(&a.corpus).unwrap_or(0) as f64 / 1e6;
    eprintln!(
        "{} documents ({} distinct): {} training blocks ({} tokens), {} held-out blocks, in \
         {} shard files; {mb:.1} MB in {secs:.1} s ({:.1} MB/s); data in {}",
        index.n_input_documents,
        index.n_distinct_documents,
        index.train.n_blocks,
        index.train.n_tokens,
        index.held_out.n_blocks,
        index.train.shards.len() + index.held_out.shards.len(),
        mb / secs.max(1e-9),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
