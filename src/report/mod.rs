//! Audit reports: the report value (JSON, schema `anonlm.report/1`), its Markdown and
//! self-contained HTML renderings, and the diff of two reports after retraining.

pub mod model;

pub use model::{Report, REPORT_SCHEMA};
