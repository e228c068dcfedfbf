//! `vocab rewrite`: renames the tokens a review confirmed (and BPE tokens derivable only
//! through them) to `unk` + random digits with the same boundary marker, drops the merges that
//! produce or use them, and writes a complete model dir atomically; the old→new map goes only
//! to a protected file (mode 0600).

use super::ordinary::{is_alphabet_piece, OrdinaryUses};
use super::review::read_review_lines;
use super::tokenizer_json::{ModelKind, TokenizerJson};
use super::{AnonymizeError, Decision, ReviewRow};
use rand::{Rng, RngCore};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a token was renamed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// Marked `remove` in the review file.
    Confirmed,
    /// A BPE token whose only derivations go through a renamed token (it contains the name).
    Derived,
}

/// One line of the old→new map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapEntry {
    pub id: u32,
    pub old: String,
    pub new: String,
    pub reason: Reason,
}

/// Settings of a rewrite.
#[derive(Clone, Debug, Default)]
pub struct RewriteOptions {
    /// Replace an existing output dir and map file (inputs are never replaced).
    pub overwrite: bool,
    /// Pieces the ordinary words of a reference corpus use: a review that removes one (or
    /// one of its derived tokens) is refused. The alphabet is refused without it.
    pub ordinary: Option<OrdinaryUses>,
}

/// What a rewrite did, without token strings.
#[derive(Clone, Debug, Serialize)]
pub struct RewriteReport {
    pub kind: ModelKind,
    pub vocab_size: usize,
    pub reviewed: usize,
    pub confirmed: usize,
    /// Ids of the derived tokens renamed as well.
    pub derived_ids: Vec<u32>,
    pub merges_removed: usize,
    /// Files written into the output dir.
    pub written: Vec<String>,
    /// Entries of the model dir not carried over (checkpoints, logs, unknown files).
    pub left_out: Vec<String>,
}

/// Files copied byte for byte when present.
const COPIED: [&str; 6] = [
    "config.json",
    "model.safetensors",
    "pytorch_model.bin",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "manifest.json",
];
/// Files rewritten here.
const REWRITTEN: [&str; 4] = ["tokenizer.json", "vocab.txt", "vocab.json", "merges.txt"];

/// The renames and merge removals for a review, before anything is written.
#[derive(Clone, Debug)]
pub struct Plan {
    pub entries: Vec<MapEntry>,
    pub drop_merges: HashSet<usize>,
}

