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
    let labels: Vec<i64> = labels.to_dtype(DType::I64)?.flatten_all()?.to_vec1()?;
    let mut rows = Vec::new();
    let mut targets = Vec::new();
    for (i, &l) in labels.iter().enumerate() {
        if l == IGNORE_INDEX {
            continue;
        }
        if l < 0 || l as usize >= v {
            candle_core::bail!("label {l} at position {i} is outside the vocabulary of {v}");
        }
        rows.push(i as u32);
        targets.push(l as u32);
    }
    let device = logits.device();
    if rows.is_empty() {
        return Tensor::new(0f32, device);
    }
    let n = rows.len();
    let rows = Tensor::from_vec(rows, n, device)?;
    let targets = Tensor::from_vec(targets, (n, 1), device)?;
    let picked = logits.reshape((b * t, v))?.index_select(&rows, 0)?;
    let logp = candle_nn::ops::log_softmax(&picked, D::Minus1)?;
    let nll = logp.gather(&targets, 1)?.neg()?;
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
