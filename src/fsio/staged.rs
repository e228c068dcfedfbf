//! Staged outputs: a file or directory written under a temporary name
//! (`.anonlm-tmp-<name>.XXXXXX`) in the destination's directory, fsynced, and published by
//! rename. Dropping an unpublished stage removes it.

use super::check::{check_dest, parent_of, refuse_special, Inputs};
use super::error::{FsError, Result};
use super::mode::{create_private_dir, dir_permissions, file_permissions, make_tree_private};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use tempfile::{NamedTempFile, TempDir};

/// Every temporary name this module creates starts with this.
pub const TMP_PREFIX: &str = ".anonlm-tmp-";
/// Random characters after the prefix (tempfile's default).
const RAND_LEN: usize = 6;
const WRITE_BUF: usize = 1 << 16;

fn tmp_prefix(dest: &Path) -> String {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    format!("{TMP_PREFIX}{name}.")
}

/// Where an old directory is parked while a new one replaces it. A crash between the two
/// renames leaves the old one here, complete; the next publish of `dest` removes it.
pub fn parked(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    parent_of(dest).join(format!(".anonlm-old-{name}"))
}

/// Best-effort fsync of a directory's entry list.
fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

/// Removes stale staging leftovers of `dest` (`.anonlm-tmp-<name>.XXXXXX`) from its
/// directory. Only call it while holding the lock on `dest`: a live run's stage looks the same.
pub fn clean_stale(dest: &Path) -> Result<()> {
    let prefix = tmp_prefix(dest);
    clean_matching(&parent_of(dest), |name| {
        name.strip_prefix(&prefix).is_some_and(|rest| {
            rest.len() == RAND_LEN && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// Removes every staging leftover (`.anonlm-tmp-*`) directly inside `dir`, for a run that
/// holds the lock on the whole directory.
pub fn clean_stale_in(dir: &Path) -> Result<()> {
    clean_matching(dir, |name| name.starts_with(TMP_PREFIX))
}

fn clean_matching(dir: &Path, stale: impl Fn(&str) -> bool) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(FsError::io(dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| FsError::io(dir, e))?;
        let name = entry.file_name();
        if !name.to_str().is_some_and(&stale) {
            continue;
        }
        let p = entry.path();
        let res = match entry.file_type() {
            Ok(t) if t.is_dir() => fs::remove_dir_all(&p),
            _ => fs::remove_file(&p),
        };
        res.map_err(|e| FsError::io(&p, e))?;
    }
    Ok(())
}

/// Creates the stage of `dest` in its directory (made 0700 when missing) with `make`, given a
/// builder that already carries the staging name.
fn stage_beside<T>(
    dest: &Path,
    make: impl FnOnce(&mut tempfile::Builder, &Path) -> io::Result<T>,
) -> Result<T> {
    let parent = parent_of(dest);
    create_private_dir(&parent)?;
    let prefix = tmp_prefix(dest);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).rand_bytes(RAND_LEN);
    make(&mut builder, &parent).map_err(|e| FsError::io(&parent, e))
}

/// A file being written; see the module docs.
pub struct StagedFile {
    dest: PathBuf,
    overwrite: bool,
    tmp: BufWriter<NamedTempFile>,
}

impl StagedFile {
    /// Checks `dest` (see [`check_dest`]) and opens its stage (mode 0600), creating missing
    /// parent directories (0700).
    pub fn new(dest: &Path, overwrite: bool, inputs: &Inputs) -> Result<Self> {
        check_dest(dest, false, overwrite, inputs)?;
        let tmp = stage_beside(dest, |b, parent| {
            b.permissions(file_permissions()).tempfile_in(parent)
        })?;
        Ok(StagedFile {
            dest: dest.to_path_buf(),
            overwrite,
            tmp: BufWriter::with_capacity(WRITE_BUF, tmp),
        })
    }

    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes and fsyncs the stage: after this only the rename is left.
    pub fn prepare(self) -> Result<Prepared> {
        let dest = self.dest;
        let tmp = self
            .tmp
            .into_inner()
            .map_err(|e| FsError::io(&dest, e.into_error()))?;
        tmp.as_file()
            .sync_all()
            .map_err(|e| FsError::io(&dest, e))?;
        Ok(Prepared {
            dest,
            overwrite: self.overwrite,
            stage: Stage::File(tmp),
        })
    }

    /// Publishes the file at its destination.
    pub fn publish(self) -> Result<()> {
        self.prepare()?.publish()
    }
}

impl Write for StagedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tmp.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.tmp.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.tmp.flush()
    }
}

/// A directory being filled; see the module docs.
pub struct StagedDir {
    dest: PathBuf,
    overwrite: bool,
    tmp: TempDir,
}

impl StagedDir {
    /// Checks `dest` and creates its stage (mode 0700) beside it.
    pub fn new(dest: &Path, overwrite: bool, inputs: &Inputs) -> Result<Self> {
        check_dest(dest, true, overwrite, inputs)?;
        let tmp = stage_beside(dest, |b, parent| {
            b.permissions(dir_permissions()).tempdir_in(parent)
        })?;
        Ok(StagedDir {
            dest: dest.to_path_buf(),
            overwrite,
            tmp,
        })
    }

    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// The stage itself, for code that writes files by path (model savers).
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Creates file `name` (0600) in the stage; an existing name is an error.
    pub fn create(&self, name: &str) -> Result<BufWriter<File>> {
        let path = self.tmp.path().join(name);
        let shown = self.dest.join(name);
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(super::mode::FILE_MODE)
            .open(&path)
            .map_err(|e| {
                if e.kind() == ErrorKind::AlreadyExists {
                    FsError::invalid(&shown, "written twice (duplicate document id?)")
                } else {
                    FsError::io(&shown, e)
                }
            })?;
        Ok(BufWriter::with_capacity(WRITE_BUF, f))
    }

    /// Writes a whole file `name` in the stage.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let mut f = self.create(name)?;
        f.write_all(bytes)
            .and_then(|()| f.flush())
            .map_err(|e| FsError::io(self.dest.join(name), e))
    }

    /// Copies file `from` into the stage as `name` (0600).
    pub fn copy_in(&self, name: &str, from: &Path) -> Result<()> {
        let mut src = File::open(from).map_err(|e| FsError::io(from, e))?;
        let mut f = self.create(name)?;
        io::copy(&mut src, &mut f)
            .and_then(|_| f.flush())
            .map_err(|e| FsError::io(self.dest.join(name), e))?;
        Ok(())
    }

    /// Makes every entry private and fsyncs the files: after this only the rename is left.
    pub fn prepare(self) -> Result<Prepared> {
        let dir = self.tmp.path();
        make_tree_private(dir)?;
        for entry in fs::read_dir(dir).map_err(|e| FsError::io(dir, e))? {
            let p = entry.map_err(|e| FsError::io(dir, e))?.path();
            if p.is_file() {
                File::open(&p)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| FsError::io(&p, e))?;
            }
        }
        sync_dir(dir);
        Ok(Prepared {
            dest: self.dest,
            overwrite: self.overwrite,
            stage: Stage::Dir(self.tmp),
        })
    }

    /// Publishes the directory at its destination.
    pub fn publish(self) -> Result<()> {
        self.prepare()?.publish()
    }
}

