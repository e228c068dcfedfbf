//! Tokenizer training, saving and loading on notes from the project's own synthetic generator.

use super::*;
use crate::corpus::{CorpusError, Document};
use crate::lang::Lang;
use std::path::Path;

/// Sentences written for these tests (no document text from elsewhere).
const SAMPLES: &[&str] = &[
    "The patient was seen at the clinic on Monday.",
    "Patiënt werd opgenomen na een val thuis.",
    "A beteg állapota stabil, kontroll két hét múlva.",
    "El paciente refiere dolor abdominal desde ayer.",
];

fn corpus() -> Vec<Document> {
    let mut docs = Vec::new();
    for lang in [Lang::En, Lang::Nl, Lang::Hu, Lang::Es] {
        docs.extend(crate::synth::generate(lang, 40, 11));
    }
    docs
}

fn stream(docs: Vec<Document>) -> impl Iterator<Item = Result<Document, CorpusError>> + Send {
    docs.into_iter().map(Ok)
}

fn trained(kind: Kind, vocab: usize, lowercase: bool) -> (ModelTokenizer, TrainStats) {
    let mut opts = TrainOptions::new(kind, vocab);
    opts.lowercase = lowercase;
    if kind != Kind::Unigram {
        opts.min_frequency = Some(1);
    }
    train(stream(corpus()), &opts).unwrap()
}

fn ids(tok: &ModelTokenizer) -> Vec<Vec<u32>> {
    let mut texts: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
    texts.push(format!("Seen by {} on the ward.", tok.specials.mask_token));
    texts.iter().map(|t| tok.encode_ids(t).unwrap()).collect()
}

const KINDS: [Kind; 3] = [Kind::WordPiece, Kind::Bpe, Kind::Unigram];

#[test]
fn every_kind_reaches_the_vocabulary_size_and_round_trips() {
    for kind in KINDS {
        let (tok, stats) = trained(kind, 600, false);
        assert_eq!(stats.documents, 160, "{kind:?}");
        assert_eq!(stats.vocab_size, tok.vocab_size(), "{kind:?}");
        assert!(
            (540..=600).contains(&stats.vocab_size),
            "{kind:?}: vocabulary {}",
            stats.vocab_size
        );
        for text in SAMPLES {
            let ids = tok.encode_ids(text).unwrap();
            assert_eq!(ids[0], tok.specials.cls, "{kind:?}");
            assert_eq!(*ids.last().unwrap(), tok.specials.sep, "{kind:?}");
            // Ordinary text comes back. Byte-level BPE never needs [UNK]; the others may meet a
            // character the corpus lacks, but not in the English sample.
            let unknown = ids.contains(&tok.specials.unk);
            assert!(
                !(unknown && (kind == Kind::Bpe || text == &SAMPLES[0])),
                "{kind:?}: {text}"
            );
            if !unknown {
                assert_eq!(tok.decode(&ids).unwrap(), *text, "{kind:?}");
            }
        }
    }
}

#[test]
fn specials_have_the_bert_and_roberta_ids() {
    let (wp, _) = trained(Kind::WordPiece, 400, false);
    let s = &wp.specials;
    assert_eq!(
        (s.pad, s.unk, s.cls, s.sep, s.mask),
        (0, 1, 2, 3, 4),
        "BERT order"
    );
    assert_eq!(s.style, SpecialStyle::Bert);
    assert_eq!(s.mask_token, "[MASK]");
    for kind in [Kind::Bpe, Kind::Unigram] {
        let (tok, _) = trained(kind, 400, false);
        let s = &tok.specials;
        assert_eq!(
            (s.cls, s.pad, s.sep, s.unk, s.mask),
            (0, 1, 2, 3, 4),
            "{kind:?}"
        );
        assert_eq!(s.style, SpecialStyle::Roberta);
        assert_eq!(tok.special_ids(), vec![0, 1, 2, 3, 4]);
        // `<mask>` takes the space before it, as in RoBERTa.
        let enc = tok.inner.encode("the <mask> ward", false).unwrap();
        assert!(enc.get_ids().contains(&s.mask), "{kind:?}");
    }
}

