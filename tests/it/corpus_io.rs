//! Corpus I/O end to end: round trips for every format on non-ASCII text, strict rejection of
//! bad input (naming file and line, never the text), atomic output, stdin/stdout streaming.

use crate::util::tempdir;
use anonlm::corpus::{
    brat, conll, detect_format, jsonl, open_input, open_output, text, CorpusError, CorpusWriter,
    Document, Format, OutputOptions, OutputTarget, ReadOptions, SharedResolver, Source,
    WriteOptions,
};
use anonlm::{Category, Entity, Label, Subtype};
use std::fs;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Words that appear in test documents; no error message may contain any of them.
const SECRETS: &[&str] = &[
    "Ödön", "Kovács", "Núñez", "Ágnes", "Erdős", "Gómez", "Begoña",
];

fn assert_private(e: &CorpusError) {
    let msg = e.to_string();
    for s in SECRETS {
        assert!(!msg.contains(s), "error message leaks document text: {msg}");
    }
}

fn ent(text: &str, surface: &str, label: Label) -> Entity {
    let s = text.find(surface).expect("surface in text");
    Entity::new(s, s + surface.len(), label, "test", 0.75)
}

/// Three documents with Hungarian, Spanish and emoji text and entities in bytes.
fn sample_docs(with_newlines: bool) -> Vec<Document> {
    let doctor = Label::new(Category::Name, Subtype::Doctor);
    let patient = Label::new(Category::Name, Subtype::Patient);
    let city = Label::new(Category::Location, Subtype::City);
    let date = Label::category_only(Category::Date);
    let sep = if with_newlines { "\n" } else { " " };
    let texts = [
        format!("Dr. Kovács Ödön látta Erdős Ágnest Győrben 2021-03-04 napon.{sep}Jól van 😀"),
        format!("La paciente Begoña Núñez Gómez, de Logroño, acudió el 5 de mayo.{sep}Fin ñá"),
        "Emoji first 😀😀 then Ödön".to_string(),
    ];
    let mut docs: Vec<Document> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(format!("doc{i}"), t.clone()))
        .collect();
    let t0 = docs[0].text.clone();
    docs[0].entities = vec![
        ent(&t0, "Kovács Ödön", doctor),
        ent(&t0, "Erdős Ágnest", patient),
        ent(&t0, "Győrben", city),
        ent(&t0, "2021-03-04", date),
    ];
    let t1 = docs[1].text.clone();
    docs[1].entities = vec![
        ent(&t1, "Begoña Núñez Gómez", patient),
        ent(&t1, "Logroño", city),
        ent(&t1, "5 de mayo", date),
    ];
    let t2 = docs[2].text.clone();
    docs[2].entities = vec![ent(&t2, "Ödön", patient)];
    docs[1].meta.insert("lang".into(), "es".into());
    docs
}

fn write_all(format: Format, target: OutputTarget, docs: &[Document]) -> usize {
    let mut w: CorpusWriter = open_output(format, target, &WriteOptions::default()).unwrap();
    for d in docs {
        w.write(d).unwrap();
    }
    w.finish().unwrap()
}

