//! `probe build`: name slots from a de-identified corpus and its ops log, split by the model's
//! manifest into seen (training) and unseen (held-out) sentences, with the original value of
//! each slot taken from the deid input for the protected side file.

use super::error::{json_kind, ProbeError};
use super::set::{ProbeSlot, SetKind, SlotOriginal};
use crate::corpus::show_id;
use crate::corpus::Document;
use crate::labels::Category;
use crate::mlm::train::data::sha256_hex;
use crate::mlm::train::Manifest;
use crate::offsets::OffsetMap;
use crate::opslog::OpsLogLine;
use crate::text::{sentence_around, Abbreviations};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

/// The mask written at each slot.
pub const MASK: &str = "<mask>";

/// Settings of one build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Op labels that make slots (all subtypes).
    pub labels: Vec<Category>,
    /// Slots kept per set (sampled with `seed`); `None` keeps all.
    pub max_per_set: Option<usize>,
    pub seed: u64,
    /// Sentences with more whitespace words than this are skipped (the run truncates nothing).
    pub max_words: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            labels: vec![Category::Name],
            max_per_set: None,
            seed: 0,
            max_words: 250,
        }
    }
}

/// Which texts the manifest's hashes were found to describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HashBasis {
    /// The de-identified corpus: documents are matched by id and hash.
    Deidentified,
    /// The original (raw) corpus given with `--original`: matched by id and hash of the raw text.
    Original,
    /// Neither: the model was trained on other texts (usually the raw notes, not given);
    /// documents are matched by id only.
    Unmatched,
}

/// Document counts of a build.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DocCounts {
    pub corpus: usize,
    pub ops_log_lines: usize,
    pub seen: usize,
    pub unseen: usize,
    /// Ops-log documents in neither set of the manifest (skipped).
    pub not_in_manifest: usize,
    /// Documents whose text hash differs from the manifest's (skipped).
    pub hash_mismatch: usize,
    /// Corpus documents without an ops-log line (nothing replaced, or not logged).
    pub without_ops_line: usize,
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct BuildSummary {
    pub tool: String,
    pub version: String,
    pub seed: u64,
    pub labels: Vec<Category>,
    pub max_per_set: Option<usize>,
    pub max_words: usize,
    pub manifest_hashes: HashBasis,
    /// `id+sha256` or `id`.
    pub matched_by: String,
    pub documents: DocCounts,
    /// Slots found per set before sampling.
    pub slots_found: BTreeMap<SetKind, usize>,
    /// Slots written per set and label.
    pub slots: BTreeMap<SetKind, BTreeMap<String, usize>>,
    /// Slots whose sentence had more than `max_words` words.
    pub skipped_too_long: usize,
    pub originals_written: bool,
}

/// The result of a build: slots in ops-log order, the originals (when the deid input was
/// given), and the summary.
#[derive(Clone, Debug)]
pub struct BuiltSet {
    pub slots: Vec<ProbeSlot>,
    pub originals: Option<Vec<SlotOriginal>>,
    pub summary: BuildSummary,
}

/// Reads a manifest written by `mlm train` (the file, or the model dir that holds it).
pub fn read_manifest(path: &Path) -> Result<Manifest, ProbeError> {
    let file = if path.is_dir() {
        path.join(crate::mlm::train::manifest::MANIFEST_FILE)
    } else {
        path.to_path_buf()
    };
    let bytes = std::fs::read(&file).map_err(|e| ProbeError::io(&file, e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ProbeError::file(
            file.clone(),
            format!("not an anonlm manifest ({})", json_kind(&e)),
        )
    })
}

/// Document id → (set, SHA-256 of its text) from the manifest (duplicates included).
pub(crate) fn manifest_sets(
    manifest: &Manifest,
) -> Result<HashMap<&str, (SetKind, &str)>, ProbeError> {
    let mut out = HashMap::new();
    for (set, docs) in [
        (SetKind::Seen, &manifest.train),
        (SetKind::Unseen, &manifest.held_out),
    ] {
        let entries = docs
            .documents
            .iter()
            .map(|d| (d.doc_id.as_str(), d.sha256.as_str()))
            .chain(
                docs.duplicates
                    .iter()
                    .map(|d| (d.doc_id.as_str(), d.sha256.as_str())),
            );
        for (id, hash) in entries {
            if out.insert(id, (set, hash)).is_some() {
                return Err(ProbeError::Invalid(format!(
                    "manifest lists document {} more than once",
                    show_id(id)
                )));
            }
        }
    }
    Ok(out)
}

