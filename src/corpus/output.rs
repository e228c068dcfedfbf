//! Atomic output: a file, directory or stdout target staged in a temporary file or directory
//! beside the destination and renamed into place only on `commit()`.
//!
//! Dropping a target without committing removes the staged output, so a failed run leaves no
//! partial file behind. Standard output cannot be staged: what was written is written.

use super::input::is_stdio;
use super::{CorpusError, Format};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use tempfile::{NamedTempFile, TempDir};

/// How existing outputs are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputOptions {
    /// Replace an existing output file or directory (never an input: see [`ensure_not_input`]).
    pub overwrite: bool,
}

/// What a target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    File,
    Dir,
    Stdout,
}

enum Stage {
    File(BufWriter<NamedTempFile>),
    Dir(TempDir),
    Stdout(BufWriter<io::Stdout>),
}

/// An output file, directory or stdout; see the module docs.
pub struct OutputTarget {
    dest: PathBuf,
    overwrite: bool,
    stage: Stage,
}

const WRITE_BUF: usize = 1 << 16;

impl OutputTarget {
    /// Standard output (no staging).
    pub fn stdout() -> Self {
        OutputTarget {
            dest: PathBuf::from("<stdout>"),
            overwrite: false,
            stage: Stage::Stdout(BufWriter::with_capacity(WRITE_BUF, io::stdout())),
        }
    }

    /// A file, staged as a hidden temporary file in the same directory.
    pub fn file(path: &Path, opts: &OutputOptions) -> Result<Self, CorpusError> {
        let parent = check_dest(path, opts, false)?;
        let tmp = tempfile::Builder::new()
            .prefix(&staging_prefix(path))
            .suffix(".tmp")
            .tempfile_in(&parent)
            .map_err(|e| CorpusError::io(&parent, e))?;
        Ok(OutputTarget {
            dest: path.to_path_buf(),
            overwrite: opts.overwrite,
            stage: Stage::File(BufWriter::with_capacity(WRITE_BUF, tmp)),
        })
    }

    /// A directory, staged as a hidden temporary directory in the same parent.
    pub fn dir(path: &Path, opts: &OutputOptions) -> Result<Self, CorpusError> {
        let parent = check_dest(path, opts, true)?;
        let tmp = tempfile::Builder::new()
            .prefix(&staging_prefix(path))
            .tempdir_in(&parent)
            .map_err(|e| CorpusError::io(&parent, e))?;
        Ok(OutputTarget {
            dest: path.to_path_buf(),
            overwrite: opts.overwrite,
            stage: Stage::Dir(tmp),
        })
    }

    /// The usual target for writing `format` to `spec`: stdout for `-`; a directory for brat,
    /// and for text when the input was a directory (a `.txt` per document); else a file.
    pub fn for_format(
        spec: &Path,
        format: Format,
        input_is_dir: bool,
        opts: &OutputOptions,
    ) -> Result<Self, CorpusError> {
        let wants_dir = format == Format::Brat || (format == Format::Text && input_is_dir);
        match (is_stdio(spec), wants_dir) {
            (true, false) => Ok(OutputTarget::stdout()),
            (true, true) => Err(CorpusError::file(
                "<stdout>",
                "this output is a directory; give a directory path instead of '-'",
            )),
            (false, true) => OutputTarget::dir(spec, opts),
            (false, false) => OutputTarget::file(spec, opts),
        }
    }

    pub fn kind(&self) -> TargetKind {
        match self.stage {
            Stage::File(_) => TargetKind::File,
            Stage::Dir(_) => TargetKind::Dir,
            Stage::Stdout(_) => TargetKind::Stdout,
        }
    }

    /// The destination as named in errors (`<stdout>` for stdout).
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// The byte stream of a file or stdout target.
    pub fn stream(&mut self) -> Option<&mut dyn Write> {
        match &mut self.stage {
            Stage::File(w) => Some(w),
            Stage::Stdout(w) => Some(w),
            Stage::Dir(_) => None,
        }
    }

    /// The staging directory of a directory target, where documents are written.
    pub fn staging_dir(&self) -> Option<&Path> {
        match &self.stage {
            Stage::Dir(d) => Some(d.path()),
            _ => None,
        }
    }