enum Stage {
    File(NamedTempFile),
    Dir(TempDir),
}

/// A flushed and fsynced stage waiting for its rename (dropping it removes the stage).
pub struct Prepared {
    dest: PathBuf,
    overwrite: bool,
    stage: Stage,
}

impl Prepared {
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    pub fn is_dir(&self) -> bool {
        matches!(self.stage, Stage::Dir(_))
    }

    /// Renames the stage onto its destination. The destination is checked again first: a
    /// special file or (without overwrite) any file that appeared meanwhile is never replaced.
    pub fn publish(self) -> Result<()> {
        let dest = self.dest;
        refuse_special(&dest)?;
        match self.stage {
            Stage::File(tmp) => {
                let done = if self.overwrite {
                    tmp.persist(&dest)
                } else {
                    tmp.persist_noclobber(&dest)
                };
                done.map_err(|e| {
                    if e.error.kind() == ErrorKind::AlreadyExists {
                        FsError::Exists { path: dest.clone() }
                    } else {
                        FsError::io(&dest, e.error)
                    }
                })?;
            }
            Stage::Dir(tmp) => publish_dir(tmp, &dest, self.overwrite)?,
        }
        sync_dir(&parent_of(&dest));
        Ok(())
    }
}

fn publish_dir(tmp: TempDir, dest: &Path, overwrite: bool) -> Result<()> {
    let old = parked(dest);
    if old.exists() {
        fs::remove_dir_all(&old).map_err(|e| FsError::io(&old, e))?;
    }
    if fs::symlink_metadata(dest).is_ok() {
        if !overwrite {
            return Err(FsError::Exists {
                path: dest.to_path_buf(),
            });
        }
        if !dest.is_dir() {
            return Err(FsError::WrongKind {
                path: dest.to_path_buf(),
                expected: "a directory",
            });
        }
        fs::rename(dest, &old).map_err(|e| FsError::io(dest, e))?;
    }
    // On failure `tmp` is dropped, which removes the stage; the old dir goes back.
    if let Err(e) = fs::rename(tmp.path(), dest) {
        if old.exists() {
            let _ = fs::rename(&old, dest);
        }
        return Err(FsError::io(dest, e));
    }
    let _ = tmp.keep();
    if old.exists() {
        fs::remove_dir_all(&old).map_err(|e| FsError::io(&old, e))?;
    }
    Ok(())
}

/// Replaces (or creates) `dest` with `bytes` as one staged file (0600): for files a command
/// owns whose `--overwrite` check was made once for the whole output (a model dir, a log).
pub fn replace_file(dest: &Path, bytes: &[u8]) -> Result<()> {
    write_file(dest, bytes, true, &Inputs::new())
}

