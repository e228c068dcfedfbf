//! The canaries of a training run (`mlm prepare|train --canaries`): where the protected canary
//! file goes (beside, never inside, the output), which templates fill it, and writing it before
//! the data is prepared. Nothing secret is printed.

use std::path::{Component, Path, PathBuf};

use crate::error::{StageContext, StageResult, ValueError};

use crate::canary::{template, CanaryFile, Template};
use crate::corpus::source::{CorpusInput, InputSpans};
use crate::mlm::train::data::CanaryInsert;
use crate::Lang;

/// The canary flags of `mlm prepare` and `mlm train`.
#[derive(Clone, Debug, Default)]
pub struct CanarySettings {
    /// Canaries per repeat value (0: none).
    pub canaries: usize,
    /// Copies of each canary, one group of `canaries` per value.
    pub repeats: Vec<u64>,
    /// Seed of the secrets (default: drawn from the operating system).
    pub seed: Option<u64>,
    /// The protected canary file (default: beside the output).
    pub file: Option<PathBuf>,
    /// Language of the built-in templates, or `auto`.
    pub lang: String,
    /// A template file instead of the built-in templates.
    pub templates: Option<PathBuf>,
}

/// The canary file of this run (`None` without `--canaries`), checked before any work: by
/// default `<out>.canaries.json` beside the model dir; refused inside `--out` (the model dir is
/// what gets released) and on the corpus.
pub fn canary_path(
    args: &CanarySettings,
    out: &Path,
    corpus: Option<&Path>,
) -> StageResult<Option<PathBuf>> {
    if args.canaries == 0 {
        let given = [
            (args.file.is_some(), "--canary-file"),
            (args.templates.is_some(), "--canary-templates"),
            (args.seed.is_some(), "--canary-seed"),
        ];
        if let Some((_, flag)) = given.iter().find(|(on, _)| *on) {
            return Err(ValueError::new(format!("{flag} needs --canaries N")).into());
        }
        return Ok(None);
    }
    let path = match &args.file {
        Some(p) => p.clone(),
        None => {
            let name = out.file_name().ok_or_else(|| {
                ValueError::new(format!(
                    "--out {} has no name to put the canary file beside; give --canary-file",
                    out.display()
                ))
            })?;
            let mut name = name.to_os_string();
            name.push(".canaries.json");
            out.with_file_name(name)
        }
    };
    let (at, out_at) = (resolve(&path), resolve(out));
    if at.starts_with(&out_at) {
        return Err(ValueError::new(format!(
            "--canary-file {} is inside --out {}: the model dir gets released and the canary \
             file holds the secrets; put it elsewhere",
            path.display(),
            out.display()
        ))
        .into());
    }
    if corpus.is_some_and(|c| at == resolve(c)) {
        return Err(
            ValueError::new(format!("--canary-file {} is the corpus", path.display())).into(),
        );
    }
    Ok(Some(path))
}

/// Generates the canaries and writes the protected file (mode 0600, atomically). An existing
/// file with other canaries belongs to another run, whose audit needs it: it is replaced only
/// with `--overwrite`.
pub fn write_canaries(
    args: &CanarySettings,
    path: &Path,
    corpus: &CorpusInput,
    overwrite: bool,
) -> StageResult<CanaryFile> {
    let templates = templates(args, corpus)?;
    // The secrets' seed is as secret as the secrets: the training seed is recorded in the
    // released manifest, so it is never the default. Without --canary-seed a run draws one from
    // the operating system, or, resuming, takes the one its protected file holds.
    let seed = match args.seed {
        Some(s) => s,
        None if path.exists() && !overwrite => CanaryFile::read(path)?.seed,
        None => rand::Rng::gen(&mut rand::rngs::OsRng),
    };
    let file = CanaryFile::generate(&templates, args.canaries, &args.repeats, seed)
        .stage_context("--canaries")?;
    if path.exists() && !overwrite {
        let old = std::fs::read(path).map_err(|e| crate::error::InputError::io(path, e))?;
        if old != file.to_bytes() {
            return Err(ValueError::new(format!(
                "{} already holds other canaries (another run's, needed to audit its model); \
                 give --overwrite to replace them or choose another --canary-file",
                path.display()
            ))
            .into());
        }
    }
    file.write(path)?;
    Ok(file)
}

/// What the preparation inserts: each canary's id, text and copies, and the file's hash.
pub fn insert(file: &CanaryFile) -> CanaryInsert<'_> {
    CanaryInsert {
        canaries: file
            .canaries
            .iter()
            .map(|c| (c.id.as_str(), c.text.as_str(), c.repeats))
            .collect(),
        file_sha256: file.sha256(),
    }
}

/// The user's template file, or the built-in templates of `--canary-lang` (auto: the language
/// most documents are detected as).
fn templates(args: &CanarySettings, corpus: &CorpusInput) -> StageResult<Vec<Template>> {
    if let Some(p) = &args.templates {
        return Ok(template::read_templates(p)?);
    }
    let lang = if args.lang.eq_ignore_ascii_case("auto") {
        let mut counts = [0usize; Lang::ALL.len()];
        let docs = corpus.documents(corpus.resolved_format()?, InputSpans::Ignore)?;
        for d in docs.take(200) {
            let d = d?;
            if let Some(l) = Lang::detect(&d.text) {
                counts[Lang::ALL.iter().position(|&x| x == l).expect("known")] += 1;
            }
        }
        let (best, &n) = counts
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))
            .expect("five languages");
        if n == 0 {
            return Err(ValueError::new(
                "cannot tell the corpus language for the canary templates; give --canary-lang",
            )
            .into());
        }
        Lang::ALL[best]
    } else {
        args.lang
            .parse::<Lang>()
            .map_err(|e| ValueError::new(format!("--canary-lang: {e}")))?
    };
    Ok(template::builtin(lang))
}

/// `path` made absolute, `.` and `..` removed, and its longest existing ancestor resolved
/// through symlinks, so two spellings of one place compare equal before it exists.
fn resolve(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut norm = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                norm.pop();
            }
            other => norm.push(other),
        }
    }
    let mut rest = Vec::new();
    let mut existing = norm.as_path();
    loop {
        if let Ok(mut real) = existing.canonicalize() {
            for part in rest.iter().rev() {
                real.push(part);
            }
            return real;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return norm,
        }
    }
}