/// Decides the new names. Every `remove` row must name a token of this vocabulary with its id,
/// and none may be special or added; errors name the review file and line.
pub fn plan(
    tj: &TokenizerJson,
    rows: &[(usize, ReviewRow)],
    review: &Path,
    ordinary: Option<&OrdinaryUses>,
    rng: &mut dyn RngCore,
) -> Result<Plan, AnonymizeError> {
    // Why ordinary words need a piece (never renamed), or None.
    let needed = |id: u32| -> Option<String> {
        if is_alphabet_piece(tj.surface(&tj.by_id[&id]).as_deref()) {
            return Some("a single character (or byte) that ordinary words are spelt with".into());
        }
        let uses = ordinary.map_or(0, |o| o.get(id));
        (uses > 0).then(|| format!("used {uses} times by ordinary words of the reference corpus"))
    };

    let mut confirmed = BTreeMap::new();
    for (line, row) in rows {
        let at = |msg: String| AnonymizeError::line(review, *line, msg);
        match tj.by_id.get(&row.id) {
            None => {
                return Err(at(format!(
                    "id {} is not in the model's vocabulary (was the review made for another model?)",
                    row.id
                )))
            }
            Some(t) if *t != row.token => {
                return Err(at(format!(
                    "the token does not match id {} of the model's vocabulary (was the review made for another model?)",
                    row.id
                )))
            }
            Some(_) => {}
        }
        if row.decision != Decision::Remove {
            continue;
        }
        if tj.is_protected(row.id) {
            return Err(at(format!(
                "id {} is a special or added token; those are never renamed",
                row.id
            )));
        }
        if let Some(why) = needed(row.id) {
            return Err(at(format!(
                "id {} is {why}; renaming it would change ordinary words (mark it keep)",
                row.id
            )));
        }
        confirmed.insert(row.id, Reason::Confirmed);
    }

    // BPE: tokens whose every producing merge uses a renamed token, transitively.
    let mut drop_merges = HashSet::new();
    if tj.kind == ModelKind::Bpe && !confirmed.is_empty() {
        let mut producers: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, (a, b)) in tj.merges.iter().enumerate() {
            producers.entry(tj_result(tj, a, b)).or_default().push(i);
        }
        let mut removed: HashSet<&str> = confirmed.keys().map(|id| tj.by_id[id].as_str()).collect();
        loop {
            let mut grew = false;
            for (result, merges) in &producers {
                if removed.contains(result) {
                    continue;
                }
                let Some(&id) = tj.ids.get(*result) else {
                    continue;
                };
                if tj.is_protected(id) {
                    continue;
                }
                let all_through = merges.iter().all(|&m| {
                    let (a, b) = &tj.merges[m];
                    removed.contains(a.as_str()) || removed.contains(b.as_str())
                });
                if all_through {
                    removed.insert(result);
                    confirmed.insert(id, Reason::Derived);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        if let Some((&id, why)) = confirmed
            .iter()
            .filter(|(_, r)| **r == Reason::Derived)
            .find_map(|(id, _)| needed(*id).map(|w| (id, w)))
        {
            return Err(AnonymizeError::file(
                review,
                format!(
                    "the removals would also rename id {id}, which can only be built through them                      and is {why}; keep the piece it is built from"
                ),
            ));
        }
        for (i, (a, b)) in tj.merges.iter().enumerate() {
            let r = tj_result(tj, a, b);
            if removed.contains(a.as_str()) || removed.contains(b.as_str()) || removed.contains(r) {
                drop_merges.insert(i);
            }
        }
    }

    let mut taken: HashSet<String> = tj.all_strings().into_iter().map(str::to_string).collect();
    let mut entries = Vec::with_capacity(confirmed.len());
    for (id, reason) in confirmed {
        let old = tj.by_id[&id].clone();
        let marker = tj.split_marker(&old).0;
        let new = fresh_name(marker, &taken, rng)?;
        taken.insert(new.clone());
        entries.push(MapEntry {
            id,
            old,
            new,
            reason,
        });
    }
    Ok(Plan {
        entries,
        drop_merges,
    })
}

/// The vocabulary string a merge produces (`a` + `b`), borrowed from the vocabulary when there.
fn tj_result<'a>(tj: &'a TokenizerJson, a: &str, b: &str) -> &'a str {
    let joined = format!("{a}{b}");
    match tj.ids.get(&joined) {
        Some(id) => tj.by_id[id].as_str(),
        None => "",
    }
}

/// `marker` + `unk` + 8 random digits, not in `taken`.
fn fresh_name(
    marker: &str,
    taken: &HashSet<String>,
    rng: &mut dyn RngCore,
) -> Result<String, AnonymizeError> {
    for _ in 0..10_000 {
        let n: u32 = rng.gen_range(0..100_000_000);
        let name = format!("{marker}unk{n:08}");
        if !taken.contains(&name) {
            return Ok(name);
        }
    }
    Err(AnonymizeError::Usage(
        "no free unk name found after 10000 tries".into(),
    ))
}

/// Reads a map file written by [`rewrite_model`].
pub fn read_map(path: &Path) -> Result<Vec<MapEntry>, AnonymizeError> {
    let text = std::fs::read_to_string(path).map_err(|e| AnonymizeError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| {
        AnonymizeError::line(
            path,
            e.line(),
            "expected a JSON list of {id, old, new, reason} objects",
        )
    })
}