/// Opens the existing regular file `path` for appending (a log that grows during a run; it
/// was created by [`write_file`]). Special files are refused.
pub fn open_append(path: &Path) -> Result<File> {
    refuse_special(path)?;
    OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| FsError::io(path, e))
}

/// A private (0700) scratch directory inside `dir`, removed when dropped, for libraries that
/// write files by path; its contents are then published with [`write_file`].
pub fn scratch_dir(dir: &Path) -> Result<TempDir> {
    create_private_dir(dir)?;
    tempfile::Builder::new()
        .prefix(TMP_PREFIX)
        .rand_bytes(RAND_LEN)
        .permissions(dir_permissions())
        .tempdir_in(dir)
        .map_err(|e| FsError::io(dir, e))
}

/// Writes `bytes` to `dest` as one staged file (0600), published by rename.
pub fn write_file(dest: &Path, bytes: &[u8], overwrite: bool, inputs: &Inputs) -> Result<()> {
    let mut f = StagedFile::new(dest, overwrite, inputs)?;
    f.write_all(bytes).map_err(|e| FsError::io(dest, e))?;
    f.publish()
}

/// Removes an output of an earlier run (a file, or a directory with everything in it) before
/// a stage writes it anew; a missing one is fine. Special files are never touched.
pub fn remove_output(path: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(FsError::io(path, e)),
    };
    let result = if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else if meta.is_file() || meta.file_type().is_symlink() {
        std::fs::remove_file(path)
    } else {
        return refuse_special(path);
    };
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(FsError::io(path, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(dir: &Path) -> Vec<String> {
        let entries = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name());
        let mut v: Vec<String> = entries.map(|n| n.into_string().unwrap()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_file_appears_only_when_published_and_is_private() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("sub/out.jsonl");
        let mut f = StagedFile::new(&dest, false, &Inputs::new()).unwrap();
        f.write_all(b"{}\n").unwrap();
        assert!(!dest.exists());
        f.publish().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"{}\n");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dest), 0o600);
        assert_eq!(mode(&root.path().join("sub")), 0o700);

        let dropped = root.path().join("sub/b.jsonl");
        let mut f = StagedFile::new(&dropped, false, &Inputs::new()).unwrap();
        f.write_all(b"partial").unwrap();
        drop(f);
        assert_eq!(names(&root.path().join("sub")), vec!["out.jsonl"]);
    }

    #[test]
    fn a_file_that_appeared_meanwhile_is_not_replaced_without_overwrite() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("a.json");
        let f = StagedFile::new(&dest, false, &Inputs::new()).unwrap();
        fs::write(&dest, "theirs").unwrap();
        assert!(matches!(f.publish(), Err(FsError::Exists { .. })));
        assert_eq!(fs::read_to_string(&dest).unwrap(), "theirs");
        assert_eq!(names(root.path()), vec!["a.json"]);
    }

    #[test]
    fn directories_are_replaced_whole() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("brat");
        for (i, name) in ["a.txt", "b.txt"].into_iter().enumerate() {
            let d = StagedDir::new(&dest, i > 0, &Inputs::new()).unwrap();
            d.write(name, name.as_bytes()).unwrap();
            assert!(d.create(name).is_err(), "a name is written once");
            d.publish().unwrap();
        }
        assert_eq!(names(&dest), vec!["b.txt"]);
        assert_eq!(names(root.path()), vec!["brat"]);
        let mode = fs::metadata(dest.join("b.txt"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn stale_stages_of_a_destination_are_cleaned() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("a.b");
        for n in [
            ".anonlm-tmp-a.b.Xy12zQ",
            ".anonlm-tmp-a.b.c.Xy12zQ",
            "a.b",
            "other",
        ] {
            fs::write(root.path().join(n), "").unwrap();
        }
        fs::create_dir(root.path().join(".anonlm-tmp-a.b.dir123")).unwrap();
        clean_stale(&dest).unwrap();
        assert_eq!(
            names(root.path()),
            vec![".anonlm-tmp-a.b.c.Xy12zQ", "a.b", "other"]
        );
        clean_stale_in(root.path()).unwrap();
        assert_eq!(names(root.path()), vec!["a.b", "other"]);
    }

    #[test]
    fn remove_output_takes_files_and_trees_and_never_a_special_file() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("out.jsonl");
        let tree = root.path().join("model");
        fs::write(&file, "x").unwrap();
        fs::create_dir_all(tree.join("checkpoint")).unwrap();
        fs::write(tree.join("checkpoint/state.json"), "{}").unwrap();
        remove_output(&file).unwrap();
        remove_output(&tree).unwrap();
        remove_output(&root.path().join("never-written")).unwrap();
        assert!(names(root.path()).is_empty());
        let e = remove_output(Path::new("/dev/null")).unwrap_err();
        assert!(matches!(e, FsError::Special { .. }), "{e}");
        assert!(Path::new("/dev/null").exists());
    }
}
