//! Word lists: the project's own lists embedded from `vocab/` at build time, plus user lists
//! from `--lists DIR` (same layout: `DIR/<lang>/<name>.txt`). Loading fails closed.

use crate::lang::Lang;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/builtin_vocab.rs"));

#[derive(Debug, thiserror::Error)]
pub enum VocabError {
    #[error("built-in word list vocab/{0} is missing from this build")]
    MissingBuiltin(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Bad {
        path: PathBuf,
        line: usize,
        msg: String,
    },
}

/// The embedded text of `vocab/<rel>` (e.g. `es/first_names.txt`, `labelmaps/meddocan.toml`).
pub fn builtin(rel: &str) -> Option<&'static str> {
    BUILTIN_FILES
        .iter()
        .find(|(p, _)| *p == rel)
        .map(|(_, t)| *t)
}

/// Entries of a list file: one per line, `#` starts a comment, surrounding blanks trimmed.
pub fn parse_list(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
}

/// Where extra lists come from, besides the built-in ones.
#[derive(Clone, Debug, Default)]
pub struct ListSources {
    /// `--lists DIR`: files `DIR/<lang>/<name>.txt` are added to the built-in list of that name.
    pub user_dir: Option<PathBuf>,
}

impl ListSources {
    /// Built-in `vocab/<lang>/<name>.txt` (required) plus the user's file of the same name, if any.
    pub fn load(&self, lang: Lang, name: &str) -> Result<Vec<String>, VocabError> {
        let rel = format!("{}/{name}.txt", lang.code());
        let text = builtin(&rel).ok_or_else(|| VocabError::MissingBuiltin(rel.clone()))?;
        let mut out: Vec<String> = parse_list(text).map(str::to_string).collect();
        if let Some(dir) = &self.user_dir {
            out.extend(read_user_list(&dir.join(&rel))?);
        }
        Ok(out)
    }

    /// Like `load`, for lists that are optional in the build (an absent built-in gives nothing).
    pub fn load_optional(&self, lang: Lang, name: &str) -> Result<Vec<String>, VocabError> {
        match self.load(lang, name) {
            Err(VocabError::MissingBuiltin(_)) => match &self.user_dir {
                Some(dir) => read_user_list(&dir.join(format!("{}/{name}.txt", lang.code()))),
                None => Ok(Vec::new()),
            },
            other => other,
        }
    }
}

/// The 1-based line on which a file stops being valid UTF-8.
pub fn invalid_utf8_line(e: &std::string::FromUtf8Error) -> usize {
    1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// A user list file; absent is fine (not every list must be given), unreadable is an error.
fn read_user_list(path: &Path) -> Result<Vec<String>, VocabError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|e| VocabError::Bad {
                path: path.to_path_buf(),
                line: invalid_utf8_line(&e),
                msg: "invalid UTF-8".into(),
            })?;
            Ok(parse_list(&text).map(str::to_string).collect())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(VocabError::Io {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_lists_load_and_user_lists_add() {
        let src = ListSources::default();
        let names = src.load(Lang::Es, "first_names").unwrap();
        assert!(names.len() > 10);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("es")).unwrap();
        std::fs::write(dir.path().join("es/first_names.txt"), "# mine\nZenobia\n").unwrap();
        let user = ListSources {
            user_dir: Some(dir.path().to_path_buf()),
        };
        let more = user.load(Lang::Es, "first_names").unwrap();
        assert_eq!(more.len(), names.len() + 1);
        assert!(matches!(
            src.load(Lang::Es, "no_such_list"),
            Err(VocabError::MissingBuiltin(_))
        ));
    }
}
