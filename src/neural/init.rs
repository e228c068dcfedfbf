//! Seeded initial weights: candle's CPU device draws `Init::Randn` from an unseeded thread RNG,
//! so a new model's variables are made here instead, each from a ChaCha stream keyed by the
//! seed and the variable's name (the same seed gives the same model, in any creation order).

use candle_core::{DType, Device, Result, Shape, Tensor, Var};
use candle_nn::var_builder::SimpleBackend;
use candle_nn::{Init, VarBuilder, VarMap};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use sha2::{Digest, Sha256};

/// A builder whose new variables go into `varmap`, initialized from `seed`.
pub fn seeded_var_builder(
    varmap: &VarMap,
    seed: u64,
    dtype: DType,
    device: &Device,
) -> VarBuilder<'static> {
    let backend = SeededVarMap {
        map: varmap.clone(),
        seed,
    };
    VarBuilder::from_backend(Box::new(backend), dtype, device.clone())
}

struct SeededVarMap {
    map: VarMap,
    seed: u64,
}

impl SeededVarMap {
    fn rng(&self, name: &str) -> ChaCha8Rng {
        let digest = Sha256::new()
            .chain_update(b"anonlm-init\0")
            .chain_update(self.seed.to_le_bytes())
            .chain_update(name.as_bytes())
            .finalize();
        let mut key = [0u8; 32];
        key.copy_from_slice(&digest);
        ChaCha8Rng::from_seed(key)
    }

    fn initial(&self, shape: &Shape, name: &str, init: Init) -> Result<Vec<f32>> {
        let n = shape.elem_count();
        let mut rng = self.rng(name);
        Ok(match init {
            Init::Const(v) => vec![v as f32; n],
            Init::Randn { mean, stdev } => (0..n)
                .map(|_| (mean + stdev * rng.sample::<f64, _>(StandardNormal)) as f32)
                .collect(),
            Init::Uniform { lo, up } => (0..n).map(|_| rng.gen_range(lo..up) as f32).collect(),
            Init::Kaiming { .. } => {
                candle_core::bail!("{name}: Kaiming initialization is not supported here")
            }
        })
    }
}

impl SimpleBackend for SeededVarMap {
    fn get(&self, s: Shape, name: &str, h: Init, dtype: DType, dev: &Device) -> Result<Tensor> {
        let mut data = self.map.data().lock().expect("var map lock");
        if let Some(var) = data.get(name) {
            if var.shape() != &s {
                candle_core::bail!("shape mismatch on {name}: {s:?} <> {:?}", var.shape())
            }
            return Ok(var.as_tensor().clone());
        }
        let values = self.initial(&s, name, h)?;
        let tensor = Tensor::from_vec(values, s, dev)?.to_dtype(dtype)?;
        let var = Var::from_tensor(&tensor)?;
        let out = var.as_tensor().clone();
        data.insert(name.to_string(), var);
        Ok(out)
    }

    fn get_unchecked(&self, name: &str, _dtype: DType, _dev: &Device) -> Result<Tensor> {
        candle_core::bail!("{name}: a new model's variables need a shape")
    }

    fn contains_tensor(&self, name: &str) -> bool {
        self.map
            .data()
            .lock()
            .expect("var map lock")
            .contains_key(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(seed: u64, names: &[&str]) -> Vec<Vec<f32>> {
        let vm = VarMap::new();
        let vb = seeded_var_builder(&vm, seed, DType::F32, &Device::Cpu);
        let init = Init::Randn {
            mean: 0.0,
            stdev: 0.02,
        };
        for name in names {
            vb.get_with_hints((4, 8), name, init).unwrap();
        }
        let data = vm.data().lock().unwrap();
        let mut sorted: Vec<&String> = data.keys().collect();
        sorted.sort();
        sorted
            .into_iter()
            .map(|k| data[k].flatten_all().unwrap().to_vec1::<f32>().unwrap())
            .collect()
    }

    #[test]
    fn same_seed_same_weights_in_any_order_other_seed_other_weights() {
        let a = build(7, &["a.weight", "b.weight"]);
        assert_eq!(a, build(7, &["b.weight", "a.weight"]));
        assert_ne!(a, build(8, &["a.weight", "b.weight"]));
        assert_ne!(a[0], a[1], "each variable has its own stream");
        let all: Vec<f32> = a.concat();
        let mean = all.iter().sum::<f32>() / all.len() as f32;
        let sd = (all.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / all.len() as f32).sqrt();
        assert!(
            mean.abs() < 0.01 && (sd - 0.02).abs() < 0.006,
            "{mean} {sd}"
        );
    }

    #[test]
    fn constants_and_existing_variables() {
        let vm = VarMap::new();
        let vb = seeded_var_builder(&vm, 1, DType::F32, &Device::Cpu);
        let ones = vb.get_with_hints(3, "ln.weight", Init::Const(1.0)).unwrap();
        assert_eq!(ones.to_vec1::<f32>().unwrap(), [1.0, 1.0, 1.0]);
        // A second get returns the same variable; another shape is refused.
        let again = vb.get_with_hints(3, "ln.weight", Init::Const(5.0)).unwrap();
        assert_eq!(again.to_vec1::<f32>().unwrap(), [1.0, 1.0, 1.0]);
        assert!(vb.get_with_hints(4, "ln.weight", Init::Const(1.0)).is_err());
    }
}
