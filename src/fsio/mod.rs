//! `fsio`: the only code in the crate that creates, writes or renames output files.
//!
//! Outputs are staged under a temporary name in their destination's directory, fsynced and
//! published by rename ([`StagedFile`], [`StagedDir`]). Before anything is created a
//! destination is checked ([`check_dest`]): an existing output needs `overwrite`, an input of
//! the run ([`Inputs`]) and a special file (device, FIFO, socket) are always refused. Files are
//! created 0600 and directories 0700. The outputs of one run form an [`OutputSet`]: locked
//! against a concurrent run, published together, or not at all.

mod check;
mod error;
mod lock;
mod mode;
mod set;
mod staged;

pub use check::{check_dest, is_stdio, parent_of, refuse_special, Inputs};
pub use error::{FsError, Result};
pub use lock::{lock_path, RunLock};
pub use mode::{create_private_dir, make_tree_private, DIR_MODE, FILE_MODE};
pub use set::{Kind, OutputSet, Staged};
pub use staged::{
    clean_stale, clean_stale_in, open_append, parked, remove_output, replace_file, scratch_dir,
    write_file, Prepared, StagedDir, StagedFile, TMP_PREFIX,
};
