//! Learning-rate schedules: linear warm-up, then linear decay to zero at the last step, or
//! constant after the warm-up.

use serde::{Deserialize, Serialize};

/// Length of the warm-up, in optimizer steps or as a fraction of all steps.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Warmup {
    Steps(u64),
    Ratio(f64),
}

impl Warmup {
    /// Warm-up steps for a run of `total` steps (a ratio rounds to the nearest step).
    pub fn steps(self, total: u64) -> u64 {
        match self {
            Warmup::Steps(n) => n.min(total),
            Warmup::Ratio(r) => ((r.clamp(0.0, 1.0) * total as f64).round() as u64).min(total),
        }
    }
}

/// What happens after the warm-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decay {
    /// Linear decay from the peak to 0 at the last step.
    Linear,
    /// The peak rate until the end.
    Constant,
}

/// A learning-rate schedule over optimizer steps numbered from 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub peak: f64,
    pub warmup_steps: u64,
    pub total_steps: u64,
    pub decay: Decay,
}

impl Schedule {
    pub fn new(peak: f64, warmup: Warmup, total_steps: u64, decay: Decay) -> Self {
        Schedule {
            peak,
            warmup_steps: warmup.steps(total_steps),
            total_steps,
            decay,
        }
    }

    /// Learning rate of optimizer step `step` (1-based): `peak * step / warmup` during the
    /// warm-up (reaching the peak at step `warmup`), then `peak * (total - step) / (total -
    /// warmup)` for linear decay (0 at step `total`), or `peak` for constant.
    pub fn lr(&self, step: u64) -> f64 {
        let w = self.warmup_steps;
        if step <= w && w > 0 {
            return self.peak * step as f64 / w as f64;
        }
        match self.decay {
            Decay::Constant => self.peak,
            Decay::Linear => {
                let span = self.total_steps.saturating_sub(w);
                if span == 0 {
                    return 0.0;
                }
                let left = self.total_steps.saturating_sub(step);
                self.peak * left as f64 / span as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_warmup_then_linear_decay() {
        let s = Schedule::new(1e-3, Warmup::Steps(4), 12, Decay::Linear);
        let got: Vec<f64> = (1..=12).map(|t| s.lr(t)).collect();
        let want = [
            0.25e-3, 0.5e-3, 0.75e-3, 1e-3, 0.875e-3, 0.75e-3, 0.625e-3, 0.5e-3, 0.375e-3, 0.25e-3,
            0.125e-3, 0.0,
        ];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{got:?}");
        }
    }

    #[test]
    fn ratio_warmup_and_constant() {
        let s = Schedule::new(2.0, Warmup::Ratio(0.1), 100, Decay::Constant);
        assert_eq!(s.warmup_steps, 10);
        assert_eq!(s.lr(1), 0.2);
        assert_eq!(s.lr(5), 1.0);
        assert_eq!(s.lr(10), 2.0);
        assert_eq!(s.lr(11), 2.0);
        assert_eq!(s.lr(100), 2.0);
        let s = Schedule::new(2.0, Warmup::Ratio(0.06), 50, Decay::Linear);
        assert_eq!(s.warmup_steps, 3);
        assert_eq!(s.lr(3), 2.0);
        assert_eq!(s.lr(26), 2.0 * 24.0 / 47.0);
        assert_eq!(s.lr(50), 0.0);
    }

    #[test]
    fn no_warmup_starts_at_peak() {
        let s = Schedule::new(1.0, Warmup::Steps(0), 4, Decay::Linear);
        assert_eq!(
            (1..=4).map(|t| s.lr(t)).collect::<Vec<_>>(),
            [0.75, 0.5, 0.25, 0.0]
        );
    }
}
