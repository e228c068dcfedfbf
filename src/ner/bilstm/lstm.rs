//! A one-direction LSTM layer over padded batches, and the index arithmetic that runs it
//! right-to-left over each row's own length.

use candle_core::{Module, Result, Tensor, D};
use candle_nn::{Init, Linear, VarBuilder};
use std::sync::Arc;

/// A linear layer with uniform ±1/√in initial weights (the seeded builder has no Kaiming).
pub fn uniform_linear(vb: VarBuilder, input: usize, output: usize) -> Result<Linear> {
    let bound = 1.0 / (input as f64).sqrt();
    let init = Init::Uniform {
        lo: -bound,
        up: bound,
    };
    let w = vb.get_with_hints((output, input), "weight", init)?;
    let b = vb.get_with_hints(output, "bias", init)?;
    Ok(Linear::new(w, Some(b)))
}

/// One LSTM direction: gates `i f o g` from the input and the previous hidden state.
pub struct Lstm {
    input: Linear,
    recurrent: Tensor,
    /// The recurrent weight transposed once, for a model that only tags (see
    /// [`Lstm::keep_transposed`]); training transposes at every step, as its weights move.
    recurrent_t: Option<Arc<Vec<f32>>>,
}

impl Lstm {
    pub fn new(vb: VarBuilder, input: usize, hidden: usize) -> Result<Self> {
        let bound = 1.0 / (hidden as f64).sqrt();
        let recurrent = vb.get_with_hints(
            (4 * hidden, hidden),
            "recurrent",
            Init::Uniform {
                lo: -bound,
                up: bound,
            },
        )?;
        Ok(Lstm {
            input: uniform_linear(vb.pp("input"), input, 4 * hidden)?,
            recurrent,
            recurrent_t: None,
        })
    }

    /// Transposes the recurrent weight once for all later calls: only for a model whose
    /// weights no longer change (a loaded tagger). Tagging one short document otherwise
    /// spent a tenth of its time transposing.
    pub fn keep_transposed(&mut self) -> Result<()> {
        let (_, hidden) = self.recurrent.dims2()?;
        let whh: Vec<f32> = self.recurrent.flatten_all()?.to_vec1()?;
        self.recurrent_t = Some(Arc::new(super::recurrence::transposed(&whh, hidden)));
        Ok(())
    }

    /// Runs left to right over `x` (batch, time, features) whose rows have the given
    /// `lengths`; returns (batch, time, hidden), zero after each row's length. Padding must
    /// come after each row's tokens, so it never reaches a real position.
    pub fn forward(&self, x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        // The input part of every gate for every step in one matrix product, then the
        // recurrence as one fused operation.
        let xw = self.input.forward(x)?;
        super::recurrence::recurrence(&xw, &self.recurrent, lengths, self.recurrent_t.clone())
    }
}

/// Row-major flat indices that reverse each row of a (rows, width) grid within its length and
/// leave the padding where it is. Applying it twice gives the identity.
pub fn reversal_index(lengths: &[usize], width: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(lengths.len() * width);
    for (row, &len) in lengths.iter().enumerate() {
        for p in 0..width {
            let q = if p < len { len - 1 - p } else { p };
            out.push((row * width + q) as u32);
        }
    }
    out
}

/// Flat index of each row's last real position.
pub fn last_index(lengths: &[usize], width: usize) -> Vec<u32> {
    lengths
        .iter()
        .enumerate()
        .map(|(row, &len)| (row * width + len.max(1) - 1) as u32)
        .collect()
}

/// Reorders the time axis of `x` (rows, width, features) by flat indices from
/// [`reversal_index`].
pub fn permute_time(x: &Tensor, index: &Tensor) -> Result<Tensor> {
    let (rows, width, features) = x.dims3()?;
    x.reshape((rows * width, features))?
        .index_select(index, 0)?
        .reshape((rows, width, features))
}

/// Both directions of a BiLSTM over padded rows of the given `lengths`: (rows, width,
/// 2·hidden).
pub fn bidirectional(
    forward: &Lstm,
    backward: &Lstm,
    x: &Tensor,
    reversal: &Tensor,
    lengths: &[usize],
) -> Result<Tensor> {
    let fwd = forward.forward(x, lengths)?;
    let bwd = permute_time(
        &backward.forward(&permute_time(x, reversal)?, lengths)?,
        reversal,
    )?;
    Tensor::cat(&[fwd, bwd], D::Minus1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};

    #[test]
    fn reversal_stays_within_each_length() {
        assert_eq!(reversal_index(&[3, 1], 3), vec![2, 1, 0, 3, 4, 5]);
        assert_eq!(last_index(&[3, 1], 3), vec![2, 3]);
    }

    #[test]
    fn padding_does_not_change_a_rows_outputs() {
        let varmap = candle_nn::VarMap::new();
        let vb = crate::neural::init::seeded_var_builder(&varmap, 3, DType::F32, &Device::Cpu);
        let (f, b) = (
            Lstm::new(vb.pp("f"), 2, 3).unwrap(),
            Lstm::new(vb.pp("b"), 2, 3).unwrap(),
        );
        let row: Vec<f32> = vec![0.5, -1.0, 0.25, 0.75];
        let alone = Tensor::from_vec(row.clone(), (1, 2, 2), &Device::Cpu).unwrap();
        let mut padded_data = row;
        padded_data.extend([9.0, 9.0]);
        let padded = Tensor::from_vec(padded_data, (1, 3, 2), &Device::Cpu).unwrap();
        let r1 = Tensor::from_vec(reversal_index(&[2], 2), 2, &Device::Cpu).unwrap();
        let r2 = Tensor::from_vec(reversal_index(&[2], 3), 3, &Device::Cpu).unwrap();
        let a = bidirectional(&f, &b, &alone, &r1, &[2]).unwrap();
        let p = bidirectional(&f, &b, &padded, &r2, &[2])
            .unwrap()
            .narrow(1, 0, 2)
            .unwrap();
        let diff = (a - p)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar::<f32>()
            .unwrap();
        assert!(diff < 1e-6, "{diff}");
    }
}
