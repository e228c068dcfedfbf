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
/// on two cores it took 86% of BiLSTM-CRF training time. The commands that tag documents
/// (`recognize`, `deid`, `eval`, `labelstudio`) tag them in parallel on rayon's pool, one
/// document a task, and run the shipped English tagger without any `--model`: a tensor
/// operation split across the cores there only competes with the other documents (`deid` of
/// English notes on two cores: 3.8 s, with serial candle 2.3 s and the same output).
pub fn prefers_serial_candle(cli: &Cli) -> bool {
    matches!(
        cli.command,
        Command::Ner(_)
            | Command::Recognize(_)
            | Command::Deid(_)
            | Command::Eval(_)
            | Command::LabelStudio(_)
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// Whether the command line `args` (words split at blanks) runs candle serially.
    fn serial(args: &str) -> bool {
        let words = std::iter::once("anonlm").chain(args.split_whitespace());
        let cli = Cli::try_parse_from(words).expect("the test's command line parses");
        prefers_serial_candle(&cli)
    }

    #[test]
    fn commands_that_tag_documents_run_candle_serially_with_or_without_a_model() {
        assert!(serial("deid --out o.jsonl in.jsonl"));
        assert!(serial("recognize --lang en --out o.jsonl in.jsonl"));
        assert!(serial("eval --names --lang en --gold g.conll"));
        assert!(serial("deid --models m --out o.jsonl in.jsonl"));
        // Masked-LM training and the whole chain keep candle's threads for their large tensors.
        assert!(!serial("release --demo --out out"));
        assert!(!serial("synth --lang en --out o.jsonl"));
    }
}
