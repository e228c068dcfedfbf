//! Audit reports: the report value (JSON, schema `anonlm.report/1`), its Markdown and
//! self-contained HTML renderings, and the diff of two reports after retraining.

pub mod diff;
pub mod doc;
pub mod escape;
#[doc(hidden)]
pub mod fixture;
pub mod html;
pub mod markdown;
pub mod model;
pub mod svg;
pub mod text;
pub mod write;

#[cfg(test)]
mod schema_tests;

pub use diff::{diff, ReportDiff, DIFF_SCHEMA};
pub use html::to_html;
pub use markdown::to_markdown;
pub use model::{Report, REPORT_SCHEMA};
pub use write::{read_report, write_report};
