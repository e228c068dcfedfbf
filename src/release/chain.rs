//! The release chain as a list of stages, each a library call with typed settings: deid,
//! deid eval (with gold), tokenizer, mlm train (with canaries), reference model, probe build,
//! probe run, vocab harvest, vocab rewrite, the final probe run, probe metrics, then the audit
//! and its report. Resumable stage by stage through `release.state.json`.

use std::path::{Path, PathBuf};

use crate::audit::evidence::file_hash;
use crate::audit::spec::ModelSpec;
use crate::audit::AuditSpec;
use crate::canary::setup::CanarySettings;
use crate::corpus::source::CorpusInput;
use crate::corpus::{Format, ReadOptions};
use crate::deid::DeidSettings;
use crate::error::{StageContext, StageResult, ValueError};
use crate::eval::job::EvalSettings;
use crate::labels::Category;
use crate::lang::{Lang, LangChoice};
use crate::mlm::train::stage::MlmTrainSettings;
use crate::probe::job::{ProbeBuildSettings, ProbeRunSettings};
use crate::probe::metrics_stage::ProbeMetricsSettings;
use crate::recognize::settings::RecognizerSettings;
use crate::release::state::{fingerprint, StageRecord, State, RUNNING};
use crate::release::ReleaseSpec;
use crate::report::Report;
use crate::synth::job::SynthSettings;
use crate::tokenizer::TokenizerSettings;
use crate::vocab::evidence::NameEvidenceSettings;
use crate::vocab::harvest_stage::HarvestSettings;
use crate::vocab::RewriteOptions;

/// The spec `release --demo` runs (embedded; also written into the demo's input folder).
const DEMO_SPEC: &str = include_str!("../../audits/demo.toml");

/// One release run.
#[derive(Clone, Debug)]
pub struct ReleaseSettings {
    /// The audit spec with a `[release]` section; `None` with `demo`.
    pub spec: Option<PathBuf>,
    /// Built-in synthetic Dutch notes with the settings of `audits/demo.toml`.
    pub demo: bool,
    /// Seed of the demo's notes.
    pub seed: u64,
    /// The release dir: every stage's outputs, the state and the report.
    pub out: PathBuf,
    /// Taggers per language for the deid stages (`DIR/<lang>/`), as `deid --models`.
    pub models: Option<PathBuf>,
    /// The command line, recorded in the report.
    pub command: String,
    pub quiet: bool,
}

/// Where the stages write, relative to the release dir.
pub mod paths {
    pub const DEID: &str = "deid.jsonl";
    pub const DEID_OPS: &str = "deid.ops.jsonl";
    pub const DEID_STATS: &str = "deid.stats.json";
    pub const DEID_EVAL: &str = "deid.eval.json";
    pub const REFERENCE_DEID: &str = "reference.deid.jsonl";
    pub const TOKENIZER: &str = "tokenizer";
    pub const MODEL: &str = "model";
    /// The canaries' secrets: mode 0600, never released.
    pub const CANARIES: &str = "private/model.canaries.json";
    pub const REFERENCE: &str = "reference";
    pub const PROBES: &str = "probes";
    pub const PROBE_HARVEST: &str = "probe.harvest.jsonl";
    /// A person may edit it between runs: its content is an input of `rewrite`, not a
    /// reason to harvest again.
    pub const REVIEW: &str = "review.tsv";
    pub const RELEASED: &str = "released";
    /// Holds the names of the removed tokens: mode 0600, never released.
    pub const VOCAB_MAP: &str = "private/vocab_map.json";
    pub const PROBE_FINAL: &str = "probe.final.jsonl";
    pub const PROBE_METRICS: &str = "probe_metrics.json";
    pub const REPORT: &str = "report";
}

