//! Endgame tablebases (issue 73): every position of an ending with few
//! pieces solved by retrograde analysis, so that which 3D endings are won,
//! and how fast, is known rather than guessed.
//!
//! So far: pawnless endings of up to three pieces, kings included, in both
//! games ([`Material`]), generated in memory ([`Table::generate`]) with the
//! board's symmetries ([`cube`]), probed by position ([`Table::probe`]) and
//! summed up ([`Stats`]: the share of won positions, the longest mate, the
//! wins the fifty-move rule may cut). `cubist tb generate` prints the summary.

pub mod cube;
mod generate;
mod material;

pub use generate::{GenerateError, Stats, Table, Value};
pub use material::{MAX_PIECES, Material, MaterialError};
