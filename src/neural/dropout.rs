//! Seeded dropout masks: ChaCha8 on the CPU (candle's CPU device cannot be seeded), the device's
//! own seeded generator on a GPU.

use candle_core::Tensor;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Source of dropout masks. The same seed gives the same masks for the same sequence of calls.
pub struct DropoutRng {
    rng: ChaCha8Rng,
    /// Whether a GPU's generator has been seeded from `rng` yet.
    device_seeded: bool,
}

impl DropoutRng {
    pub fn new(seed: u64) -> Self {
        DropoutRng {
            rng: ChaCha8Rng::seed_from_u64(seed),
            device_seeded: false,
        }
    }

    /// Inverted dropout: zero each element with probability `p`, scale the rest by 1/(1-p).
    /// `p <= 0` returns the input unchanged; `p >= 1` returns zeros.
    pub fn apply(&mut self, x: &Tensor, p: f32) -> candle_core::Result<Tensor> {
        if p <= 0.0 {
            return Ok(x.clone());
        }
        if p >= 1.0 {
            return x.zeros_like();
        }
        let scale = 1.0 / (1.0 - p);
        if !x.device().is_cpu() {
            // On a GPU the mask is drawn there: a mask drawn here on one core and copied over
            // the bus for every layer would cost more than the layer. The device generator is
            // seeded from this stream at the first mask, so a run repeats on the same GPU.
            if !self.device_seeded {
                x.device().set_seed(self.rng.gen())?;
                self.device_seeded = true;
            }
            let keep = Tensor::rand(0f32, 1f32, x.shape(), x.device())?.ge(p as f64)?;
            return x.mul(&(keep.to_dtype(x.dtype())? * scale as f64)?);
        }
        let mask = self.factors(x.elem_count(), p);
        let mask = Tensor::from_vec(mask, x.shape(), x.device())?.to_dtype(x.dtype())?;
        x.mul(&mask)
    }

    /// The CPU mask of [`DropoutRng::apply`] for `n` elements with `0 < p < 1`: 0 for a
    /// dropped element, 1/(1-p) for a kept one, drawn in element order.
    pub fn factors(&mut self, n: usize, p: f32) -> Vec<f32> {
        let scale = 1.0 / (1.0 - p);
        (0..n)
            .map(|_| {
                if self.rng.gen::<f32>() < p {
                    0.0
                } else {
                    scale
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn same_seed_same_mask_and_rate_near_p() {
        let x = Tensor::ones((100, 100), candle_core::DType::F32, &Device::Cpu).unwrap();
        let a = DropoutRng::new(7).apply(&x, 0.25).unwrap();
        let b = DropoutRng::new(7).apply(&x, 0.25).unwrap();
        let c = DropoutRng::new(8).apply(&x, 0.25).unwrap();
        let va: Vec<f32> = a.flatten_all().unwrap().to_vec1().unwrap();
        let vb: Vec<f32> = b.flatten_all().unwrap().to_vec1().unwrap();
        let vc: Vec<f32> = c.flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        let zeros = va.iter().filter(|v| **v == 0.0).count() as f64 / va.len() as f64;
        assert!((zeros - 0.25).abs() < 0.03, "drop rate {zeros}");
        let kept = va.iter().find(|v| **v != 0.0).unwrap();
        assert!((kept - 1.0 / 0.75).abs() < 1e-6);
        // p = 0 is the identity
        let same = DropoutRng::new(1).apply(&x, 0.0).unwrap();
        assert_eq!(same.sum_all().unwrap().to_scalar::<f32>().unwrap(), 10000.0);
    }
}
