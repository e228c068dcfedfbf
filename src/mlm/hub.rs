//! Resolving a model spec (local directory or hub id `org/name[@revision]`) to a directory of files,
//! through the local Hugging Face cache (downloads only with the `hub-download` feature).

use std::path::{Path, PathBuf};

use hf_hub::{Cache, Repo, RepoType};

use super::error::MlmError;
use super::weights::{CONFIG_FILE, PYTORCH_FILE, SAFETENSORS_FILE};

/// Where a resolved model came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    Local,
    Hub { id: String, revision: String },
}

/// A model directory holding `config.json`, weights and (usually) tokenizer files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFiles {
    pub dir: PathBuf,
    pub source: ModelSource,
}

/// The Hugging Face cache: `HF_HUB_CACHE` if set, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`.
pub fn default_cache() -> Cache {
    match std::env::var_os("HF_HUB_CACHE") {
        Some(p) if !p.is_empty() => Cache::new(PathBuf::from(p)),
        _ => Cache::from_env(),
    }
}

/// Resolves `spec` with the default cache (see [`default_cache`]).
pub fn resolve_model(spec: &str) -> Result<ModelFiles, MlmError> {
    resolve_model_in(spec, &default_cache())
}

/// Splits `org/name[@revision]`; None if `spec` does not look like a hub id.
fn parse_hub_id(spec: &str) -> Option<(String, String)> {
    let (id, rev) = match spec.split_once('@') {
        Some((id, rev)) if !rev.is_empty() => (id, rev),
        Some(_) => return None,
        None => (spec, "main"),
    };
    let parts: Vec<&str> = id.split('/').collect();
    let ok_part = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if parts.is_empty() || parts.len() > 2 || !parts.iter().all(|p| ok_part(p)) {
        return None;
    }
    Some((id.to_string(), rev.to_string()))
}

/// Resolves a local directory (if `spec` is one) or a hub id in `cache`.
pub fn resolve_model_in(spec: &str, cache: &Cache) -> Result<ModelFiles, MlmError> {
    let local = Path::new(spec);
    if local.is_dir() {
        return Ok(ModelFiles {
            dir: local.to_path_buf(),
            source: ModelSource::Local,
        });
    }
    let (id, revision) =
        parse_hub_id(spec).ok_or_else(|| MlmError::BadSpec { spec: spec.into() })?;
    let repo = Repo::with_revision(id.clone(), RepoType::Model, revision.clone());
    let source = ModelSource::Hub {
        id: id.clone(),
        revision: revision.clone(),
    };
    match from_cache(cache, &repo, &id, &revision) {
        Ok(dir) => Ok(ModelFiles { dir, source }),
        Err(e) => {
            #[cfg(feature = "hub-download")]
            {
                let _ = e;
                download(cache, repo, &id).map(|dir| ModelFiles { dir, source })
            }
            #[cfg(not(feature = "hub-download"))]
            {
                Err(e)
            }
        }
    }
}

/// The snapshot directory of `repo` if its config and weights are cached.
fn from_cache(cache: &Cache, repo: &Repo, id: &str, revision: &str) -> Result<PathBuf, MlmError> {
    let cached = cache.repo(repo.clone());
    let not_cached = |what: &str| MlmError::NotInCache {
        id: format!("{id}@{revision}"),
        what: what.into(),
        cache: cache.path().clone(),
    };
    // A full commit hash names a snapshot directly (no refs file needed).
    let config = cached.get(CONFIG_FILE).or_else(|| {
        let is_hash = revision.len() == 40 && revision.chars().all(|c| c.is_ascii_hexdigit());
        let p = cache
            .path()
            .join(repo.folder_name())
            .join("snapshots")
            .join(revision)
            .join(CONFIG_FILE);
        (is_hash && p.is_file()).then_some(p)
    });
    let config = config.ok_or_else(|| not_cached("the model (config.json)"))?;
    let dir = config
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| not_cached("the model (config.json)"))?;
    if !dir.join(SAFETENSORS_FILE).exists() && !dir.join(PYTORCH_FILE).exists() {
        return Err(not_cached(
            "the weights (model.safetensors or pytorch_model.bin)",
        ));
    }
    Ok(dir)
}

