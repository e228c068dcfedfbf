//! `RunLock`: an exclusive advisory lock (flock) on `<output>.lock`, held by a run for as long
//! as it writes that output, so a second run to the same output is refused, not interleaved.
//! The kernel drops the lock when the process dies, so a killed run never blocks the next.

use super::error::{FsError, Result};
use super::mode::FILE_MODE;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A held lock; dropping it removes the lock file and releases the lock.
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    _file: File,
}

/// The lock file guarding `output`.
pub fn lock_path(output: &Path) -> PathBuf {
    let mut name = output
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "out".into());
    name.push(".lock");
    output.with_file_name(name)
}

impl RunLock {
    /// Takes the lock on `output` (its parent directory must exist), or refuses at once when
    /// another run holds it.
    pub fn acquire(output: &Path) -> Result<Self> {
        let path = lock_path(output);
        // A holder that just finished unlinks the file it locked: a lock won on that unlinked
        // file guards nothing, so open the path again and retry.
        for _ in 0..8 {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(FILE_MODE)
                .open(&path)
                .map_err(|e| FsError::io(&path, e))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(FsError::Locked {
                        path: output.to_path_buf(),
                        lock: path,
                    })
                }
                Err(TryLockError::Error(e)) => return Err(FsError::io(&path, e)),
            }
            let held = file.metadata().map_err(|e| FsError::io(&path, e))?;
            let same = fs::metadata(&path)
                .is_ok_and(|now| now.dev() == held.dev() && now.ino() == held.ino());
            if same {
                return Ok(RunLock { path, _file: file });
            }
        }
        Err(FsError::Locked {
            path: output.to_path_buf(),
            lock: path,
        })
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Unlinked while still locked; the lock itself goes when the file closes.
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.jsonl");
        let first = RunLock::acquire(&out).unwrap();
        assert!(lock_path(&out).exists());
        let e = RunLock::acquire(&out).unwrap_err();
        assert!(matches!(e, FsError::Locked { .. }), "{e}");
        drop(first);
        assert!(!lock_path(&out).exists());
        let again = RunLock::acquire(&out).unwrap();
        drop(again);
    }
}
