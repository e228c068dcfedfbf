//! `scripts/check_train_ddp.sh`: `scripts/train_ddp.py` on two gloo processes refuses damaged
//! data, lowers the loss below the unigram baseline, writes the files anonlm reads, and gives the
//! losses of one process with gradient accumulation. Needs ANONLM_PYTHON (torch, transformers);
//! `tests/it/audit_cli.rs` audits a model the script trained on shards of `mlm prepare`.

use std::path::Path;

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: trains a model or starts Spark; cargo test --release --features slow-tests"
)]
fn the_multi_process_trainer_passes_its_check() {
    let python = std::env::var_os("ANONLM_PYTHON")
        .expect("ANONLM_PYTHON: a python with torch and transformers (.ci/run makes .ci/venv)");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new(root.join("scripts/check_train_ddp.sh"))
        .arg(&python)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{text}");
    assert!(text.contains("ok: "), "{text}");
}