fn by_id<'a>(docs: &'a [Document], what: &str) -> Result<HashMap<&'a str, &'a str>, ProbeError> {
    let mut out = HashMap::with_capacity(docs.len());
    for d in docs {
        if out.insert(d.id.as_str(), d.text.as_str()).is_some() {
            return Err(ProbeError::Invalid(format!(
                "document id {} occurs more than once in the {what}",
                show_id(&d.id)
            )));
        }
    }
    Ok(out)
}

/// Byte range of the code-point range `s..e` of a text, if it lies inside.
fn byte_range(map: &OffsetMap, s: usize, e: usize) -> Option<(usize, usize)> {
    match (map.char_to_byte(s), map.char_to_byte(e)) {
        (Some(a), Some(b)) if a <= b => Some((a, b)),
        _ => None,
    }
}

/// Builds the probe set. `corpus` is the de-identified corpus, `original` the deid input (same
/// ids), `ops_log` the path of its ops log. Every ops-log document must be in the corpus (and in
/// `original` when given) and every op's offsets must fit its texts, or the build fails.
pub fn build_probes(
    corpus: &[Document],
    original: Option<&[Document]>,
    ops_log: &Path,
    manifest: &Manifest,
    opts: &BuildOptions,
) -> Result<BuiltSet, ProbeError> {
    let texts = by_id(corpus, "de-identified corpus")?;
    let originals = original
        .map(|docs| by_id(docs, "original corpus"))
        .transpose()?;
    let sets = manifest_sets(manifest)?;

    // Which corpus the manifest's hashes describe.
    let matches = |m: &HashMap<&str, &str>| {
        m.iter()
            .filter(|(id, text)| {
                sets.get(*id)
                    .is_some_and(|(_, h)| *h == sha256_hex(text.as_bytes()))
            })
            .count()
    };
    // The corpus with more matching documents wins: documents without any replacement read the
    // same in both and match either way.
    let deid_matches = matches(&texts);
    let original_matches = originals.as_ref().map_or(0, matches);
    let basis = if deid_matches == 0 && original_matches == 0 {
        HashBasis::Unmatched
    } else if original_matches > deid_matches {
        HashBasis::Original
    } else {
        HashBasis::Deidentified
    };

    let abbreviations = Abbreviations::builtin();
    let mut counts = DocCounts {
        corpus: corpus.len(),
        ..Default::default()
    };
    let mut found: Vec<(SetKind, ProbeSlot, Option<String>)> = Vec::new();
    let mut skipped_too_long = 0;
    let mut logged = std::collections::HashSet::new();

    let file = std::fs::File::open(ops_log).map_err(|e| ProbeError::io(ops_log, e))?;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line_no = i + 1;
        let err = |msg: String| ProbeError::line(ops_log, line_no, msg);
        let line = line.map_err(|e| err(e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let entry: OpsLogLine = serde_json::from_str(&line)
            .map_err(|e| err(format!("not an ops-log line ({})", json_kind(&e))))?;
        counts.ops_log_lines += 1;
        let id = entry.id.as_str();
        if !logged.insert(id.to_string()) {
            return Err(err(format!(
                "document {} has a second ops-log line",
                show_id(id)
            )));
        }
        let text = *texts.get(id).ok_or_else(|| {
            err(format!(
                "document {} is not in the de-identified corpus",
                show_id(id)
            ))
        })?;
        let orig_text = match &originals {
            Some(o) => Some(*o.get(id).ok_or_else(|| {
                err(format!(
                    "document {} is not in the original corpus",
                    show_id(id)
                ))
            })?),
            None => None,
        };
        // Validate every op before anything is skipped (fail closed on a broken log).
        let out_map = OffsetMap::new(text);
        let in_map = orig_text.map(OffsetMap::new);
        let mut ranges = Vec::with_capacity(entry.ops.len());
        for (k, op) in entry.ops.iter().enumerate() {
            let out = byte_range(&out_map, op.out_start, op.out_end).ok_or_else(|| {
                err(format!(
                    "document {}, op {k}: output offsets {}-{} lie outside the de-identified text",
                    show_id(id),
                    op.out_start,
                    op.out_end
                ))
            })?;
            let inp = match &in_map {
                Some(m) => Some(byte_range(m, op.start, op.end).ok_or_else(|| {
                    err(format!(
                        "document {}, op {k}: input offsets {}-{} lie outside the original text",
                        show_id(id),
                        op.start,
                        op.end
                    ))
                })?),
                None => None,
            };
            ranges.push((out, inp));
        }
        let Some(&(set, hash)) = sets.get(id) else {
            counts.not_in_manifest += 1;
            continue;
        };
        let hashed = match basis {
            HashBasis::Deidentified => Some(text),
            HashBasis::Original => orig_text,
            HashBasis::Unmatched => None,
        };
        if hashed.is_some_and(|t| sha256_hex(t.as_bytes()) != hash) {
            counts.hash_mismatch += 1;
            continue;
        }
        match set {
            SetKind::Seen => counts.seen += 1,
            _ => counts.unseen += 1,
        }
        for (k, (op, (out, inp))) in entry.ops.iter().zip(ranges).enumerate() {
            if !opts.labels.contains(&op.label) {
                continue;
            }
            let (a, b) = sentence_around(text, out, abbreviations);
            let masked = format!("{}{MASK}{}", &text[a..out.0], &text[out.1..b]);
            if masked.split_whitespace().count() > opts.max_words {
                skipped_too_long += 1;
                continue;
            }
            let slot = ProbeSlot {
                slot_id: format!("{id}#{k}"),
                doc_id: Some(id.to_string()),
                set,
                label: Some(op.label),
                subtype: op.subtype,
                lang: Some(entry.lang.clone()),
                text: masked,
            };
            let original = match (orig_text, inp) {
                (Some(t), Some((s, e))) => Some(t[s..e].to_string()),
                _ => None,
            };
            found.push((set, slot, original));
        }
    }
    counts.without_ops_line = texts.keys().filter(|id| !logged.contains(**id)).count();

    // Sampling per set, keeping ops-log order.
    let mut slots_found = BTreeMap::new();
    let mut keep = vec![true; found.len()];
    for set in [SetKind::Seen, SetKind::Unseen] {
        let members: Vec<usize> = (0..found.len()).filter(|&i| found[i].0 == set).collect();
        slots_found.insert(set, members.len());
        if let Some(n) = opts.max_per_set.filter(|&n| n < members.len()) {
            let mut rng = ChaCha8Rng::seed_from_u64(opts.seed ^ set_salt(set));
            let chosen: std::collections::HashSet<usize> = sample(&mut rng, members.len(), n)
                .into_iter()
                .map(|j| members[j])
                .collect();
            for &i in &members {
                keep[i] = chosen.contains(&i);
            }
        }
    }
    let mut per_set: BTreeMap<SetKind, BTreeMap<String, usize>> = BTreeMap::new();
    for set in [SetKind::Seen, SetKind::Unseen] {
        let labels = opts.labels.iter().map(|l| (l.as_str().to_string(), 0));
        per_set.insert(set, labels.collect());
    }
    let mut slots = Vec::new();
    let mut originals_out = original.map(|_| Vec::new());
    for ((set, slot, original), kept) in found.into_iter().zip(keep) {
        if !kept {
            continue;
        }
        if let Some(label) = slot.label {
            *per_set
                .entry(set)
                .or_default()
                .entry(label.as_str().to_string())
                .or_default() += 1;
        }
        if let (Some(out), Some(original)) = (originals_out.as_mut(), original) {
            out.push(SlotOriginal {
                slot_id: slot.slot_id.clone(),
                original,
            });
        }
        slots.push(slot);
    }
    let summary = BuildSummary {
        tool: "anonlm".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        seed: opts.seed,
        labels: opts.labels.clone(),
        max_per_set: opts.max_per_set,
        max_words: opts.max_words,
        manifest_hashes: basis,
        matched_by: if basis == HashBasis::Unmatched {
            "id".into()
        } else {
            "id+sha256".into()
        },
        documents: counts,
        slots_found,
        slots: per_set,
        skipped_too_long,
        originals_written: originals_out.is_some(),
    };
    Ok(BuiltSet {
        slots,
        originals: originals_out,
        summary,
    })
}

/// Writes `dir/probes.jsonl`, `dir/summary.json` and, when present, the protected
/// `dir/originals.jsonl` (mode 0600), each atomically. Existing files are refused unless
/// `overwrite`; with it, a stale originals file of an earlier build is removed.
pub fn write_built(dir: &Path, built: &BuiltSet, overwrite: bool) -> Result<(), ProbeError> {
    use super::set::{to_jsonl, write_atomic, ORIGINALS_FILE, PROBES_FILE, SUMMARY_FILE};
    crate::fsio::create_private_dir(dir)?;
    let files = [PROBES_FILE, SUMMARY_FILE, ORIGINALS_FILE].map(|f| dir.join(f));
    if !overwrite {
        if let Some(existing) = files.iter().find(|p| p.exists()) {
            return Err(ProbeError::file(
                existing.clone(),
                "exists already (use --overwrite to replace the probe set)",
            ));
        }
    }
    // The side file first: a set is never left pointing at originals of another build.
    match &built.originals {
        Some(originals) => write_atomic(&files[2], &to_jsonl(originals))?,
        None => crate::fsio::remove_output(&files[2])?,
    }
    write_atomic(&files[0], &to_jsonl(&built.slots))?;
    let mut summary = serde_json::to_vec_pretty(&built.summary).expect("summary serializes");
    summary.push(b'\n');
    write_atomic(&files[1], &summary)
}

/// A fixed per-set salt, so the two sets draw independent samples from one seed.
fn set_salt(set: SetKind) -> u64 {
    match set {
        SetKind::Seen => 0x5EE4_0000_0000_0001,
        SetKind::Unseen => 0x0A5E_E400_0000_0002,
        SetKind::User => 0x05E4_0000_0000_0003,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::set::{ORIGINALS_FILE, PROBES_FILE, SUMMARY_FILE};
    use serde_json::json;

    /// Replaces each `(needle, tag, label, subtype)` in `orig` (first occurrence, in order) and
    /// returns the output text and the ops-log line, offsets in code points.
    fn deid(id: &str, orig: &str, reps: &[(&str, &str, &str, &str)]) -> (String, String) {
        let mut out = String::new();
        let mut ops = Vec::new();
        let mut at = 0;
        for (needle, tag, label, subtype) in reps {
            let b = at + orig[at..].find(needle).unwrap();
            out.push_str(&orig[at..b]);
            let cp = |s: &str| s.chars().count();
            let (start, end) = (cp(&orig[..b]), cp(&orig[..b + needle.len()]));
            let out_start = cp(&out);
            out.push_str(tag);
            ops.push(
                json!({"label": label, "subtype": subtype, "start": start, "end": end,
                "out_start": out_start, "out_end": cp(&out), "operator": "tag",
                "source": "gold", "pass": 1}),
            );
            at = b + needle.len();
        }
        out.push_str(&orig[at..]);
        let line = json!({"id": id, "lang": "nl", "passes_run": 1, "ops": ops}).to_string();
        (out, line)
    }

    fn manifest(train: &[(&str, &str)], held_out: &[(&str, &str)]) -> Manifest {
        let set = |docs: &[(&str, &str)]| {
            json!({"n_documents": docs.len(), "n_tokens": 0, "n_blocks": 0, "duplicates": [],
                "documents": docs.iter().map(|(id, text)| json!({"doc_id": id,
                    "sha256": sha256_hex(text.as_bytes()), "n_tokens": 1})).collect::<Vec<_>>()})
        };
        serde_json::from_value(json!({"tool": "anonlm", "version": "0", "seed": 0,
            "settings": {}, "pack": {"cls": 0, "sep": 1, "pad": 2, "mask": 3, "vocab_size": 10,
            "special_ids": []}, "seq_len": 32, "held_out_fraction": 0.2,
            "n_input_documents": 0, "n_distinct_documents": 0, "corpus_digest": "",
            "data_digest": "", "train": set(train), "held_out": set(held_out)}))
        .unwrap()
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        ops: std::path::PathBuf,
        raw: Vec<Document>,
        out: Vec<Document>,
    }

    /// Three notes with non-ASCII text: d1 and d3 with names, d2 with a date only.
    fn fixture() -> Fixture {
        let notes = [
            (
                "d1",
                "Opname 😀.\nMevrouw Ödön Kovács (1950) kwam met dr. Jansen mee. Einde.",
                vec![
                    ("Ödön Kovács", "[NAME]", "NAME", "PATIENT"),
                    ("1950", "[DATE]", "DATE", "BIRTHDATE"),
                    ("Jansen", "[NAME]", "NAME", "DOCTOR"),
                ],
            ),
            (
                "d2",
                "Controle op 3 mei. Geen bijzonderheden.",
                vec![("3 mei", "[DATE]", "DATE", "DATE")],
            ),
            (
                "d3",
                "Señora Núñez llamó.\nBeste Zoë de Wit,\nGroet.",
                vec![
                    ("Núñez", "[NAME]", "NAME", "PATIENT"),
                    ("Zoë de Wit", "[NAME]", "NAME", "RELATIVE"),
                ],
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let mut log = String::new();
        let (mut raw, mut out) = (Vec::new(), Vec::new());
        for (id, text, reps) in notes {
            let (o, line) = deid(id, text, &reps);
            log.push_str(&line);
            log.push('\n');
            raw.push(Document::new(id, text));
            out.push(Document::new(id, o));
        }
        let ops = dir.path().join("ops.jsonl");
        std::fs::write(&ops, log).unwrap();
        Fixture {
            _dir: dir,
            ops,
            raw,
            out,
        }
    }

    /// Found by scripts/fuzz_inputs.py: a document id that occurs twice in the de-identified
    /// corpus was quoted whole in the error; ids show a short prefix now.
    #[test]
    fn errors_show_a_document_id_by_a_short_prefix() {
        let f = fixture();
        let m = manifest(&[("d1", &f.raw[0].text)], &[]);
        let id = format!("{}ZqSecretValue", "d".repeat(40));
        let twice = vec![Document::new(&id, "a"), Document::new(&id, "b")];
        let e = build_probes(&twice, None, &f.ops, &m, &BuildOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("dddd") && !e.contains("ZqSecret"), "{e}");
        // An ops-log line for a document the corpus lacks.
        let log =
            format!("{{\"id\": \"{id}\", \"lang\": \"nl\", \"passes_run\": 1, \"ops\": []}}\n");
        std::fs::write(&f.ops, log).unwrap();
        let e = build_probes(&f.out, None, &f.ops, &m, &BuildOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("dddd") && !e.contains("ZqSecret"), "{e}");
    }

    #[test]
    fn slots_are_the_sentences_of_name_ops_with_originals_from_code_point_offsets() {
        let f = fixture();
        // Trained on the raw notes: d1 seen, d3 unseen, d2 in no set.
        let m = manifest(&[("d1", &f.raw[0].text)], &[("d3", &f.raw[2].text)]);
        let built =
            build_probes(&f.out, Some(&f.raw), &f.ops, &m, &BuildOptions::default()).unwrap();
        let got: Vec<(&str, SetKind, &str)> = built
            .slots
            .iter()
            .map(|s| (s.slot_id.as_str(), s.set, s.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "d1#0",
                    SetKind::Seen,
                    "Mevrouw <mask> ([DATE]) kwam met dr. [NAME] mee."
                ),
                (
                    "d1#2",
                    SetKind::Seen,
                    "Mevrouw [NAME] ([DATE]) kwam met dr. <mask> mee."
                ),
                ("d3#0", SetKind::Unseen, "Señora <mask> llamó."),
                ("d3#1", SetKind::Unseen, "Beste <mask>,"),
            ]
        );
        let originals: Vec<&str> = built
            .originals
            .as_ref()
            .unwrap()
            .iter()
            .map(|o| o.original.as_str())
            .collect();
        assert_eq!(
            originals,
            vec!["Ödön Kovács", "Jansen", "Núñez", "Zoë de Wit"]
        );
        assert_eq!(
            built.slots[3].subtype,
            Some(crate::labels::Subtype::Relative)
        );
        assert_eq!(built.slots[0].lang.as_deref(), Some("nl"));
        let s = &built.summary;
        assert_eq!(s.manifest_hashes, HashBasis::Original);
        assert_eq!(s.matched_by, "id+sha256");
        assert_eq!((s.documents.seen, s.documents.unseen), (1, 1));
        assert_eq!(s.documents.not_in_manifest, 1);
        assert_eq!(s.slots[&SetKind::Seen]["NAME"], 2);
        assert_eq!(s.slots[&SetKind::Unseen]["NAME"], 2);
        // No raw value in the slots.
        let raw = String::from_utf8(crate::probe::set::to_jsonl(&built.slots)).unwrap();
        for name in originals {
            assert!(!raw.contains(name), "{name} leaked into probes");
        }
        // Without the originals: matched by id only, no side file, same slots.
        let built2 = build_probes(&f.out, None, &f.ops, &m, &BuildOptions::default()).unwrap();
        assert_eq!(built2.summary.manifest_hashes, HashBasis::Unmatched);
        assert_eq!(built2.summary.matched_by, "id");
        assert!(built2.originals.is_none());
        assert_eq!(built2.slots, built.slots);
    }

    #[test]
    fn hashes_of_the_deid_corpus_are_checked_and_mismatches_skipped() {
        let f = fixture();
        let m = manifest(
            &[("d1", &f.out[0].text), ("d2", &f.out[1].text)],
            &[("d3", "some other text")],
        );
        let opts = BuildOptions {
            labels: vec![Category::Name, Category::Date],
            ..Default::default()
        };
        let built = build_probes(&f.out, None, &f.ops, &m, &opts).unwrap();
        let s = &built.summary;
        assert_eq!(s.manifest_hashes, HashBasis::Deidentified);
        assert_eq!(s.documents.hash_mismatch, 1);
        assert_eq!(s.slots[&SetKind::Unseen]["NAME"], 0);
        assert_eq!(s.slots[&SetKind::Seen]["DATE"], 2);
        assert_eq!(s.slots[&SetKind::Seen]["NAME"], 2);
        assert!(built
            .slots
            .iter()
            .all(|s| s.doc_id.as_deref() != Some("d3")));
    }

    #[test]
    fn sampling_is_seeded_and_long_sentences_are_skipped() {
        let f = fixture();
        let m = manifest(&[("d1", "x"), ("d3", "y")], &[]);
        let opts = |seed, max_per_set, max_words| BuildOptions {
            max_per_set,
            seed,
            max_words,
            ..Default::default()
        };
        let a = build_probes(&f.out, None, &f.ops, &m, &opts(1, Some(2), 250)).unwrap();
        let b = build_probes(&f.out, None, &f.ops, &m, &opts(1, Some(2), 250)).unwrap();
        assert_eq!(a.slots, b.slots);
        assert_eq!(a.slots.len(), 2);
        assert_eq!(a.summary.slots_found[&SetKind::Seen], 4);
        let differs = (2..40).any(|seed| {
            build_probes(&f.out, None, &f.ops, &m, &opts(seed, Some(2), 250))
                .unwrap()
                .slots
                != a.slots
        });
        assert!(differs, "the seed chooses the sample");
        let short = build_probes(&f.out, None, &f.ops, &m, &opts(0, None, 2)).unwrap();
        assert_eq!(short.summary.skipped_too_long, 3);
        assert_eq!(short.slots.len(), 1);
        assert_eq!(short.slots[0].text, "Beste <mask>,");
    }

    #[test]
    fn broken_ops_logs_fail_closed_naming_line_and_document() {
        let f = fixture();
        let m = manifest(&[("d1", "x")], &[]);
        let opts = BuildOptions::default();
        // An ops-log document that is not in the corpus.
        let err = build_probes(&f.out[..2], None, &f.ops, &m, &opts)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ops.jsonl:3:") && err.contains("'d3'"),
            "{err}"
        );
        // Offsets past the end of the text.
        let log = std::fs::read_to_string(&f.ops).unwrap();
        let mut lines: Vec<serde_json::Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines[0]["ops"][0]["out_end"] = json!(9999);
        let bad: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&f.ops, bad).unwrap();
        let err = build_probes(&f.out, None, &f.ops, &m, &opts)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ops.jsonl:1:") && err.contains("outside"),
            "{err}"
        );
        assert!(!err.contains("Kovács"), "{err}");
    }

    #[test]
    fn writing_refuses_an_existing_set_and_protects_the_originals() {
        let f = fixture();
        let m = manifest(&[("d1", "x")], &[("d3", "y")]);
        let built =
            build_probes(&f.out, Some(&f.raw), &f.ops, &m, &BuildOptions::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("set");
        write_built(&out, &built, false).unwrap();
        assert!(write_built(&out, &built, false)
            .unwrap_err()
            .to_string()
            .contains("--overwrite"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode =
                |p: &str| std::fs::metadata(out.join(p)).unwrap().permissions().mode() & 0o777;
            // The probes hold de-identified text, which may still hold missed names.
            for f in [ORIGINALS_FILE, PROBES_FILE, SUMMARY_FILE] {
                assert_eq!(mode(f), 0o600, "{f}");
            }
        }
        // Overwriting without originals removes the stale side file.
        let no_orig = build_probes(&f.out, None, &f.ops, &m, &BuildOptions::default()).unwrap();
        write_built(&out, &no_orig, true).unwrap();
        assert!(!out.join(ORIGINALS_FILE).exists());
        assert_eq!(
            crate::probe::read_probe_slots(&out.join(PROBES_FILE)).unwrap(),
            no_orig.slots
        );
    }
}
