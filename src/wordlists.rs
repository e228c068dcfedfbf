//! Word lists: the project's own lists embedded from `wordlists/` at build time, plus user lists
//! from `--lists DIR` (same layout: `DIR/<lang>/<name>.txt`, or any `.txt` name with a
//! `# anonlm-list: <name>` header). Loading fails closed: a user file that would not be used is
//! an error, never skipped.

use crate::lang::Lang;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/builtin_wordlists.rs"));

#[derive(Debug, thiserror::Error)]
pub enum VocabError {
    #[error("built-in word list wordlists/{0} is missing from this build")]
    MissingBuiltin(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: word list not used: {why}")]
    Unused { path: PathBuf, why: String },
    #[error("{path}:{line}: {msg}")]
    Bad {
        path: PathBuf,
        line: usize,
        msg: String,
    },
}

impl VocabError {
    /// A malformed entry, line `line`, of the list `wordlists/<lang>/<file>.txt`.
    pub fn bad_line(lang: Lang, file: &str, line: usize, msg: impl Into<String>) -> Self {
        VocabError::Bad {
            path: PathBuf::from(format!("wordlists/{}/{file}.txt", lang.code())),
            line,
            msg: msg.into(),
        }
    }
}

/// The embedded text of `wordlists/<rel>` (e.g. `es/first_names.txt`, `labelmaps/meddocan.toml`).
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

/// The header line that declares which list a user file adds to, e.g. `# anonlm-list: surnames`
/// on its first non-blank line; needed when the file's name is not a built-in list's name.
pub const LIST_HEADER: &str = "# anonlm-list:";

/// Where extra lists come from, besides the built-in ones.
#[derive(Clone, Debug, Default)]
pub struct ListSources {
    /// `--lists DIR`, checked by [`ListSources::with_user_dir`]: every file under
    /// `DIR/<lang>/` is added to the built-in list its name or header names.
    user_dir: Option<PathBuf>,
}

impl ListSources {
    /// Whether a `--lists` folder adds to the built-in lists.
    pub fn has_user_lists(&self) -> bool {
        self.user_dir.is_some()
    }

    /// Extra lists from `dir` (laid out `DIR/<lang>/<name>.txt`). Fails closed: every entry of
    /// `dir` must be a language folder (`nl`, `hu`, `es`, `it`, `en`), and every entry of a
    /// language folder a readable `.txt` file named like a built-in list of that language or
    /// declaring one in a [`LIST_HEADER`] line; anything else (a misspelled name, `NL/`,
    /// `.TXT`, a subfolder, a dangling symlink) is an error naming it, since a list that is
    /// silently skipped lets its names through.
    pub fn with_user_dir(dir: &Path) -> Result<Self, VocabError> {
        let meta = std::fs::metadata(dir).map_err(|source| VocabError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(VocabError::Unused {
                path: dir.to_path_buf(),
                why: "--lists must be a directory".into(),
            });
        }
        for entry in sorted_entries(dir)? {
            let lang = entry
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| Lang::ALL.iter().copied().find(|l| l.code() == n));
            match lang {
                Some(lang) if entry.is_dir() => {
                    user_files(&entry, lang)?;
                }
                _ => {
                    return Err(VocabError::Unused {
                        path: entry,
                        why: format!(
                            "not a language folder (expected a directory named one of {})",
                            lang_codes()
                        ),
                    })
                }
            }
        }
        Ok(ListSources {
            user_dir: Some(dir.to_path_buf()),
        })
    }

    /// Built-in `wordlists/<lang>/<name>.txt` (required) plus the user's files of that kind.
    pub fn load(&self, lang: Lang, name: &str) -> Result<Vec<String>, VocabError> {
        let rel = format!("{}/{name}.txt", lang.code());
        let text = builtin(&rel).ok_or_else(|| VocabError::MissingBuiltin(rel.clone()))?;
        let mut out: Vec<String> = parse_list(text).map(str::to_string).collect();
        out.extend(self.user_entries(lang, name)?);
        Ok(out)
    }

