//! The neural pieces the masked LM (`mlm`) and the taggers (`ner`) share: seeded initial weights
//! and dropout, the CPU kernels and the one-node linear layer, AdamW and learning-rate schedules.

pub(crate) mod adamw_cpu;
pub mod dropout;
pub mod init;
pub mod kernels;
pub mod linear_cpu;
pub mod optim;
pub mod schedule;
