//! Name probes of a masked LM: probe sets built from a de-identified corpus and its ops log
//! (seen vs unseen sentences), user sentence files, fill-mask runs, recovery of the original
//! and the metrics over a run.

pub mod build;
pub mod error;
pub mod job;
pub mod metrics;
pub mod metrics_stage;
pub mod recovery;
pub mod run;
pub mod set;
pub mod user_file;

pub use build::{build_probes, read_manifest, write_built, BuildOptions, BuildSummary, BuiltSet};
pub use error::ProbeError;
pub use metrics::{
    probe_metrics, MetricsSettings, RecoveryMetrics, ReferenceComparison, SetMetrics,
};
pub use recovery::{CandidatePool, Recovery};
pub use run::{predict_chunk, ProbeResult, RankedPrediction};
pub use set::{
    read_originals, read_probe_results, read_probe_slots, read_set, ProbeSlot, SetKind,
    SlotOriginal,
};
