//! Statistics shared by the probe metrics and the leakage audit: exact binomial intervals and
//! the sign test.

pub mod binomial;

pub use binomial::{clopper_pearson, sign_test, Proportion};
