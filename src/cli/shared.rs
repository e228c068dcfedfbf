//! Flags shared by several commands: the corpus input and output groups, --overwrite,
//! --threads, --device, and the number parsers of bounded flags.

use crate::corpus::Format;
use crate::error::ValueError;
use crate::lang::{Lang, LangChoice};
use clap::Args;
use std::path::PathBuf;

/// Parses a number flag that must be finite: `NaN` or `inf` would switch a comparison (a gate
/// threshold, a learning rate) off silently, so they are bad input.
pub fn finite_f64(s: &str) -> Result<f64, ValueError> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| "expected a number".to_string())?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("expected a finite number (not NaN or infinity)".into())
    }
}

/// Parses a count that must be at least 1 (a batch of 0 sentences would divide by zero).
pub fn positive_usize(s: &str) -> Result<usize, ValueError> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("expected a whole number of at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of at least 1".into()),
    }
}

/// [`finite_f64`] for `f32` flags (also refuses values too large for an `f32`).
pub fn finite_f32(s: &str) -> Result<f32, ValueError> {
    let v = finite_f64(s)? as f32;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("expected a finite number within the range of a 32-bit float".into())
    }
}

/// Where documents come from and how recognition is set up.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input: a file, a directory (brat, or text files), or `-` for stdin (text, jsonl).
    pub input: PathBuf,
    /// Input format: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto", value_parser = corpus_format)]
    pub format: String,
    #[command(flatten)]
    pub language: LanguageArgs,
    /// Label map (built-in name such as meddocan, or a TOML file) for scheme labels in the input.
    #[arg(long)]
    pub label_map: Option<String>,
    #[command(flatten)]
    pub taggers: TaggerArgs,
    /// Only the spans of the --model, not the rules' (to score the model alone). A model
    /// trained with rule-hit features still runs the built-in recognizers as its input.
    #[arg(long, requires = "model")]
    pub no_rules: bool,
    #[command(flatten)]
    pub max_doc_bytes: MaxDocBytes,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub quiet: Quiet,
}

/// The learned taggers joined with the rules (`recognize`, `deid`, `eval --risk|--names`).
#[derive(Args, Debug, Clone, Default)]
pub struct TaggerArgs {
    /// A trained NER model directory (`anonlm ner train`): its spans are joined with the rules'
    /// (union, overlaps resolved so every flagged character stays covered).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// A directory of trained models, one per language (`DIR/<lang>/`, as
    /// `scripts/train_name_models.sh` writes them): each document uses the model of its
    /// language, joined with the rules as --model is; a language without one runs on rules and
    /// lists (one notice line). Default: the ANONLM_MODELS environment variable.
    #[arg(long, conflicts_with = "model")]
    pub models: Option<PathBuf>,
    /// Rules and lists only for languages without a --models model: leave out the taggers
    /// that ship with anonlm (`models/<lang>/`; today English, trained on CC BY corpora).
    #[arg(long, conflicts_with = "model")]
    pub no_builtin_models: bool,
}

/// Where results go.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output file or directory, or `-` for stdout.
    #[arg(long)]
    pub out: PathBuf,
    /// Output format (default: jsonl for recognize, the input format for deid).
    #[arg(long)]
    pub out_format: Option<Format>,
    #[command(flatten)]
    pub overwrite: Overwrite,
}

/// `--device`, the one definition of the compute device flag of the MLM commands.
#[derive(Args, Debug, Clone)]
pub struct DeviceArgs {
    /// cpu, cuda or cuda:N (cuda needs a build with --features cuda).
    #[arg(
        id = "device",
        long = "device",
        value_name = "DEVICE",
        default_value = "cpu",
        value_parser = device_spec
    )]
    pub spec: String,
}

/// Checks a `--device` as clap parses it (`cpu`, `cuda`, `cuda:N`; opened later, so a build
/// without CUDA still says how to get it), kept in lower case as the stages take it.
fn device_spec(s: &str) -> Result<String, crate::mlm::device::DeviceError> {
    crate::mlm::device::parse_device(s)?;
    Ok(s.trim().to_ascii_lowercase())
}

/// Checks an `eval --format` as clap parses it: `auto`, a corpus [`Format`] (spans) or a NER
/// gold format (`eval --names`: conll, kind, conllup, ...); which of them a mode takes is
/// checked by the mode.
pub fn eval_format(s: &str) -> Result<String, ValueError> {
    if s.parse::<crate::eval::ner_gold::GoldFormat>().is_err() {
        corpus_format(s).map_err(|_| {
            ValueError::new(format!(
                "unknown format {s:?} (expected auto, a corpus format: text, jsonl, brat, \
                 conll; or with --names a gold format: conll, kind, tsv, conllup, nerkor)"
            ))
        })?;
    }
    Ok(s.to_string())
}

/// Checks a corpus `--format` as clap parses it: `auto` (resolved from the path later) or a
/// [`Format`] name, kept as written for the stages, which take the spec.
pub fn corpus_format(s: &str) -> Result<String, ValueError> {
    if !s.eq_ignore_ascii_case("auto") {
        s.parse::<Format>()?;
    }
    Ok(s.to_string())
}

/// `--threads`, one definition for the commands with a worker pool (commands whose threads
/// do something narrower say so in their own help, `mut_arg`).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct Threads {
    /// Worker threads (default: all cores).
    #[arg(id = "threads", long = "threads", value_name = "THREADS")]
    pub count: Option<usize>,
}

/// `-q`, `--quiet`: no progress output on stderr.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct Quiet {
    /// No progress bar.
    #[arg(id = "quiet", long = "quiet", short = 'q')]
    pub on: bool,
}

/// `--max-doc-bytes`, the size limit of the corpus readers.
#[derive(Args, Debug, Clone, Copy)]
pub struct MaxDocBytes {
    /// Largest document (or line) accepted, in bytes.
    #[arg(id = "max_doc_bytes", long = "max-doc-bytes", value_name = "MAX_DOC_BYTES", default_value_t = 16 << 20)]
    pub bytes: usize,
}

/// The language flags of the recognizers (corpus commands and `eval --risk` / `--names`).
#[derive(Args, Debug, Clone)]
pub struct LanguageArgs {
    /// Document language: nl, hu, es, it, en, or auto (guessed per document).
    #[arg(long, default_value = "auto")]
    pub lang: LangChoice,
    /// Language used when auto detection finds no evidence.
    #[arg(long, default_value = "en")]
    pub fallback_lang: Lang,
    /// Extra word lists: DIR/<lang>/<name>.txt added to the built-in list of that name.
    #[arg(long)]
    pub lists: Option<PathBuf>,
}

/// `--overwrite`, the one definition every command that writes an output flattens in; a
/// command whose outputs need naming says which in its own help (`mut_arg`).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct Overwrite {
    /// Replace an existing output (inputs are never overwritten).
    #[arg(id = "overwrite", long = "overwrite")]
    pub allowed: bool,
}

/// A language list flag: one code, several comma-separated, or `all`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Langs(pub Vec<Lang>);

/// Parses `all` or comma-separated language codes (each through [`Lang`]'s `FromStr`).
pub fn langs(spec: &str) -> Result<Langs, ValueError> {
    if spec.trim().eq_ignore_ascii_case("all") {
        return Ok(Langs(Lang::ALL.to_vec()));
    }
    Ok(Langs(
        spec.split(',')
            .map(str::parse::<Lang>)
            .collect::<Result<_, _>>()?,
    ))
}
