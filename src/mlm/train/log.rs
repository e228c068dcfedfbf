//! The JSONL training log: one object per optimizer step and per evaluation, appended; on
//! resume cut back to the checkpoint's step so no step appears twice.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Result, TrainError};

/// File name of the log inside the output directory.
pub const LOG_FILE: &str = "train_log.jsonl";

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogLine {
    Step {
        step: u64,
        epoch: f64,
        loss: f64,
        lr: f64,
        grad_norm: f64,
        tokens: u64,
        masked: u64,
        tokens_per_s: f64,
    },
    Eval {
        step: u64,
        held_out_loss: f64,
        best_loss: f64,
        best_step: u64,
        held_out_blocks: usize,
    },
    /// The last line of a run that reached its end (last step or early stop).
    Summary {
        step: u64,
        best_step: Option<u64>,
        best_loss: Option<f64>,
        last_eval_loss: Option<f64>,
        /// Held-out cross-entropy under the training tokens' unigram distribution: the loss
        /// of a model that ignores context, to judge the held-out loss against.
        unigram_baseline: f64,
        stopped_early: bool,
    },
}

impl LogLine {
    pub fn step(&self) -> u64 {
        match self {
            LogLine::Step { step, .. }
            | LogLine::Eval { step, .. }
            | LogLine::Summary { step, .. } => *step,
        }
    }
}

/// The summary line of the log in `dir` (the last line of a run that reached its end), read
/// as the typed [`LogLine`]; `None` when there is no log or the run did not finish.
pub fn read_summary(dir: &Path) -> std::result::Result<Option<LogLine>, crate::error::InputError> {
    let path = dir.join(LOG_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(crate::error::InputError::io(&path, e)),
    };
    let lines: Vec<&str> = text.lines().collect();
    let Some((i, line)) = lines
        .iter()
        .enumerate()
        .rev()
        .find(|(_, l)| !l.trim().is_empty())
    else {
        return Ok(None);
    };
    let parsed: LogLine = serde_json::from_str(line)
        .map_err(|e| crate::error::InputError::line(&path, i + 1, crate::error::json_kind(&e)))?;
    Ok(matches!(parsed, LogLine::Summary { .. }).then_some(parsed))
}

/// An open log, appending.
pub struct TrainLog {
    path: PathBuf,
    file: File,
}

impl TrainLog {
    /// Starts an empty log at `path` (replacing an old one).
    pub fn create(path: &Path) -> Result<Self> {
        write_private(path, b"")?;
        Self::append_to(path)
    }

    /// Keeps the lines of `path` whose step is at most `step` (rewritten atomically), then
    /// appends. A missing log starts empty.
    pub fn resume(path: &Path, step: u64) -> Result<Self> {
        let mut kept = Vec::new();
        if path.exists() {
            let f = File::open(path).map_err(|e| TrainError::io(path, e))?;
            for (i, line) in BufReader::new(f).lines().enumerate() {
                let line = line.map_err(|e| TrainError::io(path, e))?;
                if line.trim().is_empty() {
                    continue;
                }
                let v: serde_json::Value = match serde_json::from_str(&line) {
                    Ok(v) => v,
                    // A line cut short by a crash ends the usable log.
                    Err(_) => break,
                };
                let s = v.get("step").and_then(|s| s.as_u64()).ok_or_else(|| {
                    TrainError::Checkpoint {
                        path: path.to_path_buf(),
                        message: format!("line {} has no step", i + 1),
                    }
                })?;
                if s <= step {
                    kept.extend_from_slice(line.as_bytes());
                    kept.push(b'\n');
                }
            }
        }
        write_private(path, &kept)?;
        Self::append_to(path)
    }

    fn append_to(path: &Path) -> Result<Self> {
        let file = crate::fsio::open_append(path)?;
        Ok(TrainLog {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Appends one line and flushes it.
    pub fn write(&mut self, line: &LogLine) -> Result<()> {
        let mut bytes = serde_json::to_vec(line).expect("log line serializes");
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .and_then(|_| self.file.flush())
            .map_err(|e| TrainError::io(&self.path, e))
    }
}

/// Replaces `path` by a staged file holding `bytes` (0600).
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(crate::fsio::replace_file(path, bytes)?)
}

/// Reads every line of a log.
pub fn read(path: &Path) -> Result<Vec<LogLine>> {
    let f = File::open(path).map_err(|e| TrainError::io(path, e))?;
    let mut out = Vec::new();
    for line in BufReader::new(f).lines() {
        let line = line.map_err(|e| TrainError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(
            serde_json::from_str(&line).map_err(|source| TrainError::Json {
                path: path.to_path_buf(),
                source,
            })?,
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(step: u64) -> LogLine {
        LogLine::Step {
            step,
            epoch: 0.0,
            loss: step as f64,
            lr: 0.1,
            grad_norm: 1.0,
            tokens: 10,
            masked: 2,
            tokens_per_s: 5.0,
        }
    }

    #[test]
    fn resume_truncates_to_the_checkpoint_step() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(LOG_FILE);
        let mut log = TrainLog::create(&p).unwrap();
        for s in 1..=7 {
            log.write(&step(s)).unwrap();
        }
        drop(log);
        let mut log = TrainLog::resume(&p, 5).unwrap();
        log.write(&step(6)).unwrap();
        let steps: Vec<u64> = read(&p).unwrap().iter().map(|l| l.step()).collect();
        assert_eq!(steps, vec![1, 2, 3, 4, 5, 6]);
    }
}