    /// Creates `<name>` inside the staging directory; an existing name is an error.
    pub fn create_in_dir(&self, name: &str) -> Result<BufWriter<File>, CorpusError> {
        let dir = self.staging_dir().ok_or_else(|| {
            CorpusError::file(&self.dest, "this output is a single file, not a directory")
        })?;
        let path = dir.join(name);
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                let shown = self.dest.join(name);
                if e.kind() == ErrorKind::AlreadyExists {
                    CorpusError::file(shown, "written twice (duplicate document id?)")
                } else {
                    CorpusError::io(shown, e)
                }
            })?;
        Ok(BufWriter::with_capacity(WRITE_BUF, f))
    }

    /// Moves the staged output into place (flushes stdout).
    pub fn commit(self) -> Result<(), CorpusError> {
        let dest = self.dest;
        let io_err = |e: io::Error| CorpusError::io(&dest, e);
        match self.stage {
            Stage::Stdout(mut w) => w.flush().map_err(io_err),
            Stage::File(w) => {
                let tmp = w.into_inner().map_err(|e| io_err(e.into_error()))?;
                tmp.as_file().sync_all().map_err(io_err)?;
                let persisted = if self.overwrite {
                    tmp.persist(&dest)
                } else {
                    tmp.persist_noclobber(&dest)
                };
                persisted.map(drop).map_err(|e| {
                    if e.error.kind() == ErrorKind::AlreadyExists {
                        exists_error(&dest)
                    } else {
                        io_err(e.error)
                    }
                })
            }
            Stage::Dir(tmp) => commit_dir(tmp, &dest, self.overwrite),
        }
    }
}

fn commit_dir(tmp: TempDir, dest: &Path, overwrite: bool) -> Result<(), CorpusError> {
    let io_err = |e: io::Error| CorpusError::io(dest, e);
    if !dest.exists() {
        // On failure `tmp` is dropped here, which removes the staged directory.
        fs::rename(tmp.path(), dest).map_err(io_err)?;
        let _ = tmp.keep();
        return Ok(());
    }
    if !overwrite {
        return Err(exists_error(dest));
    }
    if !dest.is_dir() {
        return Err(CorpusError::file(dest, "exists and is not a directory"));
    }
    // Move the old directory aside into a trash dir (removed when dropped), then rename the
    // new one in; restore the old one if that fails.
    let parent = parent_of(dest);
    let trash = tempfile::Builder::new()
        .prefix(&staging_prefix(dest))
        .tempdir_in(&parent)
        .map_err(|e| CorpusError::io(&parent, e))?;
    let old = trash.path().join("old");
    fs::rename(dest, &old).map_err(io_err)?;
    match fs::rename(tmp.path(), dest) {
        Ok(()) => {
            let _ = tmp.keep();
            Ok(())
        }
        Err(e) => {
            let _ = fs::rename(&old, dest);
            Err(io_err(e))
        }
    }
}

fn exists_error(dest: &Path) -> CorpusError {
    CorpusError::file(dest, "already exists (set overwrite to replace it)")
}

fn staging_prefix(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    format!(".{name}.")
}

fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Checks a destination before staging; returns its parent directory.
fn check_dest(path: &Path, opts: &OutputOptions, dir: bool) -> Result<PathBuf, CorpusError> {
    if path.file_name().is_none() {
        return Err(CorpusError::file(path, "not a valid output path"));
    }
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !opts.overwrite {
            return Err(exists_error(path));
        }
        if meta.is_dir() != dir {
            let what = if dir { "a directory" } else { "a file" };
            return Err(CorpusError::file(
                path,
                format!("exists and is not {what}; refusing to replace it"),
            ));
        }
    }
    // Missing parent directories are created (as `mkdir -p` would): `--out runs/7/pred` works
    // on a fresh tree. Only directories are made here; no output appears before commit.
    let parent = parent_of(path);
    fs::create_dir_all(&parent).map_err(|e| CorpusError::io(&parent, e))?;
    Ok(parent)
}

/// Canonical form of a path that may not exist yet (its parent must).
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
                // The parent does not exist yet either (it is created at staging): resolve upward.
                Ok(canonical(&parent)?.join(name))
            }
        }
    }
}

/// Refuses an output that is an input, lies inside an input directory, or would replace a
/// directory holding an input. `-` (stdin/stdout) is ignored on either side.
pub fn ensure_not_input(out: &Path, inputs: &[&Path]) -> Result<(), CorpusError> {
    if is_stdio(out) {
        return Ok(());
    }
    let out_c = canonical(out).map_err(|e| CorpusError::io(out, e))?;
    for input in inputs.iter().filter(|p| !is_stdio(p)) {
        let in_c = input
            .canonicalize()
            .map_err(|e| CorpusError::io(input, e))?;
        let why = if in_c == out_c {
            Some("is also an input; refusing to overwrite it")
        } else if in_c.starts_with(&out_c) {
            Some("is a directory holding an input; refusing to replace it")
        } else if out_c.starts_with(&in_c) {
            Some("lies inside an input directory; write it elsewhere")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(CorpusError::file(out, why));
        }
    }
    Ok(())
}