/// An absolute form of `path` that resolves the existing part (so `out/../x` and symlinked
/// parents compare correctly even when the last parts do not exist yet).
fn resolved(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut tail = Vec::new();
    let mut head = abs.as_path();
    loop {
        if let Ok(c) = head.canonicalize() {
            let mut out = c;
            for part in tail.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (head.parent(), head.file_name()) {
            (Some(p), Some(name)) => {
                tail.push(name.to_owned());
                head = p;
            }
            _ => return abs,
        }
    }
}

/// Rewrites the model dir `dir` by the review file `review` into `out`, and writes the map to
/// `map`. Nothing under `out` or at `map` exists until everything has been written and checked.
pub fn rewrite_model(
    dir: &Path,
    review: &Path,
    out: &Path,
    map: &Path,
    opts: &RewriteOptions,
) -> Result<RewriteReport, AnonymizeError> {
    rewrite_model_with(dir, review, out, map, opts, &mut rand::rngs::OsRng)
}

/// [`rewrite_model`] with the random source given (tests).
pub fn rewrite_model_with(
    dir: &Path,
    review: &Path,
    out: &Path,
    map: &Path,
    opts: &RewriteOptions,
    rng: &mut dyn RngCore,
) -> Result<RewriteReport, AnonymizeError> {
    let usage = |m: String| AnonymizeError::Usage(m);
    if !dir.is_dir() {
        return Err(AnonymizeError::file(dir, "not a directory"));
    }
    let (rdir, rout, rmap) = (resolved(dir), resolved(out), resolved(map));
    if rout == rdir || rdir.starts_with(&rout) || rout.starts_with(&rdir) {
        return Err(usage(format!(
            "--out {} must be a new directory outside the model dir {}",
            out.display(),
            dir.display()
        )));
    }
    if rmap.starts_with(&rout) {
        return Err(usage(format!(
            "--map {} is inside --out {}: the map holds the removed names and must stay outside the released model",
            map.display(),
            out.display()
        )));
    }
    if rmap.starts_with(&rdir) || rmap == resolved(review) {
        return Err(usage(format!(
            "--map {} must be outside the model dir and not the review file (inputs are never replaced)",
            map.display()
        )));
    }
    if out.exists() && !(opts.overwrite && out.is_dir()) {
        return Err(usage(format!(
            "{} already exists (pass --overwrite to replace it)",
            out.display()
        )));
    }
    if map.exists() && !(opts.overwrite && map.is_file()) {
        return Err(usage(format!(
            "{} already exists (pass --overwrite to replace it)",
            map.display()
        )));
    }
    for required in ["config.json", "tokenizer.json"] {
        if !dir.join(required).is_file() {
            return Err(AnonymizeError::file(
                dir,
                format!("no {required}: not a model dir this command can rewrite"),
            ));
        }
    }
    if !dir.join("model.safetensors").is_file() && !dir.join("pytorch_model.bin").is_file() {
        return Err(AnonymizeError::file(
            dir,
            "no model.safetensors or pytorch_model.bin",
        ));
    }

    let mut tj = TokenizerJson::read(&dir.join("tokenizer.json"))?;
    if tj.kind == ModelKind::Bpe && !tj.byte_level {
        return Err(AnonymizeError::file(
            &tj.path,
            "only byte-level BPE is supported (no ByteLevel pre-tokenizer or decoder found)",
        ));
    }
    let rows = read_review_lines(review)?;
    let plan = plan(&tj, &rows, review, opts.ordinary.as_ref(), rng)?;
    let renames: BTreeMap<u32, String> =
        plan.entries.iter().map(|e| (e.id, e.new.clone())).collect();
    let old_to_new: HashMap<&str, &str> = plan
        .entries
        .iter()
        .map(|e| (e.old.as_str(), e.new.as_str()))
        .collect();
    tj.apply(&renames, &plan.drop_merges)?;
    let tk_bytes = tj.to_bytes();
    // The tokenizers crate must accept the result (its errors may quote tokens: not shown).
    tokenizers::Tokenizer::from_bytes(&tk_bytes).map_err(|_| {
        AnonymizeError::file(
            &tj.path,
            "the rewritten tokenizer.json does not load in the tokenizers crate",
        )
    })?;

    // The model dir and the map are one unit: both published, or neither.
    let set = crate::fsio::OutputSet::claim(
        &[
            (out, crate::fsio::Kind::Dir),
            (map, crate::fsio::Kind::File),
        ],
        opts.overwrite,
        crate::fsio::Inputs::of([dir, review]),
    )?;
    let staging = set.dir(out)?;
    let put = |name: &str, bytes: &[u8]| -> Result<(), AnonymizeError> {
        Ok(staging.write(name, bytes)?)
    };
    let mut written = Vec::new();
    put("tokenizer.json", &tk_bytes)?;
    written.push("tokenizer.json".to_string());
    let vocab_txt = dir.join("vocab.txt");
    if vocab_txt.is_file() {
        put("vocab.txt", &rewrite_vocab_txt(&vocab_txt, &plan.entries)?)?;
        written.push("vocab.txt".into());
    }
    let vocab_json = dir.join("vocab.json");
    if vocab_json.is_file() {
        put(
            "vocab.json",
            &rewrite_vocab_json(&vocab_json, &plan.entries)?,
        )?;
        written.push("vocab.json".into());
    }
    let merges_txt = dir.join("merges.txt");
    if merges_txt.is_file() {
        put(
            "merges.txt",
            &rewrite_merges_txt(&merges_txt, &old_to_new, &tj)?,
        )?;
        written.push("merges.txt".into());
    }
    for name in COPIED {
        let from = dir.join(name);
        if from.is_file() {
            staging.copy_in(name, &from)?;
            written.push(name.to_string());
        }
    }
    let mut left_out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| AnonymizeError::io(dir, e))? {
        let entry = entry.map_err(|e| AnonymizeError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !COPIED.contains(&name.as_str()) && !REWRITTEN.contains(&name.as_str()) {
            left_out.push(name);
        }
    }
    left_out.sort();

    // The result must load with this crate's loader and keep the vocabulary size.
    let loaded = crate::tokenizer::load_dir(staging.path()).map_err(|_| {
        AnonymizeError::file(
            out,
            "the rewritten tokenizer does not load (nothing written)",
        )
    })?;
    let before = crate::tokenizer::load_dir(dir)?;
    if loaded.vocab_size() != before.vocab_size() {
        return Err(AnonymizeError::file(
            out,
            format!(
                "vocabulary size changed from {} to {} (nothing written)",
                before.vocab_size(),
                loaded.vocab_size()
            ),
        ));
    }
    let mut map_json = serde_json::to_vec_pretty(&plan.entries).expect("map entries serialize");
    map_json.push(b'\n');
    let mut map_file = set.file(map)?;
    map_file
        .write_all(&map_json)
        .map_err(|e| AnonymizeError::io(map, e))?;
    set.publish(vec![staging.into(), map_file.into()])?;

    Ok(RewriteReport {
        kind: tj.kind,
        vocab_size: tj.len(),
        reviewed: rows.len(),
        confirmed: plan
            .entries
            .iter()
            .filter(|e| e.reason == Reason::Confirmed)
            .count(),
        derived_ids: plan
            .entries
            .iter()
            .filter(|e| e.reason == Reason::Derived)
            .map(|e| e.id)
            .collect(),
        merges_removed: plan.drop_merges.len(),
        written,
        left_out,
    })
}

/// `vocab.txt` with the renamed lines replaced; each must hold the old token at its id.
fn rewrite_vocab_txt(path: &Path, entries: &[MapEntry]) -> Result<Vec<u8>, AnonymizeError> {
    let text = std::fs::read_to_string(path).map_err(|e| AnonymizeError::io(path, e))?;
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    for e in entries {
        let i = e.id as usize;
        let line = lines.get_mut(i);
        let cr = line.as_ref().is_some_and(|l| l.ends_with('\r'));
        match line {
            Some(l) if l.trim_end_matches('\r') == e.old => {
                *l = if cr {
                    format!("{}\r", e.new)
                } else {
                    e.new.clone()
                };
            }
            _ => {
                return Err(AnonymizeError::line(
                    path,
                    i + 1,
                    format!("does not hold the token of id {} in tokenizer.json", e.id),
                ))
            }
        }
    }
    Ok(lines.join("\n").into_bytes())
}

/// `vocab.json` with renamed keys, written in id order.
fn rewrite_vocab_json(path: &Path, entries: &[MapEntry]) -> Result<Vec<u8>, AnonymizeError> {
    let text = std::fs::read_to_string(path).map_err(|e| AnonymizeError::io(path, e))?;
    let mut vocab: HashMap<String, u32> = serde_json::from_str(&text).map_err(|e| {
        AnonymizeError::file(path, format!("expected a JSON object of token ids: {e}"))
    })?;
    for e in entries {
        if vocab.get(&e.old) != Some(&e.id) {
            return Err(AnonymizeError::file(
                path,
                format!("does not hold the token of id {} in tokenizer.json", e.id),
            ));
        }
        vocab.remove(&e.old);
        vocab.insert(e.new.clone(), e.id);
    }
    let mut pairs: Vec<(u32, String)> = vocab.into_iter().map(|(t, i)| (i, t)).collect();
    pairs.sort();
    let mut out = String::from("{");
    for (n, (id, tok)) in pairs.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(tok).expect("strings serialize"));
        out.push(':');
        out.push_str(&id.to_string());
    }
    out.push('}');
    Ok(out.into_bytes())
}