/// Runs (or resumes) the chain and returns the audit's report, also written under `report/`.
pub fn run(s: &ReleaseSettings) -> StageResult<Report> {
    let out = &s.out;
    crate::fsio::create_private_dir(out)?;
    // One release run per dir at a time; leftovers of a killed one are removed under the lock.
    let _lock = crate::fsio::RunLock::acquire(out)?;
    crate::fsio::clean_stale_in(out)?;
    let spec_path = if s.demo {
        write_demo_inputs(out, s.seed)?
    } else {
        s.spec
            .clone()
            .ok_or_else(|| ValueError::new("give --spec FILE or --demo"))?
    };
    let spec = AuditSpec::load(&spec_path)?;
    let release = spec.release.clone().ok_or_else(|| {
        ValueError::new(format!(
            "{}: no [release] section (the chain's corpus and settings)",
            spec_path.display()
        ))
    })?;
    let mut chain = Chain {
        dir: out.clone(),
        state: State::load(out)?,
        previous: fingerprint(&[&serde_json::to_string(&release)?]),
        settings: s.clone(),
    };
    chain.run_all(&spec, &release, &spec_path)
}

struct Chain {
    dir: PathBuf,
    state: State,
    /// Fingerprint of the last stage run or skipped: each stage's fingerprint includes it, so a
    /// change early in the chain reruns everything after it.
    previous: String,
    settings: ReleaseSettings,
}

