//! `anonlm demo`: the whole de-identification job on the built-in synthetic sample, through
//! the same code paths as the individual commands; every artifact lands in `--out`.

use super::{deid, eval, recognize, synth};
use crate::cli::{DeidArgs, DemoArgs, EvalArgs, InputArgs, OutputArgs, RecognizeArgs, SynthArgs};
use crate::keys::Key;
use crate::lang::{Lang, LangChoice};
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn input(path: &Path) -> InputArgs {
    InputArgs {
        input: path.to_path_buf(),
        format: "jsonl".into(),
        lang: LangChoice::Auto,
        fallback_lang: Lang::En,
        lists: None,
        label_map: None,
        model: None,
        models: None,
        no_rules: false,
        max_doc_bytes: crate::corpus::ReadOptions::DEFAULT_MAX_DOC_BYTES,
        threads: None,
        quiet: true,
    }
}

fn output(path: PathBuf) -> OutputArgs {
    OutputArgs {
        out: path,
        out_format: None,
        overwrite: true,
    }
}

fn deid_args(
    dir: &Path,
    sample: &Path,
    name: &str,
    policy: &str,
    key: Option<PathBuf>,
    seed: u64,
) -> DeidArgs {
    DeidArgs {
        input: input(sample),
        output: output(dir.join(format!("{name}.jsonl"))),
        policy: policy.into(),
        operator: None,
        ops: Vec::new(),
        tag_style: None,
        key_file: key,
        seed,
        passes: 2,
        ops_log: None,
        stats: None,
        patient_key: None,
        use_input_spans: false,
    }
}

fn eval_args(
    gold: &Path,
    pred: Option<PathBuf>,
    ops: Option<PathBuf>,
    deid: Option<PathBuf>,
    json: PathBuf,
) -> EvalArgs {
    EvalArgs {
        gold: gold.to_path_buf(),
        pred,
        format: "jsonl".into(),
        pred_format: None,
        label_map: None,
        pred_label_map: None,
        exclude: Vec::new(),
        ops_log: ops,
        deid,
        json: Some(json),
        overwrite: true,
        max_doc_bytes: None,
        names: false,
        risk: Default::default(),
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
    synth::run(SynthArgs {
        lang: "all".into(),
        docs: args.docs,
        seed: args.seed,
        out: sample.clone(),
        format: "jsonl".into(),
        overwrite: true,
    })?;
    println!("== 2. recognize (language detected per document)");
    recognize::run(RecognizeArgs {
        input: input(&sample),
        output: output(spans.clone()),
        out_label_map: None,
    })?;
    println!("== 3. recognized spans against the generator's gold spans");
    eval::run(eval_args(
        &sample,
        Some(spans),
        None,
        None,
        dir.join("eval-spans.json"),
    ))?;

    println!("\n== 4. deid with tags (policy 'default', 2 passes), then residual PII");
    deid::run(deid_args(
        dir,
        &sample,
        "deid-tags",
        "default",
        None,
        args.seed,
    ))?;
    eval::run(eval_args(
        &sample,
        None,
        Some(dir.join("deid-tags.ops.jsonl")),
        Some(dir.join("deid-tags.jsonl")),
        dir.join("eval-residual-tags.json"),
    ))?;

    println!("\n== 5. deid with keyed surrogates, pseudonyms and date shifts (policy 'keyed')");
    let key = dir.join("demo.key");
    if !key.exists() {
        Key::generate(&key)?;
    }
    deid::run(deid_args(
        dir,
        &sample,
        "deid-keyed",
        "keyed",
        Some(key),
        args.seed,
    ))?;
    eval::run(eval_args(
        &sample,
        None,
        Some(dir.join("deid-keyed.ops.jsonl")),
        Some(dir.join("deid-keyed.jsonl")),
        dir.join("eval-residual-keyed.json"),
    ))?;
    println!("\nartifacts in {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