#[test]
fn training_twice_gives_the_same_tokenizer_json() {
    for kind in KINDS {
        let a = trained(kind, 500, false).0.inner.to_string(false).unwrap();
        let b = trained(kind, 500, false).0.inner.to_string(false).unwrap();
        assert!(a == b, "{kind:?}: two runs differ");
    }
}

#[test]
fn saved_dir_loads_with_the_same_ids_from_each_file_set() {
    let root = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path, names: &[&str]| {
        std::fs::create_dir_all(to).unwrap();
        for n in names {
            std::fs::copy(from.join(n), to.join(n)).unwrap();
        }
    };
    // WordPiece, cased: vocab.txt with tokenizer_config.json (do_lower_case = false).
    // WordPiece, lowercased: vocab.txt alone (no upper-case entries: lower-cased).
    for (lower, extra) in [(false, &["tokenizer_config.json"][..]), (true, &[][..])] {
        let (tok, _) = trained(Kind::WordPiece, 500, lower);
        let full = root.path().join(format!("wp-{lower}"));
        save_dir(&tok, &full).unwrap();
        let mut names = vec!["vocab.txt"];
        names.extend(extra);
        let slim = root.path().join(format!("wp-{lower}-vocab"));
        copy(&full, &slim, &names);
        let want = ids(&tok);
        assert_eq!(ids(&load_dir(&full).unwrap()), want, "lowercase {lower}");
        let from_vocab = load_dir(&slim).unwrap();
        assert_eq!(ids(&from_vocab), want, "vocab.txt, lowercase {lower}");
        assert_eq!(from_vocab.specials, tok.specials);
        assert_eq!(from_vocab.vocab_size(), tok.vocab_size());
    }
    let (tok, _) = trained(Kind::Bpe, 500, false);
    let full = root.path().join("bpe");
    save_dir(&tok, &full).unwrap();
    let slim = root.path().join("bpe-vocab");
    copy(&full, &slim, &["vocab.json", "merges.txt"]);
    let want = ids(&tok);
    assert_eq!(ids(&load_dir(&full).unwrap()), want);
    let from_merges = load_dir(&slim).unwrap();
    assert_eq!(ids(&from_merges), want, "vocab.json + merges.txt");
    assert_eq!(from_merges.specials, tok.specials);

    let (tok, _) = trained(Kind::Unigram, 500, false);
    let full = root.path().join("unigram");
    save_dir(&tok, &full).unwrap();
    let back = load_dir(&full).unwrap();
    assert_eq!(ids(&back), ids(&tok));
    assert_eq!(back.specials, tok.specials);
}

#[test]
fn bad_files_are_errors_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("vocab.json"),
        r#"{"a": 0, "b": 1, "ab": 2, "<unk>": 3}"#,
    )
    .unwrap();
    std::fs::write(d.join("merges.txt"), "#version: 0.2\na b\nab\n").unwrap();
    let e = load_dir(d).unwrap_err().to_string();
    assert!(e.contains("merges.txt:3:"), "{e}");
    std::fs::write(d.join("merges.txt"), "#version: 0.2\na c\n").unwrap();
    let e = load_dir(d).unwrap_err().to_string();
    assert!(e.contains("merges.txt:2:") && e.contains("'c'"), "{e}");

    let v = dir.path().join("wp");
    std::fs::create_dir(&v).unwrap();
    std::fs::write(v.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nword\n").unwrap();
    let e = load_dir(&v).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:", v.display())), "{e}");
    assert!(e.contains("no mask"), "{e}");
    std::fs::write(v.join("vocab.txt"), "[PAD]\n[UNK]\n[PAD]\n").unwrap();
    let e = load_dir(&v).unwrap_err().to_string();
    assert!(e.contains("vocab.txt:3:") && e.contains("line 1"), "{e}");

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = load_dir(&empty).unwrap_err().to_string();
    assert!(e.contains("no tokenizer files"), "{e}");
}