    /// Like `load`, for lists that are optional in the build (an absent built-in gives nothing).
    pub fn load_optional(&self, lang: Lang, name: &str) -> Result<Vec<String>, VocabError> {
        match self.load(lang, name) {
            Err(VocabError::MissingBuiltin(_)) => self.user_entries(lang, name),
            other => other,
        }
    }

    /// The entries of every user file of kind `name` for `lang` (the folder is checked again,
    /// so a file that changed since the run started cannot slip through).
    fn user_entries(&self, lang: Lang, name: &str) -> Result<Vec<String>, VocabError> {
        let Some(dir) = &self.user_dir else {
            return Ok(Vec::new());
        };
        let folder = dir.join(lang.code());
        if !folder.exists() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (_, kind, text) in user_files(&folder, lang)? {
            if kind == name {
                out.extend(parse_list(&text).map(str::to_string));
            }
        }
        Ok(out)
    }
}

fn lang_codes() -> String {
    Lang::ALL
        .iter()
        .map(|l| l.code())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The entries of `dir`, sorted (symlinks not followed here).
fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, VocabError> {
    let io = |source| VocabError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        out.push(entry.map_err(io)?.path());
    }
    out.sort();
    Ok(out)
}

/// The names of the built-in lists of `lang` (`first_names`, `surnames`, ...).
fn builtin_kinds(lang: Lang) -> Vec<&'static str> {
    let prefix = format!("{}/", lang.code());
    BUILTIN_FILES
        .iter()
        .filter_map(|(p, _)| p.strip_prefix(prefix.as_str())?.strip_suffix(".txt"))
        .filter(|name| !name.contains('/'))
        .collect()
}

/// Every file of a language folder as (path, kind, text); the first entry that is not a
/// usable list file is an error naming it.
fn user_files(folder: &Path, lang: Lang) -> Result<Vec<(PathBuf, String, String)>, VocabError> {
    let kinds = builtin_kinds(lang);
    let unused = |path: &Path, why: String| VocabError::Unused {
        path: path.to_path_buf(),
        why,
    };
    let mut out = Vec::new();
    for path in sorted_entries(folder)? {
        // `metadata` follows symlinks: a dangling one is an error, not a skipped file.
        let meta = std::fs::metadata(&path).map_err(|source| VocabError::Io {
            path: path.clone(),
            source,
        })?;
        if !meta.is_file() {
            return Err(unused(&path, "not a regular file".into()));
        }
        let stem = match (
            path.extension().and_then(|x| x.to_str()),
            path.file_stem().and_then(|s| s.to_str()),
        ) {
            (Some("txt"), Some(stem)) => stem,
            _ => {
                return Err(unused(
                    &path,
                    "list files must end in `.txt` (lower case)".into(),
                ))
            }
        };
        let text = read_list_file(&path)?;
        let by_name = kinds.iter().find(|k| **k == stem).copied();
        let kind = match (header_kind(&text), by_name) {
            (Some(Ok(declared)), named) => {
                let known = kinds.iter().find(|k| **k == declared).copied();
                match (known, named) {
                    (Some(k), Some(n)) if k != n => {
                        return Err(unused(
                            &path,
                            format!("its header names another list than its file name ({n})"),
                        ))
                    }
                    (Some(k), _) => k,
                    (None, _) => {
                        return Err(unused(
                            &path,
                            format!(
                                "the `{LIST_HEADER}` line names no built-in list of '{}' \
                                 (expected one of: {})",
                                lang.code(),
                                kinds.join(", ")
                            ),
                        ))
                    }
                }
            }
            (Some(Err(())), _) => {
                return Err(unused(
                    &path,
                    format!("the `{LIST_HEADER}` line must name exactly one list"),
                ))
            }
            (None, Some(n)) => n,
            (None, None) => {
                return Err(unused(
                    &path,
                    format!(
                        "the name is not a built-in list of '{}' and the file has no \
                         `{LIST_HEADER} <list>` first line (lists: {})",
                        lang.code(),
                        kinds.join(", ")
                    ),
                ))
            }
        };
        out.push((path, kind.to_string(), text));
    }
    Ok(out)
}

