//! One module per subcommand; each reads its flags, calls the library and prints a summary.

mod audit;
mod bench;
mod common;
mod deid;
mod demo;
mod eval;
mod eval_risk;
mod keygen;
mod labelstudio;
mod mlm;
mod ner;
mod probe;
mod probe_metrics;
mod recognize;
mod release;
mod report;
mod synth;
mod tokenizer;
mod vocab;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Whether the command runs many small tensor operations (the NER taggers), for which
/// candle's elementwise thread pool costs far more in spinning at its barrier than it saves:
/// on two cores it took 86% of BiLSTM-CRF training time.
pub fn prefers_serial_candle(cli: &Cli) -> bool {
    match &cli.command {
        Command::Ner(_) => true,
        Command::Recognize(a) => {
            a.input.taggers.model.is_some() || a.input.taggers.models.is_some()
        }
        Command::Deid(a) => a.input.taggers.model.is_some() || a.input.taggers.models.is_some(),
        Command::Eval(a) => a.risk.taggers.model.is_some() || a.risk.taggers.models.is_some(),
        Command::LabelStudio(_) => true,
        _ => false,
    }
}

/// Runs a parsed command line; errors become exit code 2 in `main`.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Recognize(a) => recognize::run(a),
        Command::Deid(a) => deid::run(a),
        Command::Eval(a) => eval::run(a),
        Command::LabelStudio(c) => labelstudio::run(c),
        Command::Synth(a) => synth::run(a),
        Command::Keygen(a) => keygen::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Tokenizer(c) => tokenizer::run(c),
        Command::Mlm(a) => mlm::run(a),
        Command::Vocab(c) => vocab::run(c),
        Command::Probe(c) => probe::run(c),
        Command::Audit(a) => audit::run(a),
        Command::Release(a) => release::run(a),
        Command::Report(c) => report::run(c),
        Command::Ner(c) => ner::run(c),
    }
}