fn read_all(format: Format, path: &Path) -> Vec<Document> {
    open_input(format, path, &ReadOptions::default(), None)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn read_errors(format: Format, path: &Path, opts: &ReadOptions) -> Vec<CorpusError> {
    match open_input(format, path, opts, None) {
        Err(e) => vec![e],
        Ok(it) => it.filter_map(Result::err).collect(),
    }
}

/// (surface, label) pairs of a document's entities.
fn surfaces(d: &Document) -> Vec<(String, Label)> {
    d.entities
        .iter()
        .map(|e| (d.text[e.start..e.end].to_string(), e.label))
        .collect()
}

#[test]
fn jsonl_round_trip_keeps_everything() {
    let dir = tempdir();
    let out = dir.path().join("docs.jsonl");
    let docs = sample_docs(true);
    let target = OutputTarget::file(&out, &OutputOptions::default()).unwrap();
    assert_eq!(write_all(Format::Jsonl, target, &docs), 3);
    // Offsets on disk are code points.
    let first = fs::read_to_string(&out).unwrap();
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let e0 = &first["entities"][0];
    let chars: Vec<char> = docs[0].text.chars().collect();
    let (s, t) = (e0["start"].as_u64().unwrap(), e0["end"].as_u64().unwrap());
    let surface: String = chars[s as usize..t as usize].iter().collect();
    assert_eq!(surface, "Kovács Ödön");
    assert_eq!(
        (e0["label"].as_str(), e0["subtype"].as_str()),
        (Some("NAME"), Some("DOCTOR"))
    );
    assert_eq!(detect_format(&out).unwrap(), Format::Jsonl);
    assert_eq!(read_all(Format::Jsonl, &out), docs);
}

#[test]
fn brat_round_trip_keeps_text_offsets_and_labels() {
    let dir = tempdir();
    let out = dir.path().join("brat");
    let docs = sample_docs(true);
    let target = OutputTarget::for_format(&out, Format::Brat, false, &Default::default()).unwrap();
    write_all(Format::Brat, target, &docs);
    assert_eq!(detect_format(&out).unwrap(), Format::Brat);
    let back = read_all(Format::Brat, &out);
    assert_eq!(back.len(), docs.len());
    for (a, b) in docs.iter().zip(&back) {
        assert_eq!((&a.id, &a.text), (&b.id, &b.text));
        assert_eq!(surfaces(a), surfaces(b));
    }
}

#[test]
fn brat_type_map_is_applied() {
    let dir = tempdir();
    let out = dir.path().join("brat");
    let target = OutputTarget::dir(&out, &Default::default()).unwrap();
    let opts = WriteOptions {
        brat_type: Some(Arc::new(|l: Label| format!("PHI_{}", l.category))),
    };
    let mut w = open_output(Format::Brat, target, &opts).unwrap();
    w.write(&sample_docs(false)[2]).unwrap();
    w.finish().unwrap();
    let ann = fs::read_to_string(out.join("doc2.ann")).unwrap();
    assert_eq!(ann, "T1\tPHI_NAME 20 24\tÖdön\n");
}

#[test]
fn text_lines_and_text_dir_round_trip() {
    let dir = tempdir();
    // One document per line: ids become <stem>:<line>.
    let lines = dir.path().join("notes.txt");
    let docs = sample_docs(false);
    write_all(
        Format::Text,
        OutputTarget::file(&lines, &Default::default()).unwrap(),
        &docs,
    );
    let back = read_all(Format::Text, &lines);
    let got: Vec<(&str, &str)> = back.iter().map(|d| (&*d.id, &*d.text)).collect();
    let want: Vec<(String, &str)> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (format!("notes:{}", i + 1), &*d.text))
        .collect();
    let want: Vec<(&str, &str)> = want.iter().map(|(i, t)| (i.as_str(), *t)).collect();
    assert_eq!(got, want);

    // A file per document keeps ids and line breaks.
    let tdir = dir.path().join("texts");
    let docs = sample_docs(true);
    let target = OutputTarget::for_format(&tdir, Format::Text, true, &Default::default()).unwrap();
    write_all(Format::Text, target, &docs);
    assert_eq!(detect_format(&tdir).unwrap(), Format::Text);
    let back = read_all(Format::Text, &tdir);
    let got: Vec<(&str, &str)> = back.iter().map(|d| (&*d.id, &*d.text)).collect();
    let want: Vec<(&str, &str)> = docs.iter().map(|d| (&*d.id, &*d.text)).collect();
    assert_eq!(got, want);
}

#[test]
fn conll_round_trip_keeps_tokens_and_entities() {
    let dir = tempdir();
    let out = dir.path().join("docs.conll");
    let docs = sample_docs(true);
    write_all(
        Format::Conll,
        OutputTarget::file(&out, &Default::default()).unwrap(),
        &docs,
    );
    assert_eq!(detect_format(&out).unwrap(), Format::Conll);
    let back = read_all(Format::Conll, &out);
    assert_eq!(back.len(), docs.len());
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    for (a, b) in docs.iter().zip(&back) {
        assert!(b.id.starts_with("docs:"), "{}", b.id);
        assert_eq!(squash(&a.text), squash(&b.text));
        assert_eq!(a.text.lines().count(), b.text.lines().count());
        let norm = |d: &Document| -> Vec<(String, Label)> {
            surfaces(d)
                .into_iter()
                .map(|(s, l)| (squash(&s), l))
                .collect()
        };
        assert_eq!(norm(a), norm(b));
    }
    // Written once more from what was read, CoNLL output is stable.
    let again = dir.path().join("again.conll");
    write_all(
        Format::Conll,
        OutputTarget::file(&again, &Default::default()).unwrap(),
        &back,
    );
    assert_eq!(fs::read(&out).unwrap(), fs::read(&again).unwrap());
}

