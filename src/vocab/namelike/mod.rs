//! Name-likeness of vocabulary tokens, decided automatically: evidence from name lists, word
//! shape and how often a token falls inside names replaced by de-identification, combined into
//! a score and a remove/keep proposal that a person can review.

mod counts;
mod lists;
mod score;
mod surface;

pub use counts::{InNameCounts, TokenCounts};
pub use lists::{ListHit, NameLists};
pub use score::{assess, Assessment, Evidence, Weights};
pub use surface::{Boundary, Shape, SubwordKind, Surface};
