//! Runs the real binary in temporary directories: the main commands end to end, the bad-input
//! contract (exit 2, file and line named, nothing written) and key handling.

use crate::util::{anonlm, fails, holds_value, printed, read_json, read_jsonl, synth, tempdir};
use std::fs;
use std::path::Path;

#[test]
fn synth_recognize_eval_round_trip() {
    let dir = tempdir();
    let gold = synth(&dir.path().join("all.jsonl"), "all", 4, 3);
    let pred = dir.path().join("pred.jsonl");
    anonlm()
        .args(["recognize", "--quiet", "--out"])
        .arg(&pred)
        .arg(&gold)
        .assert()
        .success();
    let json = dir.path().join("eval.json");
    let out = anonlm()
        .args(["eval", "--gold"])
        .arg(&gold)
        .arg("--pred")
        .arg(&pred)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("entity strict") && table.contains("token"),
        "{table}"
    );
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let recall = report["report"]["spans"]["token"]["binary"]["recall"]
        .as_f64()
        .unwrap();
    assert!(recall > 0.5, "token recall {recall}");
}

#[test]
fn deid_writes_output_ops_log_and_stats_without_raw_values() {
    let dir = tempdir();
    let gold = synth(&dir.path().join("es.jsonl"), "es", 5, 3);
    let out = dir.path().join("deid.jsonl");
    anonlm()
        .args(["deid", "--quiet", "--lang", "es", "--out"])
        .arg(&out)
        .arg(&gold)
        .assert()
        .success();
    let ops = fs::read_to_string(dir.path().join("deid.ops.jsonl")).unwrap();
    let stats: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("deid.stats.json")).unwrap()).unwrap();
    assert_eq!(stats["documents"], 5);
    assert!(stats["stats"]["spans"].as_u64().unwrap() > 20);
    // No gold surface string of length > 5 may appear in the ops log.
    for line in fs::read_to_string(&gold).unwrap().lines() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let text: Vec<char> = doc["text"].as_str().unwrap().chars().collect();
        for e in doc["entities"].as_array().unwrap() {
            let (s, t) = (
                e["start"].as_u64().unwrap() as usize,
                e["end"].as_u64().unwrap() as usize,
            );
            let surface: String = text[s..t].iter().collect();
            if surface.len() > 5 {
                assert!(!holds_value(&ops, &surface), "ops log leaks a gold value");
            }
        }
    }
    let residual = anonlm()
        .args(["eval", "--gold"])
        .arg(&gold)
        .arg("--ops-log")
        .arg(dir.path().join("deid.ops.jsonl"))
        .arg("--deid")
        .arg(&out)
        .output()
        .unwrap();
    assert!(residual.status.success());
    assert!(String::from_utf8_lossy(&residual.stdout).contains("residual PII"));
}

#[test]
fn works_as_a_stdin_stdout_filter() {
    let out = anonlm()
        .args([
            "deid", "--quiet", "--format", "text", "--lang", "es", "--out", "-", "-",
        ])
        .write_stdin("Correo: ana.lopez@example.es\nNHC: 2569870, fecha 03/05/2016.\n")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(
        !text.contains("ana.lopez") && !text.contains("2569870") && !text.contains("2016"),
        "{text}"
    );
}

