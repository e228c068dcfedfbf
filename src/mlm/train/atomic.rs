//! Atomic outputs: files written to a temporary sibling, fsynced and renamed into place, and
//! directories replaced as a whole (temp dir → rename), so a crash never leaves half a file.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::{Result, TrainError};

/// Writes `bytes` to `path` atomically (temp file in the same directory, fsync, rename).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent(path);
    fs::create_dir_all(&dir).map_err(|e| TrainError::io(&dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|e| TrainError::io(&dir, e))?;
    tmp.write_all(bytes).map_err(|e| TrainError::io(path, e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| TrainError::io(path, e))?;
    tmp.persist(path)
        .map_err(|e| TrainError::io(path, e.error))?;
    sync_dir(&dir);
    Ok(())
}

/// A fresh temporary directory next to `dest`, to be filled and passed to [`replace_dir`].
pub fn temp_dir_for(dest: &Path) -> Result<tempfile::TempDir> {
    let dir = parent(dest);
    fs::create_dir_all(&dir).map_err(|e| TrainError::io(&dir, e))?;
    let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("dir");
    tempfile::Builder::new()
        .prefix(&format!(".{name}.tmp"))
        .tempdir_in(&dir)
        .map_err(|e| TrainError::io(&dir, e))
}

/// The path an old copy of `dest` is parked at while it is replaced.
pub fn old_path(dest: &Path) -> PathBuf {
    let name = dest.file_name().and_then(|n| n.to_str()).unwrap_or("dir");
    parent(dest).join(format!("{name}.old"))
}

/// Replaces directory `dest` by the filled temporary directory `tmp`: fsyncs its files, parks
/// the old `dest` at [`old_path`], renames `tmp` to `dest`, then deletes the old copy. At every
/// instant either `dest` or its parked copy is complete.
pub fn replace_dir(tmp: tempfile::TempDir, dest: &Path) -> Result<()> {
    let src = tmp.keep();
    for entry in fs::read_dir(&src).map_err(|e| TrainError::io(&src, e))? {
        let p = entry.map_err(|e| TrainError::io(&src, e))?.path();
        File::open(&p)
            .and_then(|f| f.sync_all())
            .map_err(|e| TrainError::io(&p, e))?;
    }
    sync_dir(&src);
    let old = old_path(dest);
    if old.exists() {
        fs::remove_dir_all(&old).map_err(|e| TrainError::io(&old, e))?;
    }
    if dest.exists() {
        fs::rename(dest, &old).map_err(|e| TrainError::io(dest, e))?;
    }
    fs::rename(&src, dest).map_err(|e| TrainError::io(dest, e))?;
    sync_dir(&parent(dest));
    if old.exists() {
        fs::remove_dir_all(&old).map_err(|e| TrainError::io(&old, e))?;
    }
    Ok(())
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Best-effort fsync of a directory entry list (not supported everywhere; errors ignored).
fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_dirs_are_replaced_whole() {
        let root = tempfile::tempdir().unwrap();
        let f = root.path().join("a.json");
        write_file(&f, b"one").unwrap();
        write_file(&f, b"two").unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"two");
        let d = root.path().join("ckpt");
        for content in ["first", "second"] {
            let tmp = temp_dir_for(&d).unwrap();
            fs::write(tmp.path().join("x"), content).unwrap();
            replace_dir(tmp, &d).unwrap();
            assert_eq!(fs::read_to_string(d.join("x")).unwrap(), content);
        }
        assert!(!old_path(&d).exists());
        let names: Vec<_> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temp leftovers: {names:?}");
    }
}
