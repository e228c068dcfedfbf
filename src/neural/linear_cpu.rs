//! A linear layer (`x · Wᵀ + b`) as one node of the autograd graph on the CPU: one matrix
//! product with the bias written first, and a backward pass of two products and a parallel
//! column sum.
//!
//! candle's `Linear` is five graph nodes in training (reshape, transpose, product, bias
//! broadcast, add); candle's backward pass gives every node input a zero-filled gradient
//! buffer plus an add, and sums the bias gradient on one thread. On a real-size encoder those
//! copies cost a fifth of a training step. Other devices and dtypes keep candle's `Linear`.

use candle_core::{CpuStorage, CustomOp3, Layout, Module, Shape, Tensor};
use candle_nn::Linear;

use super::kernels::{column_sums, f32_slice, on_cpu_f32};

struct Dense;

impl CustomOp3 for Dense {
    fn name(&self) -> &'static str {
        "anonlm-dense"
    }

    fn cpu_fwd(
        &self,
        x_s: &CpuStorage,
        x_l: &Layout,
        w_s: &CpuStorage,
        w_l: &Layout,
        b_s: &CpuStorage,
        b_l: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (x, w, bias) = (
            f32_slice(x_s, x_l)?,
            f32_slice(w_s, w_l)?,
            f32_slice(b_s, b_l)?,
        );
        let (out_dim, in_dim) = w_l.shape().dims2()?;
        let x_dims = x_l.shape().dims();
        if x_dims.last() != Some(&in_dim) || bias.len() != out_dim || in_dim == 0 {
            candle_core::bail!("dense: input, weight and bias sizes differ");
        }
        let rows = x.len() / in_dim;
        let mut out = Vec::with_capacity(rows * out_dim);
        for _ in 0..rows {
            out.extend_from_slice(bias);
        }
        // SAFETY: dst is rows × out_dim (row stride out_dim); lhs is x, rows × in_dim (row
        // stride in_dim); rhs is Wᵀ read from W [out_dim, in_dim] with swapped strides. All
        // three buffers hold exactly those elements, and only dst is written.
        unsafe {
            gemm::gemm(
                rows,
                out_dim,
                in_dim,
                out.as_mut_ptr(),
                1,
                out_dim as isize,
                true,
                x.as_ptr(),
                1,
                in_dim as isize,
                w.as_ptr(),
                in_dim as isize,
                1,
                1.0,
                1.0,
                false,
                false,
                false,
                parallelism(),
            );
        }
        let mut dims = x_dims.to_vec();
        *dims.last_mut().expect("checked above") = out_dim;
        Ok((CpuStorage::F32(out), Shape::from(dims)))
    }

    fn bwd(
        &self,
        x: &Tensor,
        w: &Tensor,
        _b: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> candle_core::Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (out_dim, in_dim) = w.dims2()?;
        let rows = x.elem_count() / in_dim;
        let g = grad.contiguous()?.reshape((rows, out_dim))?;
        let x2 = x.detach().reshape((rows, in_dim))?;
        let dx = g.matmul(&w.detach())?.reshape(x.shape())?;
        let dw = g.t()?.matmul(&x2)?;
        let db = column_sums(&g)?;
        Ok((Some(dx), Some(dw), Some(db)))
    }
}

/// The gemm crate's parallelism for a product on candle's threads.
fn parallelism() -> gemm::Parallelism {
    match rayon::current_num_threads() {
        0 | 1 => gemm::Parallelism::None,
        n => gemm::Parallelism::Rayon(n),
    }
}

/// `layer` applied to `x` [.., in]: one graph node for f32 on the CPU (with a bias), candle's
/// `Linear` elsewhere.
pub fn forward(layer: &Linear, x: &Tensor) -> candle_core::Result<Tensor> {
    let w = layer.weight();
    match layer.bias() {
        Some(b) if on_cpu_f32(x) && on_cpu_f32(w) && on_cpu_f32(b) => {
            x.contiguous()?
                .apply_op3(&w.contiguous()?, &b.contiguous()?, Dense)
        }
        _ => layer.forward(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neural::kernels::tests::max_diff;
    use candle_core::{Device, Var};

    /// Values and all three gradients equal candle's `Linear` on a 3-d input.
    #[test]
    fn dense_matches_candle_linear_with_gradients() -> candle_core::Result<()> {
        let dev = Device::Cpu;
        let x = Var::from_tensor(&Tensor::randn(0f32, 1.0, (3, 5, 7), &dev)?)?;
        let w = Var::from_tensor(&Tensor::randn(0f32, 1.0, (11, 7), &dev)?)?;
        let b = Var::from_tensor(&Tensor::randn(0f32, 1.0, 11, &dev)?)?;
        let probe = Tensor::randn(0f32, 1.0, (3, 5, 11), &dev)?;
        let layer = Linear::new(w.as_tensor().clone(), Some(b.as_tensor().clone()));
        let ours = forward(&layer, x.as_tensor())?;
        let theirs = layer.forward(x.as_tensor())?;
        assert_eq!(ours.dims(), &[3, 5, 11]);
        assert!(max_diff(&ours, &theirs)? < 1e-5);
        let g1 = (ours * &probe)?.sum_all()?.backward()?;
        let g2 = (theirs * &probe)?.sum_all()?.backward()?;
        for var in [&x, &w, &b] {
            let (a, c) = (
                g1.get(var.as_tensor()).expect("gradient"),
                g2.get(var.as_tensor()).expect("gradient"),
            );
            assert_eq!(a.dims(), c.dims());
            let d = max_diff(a, c)?;
            assert!(d < 1e-4, "{d}");
        }
        Ok(())
    }
}
