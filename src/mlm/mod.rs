//! Masked language models: configuration, model code, training, saving, fill-mask and scoring.

pub mod train;