/// The list named by a [`LIST_HEADER`] first non-blank line: `None` without one,
/// `Some(Err(()))` when the line holds no single word.
fn header_kind(text: &str) -> Option<Result<&str, ()>> {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?;
    let rest = first.strip_prefix(LIST_HEADER)?;
    let mut words = rest.split_whitespace();
    Some(match (words.next(), words.next()) {
        (Some(w), None) => Ok(w),
        _ => Err(()),
    })
}

/// A user list file as UTF-8 text; unreadable or invalid is an error naming it.
fn read_list_file(path: &Path) -> Result<String, VocabError> {
    let bytes = std::fs::read(path).map_err(|source| VocabError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| VocabError::Bad {
        path: path.to_path_buf(),
        line: invalid_utf8_line(&e),
        msg: "invalid UTF-8".into(),
    })
}

/// The 1-based line on which a file stops being valid UTF-8.
pub fn invalid_utf8_line(e: &std::string::FromUtf8Error) -> usize {
    1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
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
        let user = ListSources::with_user_dir(dir.path()).unwrap();
        let more = user.load(Lang::Es, "first_names").unwrap();
        assert_eq!(more.len(), names.len() + 1);
        assert!(matches!(
            src.load(Lang::Es, "no_such_list"),
            Err(VocabError::MissingBuiltin(_))
        ));
    }

    fn user_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_header_declares_the_list_of_any_file_name() {
        let dir = user_dir(&[
            ("nl/staff.txt", "# anonlm-list: surnames\nXyloquentin\n"),
            ("nl/surnames.txt", "\n# anonlm-list: surnames\nBrabanzor\n"),
        ]);
        let lists = ListSources::with_user_dir(dir.path()).unwrap();
        let base = ListSources::default().load(Lang::Nl, "surnames").unwrap();
        let got = lists.load(Lang::Nl, "surnames").unwrap();
        assert_eq!(got.len(), base.len() + 2);
        assert!(got.iter().any(|n| n == "Xyloquentin") && got.iter().any(|n| n == "Brabanzor"));
        let first = lists.load(Lang::Nl, "first_names").unwrap();
        assert!(!first.iter().any(|n| n == "Xyloquentin"));
    }

    #[test]
    fn files_that_would_not_be_used_stop_the_run_naming_them() {
        let cases: &[(&str, &str, &str)] = &[
            ("nl/staff.txt", "Xyloquentin\n", "staff.txt"),
            ("nl/surname.txt", "Xyloquentin\n", "surname.txt"),
            ("NL/surnames.txt", "Xyloquentin\n", "NL"),
            ("nl/surnames.TXT", "Xyloquentin\n", "surnames.TXT"),
            ("nl/surnames", "Xyloquentin\n", "surnames"),
            ("nl/sub/surnames.txt", "Xyloquentin\n", "sub"),
            ("readme.txt", "Xyloquentin\n", "readme.txt"),
            (
                "nl/staff.txt",
                "# anonlm-list: sunrames\nXyloquentin\n",
                "staff.txt",
            ),
            (
                "nl/staff.txt",
                "# anonlm-list: surnames cities\nX\n",
                "staff.txt",
            ),
            (
                "nl/cities.txt",
                "# anonlm-list: surnames\nX\n",
                "cities.txt",
            ),
            ("nl/surnames.txt", "ok\n<FF>", "surnames.txt"),
        ];
        for (rel, text, named) in cases {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            // `<FF>` stands for a byte that is not UTF-8.
            let bytes = text.replace("<FF>", "\u{1}").into_bytes();
            let bytes: Vec<u8> = bytes
                .iter()
                .map(|&b| if b == 1 { 0xff } else { b })
                .collect();
            std::fs::write(&p, bytes).unwrap();
            let e = ListSources::with_user_dir(dir.path())
                .unwrap_err()
                .to_string();
            assert!(e.contains(named), "{rel}: {e}");
            assert!(
                !e.contains("Xyloquentin") && !e.contains("sunrames"),
                "{rel}: {e}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_symlink_is_an_error() {
        let dir = user_dir(&[("nl/surnames.txt", "Brabanzor\n")]);
        std::os::unix::fs::symlink(
            dir.path().join("gone.txt"),
            dir.path().join("nl/cities.txt"),
        )
        .unwrap();
        let e = ListSources::with_user_dir(dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("cities.txt"), "{e}");
    }
}
