//! Flags of `anonlm vocab` (harvest, rewrite, check) and the name-evidence flags that
//! `vocab harvest` shares with `probe metrics`.

use super::shared::corpus_format;
use super::shared::finite_f64;
use super::shared::Overwrite;
use crate::vocab::evidence::NameEvidenceSettings;
use clap::{Args, Subcommand};
use std::path::PathBuf;

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
    #[arg(long, default_value = "auto", value_parser = corpus_format)]
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

impl NameEvidenceArgs {
    /// These flags as the stages' evidence settings.
    pub fn settings(&self) -> NameEvidenceSettings {
        NameEvidenceSettings {
            corpus: self.corpus.clone(),
            format: self.format.clone(),
            ops_log: self.ops_log.clone(),
            labels: self.labels.clone(),
            reference: self.reference.clone(),
            names: self.names.clone(),
            no_builtin_lists: self.no_builtin_lists,
            threshold: self.threshold,
        }
    }
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out")))]
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
    #[command(flatten)]
    pub overwrite: Overwrite,
}

#[derive(Args, Debug)]
#[command(mut_arg("overwrite", |a| a.help("Replace an existing --out dir and --map file (inputs are never replaced)")))]
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
    #[command(flatten)]
    pub overwrite: Overwrite,
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
