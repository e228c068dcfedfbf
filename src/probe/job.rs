//! The `probe build` and `probe run` stages as library calls: name probe sets from a
//! de-identified corpus, and fill-mask runs at their slots with recovery figures.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::recovery::{CandidatePool, RecoverySettings};
use super::{
    build_probes, predict_chunk, read_manifest, read_originals, read_set, write_built,
    BuildOptions, BuiltSet, SetKind,
};
use crate::corpus::records::JsonlSink;
use crate::corpus::source::{open_documents, InputSpans};
use crate::corpus::{ensure_not_input, Document, Format};
use crate::error::{StageContext, StageResult, ValueError};
use crate::labels::Category;
use crate::lang::Lang;
use crate::mlm::runtime::MlmRuntime;

/// Slots per chunk predicted and written (bounds memory on large sets).
const CHUNK: usize = 256;

#[derive(Clone, Debug)]
pub struct ProbeBuildSettings {
    /// The de-identified corpus (JSONL).
    pub corpus: PathBuf,
    pub ops_log: PathBuf,
    /// The training manifest of the model (which documents it saw).
    pub manifest: PathBuf,
    pub out: PathBuf,
    /// The original corpus, for the protected originals side file.
    pub original: Option<PathBuf>,
    pub labels: Vec<Category>,
    pub max_per_set: Option<usize>,
    pub seed: u64,
    pub max_words: usize,
    pub overwrite: bool,
    pub max_doc_bytes: usize,
}

#[derive(Clone, Debug)]
pub struct ProbeRunSettings {
    /// A model dir or hub id.
    pub model: String,
    pub set: PathBuf,
    pub top_k: usize,
    pub out: PathBuf,
    pub originals: Option<PathBuf>,
    pub candidates: Option<PathBuf>,
    pub max_candidates: usize,
    pub lang: Option<Lang>,
    pub seed: u64,
    pub batch: usize,
    pub device: String,
    pub overwrite: bool,
}

/// Slots per set of a probe run, with recovery counts when originals were given.
#[derive(Clone, Debug, Default)]
pub struct SetCounts {
    pub slots: usize,
    pub with_original: usize,
    pub in_top_k: usize,
    pub rank_one: usize,
}

#[derive(Clone, Debug)]
pub struct ProbeRunSummary {
    pub slots: usize,
    pub per_set: BTreeMap<SetKind, SetCounts>,
    pub recovery: bool,
}

fn read_jsonl_docs(path: &Path, max_doc_bytes: usize) -> StageResult<Vec<Document>> {
    let docs = open_documents(path, Format::Jsonl, max_doc_bytes, None, InputSpans::Ignore)?
        .collect::<Result<Vec<Document>, _>>()?;
    if docs.is_empty() {
        return Err(ValueError::new(format!("{}: no documents", path.display())).into());
    }
    Ok(docs)
}

/// Builds and writes a probe set.
pub fn build(s: &ProbeBuildSettings) -> StageResult<BuiltSet> {
    if s.labels.is_empty() {
        return Err(ValueError::new("--labels needs at least one label").into());
    }
    let mut inputs: Vec<&Path> = vec![&s.corpus, &s.ops_log, &s.manifest];
    if let Some(o) = &s.original {
        inputs.push(o);
    }
    ensure_not_input(&s.out, &inputs)?;
    let manifest = read_manifest(&s.manifest)?;
    let corpus = read_jsonl_docs(&s.corpus, s.max_doc_bytes).with_stage_context(|| {
        format!("reading the de-identified corpus {}", s.corpus.display())
    })?;
    let original = match &s.original {
        Some(p) => Some(
            read_jsonl_docs(p, s.max_doc_bytes)
                .with_stage_context(|| format!("reading the original corpus {}", p.display()))?,
        ),
        None => None,
    };
    let opts = BuildOptions {
        labels: s.labels.clone(),
        max_per_set: s.max_per_set,
        seed: s.seed,
        max_words: s.max_words,
    };
    let built = build_probes(&corpus, original.as_deref(), &s.ops_log, &manifest, &opts)?;
    write_built(&s.out, &built, s.overwrite)?;
    Ok(built)
}

/// Fill-mask predictions at every slot of a probe set, with recovery of the originals when
/// they are given; writes one JSONL line per slot.
pub fn run(s: &ProbeRunSettings) -> StageResult<ProbeRunSummary> {
    if s.top_k == 0 {
        return Err(ValueError::new("--top-k must be at least 1").into());
    }
    if s.max_candidates < 2 {
        return Err(ValueError::new(
            "--max-candidates must be at least 2 (the original and one other name)",
        )
        .into());
    }
    let mut inputs: Vec<&Path> = vec![&s.set];
    inputs.extend(s.originals.as_deref());
    inputs.extend(s.candidates.as_deref());
    ensure_not_input(&s.out, &inputs)?;
    let lang = s.lang.map(Lang::code);
    let slots = read_set(&s.set, lang)?;
    if slots.is_empty() {
        return Err(ValueError::new(format!("{}: no probe slots", s.set.display())).into());
    }
    let originals = s.originals.as_deref().map(read_originals).transpose()?;
    let pool = match (&originals, &s.candidates) {
        (None, _) => None,
        (Some(_), Some(path)) => Some(CandidatePool::from_file(path)?),
        (Some(_), None) => {
            let mut langs: BTreeSet<Lang> = BTreeSet::new();
            for slot in &slots {
                if let Some(code) = &slot.lang {
                    langs.insert(code.parse().map_err(|_| {
                        ValueError::new(format!(
                            "slot {}: unknown language code",
                            crate::corpus::show_id(&slot.slot_id)
                        ))
                    })?);
                }
            }
            langs.extend(s.lang);
            Some(CandidatePool::builtin(
                &langs.into_iter().collect::<Vec<_>>(),
            )?)
        }
    };
    let recovery = match (&originals, &pool) {
        (Some(originals), Some(pool)) => Some(RecoverySettings {
            originals,
            pool,
            max_candidates: s.max_candidates,
            seed: s.seed,
            default_lang: s.lang,
        }),
        _ => None,
    };

    let mut rt = MlmRuntime::open_named(&s.model, &s.device)?;
    rt.batch_rows = s.batch.max(1);
    let mut sink = JsonlSink::file(&s.out, Some(&s.set), s.overwrite)?;
    let mut per_set: BTreeMap<SetKind, SetCounts> = BTreeMap::new();
    for chunk in slots.chunks(CHUNK) {
        let results = predict_chunk(&rt, chunk, s.top_k, recovery.as_ref())?;
        for r in &results {
            let c = per_set.entry(r.set).or_default();
            c.slots += 1;
            if let Some(rec) = &r.recovery {
                c.with_original += 1;
                c.in_top_k += usize::from(rec.in_top_k);
                c.rank_one += usize::from(rec.pll_rank == Some(1));
            }
            sink.write(r)?;
        }
    }
    let slots = sink.finish()?;
    Ok(ProbeRunSummary {
        slots,
        per_set,
        recovery: recovery.is_some(),
    })
}
