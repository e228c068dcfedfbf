//! Command-line definitions (clap). Flags only; the work happens in `commands` and the library.

use crate::error::ValueError;

use crate::lang::LangChoice;
use clap::{Args, Parser, Subcommand};
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

/// [`finite_f64`] for `f32` flags (also refuses values too large for an `f32`).
pub fn finite_f32(s: &str) -> Result<f32, ValueError> {
    let v = finite_f64(s)? as f32;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("expected a finite number within the range of a 32-bit float".into())
    }
}

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

#[derive(Subcommand, Debug)]
pub enum NerCommand {
    /// Train a tagger on annotated documents, early-stopping on dev strict entity F1; writes a
    /// model directory that `recognize`, `deid` and `eval --risk` take with --model.
    Train(Box<NerTrainArgs>),
}

#[derive(Args, Debug)]
pub struct NerTrainArgs {
    /// bilstm-crf (Lample et al. 2016) or transformer (token classification on an anonlm MLM).
    #[arg(long, default_value = "bilstm-crf")]
    pub arch: crate::ner::config::Arch,
    /// Format of --train and --dev: brat, conll, jsonl, or auto (from the path).
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Annotated training documents.
    #[arg(long)]
    pub train: PathBuf,
    /// Annotated development documents (early stopping and the reported score).
    #[arg(long)]
    pub dev: PathBuf,
    /// Model directory to write (replaced as a whole at the end).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing model directory.
    #[arg(long)]
    pub overwrite: bool,
    /// Label map for the annotation scheme (built-in name such as meddocan or hungarian, or a
    /// TOML file); without it labels must be canonical.
    #[arg(long)]
    pub label_map: Option<String>,
    /// Labels not to learn (e.g. OTHER/SEX), repeatable.
    #[arg(long)]
    pub exclude: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Longest training run in epochs [default: 30 for bilstm-crf, 10 for transformer].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Sentences (bilstm-crf) or windows (transformer) per batch.
    #[arg(long, default_value_t = 16, value_parser = positive_usize)]
    pub batch_size: usize,
    /// Peak learning rate [default: 2e-3 for bilstm-crf; 5e-5 for transformer, reached after a
    /// warm-up of a tenth of the steps and then decayed linearly].
    #[arg(long, value_parser = finite_f64)]
    pub lr: Option<f64>,
    /// Dropout [default: 0.5 for bilstm-crf; the base model's hidden dropout before the
    /// transformer's classifier].
    #[arg(long, value_parser = finite_f32)]
    pub dropout: Option<f32>,
    /// Evaluate on dev every N optimizer steps (and after every epoch).
    #[arg(long, default_value_t = 1000, value_parser = positive_usize)]
    pub eval_every: usize,
    /// Stop after this many evaluations without a better dev F1.
    #[arg(long, default_value_t = 6)]
    pub patience: usize,
    /// Decay of the exponential moving average of the weights that is evaluated and saved
    /// [default: 0.999 for bilstm-crf, none for transformer]; 0 turns it off.
    #[arg(long, value_parser = finite_f64)]
    pub ema: Option<f64>,
    /// Stop after this many minutes, keeping the best weights so far.
    #[arg(long, value_parser = finite_f64)]
    pub max_minutes: Option<f64>,
    /// Word embedding size (BiLSTM-CRF).
    #[arg(long, default_value_t = 100)]
    pub word_dim: usize,
    /// Word-level LSTM size per direction (BiLSTM-CRF).
    #[arg(long, default_value_t = 100)]
    pub hidden: usize,
    /// Size of the embedding of each token's rule hit, the built-in recognizers' label for it
    /// (BiLSTM-CRF); 0: the model reads words only.
    #[arg(long, default_value_t = 16)]
    pub rule_dim: usize,
    /// Masked LM to fine-tune (transformer): an anonlm or Hugging Face model directory with
    /// its tokenizer, or a hub id in the local cache.
    #[arg(long)]
    pub base: Option<String>,
    /// Tokens per window, special tokens included (transformer; capped by the base model's
    /// positions). Longer documents are cut into overlapping windows.
    #[arg(long, default_value_t = 256)]
    pub window: usize,
    /// Subwords shared by consecutive windows (transformer); each word is tagged from the
    /// window where it has most context.
    #[arg(long, default_value_t = 64)]
    pub overlap: usize,
    /// Largest document (or line) accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_doc_bytes: usize,
    /// Training threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress lines.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct ReleaseArgs {
    /// Audit spec with a [release] section (see audits/release.toml).
    #[arg(long, required_unless_present = "demo", conflicts_with = "demo")]
    pub spec: Option<PathBuf>,
    /// Run on built-in synthetic Dutch notes with the settings of audits/demo.toml.
    #[arg(long)]
    pub demo: bool,
    /// Seed of the demo's synthetic notes.
    #[arg(long, default_value_t = 1, requires = "demo")]
    pub seed: u64,
    /// Release directory: every stage's output, release.state.json and report/. Running again
    /// resumes: finished stages whose inputs and settings are unchanged are skipped.
    #[arg(long)]
    pub out: PathBuf,
    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// The audit spec (TOML; see audits/release.toml).
    #[arg(long)]
    pub spec: PathBuf,
    /// Output folder (report.json, report.md, report.html).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing report.json in --out.
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Subcommand, Debug)]
pub enum ReportCommand {
    /// Write report.md and report.html from a report JSON.
    Render(ReportRenderArgs),
    /// What changed between two reports, metric by metric (exit 0 whenever both parse).
    Diff(ReportDiffArgs),
}