#[test]
fn invalid_utf8_names_file_and_line() {
    let dir = tempdir();
    let bad = b"Kov\xc3\xa1cs \xc3\x96d\xc3\xb6n\n\nGood line\nBad \xff Erd\xc5\x91s\n";
    let cases = [
        (Format::Text, "a.txt", bad.to_vec(), 4),
        (
            Format::Jsonl,
            "a.jsonl",
            b"{\"text\":\"Kov\xc3\xa1cs\"}\n{\"text\":\"\xffErd\xc5\x91s\"}\n".to_vec(),
            2,
        ),
        (
            Format::Conll,
            "a.conll",
            b"Kov\xc3\xa1cs O\n\xff B-NAME\n".to_vec(),
            2,
        ),
    ];
    for (format, name, content, line) in cases {
        let path = dir.path().join(name);
        fs::write(&path, content).unwrap();
        let errs = read_errors(format, &path, &ReadOptions::default());
        let want = format!("{}:{line}: invalid UTF-8", path.display());
        assert!(
            errs[0].to_string().starts_with(&want),
            "{format:?}: {}",
            errs[0]
        );
        errs.iter().for_each(assert_private);
    }
    // A file per document: the line inside the file.
    let tdir = dir.path().join("texts");
    fs::create_dir(&tdir).unwrap();
    fs::write(tdir.join("x.txt"), bad).unwrap();
    let errs = read_errors(Format::Text, &tdir, &ReadOptions::default());
    assert!(
        errs[0].to_string().ends_with("x.txt:4: invalid UTF-8"),
        "{}",
        errs[0]
    );
}

#[test]
fn brat_offsets_not_matching_text_name_the_ann_line() {
    let dir = tempdir();
    fs::write(dir.path().join("d1.txt"), "Begoña Núñez vive en Logroño.").unwrap();
    fs::write(
        dir.path().join("d1.ann"),
        "T1\tNAME_PATIENT 0 12\tBegoña Núñez\nT2\tLOCATION_CITY 20 27\tLogroño\n",
    )
    .unwrap();
    let errs = read_errors(Format::Brat, dir.path(), &ReadOptions::default());
    let msg = errs[0].to_string();
    assert!(
        msg.contains("d1.ann:2: offsets 20-27 do not match"),
        "{msg}"
    );
    assert_private(&errs[0]);

    // Offsets past the end of the text.
    fs::write(
        dir.path().join("d1.ann"),
        "T1\tNAME_PATIENT 25 40\tLogroño\n",
    )
    .unwrap();
    let errs = read_errors(Format::Brat, dir.path(), &ReadOptions::default());
    assert!(
        errs[0]
            .to_string()
            .contains("d1.ann:1: offsets 25-40 lie outside"),
        "{}",
        errs[0]
    );
}

#[test]
fn malformed_jsonl_names_the_line_without_content() {
    let dir = tempdir();
    let path = dir.path().join("in.jsonl");
    fs::write(
        &path,
        "{\"id\":\"a\",\"text\":\"Ödön\"}\n\n{\"id\":\"b\",\"text\":\"Kovács Ödön\",}\n\
         {\"id\":\"c\",\"text\":\"Ágnes\",\"entities\":[{\"start\":0,\"end\":9,\"label\":\"NAME\"}]}\n",
    )
    .unwrap();
    let results: Vec<_> = open_input(Format::Jsonl, &path, &ReadOptions::default(), None)
        .unwrap()
        .collect();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].as_ref().unwrap().id, "a");
    let e2 = results[1].as_ref().unwrap_err();
    let want = format!("{}:3: malformed JSON:", path.display());
    assert!(e2.to_string().starts_with(&want), "{e2}");
    let e3 = results[2].as_ref().unwrap_err();
    assert!(
        e3.to_string()
            .contains(":4: document 'c': entity 0: offsets 0-9"),
        "{e3}"
    );
    assert_private(e2);
    assert_private(e3);
}

#[test]
fn empty_inputs_say_no_documents() {
    let dir = tempdir();
    for (format, name) in [
        (Format::Text, "e.txt"),
        (Format::Jsonl, "e.jsonl"),
        (Format::Conll, "e.conll"),
    ] {
        let path = dir.path().join(name);
        fs::write(&path, "\n\n").unwrap();
        let errs = read_errors(format, &path, &ReadOptions::default());
        assert_eq!(errs.len(), 1, "{format:?}");
        assert_eq!(
            errs[0].to_string(),
            format!("{}: no documents", path.display())
        );
    }
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    fs::write(empty.join("orphan.ann"), "").unwrap();
    for format in [Format::Text, Format::Brat, Format::Jsonl, Format::Conll] {
        let errs = read_errors(format, &empty, &ReadOptions::default());
        assert!(
            errs[0].to_string().contains("no documents"),
            "{format:?}: {}",
            errs[0]
        );
    }
}

