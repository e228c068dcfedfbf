//! Statistics shared by the probe metrics and the leakage audit: exact binomial intervals.

pub mod binomial;

pub use binomial::{clopper_pearson, Proportion};
