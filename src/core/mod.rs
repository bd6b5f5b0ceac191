//! The rules: squares, bitboards, geometry, variants, positions, legal moves,
//! 3D-FEN and move text. No I/O, no threads.

pub mod bitboard;
pub mod checks;
pub mod fen;
pub mod geometry;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod piece;
pub mod position;
pub mod prefetch;
pub mod square;
pub mod tactics;
pub mod variant;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use fen::FenError;
pub use moves::{Move, MoveFlag, MoveList};
pub use notation::MoveError;
pub use piece::{Color, Piece, PieceKind};
pub use position::{GameState, Position, Undo};
pub use square::Square;
pub use variant::{HABERKORN_LAYERS, Variant, VariantKind};