#[derive(Args, Debug)]
pub struct ReportRenderArgs {
    /// The report JSON (schema anonlm.report/1).
    #[arg(long)]
    pub report: PathBuf,
    /// Output folder (report.md, report.html).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace existing report.md and report.html in --out.
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Args, Debug)]
pub struct ReportDiffArgs {
    /// The earlier report JSON.
    pub old: PathBuf,
    /// The later report JSON.
    pub new: PathBuf,
    /// Versioned JSON (anonlm.report-diff/1) instead of a text table.
    #[arg(long)]
    pub json: bool,
    /// Write the diff to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file.
    #[arg(long)]
    pub overwrite: bool,
}

/// Where documents come from and how recognition is set up.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input: a file, a directory (brat, or text files), or `-` for stdin (text, jsonl).
    pub input: PathBuf,
    /// Input format: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Document language: nl, hu, es, it, en, or auto (guessed per document).
    #[arg(long, default_value = "auto")]
    pub lang: LangChoice,
    /// Language used when auto detection finds no evidence.
    #[arg(long, default_value = "en")]
    pub fallback_lang: crate::lang::Lang,
    /// Extra word lists: DIR/<lang>/<name>.txt added to the built-in list of that name.
    #[arg(long)]
    pub lists: Option<PathBuf>,
    /// Label map (built-in name such as meddocan, or a TOML file) for scheme labels in the input.
    #[arg(long)]
    pub label_map: Option<String>,
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
    /// Only the spans of the --model, not the rules' (to score the model alone). A model
    /// trained with rule-hit features still runs the built-in recognizers as its input.
    #[arg(long, requires = "model")]
    pub no_rules: bool,
    /// Largest document (or line) accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_doc_bytes: usize,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Where results go.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output file or directory, or `-` for stdout.
    #[arg(long)]
    pub out: PathBuf,
    /// Output format (default: jsonl for recognize, the input format for deid).
    #[arg(long)]
    pub out_format: Option<String>,
    /// Replace an existing output (inputs are never overwritten).
    #[arg(long)]
    pub overwrite: bool,
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
    #[arg(long)]
    pub operator: Option<String>,
    /// Per-label operator, e.g. `--op NAME=surrogate --op DATE=date-shift` (repeatable).
    #[arg(long = "op", value_name = "LABEL=OPERATOR")]
    pub ops: Vec<String>,
    /// Tag style for the tag operator: brackets, medroberta, deid.
    #[arg(long)]
    pub tag_style: Option<String>,
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
    #[arg(long)]
    pub lang: String,
    #[arg(long, default_value_t = 100, value_parser = synth_doc_count)]
    pub docs: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output file (jsonl, text, conll) or directory (brat), or `-`.
    #[arg(long)]
    pub out: PathBuf,
    /// Output format: jsonl (default), brat, text, conll.
    #[arg(long, default_value = "jsonl")]
    pub format: String,
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Gold documents.
    #[arg(long)]
    pub gold: PathBuf,
    /// Predicted spans (output of `recognize`).
    #[arg(long)]
    pub pred: Option<PathBuf>,
    /// Format of gold (and pred unless --pred-format): text, jsonl, brat, conll, auto.
    #[arg(long, default_value = "auto")]
    pub format: String,
    #[arg(long)]
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
    /// Replace existing --json / --risk-svg files (never an input of the run).
    #[arg(long)]
    pub overwrite: bool,
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
    /// Megabytes of synthetic text per measurement.
    #[arg(long, default_value_t = 32)]
    pub mb: usize,
    /// Language of the synthetic text: nl, hu, es, it, en, or all.
    #[arg(long, default_value = "all")]
    pub lang: String,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
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

