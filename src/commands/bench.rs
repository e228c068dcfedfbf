//! `anonlm bench`: throughput (MB/s, words/s) of recognize and deid with every rule recognizer
//! on (over synthetic notes or the first megabytes of a user's corpus), one 1 MB document
//! against the same text as small documents, peak memory and start-up.

use super::common::write_bytes_atomic;
use super::synth::write_documents;
use crate::cli::BenchArgs;
use crate::corpus::source::{open_documents, resolve_format, InputSpans};
use crate::corpus::{Document, Format, ReadOptions};
use crate::deid::apply::Deidentifier;
use crate::deid::policy::Policy;
use crate::fsio::Inputs;
use crate::lang::{Lang, LangChoice};
use crate::recognize::build::build_pipeline;
use crate::recognize::Pipeline;
use crate::synth::job::generate_all as generate;
use crate::wordlists::ListSources;
use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

#[derive(Serialize)]
struct Figure {
    task: String,
    threads: usize,
    documents: usize,
    megabytes: f64,
    seconds: f64,
    mb_per_s: f64,
    mb_per_s_per_core: f64,
    words_per_s: f64,
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Copies `base` (with fresh ids) until the corpus holds at least `bytes` bytes.
fn replicate(base: &[Document], bytes: usize) -> Vec<Document> {
    let mut out = Vec::new();
    let mut total = 0;
    for (i, d) in base.iter().cycle().enumerate() {
        if total >= bytes {
            break;
        }
        total += d.text.len();
        out.push(Document::new(format!("{}#{i}", d.id), d.text.clone()));
    }
    out
}

/// The first documents of the corpus at `path` up to `bytes` bytes of text (spans dropped),
/// repeated when the corpus is shorter; only what is measured is read.
fn input_corpus(path: &Path, format: &str, bytes: usize) -> Result<Vec<Document>> {
    let format = resolve_format(format, path)?;
    let max = ReadOptions::DEFAULT_MAX_DOC_BYTES;
    let mut docs = Vec::new();
    let mut total = 0;
    for doc in open_documents(path, format, max, None, InputSpans::Ignore)? {
        let doc = doc?;
        total += doc.text.len();
        docs.push(doc);
        if total >= bytes {
            return Ok(docs);
        }
    }
    anyhow::ensure!(total > 0, "{}: no text to measure", path.display());
    Ok(replicate(&docs, bytes))
}

/// Runs `work` over `docs` on a pool of `threads` workers and reports throughput.
fn measure(
    task: &str,
    threads: usize,
    docs: &[Document],
    work: &(dyn Fn(&Document) -> usize + Sync),
) -> Result<Figure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let started = Instant::now();
    let sink: usize = pool.install(|| docs.par_iter().map(work).sum());
    let seconds = started.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    Ok(figure(task, threads, docs, seconds))
}

fn deid_work<'a>(
    pipeline: &'a Pipeline,
    deid: &'a Deidentifier,
    passes: usize,
) -> impl Fn(&Document) -> usize + Sync + 'a {
    move |d: &Document| {
        let lang = pipeline.lang_for(&d.text);
        let out = deid.run_passes(&d.id, lang, None, &d.text, passes, |t| {
            pipeline.recognize_as(t, lang)
        });
        out.text.len()
    }
}

/// Median wall time of running this binary with `args`.
fn median_run_seconds(args: &[&str], runs: usize) -> Result<f64> {
    let exe = std::env::current_exe()?;
    let mut times = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let status = Command::new(&exe).args(args).status()?;
        anyhow::ensure!(status.success(), "benchmark child run failed: {args:?}");
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times[times.len() / 2])
}

/// Runs `anonlm deid` as a child over the JSONL file `input` (output, ops log and stats
/// written to `dir`): wall seconds and the child's peak resident memory (from its stats file).
fn child_deid(dir: &Path, input: &Path, name: &str, threads: usize) -> Result<(f64, u64)> {
    let out = dir.join(format!("{name}.deid.jsonl"));
    let stats = dir.join(format!("{name}.stats.json"));
    let started = Instant::now();
    let status = Command::new(std::env::current_exe()?)
        .args([
            "deid",
            "--quiet",
            "--overwrite",
            "--lang",
            "auto",
            "--format",
            "jsonl",
            "--threads",
            &threads.to_string(),
            "--stats",
        ])
        .arg(&stats)
        .arg("--out")
        .arg(&out)
        .arg(input)
        .status()?;
    let seconds = started.elapsed().as_secs_f64();
    anyhow::ensure!(status.success(), "benchmark deid child failed");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats)?)?;
    let peak = v["peak_rss_bytes"]
        .as_u64()
        .context("child reported no peak memory")?;
    Ok((seconds, peak))
}

