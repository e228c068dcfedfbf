//! Masked-LM loss: mean cross-entropy over labelled positions, built from differentiable ops.

use candle_core::{DType, Tensor, D};

/// Label value of positions that do not count (as in transformers).
pub const IGNORE_INDEX: i64 = -100;

/// Mean cross-entropy over positions whose label is not -100. logits f32 [batch, seq, vocab],
/// labels i64 [batch, seq]. With no labelled position the loss is a constant 0.
pub fn masked_lm_loss(logits: &Tensor, labels: &Tensor) -> candle_core::Result<Tensor> {
    let (b, t, v) = logits.dims3()?;
    if labels.dims2()? != (b, t) {
        candle_core::bail!(
            "labels shape {:?} differs from logits batch/seq {:?}",
            labels.dims(),
            (b, t)
        );
    }
    match labelled_positions(labels, v)? {
        None => Tensor::new(0f32, logits.device()),
        Some(at) => {
            let picked = logits.reshape((b * t, v))?.index_select(&at.rows, 0)?;
            cross_entropy(&picked, &at.targets)
        }
    }
}

/// The labelled positions of a batch, flattened: row `i` of the result is position
/// `rows[i]` of the [batch * seq] grid and must predict `targets[i]`.
#[derive(Debug, Clone)]
pub struct LabelledPositions {
    /// u32 [n]: flat indices into [batch * seq].
    pub rows: Tensor,
    /// u32 [n]: the original token ids.
    pub targets: Tensor,
}

/// Positions whose label is not -100 (labels i64 [batch, seq]); None when there are none.
/// A label outside `0..vocab` is an error.
pub fn labelled_positions(
    labels: &Tensor,
    vocab: usize,
) -> candle_core::Result<Option<LabelledPositions>> {
    let flat: Vec<i64> = labels.to_dtype(DType::I64)?.flatten_all()?.to_vec1()?;
    let mut rows = Vec::new();
    let mut targets = Vec::new();
    for (i, &l) in flat.iter().enumerate() {
        if l == IGNORE_INDEX {
            continue;
        }
        if l < 0 || l as usize >= vocab {
            candle_core::bail!("label {l} at position {i} is outside the vocabulary of {vocab}");
        }
        rows.push(i as u32);
        targets.push(l as u32);
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let n = rows.len();
    let device = labels.device();
    Ok(Some(LabelledPositions {
        rows: Tensor::from_vec(rows, n, device)?,
        targets: Tensor::from_vec(targets, n, device)?,
    }))
}

/// Mean cross-entropy of logits f32 [n, vocab] against targets u32 [n].
pub fn cross_entropy(logits: &Tensor, targets: &Tensor) -> candle_core::Result<Tensor> {
    let logp = candle_nn::ops::log_softmax(logits, D::Minus1)?;
    let nll = logp.gather(&targets.unsqueeze(1)?, 1)?.neg()?;
    nll.mean_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn matches_hand_computed_cross_entropy() {
        let dev = Device::Cpu;
        // one sequence, two positions, vocab 3; only position 1 labelled (target 2).
        let logits = Tensor::new(&[[[1f32, 2., 3.], [0.5, -1., 2.]]], &dev).unwrap();
        let labels = Tensor::new(&[[-100i64, 2]], &dev).unwrap();
        let loss: f32 = masked_lm_loss(&logits, &labels)
            .unwrap()
            .to_scalar()
            .unwrap();
        let z: f32 = [0.5f32, -1., 2.].iter().map(|x| x.exp()).sum();
        let expect = -(2f32.exp() / z).ln();
        assert!((loss - expect).abs() < 1e-6, "{loss} vs {expect}");
        let none = Tensor::new(&[[-100i64, -100]], &dev).unwrap();
        let zero: f32 = masked_lm_loss(&logits, &none).unwrap().to_scalar().unwrap();
        assert_eq!(zero, 0.0);
        let bad = Tensor::new(&[[3i64, -100]], &dev).unwrap();
        assert!(masked_lm_loss(&logits, &bad).is_err());
    }
}
