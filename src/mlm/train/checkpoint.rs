//! Checkpoints: `checkpoint/` holds the model variables, the optimizer state, the best weights
//! so far and `trainer_state.json`; the directory is replaced atomically as a whole (through
//! [`crate::fsio::StagedDir`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::Tensor;
use candle_nn::VarMap;
use serde::{Deserialize, Serialize};

use super::error::{Result, TrainError};
use crate::neural::optim::AdamW;

/// Directory of the checkpoint inside the output directory.
pub const CHECKPOINT_DIR: &str = "checkpoint";
pub const MODEL_FILE: &str = "model.safetensors";
pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
pub const BEST_FILE: &str = "best.safetensors";
pub const STATE_FILE: &str = "trainer_state.json";

/// Everything besides tensors that a resumed run needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainerState {
    /// Optimizer steps done.
    pub step: u64,
    /// Planned optimizer steps.
    pub total_steps: u64,
    /// Epoch of the next micro-batch (0-based).
    pub epoch: u64,
    /// Data cursor: micro-batches consumed since the start (the next one is this index; its
    /// epoch and place in that epoch's shuffle follow from it).
    pub micro_batches_done: u64,
    /// Real tokens consumed.
    pub tokens_seen: u64,
    pub best_loss: Option<f64>,
    pub best_step: Option<u64>,
    /// Steps since the best held-out loss (the patience counter).
    pub steps_since_best: u64,
    pub last_eval_loss: Option<f64>,
    pub stopped_early: bool,
    pub finished: bool,
    /// Run seed. Masks, dropout and shuffles come from streams keyed by (seed, step, slot) or
    /// (seed, epoch): there is no other random state to save.
    pub seed: u64,
    pub rng: String,
    /// SHA-256 of the result-determining settings and the data digest.
    pub settings_hash: String,
    /// Those settings, to name what differs when a resume is refused.
    pub settings: serde_json::Value,
    pub data_digest: String,
}

/// The checkpoint directory under `out_dir`, or its parked copy when a crash interrupted a
/// replacement; `None` when there is none.
pub fn find(out_dir: &Path) -> Option<PathBuf> {
    let dir = out_dir.join(CHECKPOINT_DIR);
    if dir.join(STATE_FILE).is_file() {
        return Some(dir);
    }
    let old = crate::fsio::parked(&dir);
    old.join(STATE_FILE).is_file().then_some(old)
}

/// Reads `trainer_state.json` of checkpoint directory `dir`.
pub fn read_state(dir: &Path) -> Result<TrainerState> {
    let path = dir.join(STATE_FILE);
    let bytes = std::fs::read(&path).map_err(|e| TrainError::io(&path, e))?;
    serde_json::from_slice(&bytes).map_err(|source| TrainError::Json { path, source })
}

/// Writes a checkpoint of `varmap`, `opt`, the best weights and `state` under `out_dir`.
pub fn save(
    out_dir: &Path,
    state: &TrainerState,
    varmap: &VarMap,
    opt: &AdamW,
    best: Option<&HashMap<String, Tensor>>,
) -> Result<()> {
    let dest = out_dir.join(CHECKPOINT_DIR);
    // Replaced as a whole; a crash between the renames leaves the old one parked, complete.
    let tmp = crate::fsio::StagedDir::new(&dest, true, &crate::fsio::Inputs::new())?;
    varmap.save(tmp.path().join(MODEL_FILE))?;
    opt.save(&tmp.path().join(OPTIMIZER_FILE))?;
    if let Some(best) = best {
        candle_core::safetensors::save(best, tmp.path().join(BEST_FILE))?;
    }
    let mut json = serde_json::to_vec_pretty(state).expect("state serializes");
    json.push(b'\n');
    tmp.write(STATE_FILE, &json)?;
    Ok(tmp.publish()?)
}

/// Copies of the current values of every variable (not views: `Var::set` writes in place).
pub fn snapshot(varmap: &VarMap) -> Result<HashMap<String, Tensor>> {
    let data = varmap.data().lock().expect("var map lock");
    let mut out = HashMap::with_capacity(data.len());
    for (k, v) in data.iter() {
        out.insert(k.clone(), v.as_tensor().copy()?);
    }
    Ok(out)
}

/// Sets every variable of `varmap` from `values`, which must hold exactly its names and shapes.
pub fn restore(varmap: &VarMap, values: &HashMap<String, Tensor>, source: &Path) -> Result<()> {
    let data = varmap.data().lock().expect("var map lock");
    let bad = |message: String| TrainError::Checkpoint {
        path: source.to_path_buf(),
        message,
    };
    if values.len() != data.len() {
        return Err(bad(format!(
            "holds {} tensors, the model has {} variables",
            values.len(),
            data.len()
        )));
    }
    for (name, var) in data.iter() {
        let t = values
            .get(name)
            .ok_or_else(|| bad(format!("lacks the variable `{name}`")))?;
        if t.dims() != var.dims() {
            return Err(bad(format!(
                "`{name}` has shape {:?}, the model {:?}",
                t.dims(),
                var.dims()
            )));
        }
        var.set(&t.to_dtype(var.dtype())?)?;
    }
    Ok(())
}

/// Loads a safetensors file of variables onto the device of `varmap`'s variables.
pub fn load_tensors(varmap: &VarMap, path: &Path) -> Result<HashMap<String, Tensor>> {
    let device = varmap
        .all_vars()
        .first()
        .map(|v| v.device().clone())
        .unwrap_or(candle_core::Device::Cpu);
    Ok(candle_core::safetensors::load(path, &device)?)
}
