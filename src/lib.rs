//! Cubist: a chess engine for 3D chess (HyperDimension Chess and Haberkorn's
//! space chess) on an 8×8×8 cube.
//!
//! The library's face is what the `cubist` binary, the tests, the benches,
//! the examples and the Python package (`python/`) use; most of the
//! rest is crate-private. Data flows one way: [`core`] (the rules) → [`eval`]
//! (scoring a position) → [`search`] → the drivers ([`uci`], [`arena`],
//! [`gui`], [`learn`], [`bench`](mod@bench), [`perft`]). docs/design.md
//! walks through the rooms.
//!
//! The public modules: [`core`] the rules (squares, bitboards, variants,
//! positions, legal moves, 3D-FEN, move text, the mate prover); [`eval`]
//! the [`eval::Evaluator`] interface, the linear evaluation with its
//! weights and the networks; [`search`] the [`Engine`] with its threads,
//! limits, settings and reports; [`uci`] the stdin/stdout loop; [`arena`]
//! the match runner (`cubist match`, `cubist merge`, shards) and the tools
//! beside it (`cubist spsa`, `cubist book`, `cubist analyse`); [`gui`]
//! the browser GUI's server (cargo feature `gui`); [`learn`] self-play
//! data, the weight fit and the network's training; [`bench`](mod@bench)
//! the speed benchmark and node-count signature; [`perft`] move-tree
//! counts; [`cpu`] the processor check of the binary and the Python
//! package; [`files`] writing files whole and the FNV-1a checksum.

// No function longer than 120 lines (clippy.toml; docs/design.md).
#![warn(clippy::too_many_lines)]

pub mod analysis;
pub mod arena;
pub mod bench;
pub mod book;
pub mod core;
pub mod cpu;
pub mod eval;
pub mod files;
#[cfg(feature = "gui")]
pub mod gui;
pub mod learn;
pub mod perft;
pub mod record;
pub mod search;
pub mod spsa;
pub mod tb;
pub mod uci;

/// A move (from, to, flag) as the rules library makes and prints it.
pub use crate::core::Move;
/// A position with its variant: make/unmake, legal moves, 3D-FEN.
pub use crate::core::Position;
/// A game and its options (layers, setup layers, en passant, castling).
pub use crate::core::Variant;
/// Which game: `hdc` or `haberkorn`.
pub use crate::core::VariantKind;
/// The engine: settings, table and threads; `go` runs a search in the background.
pub use crate::search::Engine;
/// What `go` asks for (clocks, depth, nodes, movetime, ...).
pub use crate::search::Limits;
/// What a running search reports (`info`, messages, `bestmove`).
pub use crate::search::Report;
/// Settings that stay in force between searches (hash, threads, MultiPV, ...).
pub use crate::search::Settings;