#[test]
fn fifty_megabyte_line_is_refused_by_the_default_limit() {
    let dir = tempdir();
    let path = dir.path().join("big.txt");
    {
        let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        f.write_all("Ödön Kovács\n".as_bytes()).unwrap();
        let chunk = "Kovács Ödön ".repeat(1 << 10);
        let mut written = 0;
        while written < 50 * 1024 * 1024 {
            f.write_all(chunk.as_bytes()).unwrap();
            written += chunk.len();
        }
        f.write_all("\nÁgnes\n".as_bytes()).unwrap();
    }
    let limit = ReadOptions::DEFAULT_MAX_DOC_BYTES;
    let results: Vec<_> = open_input(Format::Text, &path, &ReadOptions::default(), None)
        .unwrap()
        .collect();
    assert_eq!(results.len(), 3);
    let e = results[1].as_ref().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}:2: line is longer than the limit of {limit} bytes (max_doc_bytes)",
            path.display()
        )
    );
    assert_eq!(results[2].as_ref().unwrap().id, "big:3");
    // The same file as one document of a text directory, and a lowered limit for JSONL.
    let errs = read_errors(Format::Text, dir.path(), &ReadOptions::default());
    assert!(
        errs[0]
            .to_string()
            .contains("over the limit of 16777216 bytes"),
        "{}",
        errs[0]
    );
    let small = ReadOptions { max_doc_bytes: 64 };
    let j = dir.path().join("x.jsonl");
    fs::write(&j, format!("{{\"text\":\"{}\"}}\n", "Ödön ".repeat(20))).unwrap();
    let errs = read_errors(Format::Jsonl, &j, &small);
    assert!(errs[0]
        .to_string()
        .contains("x.jsonl:1: line is longer than the limit of 64"));
    let c = dir.path().join("x.conll");
    fs::write(&c, "Ödön B-NAME\n".repeat(20)).unwrap();
    let errs = read_errors(Format::Conll, &c, &small);
    assert!(errs[0]
        .to_string()
        .contains("x.conll:10: document grows past the limit of 64"));
    errs.iter().for_each(assert_private);
}

#[test]
fn failed_writes_leave_no_output() {
    let dir = tempdir();
    let docs = sample_docs(true);
    // Line-per-document text cannot hold a line break: the writer refuses, output never appears.
    let out = dir.path().join("out.txt");
    let target = OutputTarget::file(&out, &Default::default()).unwrap();
    let mut w = open_output(Format::Text, target, &WriteOptions::default()).unwrap();
    let e = w.write(&docs[0]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("document 'doc0': text holds a line break"),
        "{e}"
    );
    assert_private(&e);
    drop(w);
    assert!(!out.exists());

    // Bad offsets in the second document of a brat directory: drop -> no directory.
    let bdir = dir.path().join("brat");
    let target = OutputTarget::dir(&bdir, &Default::default()).unwrap();
    let mut w = open_output(Format::Brat, target, &WriteOptions::default()).unwrap();
    w.write(&docs[0]).unwrap();
    let mut bad = docs[1].clone();
    bad.entities[0].end = bad.text.len() + 3;
    assert!(w.write(&bad).is_err());
    drop(w);
    assert!(!bdir.exists());
    let left: Vec<PathBuf> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "staging left behind: {left:?}");

    // Wrong target kinds are refused up front.
    let f = OutputTarget::file(&dir.path().join("x.ann"), &Default::default()).unwrap();
    assert!(open_output(Format::Brat, f, &WriteOptions::default()).is_err());
    assert!(
        OutputTarget::for_format(Path::new("-"), Format::Brat, false, &Default::default()).is_err()
    );
}

#[test]
fn outputs_never_replace_inputs_or_existing_files() {
    let dir = tempdir();
    let input = dir.path().join("in.jsonl");
    fs::write(&input, "{\"text\":\"x\"}\n").unwrap();
    let e = anonlm::corpus::ensure_not_input(&input, &[input.as_path()]).unwrap_err();
    assert!(e.to_string().contains("is also an input"), "{e}");
    let e = OutputTarget::file(&input, &Default::default())
        .err()
        .unwrap();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(fs::read_to_string(&input).unwrap(), "{\"text\":\"x\"}\n");
}

