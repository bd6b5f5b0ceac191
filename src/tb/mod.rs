//! Endgame tablebases (issue 73): every position of an ending with few
//! pieces solved by retrograde analysis, so that which 3D endings are won,
//! and how fast, is known rather than guessed.
//!
//! So far: endings of up to three pieces, kings included, in both games
//! ([`Material`]; a pawn's ending reads its promotions' values from the
//! pieces' tables), solved in memory ([`Table::generate`]) with the
//! board's symmetries ([`cube`]), kept in one byte a position of a compact
//! index (`layout`), probed by position ([`Table::probe`]), checked against
//! the rules ([`Table::verify`]), summed up ([`Stats`]: the share of won
//! positions, the longest mate, the wins the fifty-move rule may cut) and
//! saved to or loaded from a file ([`Table::save`], [`Table::load`];
//! protocol.md, "Endgame tables"). `cubist tb generate` drives it, and
//! [`Tablebases`] holds the tables an engine plays with (UCI
//! `TablebasePath`), probed inside the search.

pub mod cube;
mod generate;
mod layout;
mod material;
mod probe;
mod table;
mod value;

pub use generate::{GenerateError, MAX_DENSE, Outside};
pub use material::{MAX_PIECES, Material, MaterialError};
pub use probe::{Loaded, TablebaseError, Tablebases};
pub use table::{Stats, Table, TableFileError};
pub use value::Value;
