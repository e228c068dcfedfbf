//! The `anonlm` binary: parse flags, run the subcommand, map the outcome to an exit code
//! (0 success, 1 a checked threshold not met, 2 error). A panic prints its location only (its
//! message could quote a document) and exits 2; a closed stdout ends the run quietly with 0.

use clap::Parser;
use std::process::ExitCode;

/// Tensor ops allocate a fresh output buffer each; glibc's malloc maps large ones anew every
/// time, and the kernel's page faults and zeroing cost as much as the op itself. mimalloc
/// reuses them (measured: an 8M-element add 17.8 ms → 1.5 ms, a 4096×512×512 linear 30 → 22 ms).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_t` (libmimalloc-sys 0.1.49, pinned).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory stays with the process for reuse instead of going back to the kernel a
/// second later (v3's default delay): a training step frees and reallocates the same large
/// buffers, and each hand-back cost a fresh round of page faults and zeroing (RoBERTa-base
/// training on 2 cores: +38% tokens/s for 2-5% more peak memory). `MIMALLOC_PURGE_DELAY` in
/// the environment wins.
fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: called first thing in `main`, before any other thread exists.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    anonlm::panic_hook::install();
    // candle asks for the thread count on every matrix product and, without this variable,
    // reads /proc/cpuinfo each time (a fifth of the NER tagging time). Rayon's own default is
    // the same number, so setting it here, before any thread starts, changes nothing else.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::env::set_var("RAYON_NUM_THREADS", n.to_string());
    }
    let cli = anonlm::cli::Cli::parse();
    if anonlm::commands::prefers_serial_candle(&cli)
        && std::env::var_os("CANDLE_NUM_THREADS").is_none()
    {
        std::env::set_var("CANDLE_NUM_THREADS", "1");
    }
    match anonlm::commands::run(cli) {
        Ok(code) => code,
        Err(err) if closed_stdout(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("anonlm: error: {}", describe(&err));
            ExitCode::from(2)
        }
    }
}

/// True when the run stopped because the reader of stdout went away (`... | head`): like
/// ripgrep, that ends the run quietly with success.
fn closed_stdout(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes, each cause added only when the text so far does not already
/// carry it (our error types print their source inline, so `{:#}` would repeat it).
fn describe(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.is_empty() {
            text = part;
        } else if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is purge_delay's: its default in mimalloc v3's `options.c` (1000 ms, no
    /// other option has it), then our value.
    #[test]
    fn purge_delay_option_is_the_one_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            panic!("unset MIMALLOC_PURGE_DELAY to run this test");
        }
        // SAFETY: reads and writes one option; this test is the only code touching it.
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(before, 1000);
        keep_freed_memory();
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, -1);
    }
}