#[test]
fn streams_from_any_bufread_and_to_any_write() {
    // stdin-like sources: ids are stdin:<line>.
    let input = "Kovács Ödön\n\nNúñez 😀\n";
    let docs: Vec<Document> =
        text::TextLinesReader::new(Cursor::new(input), Source::stdin(), &ReadOptions::default())
            .collect::<Result<_, _>>()
            .unwrap();
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["stdin:1", "stdin:3"]);

    let sample = sample_docs(true);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for d in &sample {
        jsonl::write_doc(&mut out, d, &mut buf, Path::new("<stdout>")).unwrap();
    }
    let resolver: SharedResolver = Arc::new(brat::canonical_labels);
    let back: Vec<Document> = jsonl::JsonlReader::new(
        Cursor::new(out),
        Source::stdin(),
        &Default::default(),
        resolver,
    )
    .collect::<Result<_, _>>()
    .unwrap();
    assert_eq!(back, sample);

    let mut out = Vec::new();
    conll::write_doc(&mut out, &sample[1], Path::new("<stdout>")).unwrap();
    let back: Vec<Document> = conll::ConllReader::new(
        Cursor::new(out),
        Source::stdin(),
        &Default::default(),
        anonlm::corpus::canonical_resolver(),
    )
    .collect::<Result<_, _>>()
    .unwrap();
    assert_eq!(back[0].id, "stdin:1");
    assert_eq!(back[0].entities.len(), sample[1].entities.len());
}

#[test]
fn readers_and_writers_can_move_across_threads() {
    fn send<T: Send>() {}
    send::<anonlm::corpus::DocIter>();
    send::<CorpusWriter>();
    let e = open_input(
        Format::Jsonl,
        Path::new("no/such.jsonl"),
        &Default::default(),
        None,
    );
    assert!(e.err().unwrap().to_string().starts_with("no/such.jsonl: "));
}

/// Child half of `real_stdin_to_stdout`: copies JSONL from stdin to stdout through the library.
/// Run by that test (`--ignored --exact corpus_io::stdin_child`), not on its own.
#[test]
#[ignore = "child process of real_stdin_to_stdout"]
fn stdin_child() {
    let docs = open_input(Format::Jsonl, Path::new("-"), &Default::default(), None).unwrap();
    let target =
        OutputTarget::for_format(Path::new("-"), Format::Jsonl, false, &Default::default())
            .unwrap();
    let mut w = open_output(Format::Jsonl, target, &WriteOptions::default()).unwrap();
    for d in docs {
        w.write(&d.unwrap()).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn real_stdin_to_stdout() {
    let mut input = Vec::new();
    let mut buf = Vec::new();
    let docs = sample_docs(true);
    for d in &docs {
        jsonl::encode(d, &mut buf).unwrap();
        input.extend_from_slice(&buf);
    }
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "corpus_io::stdin_child",
            "--ignored",
            "--nocapture",
            "-q",
            "--test-threads=1",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let out = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(lines.join("\n") + "\n", String::from_utf8(input).unwrap());
}

#[test]
fn meddocan_streams_and_round_trips_through_jsonl_and_brat() {
    let Some(train) = crate::util::meddocan_split("train") else {
        return;
    };
    let train = train.as_path();
    // Any scheme label is accepted as OTHER here: this test is about offsets, not labels.
    let any: SharedResolver = Arc::new(|_: &str| Ok(Some(Label::category_only(Category::Other))));
    let docs: Vec<Document> = open_input(Format::Brat, train, &Default::default(), Some(any))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(docs.len(), 500);
    let spans: usize = docs.iter().map(|d| d.entities.len()).sum();
    assert_eq!(spans, 11_333);
    let dir = tempdir();
    let j = dir.path().join("m.jsonl");
    write_all(
        Format::Jsonl,
        OutputTarget::file(&j, &Default::default()).unwrap(),
        &docs,
    );
    assert_eq!(read_all(Format::Jsonl, &j), docs);
    let b = dir.path().join("m");
    write_all(
        Format::Brat,
        OutputTarget::dir(&b, &Default::default()).unwrap(),
        &docs,
    );
    let back = read_all(Format::Brat, &b);
    for (a, b) in docs.iter().zip(&back) {
        assert_eq!((&a.id, &a.text), (&b.id, &b.text));
        assert_eq!(surfaces(a), surfaces(b));
    }
}
