//! Flags of the de-identification commands: recognize, deid, synth, eval (and its --risk
//! analysis), bench, demo, keygen.

use super::shared::Overwrite;
use super::shared::Threads;
use super::shared::{corpus_format, eval_format};
use super::shared::{langs, InputArgs, Langs, LanguageArgs, OutputArgs, TaggerArgs};
use crate::corpus::Format;
use crate::deid::policy::OperatorKind;
use crate::deid::tag::TagStyle;
use crate::error::ValueError;
use clap::Args;
use std::path::PathBuf;

/// Most documents `synth` generates per language (they are built in memory).
pub const MAX_SYNTH_DOCS: usize = 1_000_000;

/// Parses `synth --docs`: 0 to [`MAX_SYNTH_DOCS`].
pub fn synth_doc_count(s: &str) -> Result<usize, ValueError> {
    match s.trim().parse::<usize>() {
        Ok(n) if n <= MAX_SYNTH_DOCS => Ok(n),
        _ => Err(ValueError::from(format!(
            "expected a whole number from 0 to {MAX_SYNTH_DOCS}"
        ))),
    }
}

#[derive(Args, Debug)]
pub struct RecognizeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Write brat types / JSONL labels in this label map's scheme instead of canonical labels.
    #[arg(long)]
    pub out_label_map: Option<String>,
}

#[derive(Args, Debug)]
pub struct DeidArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Policy: a built-in name (default, medroberta, ...) or a TOML file.
    #[arg(long, default_value = "default")]
    pub policy: String,
    /// Operator for every label not set otherwise: tag, redact, surrogate, pseudonym, date-shift.
    #[arg(long, value_parser = OperatorKind::parse)]
    pub operator: Option<OperatorKind>,
    /// Per-label operator, e.g. `--op NAME=surrogate --op DATE=date-shift` (repeatable).
    #[arg(long = "op", value_name = "LABEL=OPERATOR")]
    pub ops: Vec<String>,
    /// Tag style for the tag operator: brackets, medroberta, deid.
    #[arg(long, value_parser = |s: &str| TagStyle::parse(s, false, None))]
    pub tag_style: Option<TagStyle>,
    /// Key file for pseudonyms, corpus-wide surrogates and date shifts (see `anonlm keygen`).
    #[arg(long)]
    pub key_file: Option<PathBuf>,
    /// Seed for every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Recognition passes: pass k re-runs recognition on the output of pass k-1 and stops
    /// early when nothing new is found. With the deterministic rule pipeline a second pass
    /// found nothing more on MEDDOCAN dev; it pays off when recognizers differ between passes.
    #[arg(long, default_value_t = 1)]
    pub passes: usize,
    /// Ops log (JSONL, no raw PII). Default: next to the output as `<out>.ops.jsonl`.
    #[arg(long)]
    pub ops_log: Option<PathBuf>,
    /// Counts per label (JSON). Default: next to the output as `<out>.stats.json`.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// JSON metadata key holding the patient id (for per-patient date shifts); default: doc id.
    #[arg(long)]
    pub patient_key: Option<String>,
    /// Also replace the spans already present in the input (JSONL entities, brat .ann), e.g.
    /// reviewed output of `recognize`, together with what the recognizers find.
    #[arg(long)]
    pub use_input_spans: bool,
}

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Language: nl, hu, es, it, en, or all.
    #[arg(long, value_parser = langs)]
    pub lang: Langs,
    #[arg(long, default_value_t = 100, value_parser = synth_doc_count)]
    pub docs: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file (jsonl, text, conll) or directory (brat), or `-`.
    #[arg(long)]
    pub out: PathBuf,
    /// Output format: jsonl (default), brat, text, conll.
    #[arg(long, default_value = "jsonl")]
    pub format: Format,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace existing --json / --risk-svg files (never an input of the run)")))]