#[derive(Subcommand, Debug)]
pub enum TokenizerCommand {
    /// Train a tokenizer on a corpus and write it in the Hugging Face layout.
    Train(TokenizerTrainArgs),
}

#[derive(Args, Debug)]
pub struct TokenizerTrainArgs {
    /// Corpus: a text file (a document per line), a directory of .txt files, or document JSONL.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Subword model: wordpiece, bpe (byte-level, as RoBERTa) or unigram.
    #[arg(long)]
    pub kind: crate::tokenizer::Kind,
    /// Target vocabulary size, special tokens included.
    #[arg(long)]
    pub vocab_size: usize,
    /// Output directory (tokenizer.json, tokenizer_config.json, special_tokens_map.json, ...).
    #[arg(long)]
    pub out: PathBuf,
    /// Least count of a merge (wordpiece, bpe; default 2).
    #[arg(long)]
    pub min_frequency: Option<u64>,
    /// Special tokens: bert ([CLS] [SEP] [MASK] ...) or roberta (<s> </s> <mask> ...).
    /// Default: bert for wordpiece, roberta for bpe and unigram.
    #[arg(long)]
    pub specials: Option<crate::tokenizer::SpecialStyle>,
    /// Lowercase the text (off by default: clinical names are cased).
    #[arg(long)]
    pub lowercase: bool,
    /// Corpus format: auto (from the path), text or jsonl.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Replace an existing tokenizer in the output directory.
    #[arg(long)]
    pub overwrite: bool,
    /// Largest document (or line) accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_doc_bytes: usize,
    /// Train on a sample of about this many bytes when the corpus is larger (documents kept by
    /// a hash of their text, so the sample is the same every run); 0: the whole corpus. Word
    /// counts, hence memory, grow with the text read.
    #[arg(long, default_value_t = crate::tokenizer::DEFAULT_SAMPLE_BYTES)]
    pub sample_bytes: u64,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum MlmCommand {
    /// Tokenize, deduplicate, split and pack a corpus into token-id shards for `mlm train --data`
    /// (streams the corpus: memory does not grow with its size).
    Prepare(MlmPrepareArgs),
    /// Pretrain a BERT/RoBERTa masked LM from scratch, or continue pretraining one (--init).
    Train(Box<MlmTrainArgs>),
    /// Fill-mask: top-k tokens with probabilities at each <mask> / [MASK].
    Fill(MlmFillArgs),
    /// Per-sentence masked-token loss (fixed masking seed) or pseudo-log-likelihood.
    Score(MlmScoreArgs),
    /// Training tokens/s, fill-mask and PLL sentences/s of a small RoBERTa on this machine.
    Bench(MlmBenchArgs),
}

/// The canary flags of `mlm prepare` and `mlm train`.
#[derive(Args, Debug, Clone)]
pub struct CanaryFlags {
    /// Insert N fake-PII canaries per --canary-repeats value into the training set (for the
    /// audit's exposure test); 0: none.
    #[arg(long, default_value_t = 0)]
    pub canaries: usize,
    /// How many copies of each canary are inserted: comma-separated values, N canaries each.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16")]
    pub canary_repeats: Vec<u64>,
    /// Seed of the canaries' secrets (default: drawn from the operating system and kept only in
    /// the protected canary file; never --seed, which the released manifest records).
    #[arg(long)]
    pub canary_seed: Option<u64>,
    /// The protected canary file (mode 0600; default: <out>.canaries.json beside --out; never
    /// inside --out).
    #[arg(long)]
    pub canary_file: Option<PathBuf>,
    /// Language of the built-in canary templates: nl, hu, es, it, en, or auto (from the corpus).
    #[arg(long, default_value = "auto")]
    pub canary_lang: String,
    /// Canary templates file instead of the built-in ones (format: see testsets/canaries/).
    #[arg(long)]
    pub canary_templates: Option<PathBuf>,
}

impl CanaryFlags {
    /// The stage's canary settings.
    pub fn settings(&self) -> crate::mlm::train::canary_setup::CanarySettings {
        crate::mlm::train::canary_setup::CanarySettings {
            canaries: self.canaries,
            repeats: self.canary_repeats.clone(),
            seed: self.canary_seed,
            file: self.canary_file.clone(),
            lang: self.canary_lang.clone(),
            templates: self.canary_templates.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct MlmPrepareArgs {
    /// Corpus: text (a document per line, or a directory of .txt) or Document JSONL; read twice.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Corpus format: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Tokenizer directory (`anonlm tokenizer train`, or a model dir); copied into the data dir.
    #[arg(long)]
    pub tokenizer: PathBuf,
    /// Tokens per block, specials included.
    #[arg(long, default_value_t = 128)]
    pub seq_len: usize,
    /// Fraction of distinct documents held out for evaluation.
    #[arg(long, default_value_t = 0.05, value_parser = finite_f64)]
    pub held_out: f64,
    /// Seed of the held-out choice.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Largest document accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_doc_bytes: usize,
    /// Output data dir (data.json, *.ids shards, documents.jsonl, duplicates.jsonl, tokenizer/).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub canary: CanaryFlags,
    /// Replace an existing --out.
    #[arg(long)]
    pub overwrite: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct MlmTrainArgs {
    /// Training corpus: text (a document per line, or a directory of .txt) or Document JSONL;
    /// prepared into a scratch dir inside --out first (as `mlm prepare` does).
    #[arg(long, required_unless_present = "data", conflicts_with = "data")]
    pub corpus: Option<PathBuf>,
    /// A data dir written by `mlm prepare` (token-id shards; its tokenizer, block length and
    /// held-out split are used).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Corpus format: text, jsonl, brat, conll, or auto (from the path).
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Tokenizer directory (`anonlm tokenizer train`); default: the --init model's tokenizer.
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Model size preset (tiny, small, base) or a config.json file; ignored with --init.
    #[arg(long, default_value = "tiny")]
    pub config: String,
    /// Architecture of a new model: bert or roberta (default: from the tokenizer's special tokens).
    #[arg(long)]
    pub arch: Option<String>,
    /// Continued pretraining: start from this model dir or hub id (local cache).
    #[arg(long)]
    pub init: Option<String>,
    /// Output model dir (config.json, model.safetensors, tokenizer, manifest.json,
    /// train_log.jsonl, checkpoint/). A dir with a checkpoint of the same run is resumed.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace a model already in --out.
    #[arg(long)]
    pub overwrite: bool,
    /// cpu, cuda or cuda:N (cuda needs a build with --features cuda).
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Optimizer steps (with --epochs, whichever ends first).
    #[arg(long, required_unless_present = "epochs")]
    pub steps: Option<u64>,
    /// Passes over the training blocks.
    #[arg(long)]
    pub epochs: Option<u64>,
    /// Sequences per micro-batch.
    #[arg(long, default_value_t = 16, value_parser = positive_usize)]
    pub batch: usize,
    /// Micro-batches per optimizer step.
    #[arg(long, default_value_t = 1, value_parser = positive_usize)]
    pub grad_accum: usize,
    /// Tokens per sequence, specials included (default 128; with --data, the data's).
    #[arg(long)]
    pub seq_len: Option<usize>,
    /// Peak learning rate.
    #[arg(long, default_value_t = 5e-4, value_parser = finite_f64)]
    pub lr: f64,
    /// Warm-up: a fraction of the steps (< 1) or a number of steps (>= 1).
    #[arg(long, default_value_t = 0.06, value_parser = finite_f64)]
    pub warmup: f64,
    #[arg(long, default_value_t = 0.01, value_parser = finite_f64)]
    pub weight_decay: f64,
    /// Global gradient-norm clip (0: none).
    #[arg(long, default_value_t = 1.0, value_parser = finite_f64)]
    pub clip_norm: f64,
    /// Fraction of documents held out for evaluation, listed in the manifest (default 0.05;
    /// with --data, the data's).
    #[arg(long, value_parser = finite_f64)]
    pub held_out: Option<f64>,
    /// Held-out loss every N steps (0: only at the end).
    #[arg(long, default_value_t = 200)]
    pub eval_every: u64,
    /// Stop after this many steps without held-out improvement (0: never).
    #[arg(long, default_value_t = 1600)]
    pub patience: u64,
    /// Checkpoint every N steps (0: only at the end).
    #[arg(long, default_value_t = 500)]
    pub checkpoint_every: u64,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Largest document accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_doc_bytes: usize,
    #[command(flatten)]
    pub canary: CanaryFlags,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct MlmFillArgs {
    /// Model dir or hub id `org/name[@revision]` (local cache).
    #[arg(long)]
    pub model: String,
    /// Predictions per mask.
    #[arg(long, default_value_t = 5)]
    pub top_k: usize,
    /// Sentences with <mask>, [MASK] or the model's own mask token.
    pub text: Vec<String>,
    /// A file of sentences: one per line, or JSONL with "text" (and "id"); `-` for stdin.
    #[arg(long, conflicts_with = "text")]
    pub input: Option<PathBuf>,
    /// JSONL output (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// JSONL on stdout for sentences given on the command line (default: a readable list).
    #[arg(long)]
    pub json: bool,
    #[arg(long)]
    pub overwrite: bool,
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Sequences per forward pass.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreMethod {
    /// Mean NLL of a fixed, seeded 15% of the tokens masked at once.
    Loss,
    /// Pseudo-log-likelihood: each token masked in turn.
    Pll,
}

#[derive(Args, Debug)]
pub struct MlmScoreArgs {
    /// Model dir or hub id `org/name[@revision]` (local cache).
    #[arg(long)]
    pub model: String,
    /// Sentences: one per line, or JSONL with "text" (and "id"); `-` for stdin.
    #[arg(long)]
    pub input: PathBuf,
    /// JSONL output, one line per sentence (`-` for stdout).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value = "pll")]
    pub method: ScoreMethod,
    /// Masking seed of --method loss.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Fraction of tokens masked by --method loss.
    #[arg(long, default_value_t = 0.15, value_parser = finite_f64)]
    pub mask_prob: f64,
    #[arg(long)]
    pub overwrite: bool,
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Sequences per forward pass.
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
}

#[derive(Args, Debug)]
pub struct MlmBenchArgs {
    /// CPU threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// Model size: tiny, small (hidden 256, 4 layers) or base (RoBERTa-base: hidden 768, 12 layers).
    #[arg(long, default_value = "small")]
    pub preset: String,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, default_value_t = 16000)]
    pub vocab: usize,
    /// Training sequence length.
    #[arg(long, default_value_t = 128)]
    pub seq: usize,
    /// Ordinary tokens per fill-mask / PLL sentence.
    #[arg(long, default_value_t = 24)]
    pub words: usize,
    /// Warm-up steps / batches before each measurement.
    #[arg(long, default_value_t = 2)]
    pub warmup: usize,
    #[arg(long, default_value_t = 10)]
    pub train_steps: usize,
    #[arg(long, default_value_t = 8)]
    pub train_batch: usize,
    #[arg(long, default_value_t = 20)]
    pub fill_batches: usize,
    #[arg(long, default_value_t = 32)]
    pub fill_batch: usize,
    #[arg(long, default_value_t = 64)]
    pub pll_sentences: usize,
    /// Masked copies per forward pass.
    #[arg(long, default_value_t = 64)]
    pub pll_batch: usize,
    /// Sections to skip: train, fill_mask, pll.
    #[arg(long, value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Also write the JSON here.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum VocabCommand {
    /// Judge the tokens predicted at name slots (`probe run`) and write a review file (TSV).
    Harvest(VocabHarvestArgs),
    /// Rename the tokens a review file marks `remove` (ids and weights stay) into a new model dir.
    Rewrite(VocabRewriteArgs),
    /// Check a model's vocabulary: merges, loading, removed strings, listed names (exit 1 on a failure).
    Check(VocabCheckArgs),
}

/// What name-likeness is judged on (shared by `vocab harvest` and `probe metrics`).
#[derive(Args, Debug)]
pub struct NameEvidenceArgs {
    /// Original corpus (the input of `deid`), to count each token inside replaced names and
    /// elsewhere; needs --ops-log.
    #[arg(long, requires = "ops_log")]
    pub corpus: Option<PathBuf>,
    /// Corpus format: text, jsonl, brat, conll, or auto.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Ops log of the de-identification of --corpus.
    #[arg(long, requires = "corpus")]
    pub ops_log: Option<PathBuf>,
    /// Ops-log labels that count as names.
    #[arg(long, default_value = "NAME", value_delimiter = ',')]
    pub labels: Vec<String>,
    /// The model's training corpus (e.g. the output of `deid`, format from the path): pieces
    /// its ordinary words use are never proposed. Default: --corpus outside its names.
    #[arg(long)]
    pub reference: Option<PathBuf>,
    /// Extra name list (one name per line, `#` comments), e.g. the hospital's patients and
    /// staff. Repeatable.
    #[arg(long)]
    pub names: Vec<PathBuf>,
    /// Leave the built-in first-name and surname lists out of the evidence.
    #[arg(long)]
    pub no_builtin_lists: bool,
    /// Score from which a token is judged name-like (and proposed for removal by harvest).
    #[arg(long, default_value_t = 2.0, value_parser = finite_f64)]
    pub threshold: f64,
}

#[derive(Args, Debug)]
pub struct VocabHarvestArgs {
    /// Predictions of `probe run` (JSONL). Repeatable.
    #[arg(long, required = true)]
    pub probe: Vec<PathBuf>,
    /// The probed model dir (its tokenizer decides markers, case and corpus counts).
    #[arg(long)]
    pub model: PathBuf,
    /// Review file to write (TSV: token, id, score, evidence, decision).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub evidence: NameEvidenceArgs,
    /// Judge every ordinary vocabulary entry, not only those the probes predicted (a sweep for
    /// names the probes did not bring up).
    #[arg(long)]
    pub all_tokens: bool,
    /// Documents with gold NAME entities (e.g. `anonlm synth` output): reports precision and
    /// recall of the proposals against the tokens used mostly inside gold names.
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// Also write the summary (counts, and precision/recall with --gold) as JSON here.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Replace an existing --out.
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Args, Debug)]
pub struct VocabRewriteArgs {
    /// Model dir (config.json, weights, tokenizer.json).
    #[arg(long)]
    pub model: PathBuf,
    /// Review file (TSV: token, id, score, evidence, decision).
    #[arg(long)]
    pub tokens: PathBuf,
    /// New model dir (must not exist unless --overwrite).
    #[arg(long)]
    pub out: PathBuf,
    /// Old->new map (JSON, mode 0600): holds the removed names; keep it outside the released dir.
    #[arg(long)]
    pub map: PathBuf,
    /// A corpus like the training text (Document JSONL, text, brat or CoNLL): removals of
    /// pieces its lower-case words use are refused (single characters always are).
    #[arg(long)]
    pub reference: Option<PathBuf>,
    /// Replace an existing --out dir and --map file (inputs are never replaced).
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Args, Debug)]
pub struct VocabCheckArgs {
    /// Model dir (its tokenizer.json).
    #[arg(long)]
    pub model: PathBuf,
    /// Name list: a file (one name per line, `#` comments) or `builtin:<lang>` (nl, hu, es, it,
    /// en, all). Repeatable.
    #[arg(long)]
    pub names: Vec<String>,
    /// Map of a rewrite (`vocab rewrite --map`): its old strings must be gone.
    #[arg(long)]
    pub removed: Option<PathBuf>,
    /// The model dir before the rewrite (with --reference): the reference texts must encode as
    /// before (no lower-case word changes, no more [UNK]).
    #[arg(long, requires = "reference")]
    pub original: Option<PathBuf>,
    /// Held-out text without names to encode (Document JSONL, text, brat or CoNLL).
    #[arg(long, requires = "original")]
    pub reference: Option<PathBuf>,
    /// Print the offending token strings (they may be names).
    #[arg(long)]
    pub show: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum ProbeCommand {
    /// Probe sets from a de-identified corpus and its ops log: one masked sentence per replaced
    /// name, split into seen (training) and unseen (held-out) documents of a model.
    Build(ProbeBuildArgs),
    /// Top-k fill-mask predictions at every slot of a probe set or a user file of sentences.
    Run(ProbeRunArgs),
    /// Metrics of `probe run` output per set: share of name-like predictions (95% exact
    /// interval), slots with any, best rank, recoveries of the original.
    Metrics(ProbeMetricsArgs),
}

#[derive(Args, Debug)]
pub struct ProbeMetricsArgs {
    /// Output of `probe run` (JSONL). Repeatable; slots are grouped by their set.
    #[arg(long, required = true)]
    pub probe: Vec<PathBuf>,
    /// The probed model dir (its tokenizer decides markers, case and corpus counts).
    #[arg(long)]
    pub model: PathBuf,
    /// A review file of `vocab harvest`, edited or not: its decisions settle the tokens it
    /// lists (same id and string); other tokens are judged automatically.
    #[arg(long)]
    pub review: Option<PathBuf>,
    #[command(flatten)]
    pub evidence: NameEvidenceArgs,
    /// `probe run --originals` output of a reference model on the same slots (one that never
    /// saw the names, e.g. trained on the de-identified corpus): the original's PLL rank is
    /// compared slot by slot. Repeatable.
    #[arg(long)]
    pub reference_probe: Vec<PathBuf>,
    /// Count only the first K predictions of each slot (the paper's final test: 20).
    #[arg(long)]
    pub top_k: Option<usize>,
    /// Write the metrics as JSON (schema `anonlm.probe-metrics/1`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace an existing --out.
    #[arg(long)]
    pub overwrite: bool,
    /// Exit 1 when a set's share of name-like predictions is above this (e.g. 0.002).
    #[arg(long, value_parser = finite_f64)]
    pub max_name_like_share: Option<f64>,
    /// Also list the name-like tokens predicted, with counts (they may be real names: only
    /// inside the secure environment).
    #[arg(long)]
    pub show_tokens: bool,
}

#[derive(Args, Debug)]
pub struct ProbeBuildArgs {
    /// The de-identified corpus (Document JSONL written by `anonlm deid`).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Its ops log (`anonlm deid --ops-log`).
    #[arg(long)]
    pub ops_log: PathBuf,
    /// The model's manifest.json (or the model dir holding it), from `anonlm mlm train`.
    #[arg(long)]
    pub manifest: PathBuf,
    /// Output directory: probes.jsonl, summary.json (and originals.jsonl with --original).
    #[arg(long)]
    pub out: PathBuf,
    /// The input of deid (Document JSONL, same ids): writes the protected originals.jsonl (0600).
    #[arg(long)]
    pub original: Option<PathBuf>,
    /// Op labels that make slots (all subtypes), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "NAME")]
    pub labels: Vec<crate::labels::Category>,
    /// Slots kept per set, sampled with --seed (default: all).
    #[arg(long)]
    pub max_per_set: Option<usize>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sentences longer than this many whitespace words are skipped.
    #[arg(long, default_value_t = 250)]
    pub max_words: usize,
    /// Replace a probe set already in --out.
    #[arg(long)]
    pub overwrite: bool,
    /// Largest document accepted, in bytes.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_doc_bytes: usize,
}

#[derive(Args, Debug)]
pub struct ProbeRunArgs {
    /// Model dir or hub id `org/name[@revision]` (local cache).
    #[arg(long)]
    pub model: String,
    /// A probe set (dir from `probe build`, or its probes.jsonl), or a user file of sentences
    /// with one <mask> each: one per line, or a .csv with a `sentences` column.
    #[arg(long)]
    pub set: PathBuf,
    /// Predictions per slot (40 to harvest, 20 for the final test).
    #[arg(long, default_value_t = 40)]
    pub top_k: usize,
    /// JSONL output, one line per slot (`-` for stdout).
    #[arg(long)]
    pub out: PathBuf,
    /// The protected originals.jsonl of `probe build`: adds recovery figures (never the names).
    #[arg(long)]
    pub originals: Option<PathBuf>,
    /// Candidate names for the PLL rank, one per line (default: built-in lists of the language).
    #[arg(long)]
    pub candidates: Option<PathBuf>,
    /// Candidates scored per slot, the original included (sampled with --seed).
    #[arg(long, default_value_t = 1000)]
    pub max_candidates: usize,
    /// Language of user-file sentences (for built-in candidate names).
    #[arg(long)]
    pub lang: Option<crate::lang::Lang>,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sequences per forward pass.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    #[arg(long, default_value = "cpu")]
    pub device: String,
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Subcommand, Debug)]
pub enum LabelStudioCommand {
    /// Documents as a Label Studio task list (JSON): the text, the document id and metadata in
    /// `data`, the recognized spans (or the input's own) as predictions to correct.
    Export(LabelStudioExportArgs),
    /// A Label Studio JSON export back to Document JSONL: the latest annotation of each task
    /// that was not cancelled, every span checked against the text.
    Import(LabelStudioImportArgs),
}

#[derive(Args, Debug)]
pub struct LabelStudioExportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The task list to write (JSON), or `-` for stdout.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing --out (and --config); inputs are never overwritten.
    #[arg(long)]
    pub overwrite: bool,
    /// Export the input's own spans (JSONL entities, brat .ann, IOB tags, labels through
    /// --label-map) instead of recognizing: for correcting an existing annotation.
    #[arg(long)]
    pub use_input_spans: bool,
    /// Write labels in this label map's scheme instead of canonical labels (NAME/PATIENT).
    #[arg(long)]
    pub out_label_map: Option<String>,
    /// Also write a Label Studio labeling config (XML) listing the labels.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// `model_version` of the predictions (default: anonlm and its version, or `input` with
    /// --use-input-spans).
    #[arg(long)]
    pub model_version: Option<String>,
}

#[derive(Args, Debug)]
pub struct LabelStudioImportArgs {
    /// Label Studio JSON export (Export > JSON: a list of tasks with annotations).
    pub export: PathBuf,
    /// Document JSONL to write, or `-` for stdout.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing --out (the export is never overwritten).
    #[arg(long)]
    pub overwrite: bool,
    /// Label map (built-in name or TOML file) for scheme labels; default: canonical labels.
    #[arg(long)]
    pub label_map: Option<String>,
    /// Tasks nobody annotated contribute their prediction instead of being skipped.
    #[arg(long)]
    pub include_predictions: bool,
    /// Largest export file accepted, in bytes.
    #[arg(long, default_value_t = 1 << 30)]
    pub max_bytes: u64,
}

/// `anonlm eval --risk`: de-identify the gold texts in memory and count the gold entities left.
#[derive(Args, Debug, Clone)]
pub struct RiskArgs {
    /// Risk analysis: de-identify the gold documents in memory (recognizers and --policy) and
    /// count, per gold label and after each pass, the entities removed, partly left and missed.
    #[arg(long)]
    pub risk: bool,
    /// Recognition passes of the risk analysis; counts are reported after each.
    #[arg(long, default_value_t = 2, requires = "risk")]
    pub passes: usize,
    /// Document language for the recognizers: nl, hu, es, it, en, or auto.
    #[arg(long, default_value = "auto")]
    pub lang: LangChoice,
    /// Language used when auto detection finds no evidence.
    #[arg(long, default_value = "en")]
    pub fallback_lang: crate::lang::Lang,
    /// Extra word lists: DIR/<lang>/<name>.txt added to the built-in list of that name.
    #[arg(long)]
    pub lists: Option<PathBuf>,
    /// De-identification policy (built-in name or TOML file); coverage does not depend on the
    /// replacement, but later passes see the text earlier passes wrote.
    #[arg(long, default_value = "default", requires = "risk")]
    pub policy: String,
    /// Key file, for a policy that needs one (keyed surrogates, pseudonyms, date shifts).
    #[arg(long, requires = "risk")]
    pub key_file: Option<PathBuf>,
    /// A trained NER model directory, joined with the rules as in `deid --model`.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// A directory of per-language models (`DIR/<lang>/`), as in `deid --models`; default:
    /// the ANONLM_MODELS environment variable.
    #[arg(long, conflicts_with = "model")]
    pub models: Option<PathBuf>,
    /// Rules and lists only for languages without a --models model, as in `deid
    /// --no-builtin-models`.
    #[arg(long, conflicts_with = "model")]
    pub no_builtin_models: bool,
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
}