#[test]
fn unigram_refuses_min_frequency_and_tiny_vocabularies_are_refused() {
    let mut opts = TrainOptions::new(Kind::Unigram, 400);
    opts.min_frequency = Some(2);
    assert!(train(stream(corpus()), &opts).is_err());
    let opts = TrainOptions::new(Kind::Bpe, 5);
    assert!(train(stream(corpus()), &opts).is_err());
    let opts = TrainOptions::new(Kind::Bpe, 500);
    let e = train(std::iter::empty(), &opts).unwrap_err().to_string();
    assert!(e.contains("no documents"), "{e}");
}

#[test]
fn a_read_error_stops_training_and_is_reported() {
    let mut docs: Vec<Result<Document, CorpusError>> =
        corpus().into_iter().take(5).map(Ok).collect();
    docs.push(Err(CorpusError::line("c.jsonl", 6, "invalid JSON")));
    let e = train(docs.into_iter(), &TrainOptions::new(Kind::WordPiece, 300))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "c.jsonl:6: invalid JSON");
}

#[test]
fn wordpiece_spells_every_number_even_from_a_corpus_without_digits() {
    let docs: Vec<Document> = (0..30)
        .map(|i| Document {
            id: format!("d{i}"),
            text: "Patiënt werd opgenomen na een val thuis. Controle over twee weken.".into(),
            ..Default::default()
        })
        .collect();
    let (tok, _) = train(stream(docs), &TrainOptions::new(Kind::WordPiece, 200)).unwrap();
    let ids = tok.encode_ids("nummer 378901245 en 7 en 63").unwrap();
    let unk = tok.inner.token_to_id("[UNK]").unwrap();
    assert!(!ids.contains(&unk), "{ids:?}");
}

#[test]
fn case_is_inferred_from_a_vocab_txt_without_do_lower_case() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let specials = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    // Cased: upper-case entries; no tokenizer_config.json.
    std::fs::write(d.join("vocab.txt"), format!("{specials}Jan\njan\nseen\n")).unwrap();
    let tok = load_dir(d).unwrap();
    assert_ne!(
        tok.encode_ids("Jan").unwrap(),
        tok.encode_ids("jan").unwrap()
    );
    // A tokenizer_config.json without do_lower_case: still inferred.
    std::fs::write(
        d.join("tokenizer_config.json"),
        r#"{"model_max_length": 512}"#,
    )
    .unwrap();
    let tok = load_dir(d).unwrap();
    assert_ne!(
        tok.encode_ids("Jan").unwrap(),
        tok.encode_ids("jan").unwrap()
    );
    // do_lower_case wins over the vocabulary.
    std::fs::write(
        d.join("tokenizer_config.json"),
        r#"{"do_lower_case": true}"#,
    )
    .unwrap();
    let tok = load_dir(d).unwrap();
    assert_eq!(
        tok.encode_ids("Jan").unwrap(),
        tok.encode_ids("jan").unwrap()
    );
    // Uncased: no upper-case entries (specials do not count), lower-cased as BertTokenizer.
    std::fs::remove_file(d.join("tokenizer_config.json")).unwrap();
    std::fs::write(d.join("vocab.txt"), format!("{specials}jan\nseen\n")).unwrap();
    let tok = load_dir(d).unwrap();
    assert_eq!(
        tok.encode_ids("Jan").unwrap(),
        tok.encode_ids("jan").unwrap()
    );

    let cased = CaseGuess::of_vocab(["[CLS]", "<s>", "Jan", "jan", "##s"]);
    assert_eq!((cased.upper, cased.total), (1, 3));
    assert!(cased.cased());
    let n = cased.notice(Path::new("m/vocab.txt"), false);
    assert!(
        n.contains("no tokenizer_config.json") && n.contains("cased"),
        "{n}"
    );
    assert!(!n.contains("Jan"), "{n}");
    let uncased = CaseGuess::of_vocab(["[CLS]", "[unused0]", "jan"]);
    assert!(uncased.lowercase());
    assert!(uncased.notice(Path::new("v"), true).contains("lower-cased"));
    // A stray upper-case entry in a large vocabulary does not make it cased.
    let mut big: Vec<String> = (0..1000).map(|i| format!("w{i}")).collect();
    big.push("X".into());
    assert!(CaseGuess::of_vocab(big.iter().map(String::as_str)).lowercase());
}