pub struct EvalArgs {
    /// Gold documents.
    #[arg(long)]
    pub gold: PathBuf,
    /// Predicted spans (output of `recognize`).
    #[arg(long)]
    pub pred: Option<PathBuf>,
    /// Format of gold (and pred unless --pred-format): text, jsonl, brat, conll, auto; with
    /// --names also kind, tsv, conllup, nerkor.
    #[arg(long, default_value = "auto", value_parser = eval_format)]
    pub format: String,
    /// Format of --pred, when it differs from the gold's: text, jsonl, brat, conll, auto.
    #[arg(long, value_parser = corpus_format)]
    pub pred_format: Option<String>,
    /// Label map for the gold labels (built-in name or TOML file).
    #[arg(long)]
    pub label_map: Option<String>,
    /// Label map for the predicted labels, when they are not canonical.
    #[arg(long)]
    pub pred_label_map: Option<String>,
    /// Labels left out of scoring on both sides (e.g. OTHER/SEX), repeatable.
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Ops log of a `deid` run over the gold texts: report residual PII.
    #[arg(long)]
    pub ops_log: Option<PathBuf>,
    /// De-identified output of that run (jsonl or text), for the surface check of residual PII.
    #[arg(long)]
    pub deid: Option<PathBuf>,
    /// Write the full report as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
    /// Largest document (or line) accepted, in bytes (default: as for recognize and deid).
    #[arg(long)]
    pub max_doc_bytes: Option<usize>,
    /// Name and place token recall on news NER gold (CoNLL-2002, KIND / WNUT TSV, NerKor
    /// CoNLL-U Plus; --format conll, tsv, conllup or auto): runs the recognizers (--lang,
    /// --lists, --model) on the gold text and reports recall per type and the false-positive
    /// share of the entity labels.
    #[arg(long, conflicts_with_all = ["pred", "ops_log", "deid", "risk"])]
    pub names: bool,
    #[command(flatten)]
    pub risk: RiskArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Megabytes of text per measurement: synthetic, or the first documents of --input
    /// (repeated when the input is shorter).
    #[arg(long, default_value_t = 32)]
    pub mb: usize,
    /// Language of the synthetic text: nl, hu, es, it, en, or all. With --input: the language
    /// of its documents, or all to guess it per document.
    #[arg(long, default_value = "all", value_parser = langs)]
    pub lang: Langs,
    /// Measure recognition on this corpus (a file or directory, read as `recognize` reads it)
    /// instead of synthetic notes; the one-document row and start-up stay synthetic.
    #[arg(long)]
    pub input: Option<PathBuf>,
    /// Format of --input: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto", requires = "input")]
    pub format: String,
    #[command(flatten)]
    pub threads: Threads,
    /// Write the figures as JSON here (an existing file only with --overwrite).
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Output directory for every artifact of the run.
    #[arg(long, default_value = "out/demo")]
    pub out: PathBuf,
    /// Documents per language.
    #[arg(long, default_value_t = 40)]
    pub docs: usize,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// Where to write the key (refuses to overwrite).
    #[arg(long)]
    pub out: PathBuf,
}

/// `anonlm eval --risk`: de-identify the gold texts in memory and count the gold entities left.
#[derive(Args, Debug, Clone)]
#[command(mut_arg("lang", |a| a.help("Document language for the recognizers: nl, hu, es, it, en, or auto")))]
pub struct RiskArgs {
    /// Risk analysis: de-identify the gold documents in memory (recognizers and --policy) and
    /// count, per gold label and after each pass, the entities removed, partly left and missed.
    #[arg(long)]
    pub risk: bool,
    /// Recognition passes of the risk analysis; counts are reported after each.
    #[arg(long, default_value_t = 2, requires = "risk")]
    pub passes: usize,
    #[command(flatten)]
    pub language: LanguageArgs,
    /// De-identification policy (built-in name or TOML file); coverage does not depend on the
    /// replacement, but later passes see the text earlier passes wrote.
    #[arg(long, default_value = "default", requires = "risk")]
    pub policy: String,
    /// Key file, for a policy that needs one (keyed surrogates, pseudonyms, date shifts).
    #[arg(long, requires = "risk")]
    pub key_file: Option<PathBuf>,
    #[command(flatten)]
    pub taggers: TaggerArgs,
    /// Write what is left by gold label after the last pass as an SVG heat-map table.
    #[arg(long, requires = "risk")]
    pub risk_svg: Option<PathBuf>,
}

impl Default for RiskArgs {
    /// No risk analysis; every other field at its flag's default (taken from the flag
    /// definitions themselves, so a new flag needs no change here).
    fn default() -> Self {
        use clap::FromArgMatches;
        let cmd = RiskArgs::augment_args(clap::Command::new("risk"));
        RiskArgs::from_arg_matches(&cmd.get_matches_from(["risk"]))
            .expect("the flag defaults parse")
    }
}