/// Throughput of `seconds` spent on `docs` with `threads` workers, printed as a table row.
fn figure(task: &str, threads: usize, docs: &[Document], seconds: f64) -> Figure {
    let mb = docs.iter().map(|d| d.text.len()).sum::<usize>() as f64 / 1e6;
    let n_words: usize = docs.iter().map(|d| words(&d.text)).sum();
    let fig = Figure {
        task: task.to_string(),
        threads,
        documents: docs.len(),
        megabytes: mb,
        seconds,
        mb_per_s: mb / seconds,
        mb_per_s_per_core: mb / seconds / threads as f64,
        words_per_s: n_words as f64 / seconds,
    };
    eprintln!(
        "{:<44} {:>2} thr {:>8.2} MB {:>7.2} s {:>8.2} MB/s {:>8.2} MB/s/core {:>10.0} words/s",
        fig.task,
        threads,
        fig.megabytes,
        fig.seconds,
        fig.mb_per_s,
        fig.mb_per_s_per_core,
        fig.words_per_s
    );
    fig
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let langs = args.lang.0.clone();
    let all_threads = args
        .threads
        .count
        .unwrap_or_else(rayon::current_num_threads);
    let inputs: Vec<&Path> = args.input.iter().map(|p| p.as_path()).collect();
    // The figures take minutes: a --json that could not be written is refused before them.
    if let Some(path) = &args.json {
        crate::fsio::check_dest(path, false, args.overwrite.allowed, &Inputs::of(&inputs))?;
    }
    let started = Instant::now();
    let (small, origin) = match &args.input {
        Some(path) => (
            input_corpus(path, &args.format, args.mb << 20)?,
            "documents of the input",
        ),
        None => (
            replicate(&generate(&langs, 200, 42), args.mb << 20),
            "synthetic documents",
        ),
    };
    eprintln!(
        "corpus: {} {origin}, {:.1} MB, languages {:?} (built in {:.1}s)",
        small.len(),
        small.iter().map(|d| d.text.len()).sum::<usize>() as f64 / 1e6,
        langs.iter().map(|l| l.code()).collect::<Vec<_>>(),
        started.elapsed().as_secs_f64()
    );
    let lists = ListSources::default();
    let choice = if langs.len() == 1 {
        LangChoice::Fixed(langs[0])
    } else {
        LangChoice::Auto
    };
    // A user's corpus falls back to English, as `recognize` does; the synthetic one holds
    // every language it names.
    let fallback = if args.input.is_some() && langs.len() > 1 {
        Lang::En
    } else {
        langs[0]
    };
    let pipeline = build_pipeline(choice, fallback, &lists)?;
    let tag = Deidentifier::new(Policy::builtin("default")?, None, 0)?;
    let surrogate = Deidentifier::new(Policy::builtin("surrogate")?, None, 0)?;
    let recognize_only = |d: &Document| pipeline.recognize(&d.text).1.len();

    let mut figs = vec![
        measure("recognize", 1, &small, &recognize_only)?,
        measure("recognize", all_threads, &small, &recognize_only)?,
        measure(
            "recognize+deid tag, 1 pass",
            1,
            &small,
            &deid_work(&pipeline, &tag, 1),
        )?,
        measure(
            "recognize+deid tag, 1 pass",
            all_threads,
            &small,
            &deid_work(&pipeline, &tag, 1),
        )?,
        measure(
            "recognize+deid tag, 2 passes",
            1,
            &small,
            &deid_work(&pipeline, &tag, 2),
        )?,
        measure(
            "recognize+deid surrogate, 1 pass",
            1,
            &small,
            &deid_work(&pipeline, &surrogate, 1),
        )?,
    ];

    // Where the time goes: each step of recognition over the corpus, one thread.
    let mut by_step: BTreeMap<String, f64> = BTreeMap::new();
    for d in &small {
        let mut lap = Instant::now();
        let mut step_done = |name: &str| {
            let seconds = lap.elapsed().as_secs_f64();
            match by_step.get_mut(name) {
                Some(total) => *total += seconds,
                None => drop(by_step.insert(name.to_string(), seconds)),
            }
            lap = Instant::now();
        };
        let lang = pipeline.lang_for(&d.text);
        step_done("language");
        std::hint::black_box(pipeline.recognize_in_steps(&d.text, lang, step_done));
    }
    let corpus_mb = small.iter().map(|d| d.text.len()).sum::<usize>() as f64 / 1e6;
    for (name, seconds) in &by_step {
        eprintln!(
            "  step {name:<38} {seconds:>7.2} s {:>8.2} MB/s",
            corpus_mb / seconds
        );
    }

    // One 1 MB document against the same text as its small documents (one language, one thread).
    let lang = langs[0];
    let one_lang = build_pipeline(LangChoice::Fixed(lang), lang, &lists)?;
    let pieces: Vec<Document> = replicate(&generate(&[lang], 200, 43), 1 << 20);
    let joined = pieces
        .iter()
        .map(|d| d.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let big = vec![Document::new("one-megabyte", joined)];
    let work = deid_work(&one_lang, &tag, 1);
    let f_small = measure(
        &format!("1 MB as small docs ({lang}), deid 1 pass"),
        1,
        &pieces,
        &work,
    )?;
    let f_big = measure(
        &format!("1 MB as one doc ({lang}), deid 1 pass"),
        1,
        &big,
        &work,
    )?;
    let big_vs_small = f_big.seconds / f_small.seconds;
    eprintln!(
        "one 1 MB document takes {big_vs_small:.2}x the time of the same text in small documents"
    );
    figs.push(f_small);
    figs.push(f_big);

    // Peak memory and start-up, measured on child processes of this binary.
    let dir = tempfile::tempdir()?;
    let corpus_path = dir.path().join("bench.jsonl");
    write_documents(&small, &corpus_path, Format::Jsonl, false)?;
    // The command as a user runs it: its English documents also go through the shipped tagger,
    // which the in-process rows above leave out.
    let cli_task = "deid CLI + English tagger, tag, 1 pass";
    let (secs_one, _) = child_deid(dir.path(), &corpus_path, "corpus", 1)?;
    figs.push(figure(cli_task, 1, &small, secs_one));
    let (secs_all, peak_corpus) = child_deid(dir.path(), &corpus_path, "corpus", all_threads)?;
    figs.push(figure(cli_task, all_threads, &small, secs_all));
    let big_path = dir.path().join("big.jsonl");
    write_documents(&big, &big_path, Format::Jsonl, false)?;
    let (_, peak_big) = child_deid(dir.path(), &big_path, "big", all_threads)?;
    // Start-up: one line in Spanish (no shipped tagger), the same line with every language
    // built, and an English line, whose run also loads the shipped English tagger and the
    // rules it reads.
    let startup = |lang: &str, line: &str| -> Result<f64> {
        let tiny = dir.path().join(format!("tiny_{lang}.txt"));
        crate::fsio::write_file(&tiny, line.as_bytes(), false, &crate::fsio::Inputs::new())?;
        let tiny_out = dir.path().join("tiny.jsonl");
        let (tiny_s, tiny_out_s) = (
            tiny.to_string_lossy().into_owned(),
            tiny_out.to_string_lossy().into_owned(),
        );
        median_run_seconds(
            &[
                "recognize",
                "--quiet",
                "--overwrite",
                "--lang",
                lang,
                "--out",
                &tiny_out_s,
                &tiny_s,
            ],
            5,
        )
    };
    let spanish_line = "Paciente remitido por la Dra. García el 3 de mayo de 2010.\n";
    let startup_fixed = startup("es", spanish_line)?;
    let startup_auto = startup("auto", spanish_line)?;
    let startup_tagger = startup("en", "Patient referred by Dr. Okafor on May 3, 2010.\n")?;
    eprintln!(
        "peak memory of deid: {:.0} MB over the {:.0} MB corpus, {:.0} MB on the 1 MB document",
        peak_corpus as f64 / 1e6,
        args.mb as f64 * 1.048576,
        peak_big as f64 / 1e6
    );
    eprintln!("start-up (one tiny document, median of 5): {startup_fixed:.3}s with one language, {startup_auto:.3}s with all five, {startup_tagger:.3}s in English with the shipped tagger");

    if let Some(path) = &args.json {
        let body = serde_json::json!({
            "tool": "anonlm",
            "version": env!("CARGO_PKG_VERSION"),
            "languages": langs.iter().map(|l: &Lang| l.code()).collect::<Vec<_>>(),
            "corpus": if args.input.is_some() { "input" } else { "synthetic" },
            "figures": figs,
            "one_document_vs_small_documents": big_vs_small,
            "peak_rss_bytes_corpus": peak_corpus,
            "peak_rss_bytes_one_mb_document": peak_big,
            "startup_seconds_one_language": startup_fixed,
            "startup_seconds_all_languages": startup_auto,
            "startup_seconds_english_with_tagger": startup_tagger,
            "seconds_by_step": by_step,
        });
        let text = serde_json::to_string_pretty(&body)?;
        write_bytes_atomic(path, text.as_bytes(), args.overwrite.allowed, &inputs)?;
    }
    Ok(ExitCode::SUCCESS)
}
