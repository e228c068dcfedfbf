//! `OutputSet`: the outputs of one run as one unit. Every destination is checked before any is
//! created, the set is locked against concurrent runs, each output is staged, and they are
//! published together only when all of them staged fine; otherwise every stage is removed.

use super::check::{check_dest, is_stdio, parent_of, Inputs};
use super::error::Result;
use super::lock::RunLock;
use super::mode::create_private_dir;
use super::staged::{clean_stale, Prepared, StagedDir, StagedFile};
use std::path::{Path, PathBuf};

/// Whether a destination is a file or a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
}

/// A stage that belongs to a set.
pub enum Staged {
    File(StagedFile),
    Dir(StagedDir),
}

impl From<StagedFile> for Staged {
    fn from(f: StagedFile) -> Self {
        Staged::File(f)
    }
}

impl From<StagedDir> for Staged {
    fn from(d: StagedDir) -> Self {
        Staged::Dir(d)
    }
}

impl Staged {
    fn prepare(self) -> Result<Prepared> {
        match self {
            Staged::File(f) => f.prepare(),
            Staged::Dir(d) => d.prepare(),
        }
    }
}

/// The claimed outputs of a run; see the module docs.
#[derive(Debug)]
pub struct OutputSet {
    overwrite: bool,
    inputs: Inputs,
    dests: Vec<PathBuf>,
    _lock: Option<RunLock>,
}

impl OutputSet {
    /// Checks every destination (`-` is skipped), then locks the set on the first real one
    /// and removes stale stages of all of them. Nothing is created when a check fails.
    pub fn claim(dests: &[(&Path, Kind)], overwrite: bool, inputs: Inputs) -> Result<Self> {
        let real: Vec<(&Path, Kind)> = dests
            .iter()
            .copied()
            .filter(|(p, _)| !is_stdio(p))
            .collect();
        for (p, kind) in &real {
            check_dest(p, *kind == Kind::Dir, overwrite, &inputs)?;
        }
        let lock = match real.first() {
            Some((first, _)) => {
                create_private_dir(&parent_of(first))?;
                Some(RunLock::acquire(first)?)
            }
            None => None,
        };
        // Checked again under the lock: a run that held it may have just published.
        for (p, kind) in &real {
            check_dest(p, *kind == Kind::Dir, overwrite, &inputs)?;
            clean_stale(p)?;
        }
        Ok(OutputSet {
            overwrite,
            inputs,
            dests: real.iter().map(|(p, _)| p.to_path_buf()).collect(),
            _lock: lock,
        })
    }

    pub fn overwrite(&self) -> bool {
        self.overwrite
    }

    pub fn inputs(&self) -> &Inputs {
        &self.inputs
    }

    /// Stages file `dest`, which must have been claimed.
    pub fn file(&self, dest: &Path) -> Result<StagedFile> {
        self.ensure_claimed(dest)?;
        StagedFile::new(dest, self.overwrite, &self.inputs)
    }

    /// Stages directory `dest`, which must have been claimed.
    pub fn dir(&self, dest: &Path) -> Result<StagedDir> {
        self.ensure_claimed(dest)?;
        StagedDir::new(dest, self.overwrite, &self.inputs)
    }

    fn ensure_claimed(&self, dest: &Path) -> Result<()> {
        if self.dests.iter().any(|d| d == dest) {
            Ok(())
        } else {
            Err(super::FsError::invalid(
                dest,
                "internal error: output staged without being claimed",
            ))
        }
    }

    /// Flushes and fsyncs every stage, and only when all succeeded renames each onto its
    /// destination; then releases the lock. On error every stage not yet published is removed.
    pub fn publish(self, stages: Vec<Staged>) -> Result<()> {
        let prepared = stages
            .into_iter()
            .map(Staged::prepare)
            .collect::<Result<Vec<_>>>()?;
        for p in &prepared {
            check_dest(p.dest(), p.is_dir(), self.overwrite, &self.inputs)?;
        }
        for p in prepared {
            p.publish()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn all_or_nothing() {
        let root = tempfile::tempdir().unwrap();
        let a = root.path().join("a.jsonl");
        let b = root.path().join("b.json");
        let set =
            OutputSet::claim(&[(&a, Kind::File), (&b, Kind::File)], false, Inputs::new()).unwrap();
        let mut fa = set.file(&a).unwrap();
        fa.write_all(b"a").unwrap();
        let fb = set.file(&b).unwrap();
        // Someone else writes b meanwhile: nothing of this run is published.
        std::fs::write(&b, "theirs").unwrap();
        assert!(set.publish(vec![fa.into(), fb.into()]).is_err());
        assert!(!a.exists());
        let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only b remains: {left:?}");
    }

    #[test]
    fn a_claimed_set_is_refused_to_a_second_run() {
        let root = tempfile::tempdir().unwrap();
        let a = root.path().join("a.jsonl");
        let first = OutputSet::claim(&[(&a, Kind::File)], true, Inputs::new()).unwrap();
        let e = OutputSet::claim(&[(&a, Kind::File)], true, Inputs::new()).unwrap_err();
        assert!(e.to_string().contains("another anonlm run"), "{e}");
        let f = first.file(&a).unwrap();
        first.publish(vec![f.into()]).unwrap();
        assert!(a.exists());
    }

    #[test]
    fn a_special_file_refuses_the_whole_set_and_nothing_is_created() {
        let root = tempfile::tempdir().unwrap();
        let side = root.path().join("side.json");
        let e = OutputSet::claim(
            &[(Path::new("/dev/null"), Kind::File), (&side, Kind::File)],
            true,
            Inputs::new(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    }
}