/// `merges.txt` without the merges whose parts or result were renamed; the result must match
/// the merges left in tokenizer.json.
fn rewrite_merges_txt(
    path: &Path,
    old_to_new: &HashMap<&str, &str>,
    tj: &TokenizerJson,
) -> Result<Vec<u8>, AnonymizeError> {
    let text = std::fs::read_to_string(path).map_err(|e| AnonymizeError::io(path, e))?;
    let mut out = String::with_capacity(text.len());
    let mut kept = 0usize;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.is_empty() || (i == 0 && body.starts_with("#version")) {
            out.push_str(line);
            continue;
        }
        let Some((a, b)) = body.split_once(' ') else {
            return Err(AnonymizeError::line(
                path,
                i + 1,
                "not a merge of two tokens",
            ));
        };
        let joined = format!("{a}{b}");
        if [a, b, joined.as_str()]
            .iter()
            .any(|t| old_to_new.contains_key(t))
        {
            continue;
        }
        if tj.merges.get(kept).map(|(x, y)| (x.as_str(), y.as_str())) != Some((a, b)) {
            return Err(AnonymizeError::line(
                path,
                i + 1,
                "merges.txt disagrees with the merges of tokenizer.json",
            ));
        }
        kept += 1;
        out.push_str(line);
    }
    if kept != tj.merges.len() {
        return Err(AnonymizeError::file(
            path,
            format!(
                "{kept} merges left, tokenizer.json keeps {}",
                tj.merges.len()
            ),
        ));
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use serde_json::json;

    fn bpe() -> TokenizerJson {
        // ĠJansens comes only from ĠJansen + s; ĠJansenss only from ĠJansens + s (transitive);
        // Ġs has another derivation besides the one through a removed token.
        let v = json!({
            "added_tokens": [{"id": 0, "content": "<s>", "special": true}],
            "pre_tokenizer": {"type": "ByteLevel"},
            "model": {"type": "BPE", "vocab": {
                "<s>": 0, "Ġ": 1, "J": 2, "a": 3, "s": 4, "ĠJ": 5, "ĠJa": 6, "ĠJansen": 7,
                "ĠJansens": 8, "ĠJansenss": 9, "n": 10, "e": 11, "ĠJan": 12, "sen": 13, "se": 14,
                "Ġs": 15},
              "merges": ["Ġ J", "ĠJ a", "ĠJa n", "s e", "se n", "ĠJan sen", "ĠJansen s",
                         "ĠJansens s", "Ġ s"]}
        });
        TokenizerJson::from_value(Path::new("t.json"), v).unwrap()
    }

    fn row(token: &str, id: u32, decision: Decision) -> (usize, ReviewRow) {
        (
            id as usize + 2,
            ReviewRow {
                token: token.into(),
                id,
                score: 1.0,
                evidence: String::new(),
                decision,
            },
        )
    }

    #[test]
    fn derived_tokens_are_renamed_transitively_and_merges_dropped() {
        let tj = bpe();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let rows = [
            row("ĠJansen", 7, Decision::Remove),
            row("s", 4, Decision::Keep),
        ];
        let plan = plan(&tj, &rows, Path::new("r.tsv"), None, &mut rng).unwrap();
        let got: Vec<(u32, Reason)> = plan.entries.iter().map(|e| (e.id, e.reason)).collect();
        assert_eq!(
            got,
            vec![
                (7, Reason::Confirmed),
                (8, Reason::Derived),
                (9, Reason::Derived)
            ]
        );
        for e in &plan.entries {
            assert!(
                e.new.starts_with("Ġunk") && e.new.len() == "Ġunk".len() + 8,
                "{}",
                e.new
            );
            assert!(!tj.ids.contains_key(&e.new));
        }
        // "ĠJan sen", "ĠJansen s", "ĠJansens s" go; the rest stay.
        let mut dropped: Vec<usize> = plan.drop_merges.into_iter().collect();
        dropped.sort_unstable();
        assert_eq!(dropped, vec![5, 6, 7]);
    }

    #[test]
    fn new_names_keep_the_marker_and_are_unique() {
        let w = json!({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {
            "[UNK]": 0, "Jansen": 1, "##sen": 2, "Bakker": 3}}});
        let tj = TokenizerJson::from_value(Path::new("w.json"), w).unwrap();
        let rows = [
            row("Jansen", 1, Decision::Remove),
            row("##sen", 2, Decision::Remove),
            row("Bakker", 3, Decision::Remove),
        ];
        let plan = plan(&tj, &rows, Path::new("r.tsv"), None, &mut rand::rngs::OsRng).unwrap();
        let news: HashSet<&str> = plan.entries.iter().map(|e| e.new.as_str()).collect();
        assert_eq!(news.len(), 3);
        assert!(plan.entries[0].new.starts_with("unk"));
        assert!(plan.entries[1].new.starts_with("##unk"));
        assert!(plan
            .entries
            .iter()
            .all(|e| e.new.trim_start_matches("##")[3..]
                .chars()
                .all(|c| c.is_ascii_digit())));
    }

    #[test]
    fn collisions_are_avoided() {
        // A source that repeats one number until asked a few times: the taken name is skipped.
        struct Stuck(u32);
        impl RngCore for Stuck {
            fn next_u32(&mut self) -> u32 {
                self.0 += 1;
                if self.0 < 4 {
                    0
                } else {
                    self.0 * 7919
                }
            }
            fn next_u64(&mut self) -> u64 {
                self.next_u32() as u64
            }
            fn fill_bytes(&mut self, d: &mut [u8]) {
                d.iter_mut().for_each(|b| *b = self.next_u32() as u8)
            }
            fn try_fill_bytes(&mut self, d: &mut [u8]) -> Result<(), rand::Error> {
                self.fill_bytes(d);
                Ok(())
            }
        }
        let mut probe = Stuck(0);
        let zero: u32 = probe.gen_range(0..100_000_000);
        let taken_name = format!("unk{zero:08}");
        let w = json!({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {
            "[UNK]": 0, "Jansen": 1, taken_name.clone(): 2}}});
        let tj = TokenizerJson::from_value(Path::new("w.json"), w).unwrap();
        let plan = plan(
            &tj,
            &[row("Jansen", 1, Decision::Remove)],
            Path::new("r.tsv"),
            None,
            &mut Stuck(0),
        )
        .unwrap();
        assert_ne!(plan.entries[0].new, taken_name);
    }

    #[test]
    fn wrong_ids_and_specials_are_refused_with_the_line() {
        let tj = bpe();
        let mut rng = rand::rngs::OsRng;
        let cases = [
            (row("ĠJansen", 8, Decision::Remove), "does not match id 8"),
            (row("ĠJansen", 99, Decision::Keep), "id 99 is not in"),
            (row("<s>", 0, Decision::Remove), "special or added"),
            (row("s", 4, Decision::Remove), "a single character"),
        ];
        for (r, what) in cases {
            let line = r.0;
            let err = plan(&tj, &[r], Path::new("r.tsv"), None, &mut rng)
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("r.tsv:{line}:")), "{err}");
            assert!(err.contains(what), "{err}");
            assert!(!err.contains("Jansen"), "{err}");
        }
    }

    #[test]
    fn pieces_ordinary_words_need_are_refused_also_when_derived() {
        let w = json!({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {
            "[UNK]": 0, "Jansen": 1, "##sen": 2, "les": 3, "##j": 4}}});
        let tj = TokenizerJson::from_value(Path::new("w.json"), w).unwrap();
        let mut ordinary = OrdinaryUses::default();
        ordinary.add_for_test(2, 3);
        let mut rng = rand::rngs::OsRng;
        let err = plan(
            &tj,
            &[row("##sen", 2, Decision::Remove)],
            Path::new("r.tsv"),
            Some(&ordinary),
            &mut rng,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("r.tsv:4:") && err.contains("used 3 times"),
            "{err}"
        );
        let err = plan(
            &tj,
            &[row("##j", 4, Decision::Remove)],
            Path::new("r.tsv"),
            None,
            &mut rng,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("single character"), "{err}");
        assert!(plan(
            &tj,
            &[row("Jansen", 1, Decision::Remove)],
            Path::new("r.tsv"),
            Some(&ordinary),
            &mut rng
        )
        .is_ok());

        // BPE: ĠJansens is built only through ĠJansen; ordinary words need it, so removing
        // ĠJansen is refused.
        let tj = bpe();
        let mut ordinary = OrdinaryUses::default();
        ordinary.add_for_test(8, 1);
        let err = plan(
            &tj,
            &[row("ĠJansen", 7, Decision::Remove)],
            Path::new("r.tsv"),
            Some(&ordinary),
            &mut rng,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("id 8") && err.contains("built"), "{err}");
        assert!(!err.contains("Jansen"), "{err}");
    }
}
