//! Masked-LM training, generic over the model: data preparation and manifest, dynamic masking,
//! AdamW with a warm-up/decay schedule, gradient accumulation and clipping, held-out evaluation
//! with early stopping, atomic checkpoints with exact resume, and a JSONL log.

pub mod blocks;
pub mod checkpoint;
pub mod collate;
pub mod data;
pub mod error;
pub mod log;
pub mod manifest;
pub mod pack;
pub mod prepare_stage;
pub mod seeds;
pub mod shards;
pub mod stage;
pub mod stream;
pub mod trainer;

#[cfg(test)]
mod tests;

pub use blocks::Blocks;
pub use collate::{MaskedBatch, MaskingParams, IGNORE_INDEX};
pub use data::{
    prepare, prepare_with_canaries, Block, CanaryInsert, CanarySummary, DataSettings, DocEntry,
    DocSet, Duplicate, PackSpec, PreparedData,
};
pub use error::TrainError;
pub use manifest::Manifest;
pub use trainer::{train, Progress, TrainOptions, TrainOutcome, TrainSettings};