#[test]
fn bad_inputs_fail_with_location_and_leave_no_output() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("out.jsonl");
    let run = |input: &Path, format: &str| {
        let mut c = anonlm();
        c.args([
            "deid", "--quiet", "--lang", "es", "--format", format, "--out",
        ])
        .arg(&out)
        .arg(input);
        c
    };
    // Invalid UTF-8 on line 2.
    let bad_utf8 = d.join("bad.txt");
    fs::write(&bad_utf8, b"Paciente Ana.\nNombre: \xff\xfe Luis\n").unwrap();
    let err = fails(&mut run(&bad_utf8, "text"));
    assert!(err.contains("bad.txt:2") && err.contains("UTF-8"), "{err}");
    // Malformed JSONL on line 2.
    let bad_json = d.join("bad.jsonl");
    fs::write(
        &bad_json,
        "{\"id\":\"a\",\"text\":\"Ana\"}\n{\"id\":\"b\",\"text\":\"Secreto Pérez\"\n",
    )
    .unwrap();
    let err = fails(&mut run(&bad_json, "jsonl"));
    assert!(
        err.contains("bad.jsonl:2") && !err.contains("Secreto"),
        "{err}"
    );
    // Empty file.
    let empty = d.join("empty.txt");
    fs::write(&empty, "").unwrap();
    let err = fails(&mut run(&empty, "text"));
    assert!(
        err.contains("empty.txt") && err.contains("no documents"),
        "{err}"
    );
    // brat .ann whose offsets do not match the text.
    let brat = d.join("brat");
    fs::create_dir(&brat).unwrap();
    fs::write(brat.join("doc1.txt"), "Nombre: Ana López.\n").unwrap();
    fs::write(brat.join("doc1.ann"), "T1\tNAME_PATIENT 7 12\tAna López\n").unwrap();
    let brat_out = d.join("brat_out");
    let err = fails(
        anonlm()
            .args([
                "deid", "--quiet", "--lang", "es", "--format", "brat", "--out",
            ])
            .arg(&brat_out)
            .arg(&brat),
    );
    assert!(err.contains("doc1.ann:1"), "{err}");
    assert!(!brat_out.exists());
    // A 50 MB single line (over the 16 MiB default limit).
    let long = d.join("long.txt");
    let mut body = "Paciente sin datos. ".repeat(50 << 20 >> 4);
    body.truncate(50 << 20);
    fs::write(&long, format!("Primera línea.\n{body}\n")).unwrap();
    let err = fails(&mut run(&long, "text"));
    assert!(err.contains("long.txt:2"), "{err}");
    assert!(!out.exists(), "a failed run must leave no output");
    let leftovers: Vec<_> = fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        leftovers
            .iter()
            .all(|n| !n.to_string_lossy().contains("out")),
        "staging files left behind: {leftovers:?}"
    );
}

#[test]
fn never_overwrites_its_input() {
    let dir = tempdir();
    let input = dir.path().join("notes.txt");
    fs::write(&input, "Nombre: Ana López.\n").unwrap();
    let err = fails(
        anonlm()
            .args(["deid", "--quiet", "--lang", "es", "--overwrite", "--out"])
            .arg(&input)
            .arg(&input),
    );
    assert!(err.contains("notes.txt"), "{err}");
    assert_eq!(fs::read_to_string(&input).unwrap(), "Nombre: Ana López.\n");
}

#[test]
fn pseudonyms_follow_the_key_file() {
    let dir = tempdir();
    let d = dir.path();
    let input = d.join("notes.txt");
    fs::write(
        &input,
        "Correo: ana.lopez@example.es, NHC: 2569870.\nOtra vez NHC: 2569870.\n",
    )
    .unwrap();
    let key = |name: &str| {
        let p = d.join(name);
        anonlm()
            .args(["keygen", "--out"])
            .arg(&p)
            .assert()
            .success();
        p
    };
    let (k1, k2) = (key("a.key"), key("b.key"));
    let run = |key: &Path, out: &str| {
        let o = d.join(out);
        anonlm()
            .args([
                "deid",
                "--quiet",
                "--lang",
                "es",
                "--operator",
                "pseudonym",
                "--key-file",
            ])
            .arg(key)
            .arg("--out")
            .arg(&o)
            .arg(&input)
            .assert()
            .success();
        fs::read_to_string(o).unwrap()
    };
    let (a1, a2, b) = (run(&k1, "a1.txt"), run(&k1, "a2.txt"), run(&k2, "b.txt"));
    assert_eq!(a1, a2, "same key, same pseudonyms");
    assert_ne!(a1, b, "another key, other pseudonyms");
    assert!(!a1.contains("2569870"));
    // The same value gets the same pseudonym in both lines.
    let ids: Vec<&str> = a1
        .lines()
        .map(|l| l.rsplit("NHC: ").next().unwrap())
        .collect();
    assert_eq!(ids[0], ids[1]);
    // A keyed policy without a key stops before writing anything.
    let err = fails(
        anonlm()
            .args(["deid", "--quiet", "--policy", "keyed", "--out"])
            .arg(d.join("x.txt"))
            .arg(&input),
    );
    assert!(err.contains("key"), "{err}");
    assert!(!d.join("x.txt").exists());
    // keygen refuses to overwrite a key.
    fails(anonlm().args(["keygen", "--out"]).arg(&k1));
}

