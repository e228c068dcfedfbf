//! Command-line definitions (clap): [`Cli`] and its [`Command`]s; the flags of each command
//! group live in a submodule named after its module in `commands`, flags shared by several
//! groups in [`shared`]. Flags only; the work happens in `commands` and the library.

mod audit;
mod deid;
mod labelstudio;
mod mlm;
mod ner;
mod probe;
mod release;
mod report;
pub mod shared;
mod tokenizer;
mod vocab;

pub use audit::*;
pub use deid::*;
pub use labelstudio::*;
pub use mlm::*;
pub use ner::*;
pub use probe::*;
pub use release::*;
pub use report::*;
pub use shared::*;
pub use tokenizer::*;
pub use vocab::*;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "anonlm",
    version,
    about = "De-identify clinical corpora and release masked language models without the people in them"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Find PHI spans and write them (JSONL, or brat .ann beside copies of the .txt).
    Recognize(RecognizeArgs),
    /// Replace PHI and write the de-identified corpus, an ops log and counts per label.
    Deid(DeidArgs),
    /// Generate synthetic annotated clinical notes (the built-in sample and test data).
    Synth(SynthArgs),
    /// Score predicted spans against gold spans; residual PII after de-identification.
    Eval(EvalArgs),
    /// Label Studio pre-annotation loop: export documents as tasks with predicted spans (and a
    /// labeling config), import the corrected annotations as Document JSONL.
    #[command(subcommand, name = "labelstudio", visible_alias = "ls")]
    LabelStudio(LabelStudioCommand),
    /// Measure throughput, memory and start-up of recognize and deid on this machine.
    Bench(BenchArgs),
    /// Run the whole de-identification job on the built-in synthetic sample.
    Demo(DemoArgs),
    /// Write a new random key file (for pseudonyms, keyed surrogates and date shifts).
    Keygen(KeygenArgs),
    /// Train subword tokenizers (WordPiece, byte-level BPE, Unigram) for masked language models.
    #[command(subcommand)]
    Tokenizer(TokenizerCommand),
    /// Masked language models: train, fill-mask, score, benchmark.
    #[command(subcommand)]
    Mlm(MlmCommand),
    /// Model vocabulary: rename reviewed name tokens, check a vocabulary for names.
    #[command(subcommand)]
    Vocab(VocabCommand),
    /// Name probes of a masked LM: build seen/unseen probe sets, run fill-mask at the slots.
    #[command(subcommand)]
    Probe(ProbeCommand),
    /// Leakage audit of a model by a spec (audits/*.toml): blind baseline, membership attacks,
    /// probe, vocabulary and utility evidence; writes report.json, report.md and report.html;
    /// exit 1 when the gate fails or the result is invalid.
    Audit(AuditArgs),
    /// The whole chain on a corpus: deid, tokenizer, mlm train, probe, harvest, rewrite, audit,
    /// report; resumable stage by stage; exit 1 when the gate fails.
    Release(ReleaseArgs),
    /// Audit reports (schema anonlm.report/1): render as Markdown and HTML, diff two reports.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Learned NER for de-identification: train a BiLSTM-CRF or transformer tagger.
    #[command(subcommand)]
    Ner(NerCommand),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_flags_must_be_finite() {
        for bad in ["NaN", "nan", "inf", "-inf", "infinity", "1e999", "", "x"] {
            assert!(finite_f64(bad).is_err(), "{bad}");
            assert!(finite_f32(bad).is_err(), "{bad}");
        }
        assert!(finite_f32("1e39").is_err());
        assert_eq!(finite_f64("2.5"), Ok(2.5));
        assert_eq!(finite_f32("-0.5"), Ok(-0.5));
        assert!(positive_usize("0").is_err() && positive_usize("-1").is_err());
        assert_eq!(positive_usize("16"), Ok(16));
        assert!(synth_doc_count("18446744073709551615").is_err());
        assert_eq!(synth_doc_count("0"), Ok(0));
    }

    #[test]
    fn every_float_flag_refuses_nan() {
        use clap::CommandFactory;
        let cases: &[&[&str]] = &[
            &[
                "vocab",
                "harvest",
                "--probe",
                "p",
                "--model",
                "m",
                "--out",
                "o",
                "--threshold",
                "NaN",
            ],
            &[
                "probe",
                "metrics",
                "--probe",
                "p",
                "--model",
                "m",
                "--threshold",
                "nan",
            ],
            &[
                "probe",
                "metrics",
                "--probe",
                "p",
                "--model",
                "m",
                "--max-name-like-share",
                "NaN",
            ],
            &["mlm", "train", "--corpus", "c", "--out", "o", "--lr", "inf"],
            &[
                "ner",
                "train",
                "--train",
                "t",
                "--dev",
                "d",
                "--out",
                "o",
                "--dropout",
                "NaN",
            ],
        ];
        Cli::command().debug_assert();
        for args in cases {
            let e = Cli::try_parse_from(std::iter::once("anonlm").chain(args.iter().copied()))
                .unwrap_err();
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{args:?}: {e}"
            );
            assert!(e.to_string().contains("finite"), "{args:?}: {e}");
        }
    }

    #[test]
    fn closed_set_flags_are_usage_errors() {
        let cases: &[&[&str]] = &[
            &["synth", "--lang", "xx", "--out", "o"],
            &["synth", "--lang", "nl", "--out", "o", "--format", "pdf"],
            &["bench", "--lang", "nl,xx"],
            &["recognize", "in", "--out", "o", "--out-format", "pdf"],
            &["recognize", "in", "--out", "o", "--format", "pdf"],
            &["mlm", "bench", "--skip", "train,nope"],
            &["deid", "in", "--out", "o", "--operator", "hide"],
            &["deid", "in", "--out", "o", "--tag-style", "stars"],
            &[
                "mlm", "train", "--corpus", "c", "--out", "o", "--arch", "gpt",
            ],
            &[
                "mlm",
                "train",
                "--corpus",
                "c",
                "--out",
                "o",
                "--canary-lang",
                "xx",
            ],
            &[
                "tokenizer",
                "train",
                "--corpus",
                "c",
                "--kind",
                "wordpiece",
                "--vocab-size",
                "100",
                "--out",
                "o",
                "--format",
                "brat",
            ],
            &[
                "mlm",
                "prepare",
                "--corpus",
                "c",
                "--tokenizer",
                "t",
                "--out",
                "o",
                "--format",
                "x",
            ],
            &[
                "mlm", "fill", "--model", "m", "--input", "i", "--device", "gpu",
            ],
            &[
                "mlm", "train", "--corpus", "c", "--out", "o", "--config", "huge",
            ],
            &["eval", "--gold", "g", "--format", "xml"],
            &[
                "eval",
                "--gold",
                "g",
                "--pred",
                "p",
                "--pred-format",
                "conllup",
            ],
        ];
        for args in cases {
            let e = Cli::try_parse_from(std::iter::once("anonlm").chain(args.iter().copied()))
                .unwrap_err();
            assert_eq!(e.exit_code(), 2, "{args:?}: {e}");
            // The value is refused, not a missing flag or another error.
            use clap::error::ErrorKind::{InvalidValue, ValueValidation};
            assert!(
                matches!(e.kind(), InvalidValue | ValueValidation),
                "{args:?}: {e}"
            );
        }
        let cli = Cli::try_parse_from(["anonlm", "synth", "--lang", "all", "--out", "o"]).unwrap();
        let Command::Synth(a) = cli.command else {
            panic!("synth")
        };
        assert_eq!(a.lang.0, crate::lang::Lang::ALL.to_vec());
        assert_eq!(a.format, crate::corpus::Format::Jsonl);
        assert!(!a.overwrite.allowed);
        let cli =
            Cli::try_parse_from(["anonlm", "mlm", "bench", "--skip", "fill_mask,pll"]).unwrap();
        let Command::Mlm(MlmCommand::Bench(b)) = cli.command else {
            panic!("mlm bench")
        };
        assert_eq!(b.skip, [BenchSection::FillMask, BenchSection::Pll]);
        assert_eq!(b.device.spec, "cpu");
    }
}
