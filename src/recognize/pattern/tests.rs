//! Table-driven tests of the pattern recognizer, per language, with negatives.

use super::*;