/// `recognize --lang en --format text` of `text` (a document per line) with `extra` flags: the
/// label and surface of every entity found.
fn recognized_en(text: &str, extra: &[&str]) -> Vec<(String, String)> {
    let dir = tempdir();
    let (input, out) = (dir.path().join("note.txt"), dir.path().join("out.jsonl"));
    fs::write(&input, text).unwrap();
    anonlm()
        .args([
            "recognize",
            "--lang",
            "en",
            "--format",
            "text",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .args(extra)
        .arg(&input)
        .assert()
        .success();
    let mut found = Vec::new();
    for doc in read_jsonl(&out) {
        let chars: Vec<char> = doc["text"].as_str().unwrap().chars().collect();
        for e in doc["entities"].as_array().unwrap() {
            let (s, t) = (e["start"].as_u64().unwrap(), e["end"].as_u64().unwrap());
            let surface = chars[s as usize..t as usize].iter().collect();
            found.push((e["label"].as_str().unwrap().to_string(), surface));
        }
    }
    found
}

/// The English tagger ships in the binary and joins the rules by default: a made-up name in no
/// list, in running text, is found; `--no-builtin-models` leaves the rules alone, which miss it.
#[test]
fn the_shipped_english_tagger_is_used_by_default() {
    let note =
        "Yesterday the minister said that Tarvek Olumbridge will visit the clinic in March.\n";
    let names = |extra: &[&str]| -> Vec<String> {
        recognized_en(note, extra)
            .into_iter()
            .filter(|(label, _)| label == "NAME")
            .map(|(_, surface)| surface)
            .collect()
    };
    let default = names(&[]);
    assert!(
        default.iter().any(|n| n.contains("Olumbridge")),
        "{default:?}"
    );
    let rules = names(&["--no-builtin-models"]);
    assert!(!rules.iter().any(|n| n.contains("Olumbridge")), "{rules:?}");
}

/// In a nursing note written in mixed case the shipped tagger's all-caps abbreviations,
/// readings ("MAE", "NSR 80s-90s", "HR 70s SR", "U/O 30cc") and drugs before their dose
/// ("Lasix 40mg") are no names or places, while the relatives and doctors around them still are.
#[test]
fn the_shipped_english_tagger_leaves_nursing_abbreviations_alone() {
    let note = "Neuro: A&Ox3, MAE, PERRL 3mm brisk. CV: NSR 80s-90s, no ectopy. Resp: sats 97% \
        on 2L NC. Social: wife Mary and son Jim visited, updated by Dr. Patel.\n\
        NPN 7p-7a. HR 70s SR, occ PVCs. Vent on AC 500x14, PEEP 5. U/O 30cc/hr. Daughter \
        Karen called at 2200, updated. Lasix 40mg IV given, Zofran 4 mg for nausea.\n\
        Sedated on Propofol and Fentanyl. Coumadin held tonight, Plavix continues. Started on \
        Cefepime and Flagyl per ID. Wife Helen and son Kevin in to visit.\n\
        CCU NPN. Pt is s/p cath today, occ PVCs. Seen by Renal and Psych, Dr. Feldman aware. \
        Neo gtt weaned off.\n";
    let found = recognized_en(note, &[]);
    // Brand names before their dose are drugs; so are listed drugs named alone.
    for abbreviation in [
        "MAE", "NSR", "80s", "HR", "SR", "AC", "500x14", "U/O", "30cc", "Lasix", "Zofran",
        "Propofol", "Fentanyl", "Coumadin", "Plavix", "Cefepime", "Flagyl",
        // Spans are cut at sentence ends; services and lone two-letter words are no names.
        "CCU", "NPN", "Pt", "PVCs", "Renal", "Psych", "Neo",
    ] {
        assert!(
            !found
                .iter()
                .any(|(_, s)| s.split([' ', '-']).any(|w| w == abbreviation)),
            "{abbreviation} in {found:?}"
        );
    }
    for name in ["Mary", "Jim", "Patel", "Karen", "Helen", "Kevin", "Feldman"] {
        assert!(
            found.iter().any(|(l, s)| l == "NAME" && s == name),
            "{name} not in {found:?}"
        );
    }
}

/// Eponyms before the word they qualify ("Hickman line", "Alzheimer's dementia") are no names
/// or places, from the shipped tagger or the lists, while a name after a title stays one.
#[test]
fn eponyms_before_their_word_are_no_names() {
    let note = "Pt is a 93 yo woman with hx of Alzheimer's dementia, Parkinson's disease and \
        CHF. Hickman line removed by IR. Cheyne-Stokes respirations noted, Dr. Quigley aware. \
        Swan-Ganz in place.\n";
    let found = recognized_en(note, &[]);
    for eponym in ["Alzheimer", "Parkinson", "Hickman", "Cheyne", "Swan"] {
        assert!(
            !found.iter().any(|(_, s)| s.contains(eponym)),
            "{eponym} in {found:?}"
        );
    }
    assert!(
        found.iter().any(|(l, s)| l == "NAME" && s == "Quigley"),
        "{found:?}"
    );
}

/// `bench --input` measures the user's own corpus (repeated up to --mb), prints no text of it,
/// keeps an existing figures file without --overwrite, and stops with exit 2 naming a missing
/// or malformed input.
#[test]
fn bench_measures_a_users_corpus() {
    let dir = tempdir();
    let input = dir.path().join("notes.txt");
    fs::write(
        &input,
        "Paciente remitido por la Dra. Quintanilla el 3 de mayo de 2010.\n\
         Vive en Calle Mayor 12, Albacete. Teléfono 612 345 678.\n",
    )
    .unwrap();
    let json = dir.path().join("bench.json");
    let out = anonlm()
        .args([
            "bench",
            "--mb",
            "1",
            "--lang",
            "es",
            "--threads",
            "1",
            "--input",
        ])
        .arg(&input)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let text = printed(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("documents of the input"), "{text}");
    for value in ["Quintanilla", "Albacete", "612 345 678"] {
        assert!(!text.contains(value), "{value} printed: {text}");
    }
    let v = read_json(&json);
    assert_eq!(v["corpus"], "input");
    let first = &v["figures"][0];
    assert_eq!(first["task"], "recognize");
    assert!(first["megabytes"].as_f64().unwrap() >= 1.0, "{first}");
    assert!(first["mb_per_s"].as_f64().unwrap() > 0.0, "{first}");
    // The figures file is kept without --overwrite, and the input is never the output,
    // both refused before any measuring.
    let kept = fs::read(&json).unwrap();
    for (dest, named) in [(&json, "bench.json"), (&input, "notes.txt")] {
        let msg = fails(
            anonlm()
                .args(["bench", "--mb", "1", "--lang", "es", "--input"])
                .arg(&input)
                .arg("--json")
                .arg(dest),
        );
        assert!(msg.contains(named), "{msg}");
        assert!(!msg.contains("corpus:"), "measured before refusing: {msg}");
    }
    assert_eq!(fs::read(&json).unwrap(), kept);
    let missing = dir.path().join("missing.jsonl");
    let msg = fails(anonlm().arg("bench").arg("--input").arg(&missing));
    assert!(msg.contains("missing.jsonl"), "{msg}");
    let bad = dir.path().join("bad.jsonl");
    fs::write(&bad, "{\"id\": \"a\", \"text\": \"x\"}\nnot json\n").unwrap();
    let msg = fails(anonlm().arg("bench").arg("--input").arg(&bad));
    assert!(msg.contains("bad.jsonl:2"), "{msg}");
}