/// The file name for a document written into an output directory: `<id>.<ext>`. Ids that
/// could escape the directory or are not portable file names are refused.
pub fn doc_file_name(id: &str, ext: &str) -> Result<String, CorpusError> {
    let bad = id.is_empty()
        || id.starts_with('.')
        || id.len() > 200
        || id
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '\0') || c.is_control());
    if bad {
        return Err(CorpusError::doc(
            id,
            "id is not usable as a file name (empty, leading '.', path separator, control \
             character or over 200 bytes)",
        ));
    }
    Ok(format!("{id}.{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_parent_directories_are_created() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        fs::write(&input, "x").unwrap();
        let dest = dir.path().join("runs/7/pred");
        ensure_not_input(&dest, &[input.as_path()]).unwrap();
        let t = OutputTarget::dir(&dest, &OutputOptions::default()).unwrap();
        t.commit().unwrap();
        assert!(dest.is_dir());
        // An output nested under a missing directory inside an input directory is still refused.
        let inside = dir.path().join("new/out.jsonl");
        assert!(ensure_not_input(&inside, &[dir.path()]).is_err());
    }

    #[test]
    fn file_appears_only_on_commit_and_vanishes_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.jsonl");
        let mut t = OutputTarget::file(&dest, &OutputOptions::default()).unwrap();
        t.stream().unwrap().write_all(b"{}\n").unwrap();
        assert!(!dest.exists());
        t.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"{}\n");

        let dest2 = dir.path().join("b.jsonl");
        let mut t = OutputTarget::file(&dest2, &OutputOptions::default()).unwrap();
        t.stream().unwrap().write_all(b"partial").unwrap();
        drop(t);
        assert!(!dest2.exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temp file left behind"
        );
    }

    #[test]
    fn refuses_existing_unless_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.txt");
        fs::write(&dest, "old").unwrap();
        let e = OutputTarget::file(&dest, &OutputOptions::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("already exists"), "{e}");
        let mut t = OutputTarget::file(&dest, &OutputOptions { overwrite: true }).unwrap();
        t.stream().unwrap().write_all(b"new").unwrap();
        t.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "new");
    }

    #[test]
    fn directory_commit_and_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("brat");
        let t = OutputTarget::dir(&dest, &OutputOptions::default()).unwrap();
        t.create_in_dir("a.txt").unwrap().write_all(b"A").unwrap();
        assert!(t.create_in_dir("a.txt").is_err());
        assert!(!dest.exists());
        t.commit().unwrap();
        assert_eq!(fs::read_to_string(dest.join("a.txt")).unwrap(), "A");

        assert!(OutputTarget::dir(&dest, &OutputOptions::default()).is_err());
        let t = OutputTarget::dir(&dest, &OutputOptions { overwrite: true }).unwrap();
        t.create_in_dir("b.txt").unwrap().write_all(b"B").unwrap();
        t.commit().unwrap();
        assert!(!dest.join("a.txt").exists());
        assert_eq!(fs::read_to_string(dest.join("b.txt")).unwrap(), "B");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "staging left behind"
        );

        let dropped = dir.path().join("never");
        let t = OutputTarget::dir(&dropped, &OutputOptions::default()).unwrap();
        t.create_in_dir("x.txt").unwrap();
        drop(t);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn ensure_not_input_cases() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        fs::write(&input, "x").unwrap();
        let sub = dir.path().join("corpus");
        fs::create_dir(&sub).unwrap();
        let dotted = dir.path().join("corpus/../in.txt");
        let cases: Vec<(PathBuf, &Path, bool)> = vec![
            (input.clone(), &input, false),
            (dotted, &input, false),
            (dir.path().join("out.txt"), &input, true),
            (sub.join("out.jsonl"), &sub, false),
            (dir.path().to_path_buf(), &sub, false),
            (PathBuf::from("-"), &input, true),
        ];
        for (out, inp, ok) in cases {
            assert_eq!(
                ensure_not_input(&out, &[inp]).is_ok(),
                ok,
                "{out:?} vs {inp:?}"
            );
        }
    }

    #[test]
    fn doc_file_names() {
        assert_eq!(doc_file_name("S0004-1", "txt").unwrap(), "S0004-1.txt");
        assert_eq!(doc_file_name("notes:12", "ann").unwrap(), "notes:12.ann");
        for bad in ["", "..", "../x", "a/b", "a\\b", ".hidden", "a\nb"] {
            assert!(doc_file_name(bad, "txt").is_err(), "{bad:?}");
        }
    }
}
