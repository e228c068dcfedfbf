//! Checks on a destination before anything is staged: special files, existing outputs,
//! and outputs that are (or hold, or lie inside) an input of the run.

use super::error::{FsError, Result};
use std::fs;
use std::io::{self, ErrorKind};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// `-` stands for stdin or stdout.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The directory a destination is staged in (`.` for a bare name).
pub fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The inputs of a run: their canonical paths and (device, inode) identities, so an output
/// reached through another name (a hard link, `..`, a symlink) is still recognized.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    paths: Vec<PathBuf>,
    ids: Vec<(u64, u64)>,
}

impl Inputs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers an input (`-` and paths that do not exist are ignored: nothing to protect).
    pub fn add(&mut self, path: &Path) -> &mut Self {
        if is_stdio(path) {
            return self;
        }
        if let Ok(c) = path.canonicalize() {
            self.paths.push(c);
        }
        if let Ok(m) = fs::metadata(path) {
            self.ids.push((m.dev(), m.ino()));
        }
        self
    }

    /// The inputs `paths`, registered.
    pub fn of<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Self {
        let mut inputs = Self::new();
        for p in paths {
            inputs.add(p.as_ref());
        }
        inputs
    }

    /// Refuses `out` when it is an input, holds one, or lies inside an input directory.
    pub fn check(&self, out: &Path) -> Result<()> {
        if is_stdio(out) {
            return Ok(());
        }
        if let Ok(m) = fs::metadata(out) {
            if self.ids.contains(&(m.dev(), m.ino())) {
                return Err(FsError::IsInput {
                    path: out.to_path_buf(),
                });
            }
        }
        let out_c = canonical(out).map_err(|e| FsError::io(out, e))?;
        for input in &self.paths {
            if *input == out_c {
                return Err(FsError::IsInput {
                    path: out.to_path_buf(),
                });
            }
            if input.starts_with(&out_c) {
                return Err(FsError::HoldsInput {
                    path: out.to_path_buf(),
                });
            }
            if out_c.starts_with(input) {
                return Err(FsError::InsideInput {
                    path: out.to_path_buf(),
                });
            }
        }
        Ok(())
    }
}

/// Canonical form of a path that may not exist yet (nor its parents).
fn canonical(path: &Path) -> io::Result<PathBuf> {
    match path.canonicalize() {
        Ok(p) => Ok(p),
        Err(_) => {
            let name = path
                .file_name()
                .ok_or_else(|| io::Error::new(ErrorKind::InvalidInput, "no file name"))?;
            let parent = parent_of(path);
            if parent.exists() || parent == path {
                Ok(parent.canonicalize()?.join(name))
            } else {
                Ok(canonical(&parent)?.join(name))
            }
        }
    }
}

/// What kind of special file `meta` describes, if it is one.
fn special_kind(meta: &fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_char_device() {
        Some("character device")
    } else if t.is_block_device() {
        Some("block device")
    } else if t.is_fifo() {
        Some("FIFO")
    } else if t.is_socket() {
        Some("socket")
    } else {
        None
    }
}

/// Refuses a special file at `path` (followed through symlinks): never replaced, never
/// written beside. Applies even with `--overwrite`.
pub fn refuse_special(path: &Path) -> Result<()> {
    if let Ok(meta) = fs::metadata(path) {
        if let Some(kind) = special_kind(&meta) {
            return Err(FsError::Special {
                path: path.to_path_buf(),
                kind,
            });
        }
    }
    Ok(())
}

/// Checks a destination (a file when `dir` is false): a usable name, not special, not an
/// input, not existing unless `overwrite`, and of the same kind when it exists.
pub fn check_dest(path: &Path, dir: bool, overwrite: bool, inputs: &Inputs) -> Result<()> {
    if path.file_name().is_none() || is_stdio(path) {
        return Err(FsError::invalid(path, "not a valid output path"));
    }
    refuse_special(path)?;
    inputs.check(path)?;
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !overwrite {
            return Err(FsError::Exists {
                path: path.to_path_buf(),
            });
        }
        let is_dir = fs::metadata(path)
            .map(|m| m.is_dir())
            .unwrap_or(meta.is_dir());
        if is_dir != dir {
            return Err(FsError::WrongKind {
                path: path.to_path_buf(),
                expected: if dir { "a directory" } else { "a regular file" },
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_recognized_under_other_names() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        fs::write(&input, "x").unwrap();
        let link = dir.path().join("hard.txt");
        fs::hard_link(&input, &link).unwrap();
        let sub = dir.path().join("corpus");
        fs::create_dir(&sub).unwrap();
        let inputs = Inputs::of([&input, &sub]);
        let refused = [
            input.clone(),
            dir.path().join("corpus/../in.txt"),
            link,
            sub.join("new/out.jsonl"),
            dir.path().to_path_buf(),
        ];
        for out in refused {
            assert!(inputs.check(&out).is_err(), "{out:?}");
        }
        assert!(inputs.check(&dir.path().join("out.txt")).is_ok());
        assert!(inputs.check(Path::new("-")).is_ok());
    }

    #[test]
    fn special_files_are_refused_even_with_overwrite() {
        let e = check_dest(Path::new("/dev/null"), false, true, &Inputs::new()).unwrap_err();
        assert!(matches!(e, FsError::Special { .. }), "{e}");
    }

    #[test]
    fn existing_outputs_need_overwrite_and_the_same_kind() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.json");
        fs::write(&f, "{}").unwrap();
        let none = Inputs::new();
        assert!(matches!(
            check_dest(&f, false, false, &none),
            Err(FsError::Exists { .. })
        ));
        check_dest(&f, false, true, &none).unwrap();
        assert!(matches!(
            check_dest(&f, true, true, &none),
            Err(FsError::WrongKind { .. })
        ));
    }
}
