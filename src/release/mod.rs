//! The release chain (`anonlm release`): its spec section and the record of finished stages
//! that lets a run resume stage by stage.

pub mod chain;
pub mod spec;
pub mod state;

pub use spec::ReleaseSpec;
pub use state::{StageRecord, State};
