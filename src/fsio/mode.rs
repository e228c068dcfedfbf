//! Private modes: files 0600 and directories 0700, set when they are created, because any
//! output may hold document text or names.

use super::error::{FsError, Result};
use std::fs::{self, DirBuilder, Permissions};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

pub const FILE_MODE: u32 = 0o600;
pub const DIR_MODE: u32 = 0o700;

pub fn file_permissions() -> Permissions {
    Permissions::from_mode(FILE_MODE)
}

pub fn dir_permissions() -> Permissions {
    Permissions::from_mode(DIR_MODE)
}

/// Creates `dir` and its missing parents, each new one 0700 (existing ones keep their mode).
pub fn create_private_dir(dir: &Path) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(|e| FsError::io(dir, e))
}

/// Sets 0600 on every file and 0700 on every directory under `root` (itself included): for
/// staged trees filled by code that creates files with default modes (candle, tokenizers).
pub fn make_tree_private(root: &Path) -> Result<()> {
    let meta = fs::symlink_metadata(root).map_err(|e| FsError::io(root, e))?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    if meta.is_dir() {
        fs::set_permissions(root, dir_permissions()).map_err(|e| FsError::io(root, e))?;
        for entry in fs::read_dir(root).map_err(|e| FsError::io(root, e))? {
            let p = entry.map_err(|e| FsError::io(root, e))?.path();
            make_tree_private(&p)?;
        }
    } else {
        fs::set_permissions(root, file_permissions()).map_err(|e| FsError::io(root, e))?;
    }
    Ok(())
}
