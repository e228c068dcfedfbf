//! Masked language models (BERT and RoBERTa layouts) in candle: config, model, loss, weights,
//! hub resolution, training, inference (fill-mask, scores).

pub mod attention_cpu;
pub mod config;
pub mod device;
pub mod error;
pub mod fill;
pub mod hub;
pub mod loss;
pub mod model;
pub mod runtime;
pub mod score;
pub mod sentences;
pub mod train;
pub mod weights;

pub use config::{Activation, Arch, MlmConfig};
pub use error::MlmError;
pub use hub::{resolve_model, resolve_model_in, ModelFiles, ModelSource};
pub use loss::{cross_entropy, labelled_positions, masked_lm_loss, LabelledPositions};
pub use model::MaskedLm;
pub use weights::{check_vocab, load_model_dir, save_model_dir, LoadedModel};
