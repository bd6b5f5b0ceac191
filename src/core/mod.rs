//! The rules: squares, bitboards, geometry, variants, positions, legal moves,
//! 3D-FEN and move text, and the brute-force mate prover with its tactics
//! file format. No I/O, no threads.

pub(crate) mod bitboard;
pub(crate) mod checks;
pub mod fen;
pub(crate) mod geometry;
pub(crate) mod movegen;
pub(crate) mod moves;
pub mod notation;
pub(crate) mod piece;
pub(crate) mod position;
pub(crate) mod prefetch;
pub(crate) mod square;
pub mod symmetry;
pub mod tactics;
pub mod variant;
pub(crate) mod zobrist;

pub use bitboard::Bitboard;
pub use fen::FenError;
pub use moves::{Move, MoveFlag, MoveList};
pub use notation::MoveError;
pub use piece::{Color, Piece, PieceKind};
pub use position::{GameState, PieceChanges, Position, Undo};
pub use square::Square;
pub use symmetry::Symmetry;
pub use variant::{HABERKORN_LAYERS, PerGame, Variant, VariantKind, default_setup_layers};