impl Chain {
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Runs `work` unless the stage finished with the same fingerprint (its settings `settings`,
    /// the chain so far and `extra` hashes) and its outputs are as it left them. Outputs of a
    /// stage whose fingerprint changed are removed first; an interrupted stage with the same
    /// fingerprint is run again over its outputs (training resumes from its checkpoint).
    fn stage(
        &mut self,
        name: &str,
        settings: &serde_json::Value,
        extra: &[String],
        outputs: &[&str],
        work: impl FnOnce(&Self) -> StageResult<()>,
    ) -> StageResult<()> {
        let settings = serde_json::to_string(settings)?;
        let mut parts = vec![name, settings.as_str(), self.previous.as_str()];
        parts.extend(extra.iter().map(String::as_str));
        let fp = fingerprint(&parts);
        if let Some(done) = self.state.done(&self.dir, name, &fp) {
            eprintln!("release: {name}: up to date");
            self.previous = chained(done);
            return Ok(());
        }
        let interrupted = self
            .state
            .stages
            .get(name)
            .is_some_and(|r| r.fingerprint == fp && r.exit == RUNNING);
        if !interrupted {
            for o in outputs {
                crate::fsio::remove_output(&self.path(o))?;
            }
        }
        let record = StageRecord::started(&fp, outputs);
        self.state.finish(&self.dir, name, record.clone())?;
        eprintln!("release: {name} ...");
        let started = std::time::Instant::now();
        work(self).with_stage_context(|| format!("release stage {name}"))?;
        eprintln!(
            "release: {name} done in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let finished = record.finished(&self.dir, 0, &[paths::REVIEW])?;
        self.previous = chained(&finished);
        self.state.finish(&self.dir, name, finished)?;
        Ok(())
    }

    fn run_all(
        &mut self,
        spec: &AuditSpec,
        r: &ReleaseSpec,
        spec_path: &Path,
    ) -> StageResult<Report> {
        let corpus_hash = file_hash(&r.corpus)?.sha256;
        let key_hash = r
            .key_file
            .as_deref()
            .map(|k| file_hash(k).map(|h| h.sha256))
            .transpose()?
            .unwrap_or_default();
        let deid_settings = serde_json::json!({
            "format": r.format, "lang": r.lang, "policy": r.policy, "passes": r.passes, "gold": r.gold,
            "models": self.settings.models,
        });
        self.stage(
            "deid",
            &deid_settings,
            &[corpus_hash, key_hash.clone()],
            &[paths::DEID, paths::DEID_OPS, paths::DEID_STATS],
            |c| {
                crate::deid::run(&c.deid_settings(r, &r.corpus, paths::DEID)?)?;
                Ok(())
            },
        )?;
        if r.gold {
            self.stage(
                "deid-eval",
                &serde_json::json!({}),
                &[],
                &[paths::DEID_EVAL],
                |c| {
                    crate::eval::job::run(&EvalSettings {
                        gold: r.corpus.clone(),
                        format: "jsonl".into(),
                        label_map: None,
                        pred: None,
                        pred_format: None,
                        pred_label_map: None,
                        exclude: Vec::new(),
                        ops_log: Some(c.path(paths::DEID_OPS)),
                        deid: Some(c.path(paths::DEID)),
                        max_doc_bytes: None,
                        names: None,
                        risk: None,
                        json: Some(c.path(paths::DEID_EVAL)),
                        overwrite: true,
                    })?;
                    Ok(())
                },
            )?;
        }
        self.stage(
            "tokenizer",
            &serde_json::to_value(&r.tokenizer)?,
            &[],
            &[paths::TOKENIZER],
            |c| {
                crate::tokenizer::run(&TokenizerSettings {
                    corpus: c.path(paths::DEID),
                    format: "jsonl".into(),
                    max_doc_bytes: ReadOptions::DEFAULT_MAX_DOC_BYTES,
                    sample_bytes: crate::tokenizer::DEFAULT_SAMPLE_BYTES,
                    kind: r.tokenizer.kind.parse()?,
                    vocab_size: r.tokenizer.vocab_size,
                    min_frequency: None,
                    specials: None,
                    lowercase: false,
                    out: c.path(paths::TOKENIZER),
                    overwrite: true,
                    quiet: true,
                })?;
                Ok(())
            },
        )?;
        self.stage(
            "train",
            &serde_json::to_value(&r.train)?,
            &[],
            if r.train.canaries > 0 {
                &[paths::MODEL, paths::CANARIES]
            } else {
                &[paths::MODEL]
            },
            |c| {
                crate::fsio::create_private_dir(&c.path("private"))?;
                crate::mlm::train::stage::run(&c.train_settings(r, paths::DEID, paths::MODEL))?;
                Ok(())
            },
        )?;
        if let Some(reference_corpus) = &r.reference_corpus {
            let hash = file_hash(reference_corpus)?.sha256;
            self.stage(
                "reference",
                &serde_json::json!({"deid": deid_settings, "train": r.train}),
                &[hash, key_hash],
                &[paths::REFERENCE_DEID, paths::REFERENCE],
                |c| {
                    crate::deid::run(&c.deid_settings(
                        r,
                        reference_corpus,
                        paths::REFERENCE_DEID,
                    )?)?;
                    let mut t = c.train_settings(r, paths::REFERENCE_DEID, paths::REFERENCE);
                    // Every document is a non-member of the released model: train on all, and
                    // no canaries (the reference must not have seen them).
                    t.held_out = Some(0.0);
                    t.canary = Default::default();
                    crate::mlm::train::stage::run(&t)?;
                    Ok(())
                },
            )?;
        }
        let p = &r.probe;
        self.stage(
            "probe-build",
            &serde_json::to_value(p)?,
            &[],
            &[paths::PROBES],
            |c| {
                crate::probe::job::build(&ProbeBuildSettings {
                    corpus: c.path(paths::DEID),
                    ops_log: c.path(paths::DEID_OPS),
                    manifest: c.path(paths::MODEL).join("manifest.json"),
                    out: c.path(paths::PROBES),
                    original: None,
                    labels: vec![Category::Name],
                    max_per_set: Some(p.max_per_set),
                    seed: r.train.seed,
                    max_words: 250,
                    overwrite: true,
                    max_doc_bytes: ReadOptions::DEFAULT_MAX_DOC_BYTES,
                })?;
                Ok(())
            },
        )?;
        self.stage(
            "probe-harvest",
            &serde_json::json!({}),
            &[],
            &[paths::PROBE_HARVEST],
            |c| c.probe_run(paths::MODEL, p.harvest_top_k, paths::PROBE_HARVEST, r),
        )?;
        self.stage(
            "harvest",
            &serde_json::json!({}),
            &[],
            &[paths::REVIEW],
            |c| {
                crate::vocab::harvest_stage::run(&HarvestSettings {
                    probe: vec![c.path(paths::PROBE_HARVEST)],
                    model: c.path(paths::MODEL),
                    out: c.path(paths::REVIEW),
                    evidence: c.name_evidence(r),
                    // A release sweeps the whole vocabulary, not only what the probes brought up.
                    all_tokens: true,
                    gold: None,
                    summary: None,
                    overwrite: true,
                })?;
                Ok(())
            },
        )?;
        // The review file may be edited by a person between runs: its content is an input.
        let review_hash = file_hash(&self.path(paths::REVIEW))?.sha256;
        self.stage(
            "rewrite",
            &serde_json::json!({}),
            &[review_hash],
            &[paths::RELEASED, paths::VOCAB_MAP],
            |c| {
                crate::fsio::create_private_dir(&c.path("private"))?;
                // Pieces the ordinary words of the training text use are never renamed (a
                // review edited by hand that removes one is refused).
                let ordinary = crate::vocab::evidence::ordinary_uses(
                    &c.path(paths::MODEL),
                    &c.path(paths::DEID),
                    "jsonl",
                    None,
                )?;
                crate::vocab::rewrite_model(
                    &c.path(paths::MODEL),
                    &c.path(paths::REVIEW),
                    &c.path(paths::RELEASED),
                    &c.path(paths::VOCAB_MAP),
                    &RewriteOptions {
                        overwrite: true,
                        ordinary: Some(ordinary),
                    },
                )?;
                Ok(())
            },
        )?;
        self.stage(
            "probe-final",
            &serde_json::json!({}),
            &[],
            &[paths::PROBE_FINAL],
            |c| c.probe_run(paths::RELEASED, p.top_k, paths::PROBE_FINAL, r),
        )?;
        self.stage(
            "probe-metrics",
            &serde_json::json!({}),
            &[],
            &[paths::PROBE_METRICS],
            |c| {
                crate::probe::metrics_stage::run(&ProbeMetricsSettings {
                    probe: vec![c.path(paths::PROBE_FINAL)],
                    model: c.path(paths::RELEASED),
                    review: Some(c.path(paths::REVIEW)),
                    evidence: c.name_evidence(r),
                    reference_probe: Vec::new(),
                    top_k: Some(p.top_k),
                    out: Some(c.path(paths::PROBE_METRICS)),
                    overwrite: true,
                    max_name_like_share: None,
                })?;
                Ok(())
            },
        )?;

        // The audit always runs: it is quick next to training, and its report is the point.
        let audit_spec = self.audit_spec(spec, r);
        let report = crate::audit::stage::run(
            &audit_spec,
            spec_path,
            "Release audit",
            &self.settings.command,
        )?;
        crate::report::write_report(&report, &self.path(paths::REPORT), true)?;
        Ok(report)
    }

    /// The spec's audit sections with the chain's products filled in.
    fn audit_spec(&self, spec: &AuditSpec, r: &ReleaseSpec) -> AuditSpec {
        let mut a = spec.clone();
        let given = spec.model.clone();
        let reference = given
            .as_ref()
            .and_then(|m| m.reference.clone())
            .or_else(|| {
                r.reference_corpus
                    .as_ref()
                    .map(|_| self.path(paths::REFERENCE))
            });
        a.model = Some(ModelSpec {
            dir: Some(self.path(paths::RELEASED)),
            reference,
            original: Some(self.path(paths::MODEL)),
            device: given.map_or_else(|| r.train.device.clone(), |m| m.device),
        });
        a.data.corpus = Some(self.path(paths::DEID));
        a.data.manifest = Some(self.path(paths::MODEL).join("manifest.json"));
        a.data.canaries = (r.train.canaries > 0).then(|| self.path(paths::CANARIES));
        let e = &mut a.evidence;
        e.probe_metrics = Some(self.path(paths::PROBE_METRICS));
        e.deid_stats = Some(self.path(paths::DEID_STATS));
        e.deid_eval = r.gold.then(|| self.path(paths::DEID_EVAL));
        e.review = Some(self.path(paths::REVIEW));
        e.vocab_map = Some(self.path(paths::VOCAB_MAP));
        a.release = None;
        a
    }

    fn deid_settings(&self, r: &ReleaseSpec, input: &Path, out: &str) -> StageResult<DeidSettings> {
        let lang: LangChoice = r
            .lang
            .parse()
            .map_err(|e| ValueError::new(format!("[release] lang: {e}")))?;
        let mut recognizers = RecognizerSettings::rules(lang);
        recognizers.models = self.settings.models.clone();
        Ok(DeidSettings {
            input: CorpusInput {
                path: input.to_path_buf(),
                format: r.format.clone(),
                label_map: None,
                max_doc_bytes: ReadOptions::DEFAULT_MAX_DOC_BYTES,
            },
            recognizers,
            out: self.path(out),
            out_format: Some(Format::Jsonl),
            overwrite: true,
            policy: crate::deid::job::load_policy(&r.policy)?,
            key_file: r.key_file.clone(),
            seed: r.train.seed,
            passes: r.passes,
            ops_log: None,
            stats: None,
            patient_key: None,
            use_input_spans: false,
            quiet: true,
        })
    }

    fn train_settings(&self, r: &ReleaseSpec, corpus: &str, out: &str) -> MlmTrainSettings {
        let t = &r.train;
        MlmTrainSettings {
            corpus: Some(self.path(corpus)),
            data: None,
            format: "jsonl".into(),
            tokenizer: Some(self.path(paths::TOKENIZER)),
            config: t.config.clone(),
            arch: None,
            init: None,
            out: self.path(out),
            overwrite: false,
            device: t.device.clone(),
            steps: Some(t.steps),
            epochs: None,
            batch: t.batch,
            grad_accum: 1,
            seq_len: Some(t.seq_len),
            lr: t.lr,
            warmup: 0.06,
            weight_decay: 0.01,
            clip_norm: 1.0,
            held_out: Some(t.held_out),
            eval_every: (t.steps / 5).max(1),
            patience: 0,
            checkpoint_every: (t.steps / 4).max(1),
            seed: t.seed,
            max_doc_bytes: ReadOptions::DEFAULT_MAX_DOC_BYTES,
            canary: CanarySettings {
                canaries: t.canaries,
                repeats: t.canary_repeats.iter().map(|&n| n as u64).collect(),
                seed: t.canary_seed,
                file: (t.canaries > 0).then(|| self.path(paths::CANARIES)),
                lang: r.lang.clone(),
                templates: None,
            },
            quiet: self.settings.quiet,
        }
    }

    fn probe_run(&self, model: &str, top_k: usize, out: &str, r: &ReleaseSpec) -> StageResult<()> {
        crate::probe::job::run(&ProbeRunSettings {
            model: self.path(model).display().to_string(),
            set: self.path(paths::PROBES),
            top_k,
            out: self.path(out),
            originals: None,
            candidates: None,
            max_candidates: 1000,
            lang: None,
            seed: r.train.seed,
            batch: 32,
            device: r.train.device.clone(),
            overwrite: true,
        })?;
        Ok(())
    }

    fn name_evidence(&self, r: &ReleaseSpec) -> NameEvidenceSettings {
        NameEvidenceSettings {
            corpus: Some(r.corpus.clone()),
            format: r.format.clone(),
            ops_log: Some(self.path(paths::DEID_OPS)),
            labels: vec!["NAME".into()],
            // The model learned the de-identified text: its words (tags included) keep their
            // pieces.
            reference: Some(self.path(paths::DEID)),
            names: Vec::new(),
            no_builtin_lists: false,
            threshold: r.probe.threshold,
        }
    }
}

/// What the next stage's fingerprint builds on: this stage's fingerprint and the hashes of what
/// it wrote, so a stage that reran and wrote something else reruns everything after it.
fn chained(record: &StageRecord) -> String {
    let mut parts = vec![record.fingerprint.as_str()];
    parts.extend(record.hashes.iter().map(String::as_str));
    fingerprint(&parts)
}

/// Synthetic Dutch notes (the corpus and a reference corpus of other patients) and the demo
/// spec, under `out/input/`; returns the spec's path.
fn write_demo_inputs(out: &Path, seed: u64) -> StageResult<PathBuf> {
    let input = out.join("input");
    crate::fsio::create_private_dir(&input)?;
    let spec_path = input.join("demo.toml");
    crate::fsio::replace_file(&spec_path, DEMO_SPEC.as_bytes())?;
    for (name, docs, s) in [
        ("notes.jsonl", 240, seed),
        ("reference.jsonl", 120, seed + 1000),
    ] {
        let path = input.join(name);
        if !path.exists() {
            crate::synth::job::run(&SynthSettings {
                langs: vec![Lang::Nl],
                docs,
                seed: s,
                out: path,
                format: Format::Jsonl,
                overwrite: false,
            })?;
        }
    }
    Ok(spec_path)
}
