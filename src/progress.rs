//! Progress bars on a terminal (stderr), silent when piped. Only counts, never document text.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar over input bytes when the total is known, a spinner counting documents otherwise.
pub fn bar(total_bytes: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    }
    match total_bytes {
        Some(n) => {
            let pb = ProgressBar::new(n);
            pb.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, {msg})",
                )
                .expect("valid template"),
            );
            pb
        }
        None => {
            let pb = ProgressBar::new_spinner();
            pb.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {pos} documents ({per_sec})",
                )
                .expect("valid template"),
            );
            pb
        }
    }
}

/// A bar over training steps, with the loss and tokens/s in its message.
pub fn steps_bar(total_steps: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    }
    let pb = ProgressBar::new(total_steps);
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} step {pos}/{len} ({eta} left) {msg}",
        )
        .expect("valid template"),
    );
    pb
}
