//! Corpus output targets: a file, directory or stdout, staged through [`crate::fsio`] and
//! published only on `commit()` (or together with the run's other outputs, see
//! [`OutputTarget::into_staged`]). Standard output cannot be staged: what was written is written.

use super::CorpusError;
use super::Format;
use crate::fsio::{self, Inputs, OutputSet, StagedDir, StagedFile};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// How existing outputs are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputOptions {
    /// Replace an existing output file or directory (never an input nor a special file).
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
    File(StagedFile),
    Dir(StagedDir),
    Stdout(BufWriter<io::Stdout>),
}

/// An output file, directory or stdout; see the module docs.
pub struct OutputTarget {
    dest: PathBuf,
    stage: Stage,
}

const WRITE_BUF: usize = 1 << 16;

impl OutputTarget {
    /// Standard output (no staging).
    pub fn stdout() -> Self {
        OutputTarget {
            dest: PathBuf::from("<stdout>"),
            stage: Stage::Stdout(BufWriter::with_capacity(WRITE_BUF, io::stdout())),
        }
    }

    /// A file, staged beside its destination.
    pub fn file(path: &Path, opts: &OutputOptions) -> Result<Self, CorpusError> {
        Ok(Self::staged_file(StagedFile::new(
            path,
            opts.overwrite,
            &Inputs::new(),
        )?))
    }

    /// A directory, staged beside its destination.
    pub fn dir(path: &Path, opts: &OutputOptions) -> Result<Self, CorpusError> {
        Ok(Self::staged_dir(StagedDir::new(
            path,
            opts.overwrite,
            &Inputs::new(),
        )?))
    }

    fn staged_file(f: StagedFile) -> Self {
        OutputTarget {
            dest: f.dest().to_path_buf(),
            stage: Stage::File(f),
        }
    }

    fn staged_dir(d: StagedDir) -> Self {
        OutputTarget {
            dest: d.dest().to_path_buf(),
            stage: Stage::Dir(d),
        }
    }

    /// Whether writing `format` to `spec` needs a directory: brat always, and text when the
    /// input was a directory (a `.txt` per document).
    pub fn wants_dir(format: Format, input_is_dir: bool) -> bool {
        format == Format::Brat || (format == Format::Text && input_is_dir)
    }

    /// The usual target for writing `format` to `spec`: stdout for `-`; a directory for brat,
    /// and for text when the input was a directory (a `.txt` per document); else a file.
    pub fn for_format(
        spec: &Path,
        format: Format,
        input_is_dir: bool,
        opts: &OutputOptions,
    ) -> Result<Self, CorpusError> {
        match (fsio::is_stdio(spec), Self::wants_dir(format, input_is_dir)) {
            (true, false) => Ok(OutputTarget::stdout()),
            (true, true) => Err(stdout_dir_error()),
            (false, true) => OutputTarget::dir(spec, opts),
            (false, false) => OutputTarget::file(spec, opts),
        }
    }

    /// As [`for_format`](Self::for_format), staged in `set`, which must have claimed `spec`.
    pub fn in_set(
        set: &OutputSet,
        spec: &Path,
        format: Format,
        input_is_dir: bool,
    ) -> Result<Self, CorpusError> {
        match (fsio::is_stdio(spec), Self::wants_dir(format, input_is_dir)) {
            (true, false) => Ok(OutputTarget::stdout()),
            (true, true) => Err(stdout_dir_error()),
            (false, true) => Ok(Self::staged_dir(set.dir(spec)?)),
            (false, false) => Ok(Self::staged_file(set.file(spec)?)),
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

    /// Creates `<name>` (0600) inside the staging directory; an existing name is an error.
    pub fn create_in_dir(&self, name: &str) -> Result<BufWriter<File>, CorpusError> {
        match &self.stage {
            Stage::Dir(d) => Ok(d.create(name)?),
            _ => Err(CorpusError::file(
                &self.dest,
                "this output is a single file, not a directory",
            )),
        }
    }

    /// Moves the staged output into place (flushes stdout).
    pub fn commit(self) -> Result<(), CorpusError> {
        match self.stage {
            Stage::Stdout(mut w) => w.flush().map_err(|e| CorpusError::io(&self.dest, e)),
            Stage::File(f) => Ok(f.publish()?),
            Stage::Dir(d) => Ok(d.publish()?),
        }
    }

    /// The stage, for publishing with the run's other outputs (`None` for stdout, which is
    /// flushed here).
    pub fn into_staged(self) -> Result<Option<fsio::Staged>, CorpusError> {
        match self.stage {
            Stage::Stdout(mut w) => {
                w.flush().map_err(|e| CorpusError::io(&self.dest, e))?;
                Ok(None)
            }
            Stage::File(f) => Ok(Some(f.into())),
            Stage::Dir(d) => Ok(Some(d.into())),
        }
    }
}

fn stdout_dir_error() -> CorpusError {
    CorpusError::file(
        "<stdout>",
        "this output is a directory; give a directory path instead of '-'",
    )
}

/// Refuses an output that is an input, lies inside an input directory, or would replace a
/// directory holding an input. `-` (stdin/stdout) is ignored on either side.
pub fn ensure_not_input(out: &Path, inputs: &[&Path]) -> Result<(), CorpusError> {
    Ok(Inputs::of(inputs.iter().copied()).check(out)?)
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
    use std::fs;

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
