//! `anonlm demo`: the whole de-identification job on the built-in synthetic sample, through
//! the same library stages as the individual commands; every artifact lands in `--out`.

use super::eval::print_tables;
use crate::cli::DemoArgs;
use crate::corpus::source::CorpusInput;
use crate::corpus::{Format, ReadOptions};
use crate::deid::DeidSettings;
use crate::eval::job::EvalSettings;
use crate::keys::Key;
use crate::lang::{Lang, LangChoice};
use crate::recognize::settings::RecognizerSettings;
use crate::recognize::stage::RecognizeSettings;
use crate::synth::job::SynthSettings;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn deid_settings(
    dir: &Path,
    sample: &Path,
    name: &str,
    policy: &str,
    key: Option<PathBuf>,
    seed: u64,
) -> Result<DeidSettings> {
    Ok(DeidSettings {
        input: CorpusInput {
            path: sample.to_path_buf(),
            format: "jsonl".into(),
            label_map: None,
            max_doc_bytes: ReadOptions::DEFAULT_MAX_DOC_BYTES,
        },
        recognizers: RecognizerSettings::rules(LangChoice::Auto),
        out: dir.join(format!("{name}.jsonl")),
        out_format: None,
        overwrite: true,
        policy: crate::deid::job::load_policy(policy)?,
        key_file: key,
        seed,
        passes: 2,
        ops_log: None,
        stats: None,
        patient_key: None,
        use_input_spans: false,
        quiet: true,
    })
}

fn eval_settings(
    gold: &Path,
    pred: Option<PathBuf>,
    ops: Option<PathBuf>,
    deid: Option<PathBuf>,
    json: PathBuf,
) -> EvalSettings {
    EvalSettings {
        gold: gold.to_path_buf(),
        format: "jsonl".into(),
        label_map: None,
        pred,
        pred_format: None,
        pred_label_map: None,
        exclude: Vec::new(),
        ops_log: ops,
        deid,
        max_doc_bytes: None,
        names: None,
        risk: None,
        json: Some(json),
        overwrite: true,
    }
}

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let dir = &args.out;
    crate::fsio::create_private_dir(dir)?;
    let sample = dir.join("sample.jsonl");
    let spans = dir.join("spans.jsonl");
    println!(
        "== 1. synthetic sample: {} notes per language, seed {}",
        args.docs, args.seed
    );
    let docs = crate::synth::job::run(&SynthSettings {
        langs: Lang::ALL.to_vec(),
        docs: args.docs,
        seed: args.seed,
        out: sample.clone(),
        format: Format::Jsonl,
        overwrite: true,
    })?;
    let mut counts = crate::corpus::counts::LabelCounts::default();
    docs.iter().for_each(|d| counts.add(d));
    eprint!("{}", counts.table());
    println!("== 2. recognize (language detected per document)");
    crate::recognize::stage::run(&RecognizeSettings {
        input: CorpusInput {
            path: sample.clone(),
            format: "jsonl".into(),
            label_map: None,
            max_doc_bytes: ReadOptions::DEFAULT_MAX_DOC_BYTES,
        },
        recognizers: RecognizerSettings::rules(LangChoice::Auto),
        out: spans.clone(),
        out_format: None,
        overwrite: true,
        out_label_map: None,
        quiet: true,
    })?;
    println!("== 3. recognized spans against the generator's gold spans");
    print_tables(&crate::eval::job::run(&eval_settings(
        &sample,
        Some(spans),
        None,
        None,
        dir.join("eval-spans.json"),
    ))?);

    println!("\n== 4. deid with tags (policy 'default', 2 passes), then residual PII");
    crate::deid::run(&deid_settings(
        dir,
        &sample,
        "deid-tags",
        "default",
        None,
        args.seed,
    )?)?;
    print_tables(&crate::eval::job::run(&eval_settings(
        &sample,
        None,
        Some(dir.join("deid-tags.ops.jsonl")),
        Some(dir.join("deid-tags.jsonl")),
        dir.join("eval-residual-tags.json"),
    ))?);

    println!("\n== 5. deid with keyed surrogates, pseudonyms and date shifts (policy 'keyed')");
    let key = dir.join("demo.key");
    if !key.exists() {
        Key::generate(&key)?;
    }
    crate::deid::run(&deid_settings(
        dir,
        &sample,
        "deid-keyed",
        "keyed",
        Some(key),
        args.seed,
    )?)?;
    print_tables(&crate::eval::job::run(&eval_settings(
        &sample,
        None,
        Some(dir.join("deid-keyed.ops.jsonl")),
        Some(dir.join("deid-keyed.jsonl")),
        dir.join("eval-residual-keyed.json"),
    ))?);
    println!("\nartifacts in {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