#[cfg(feature = "hub-download")]
fn download(cache: &Cache, repo: Repo, id: &str) -> Result<PathBuf, MlmError> {
    use hf_hub::api::sync::ApiBuilder;
    /// Tokenizer and auxiliary files fetched along with a hub model when present.
    const OPTIONAL_FILES: &[&str] = &[
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "vocab.txt",
        "vocab.json",
        "merges.txt",
    ];
    let err = |e: &dyn std::fmt::Display| MlmError::Download {
        id: id.into(),
        message: e.to_string(),
    };
    let api = ApiBuilder::from_cache(cache.clone())
        .build()
        .map_err(|e| err(&e))?;
    let r = api.repo(repo);
    let config = r.get(CONFIG_FILE).map_err(|e| err(&e))?;
    if r.get(SAFETENSORS_FILE).is_err() {
        r.get(PYTORCH_FILE).map_err(|e| err(&e))?;
    }
    for f in OPTIONAL_FILES {
        // Absent tokenizer files are normal (a model has one of several layouts).
        let _ = r.get(f);
    }
    config
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| err(&"no parent directory for config.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_cache(root: &Path, folder: &str, hash: &str, files: &[&str]) {
        let repo = root.join(folder);
        std::fs::create_dir_all(repo.join("refs")).unwrap();
        std::fs::write(repo.join("refs").join("main"), hash).unwrap();
        let snap = repo.join("snapshots").join(hash);
        std::fs::create_dir_all(&snap).unwrap();
        for f in files {
            std::fs::write(snap.join(f), b"{}").unwrap();
        }
    }

    #[test]
    fn resolves_local_dirs_and_cached_hub_ids() {
        let tmp = tempfile::tempdir().unwrap();
        let hash = "0123456789abcdef0123456789abcdef01234567";
        fake_cache(
            tmp.path(),
            "models--org--name",
            hash,
            &["config.json", "model.safetensors", "tokenizer.json"],
        );
        fake_cache(tmp.path(), "models--org--noweights", hash, &["config.json"]);
        let cache = Cache::new(tmp.path().to_path_buf());

        let r = resolve_model_in("org/name", &cache).unwrap();
        assert_eq!(
            r.dir,
            tmp.path().join("models--org--name/snapshots").join(hash)
        );
        assert!(r.dir.join("tokenizer.json").is_file());
        assert_eq!(
            r.source,
            ModelSource::Hub {
                id: "org/name".into(),
                revision: "main".into()
            }
        );
        let by_hash = resolve_model_in(&format!("org/name@{hash}"), &cache).unwrap();
        assert_eq!(by_hash.dir, r.dir);

        let local = resolve_model_in(tmp.path().to_str().unwrap(), &cache).unwrap();
        assert_eq!(local.source, ModelSource::Local);

        #[cfg(not(feature = "hub-download"))]
        {
            let e = resolve_model_in("org/missing", &cache)
                .unwrap_err()
                .to_string();
            assert!(e.contains("org/missing@main"), "{e}");
            assert!(e.contains("not in the offline Hugging Face cache"), "{e}");
            assert!(e.contains(tmp.path().to_str().unwrap()), "{e}");
            let e = resolve_model_in("org/noweights", &cache)
                .unwrap_err()
                .to_string();
            assert!(e.contains("weights"), "{e}");
            let e = resolve_model_in("org/name@v2", &cache)
                .unwrap_err()
                .to_string();
            assert!(e.contains("org/name@v2"), "{e}");
        }
        let e = resolve_model_in("./no/such/dir/here", &cache)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a local directory"), "{e}");
    }
}
