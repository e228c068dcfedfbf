//! Sigmoid and tanh over slices, written so the compiler vectorizes them: the LSTM's inner
//! loops spent more time in libm's scalar `tanhf` and `expf` than in their arithmetic.

/// e^x for x in the f32 range (clamped to [−87, 88]); relative error below 1e-6.
///
/// Cody–Waite reduction x = n·ln 2 + z with |z| ≤ ln 2 / 2, a degree-7 Taylor polynomial for
/// e^z, and 2^n built in the exponent bits. Rounding to n adds and subtracts 1.5·2^23, which
/// also leaves n in the low mantissa bits, so no float-to-int conversion is needed.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * LOG2_E + ROUND;
    let n = shifted - ROUND;
    let n_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits()) as i32;
    let z = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + z * (1.0
            + z * (0.5
                + z * (1.0 / 6.0
                    + z * (1.0 / 24.0
                        + z * (1.0 / 120.0 + z * (1.0 / 720.0 + z * (1.0 / 5040.0)))))));
    let scale = f32::from_bits(((n_bits + 127) as u32) << 23);
    p * scale
}

/// σ(x) = 1 / (1 + e^−x).
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// tanh x = 1 − 2 / (e^2x + 1); absolute error about 1e-7.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    1.0 - 2.0 / (exp(2.0 * x) + 1.0)
}

/// Applies σ to every element.
pub fn sigmoid_in_place(v: &mut [f32]) {
    for x in v {
        *x = sigmoid(*x);
    }
}

/// Applies tanh to every element.
pub fn tanh_in_place(v: &mut [f32]) {
    for x in v {
        *x = tanh(*x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_sigmoid_and_tanh_match_libm() {
        let mut worst = (0f32, 0f32, 0f32);
        for i in -200_000..=200_000 {
            let x = i as f32 * 4.3e-4;
            let e = (exp(x) - x.exp()).abs() / x.exp();
            let s = (sigmoid(x) - 1.0 / (1.0 + (-x).exp())).abs();
            let t = (tanh(x) - x.tanh()).abs();
            worst = (worst.0.max(e), worst.1.max(s), worst.2.max(t));
        }
        assert!(worst.0 < 1e-6, "exp relative error {}", worst.0);
        assert!(worst.1 < 2e-7, "sigmoid error {}", worst.1);
        assert!(worst.2 < 3e-7, "tanh error {}", worst.2);
    }

    #[test]
    fn saturates_without_overflow_or_nan() {
        for x in [-1e30f32, -500.0, -88.0, 88.0, 500.0, 1e30] {
            assert!(sigmoid(x).is_finite() && tanh(x).is_finite(), "{x}");
        }
        assert!((0.0..1e-37).contains(&sigmoid(-1e30)));
        assert_eq!(tanh(1e30), 1.0);
        assert_eq!(tanh(-1e30), -1.0);
        assert_eq!(sigmoid(1e30), 1.0);
    }
}
