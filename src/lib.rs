//! Cubist: a chess engine for 3D chess (HyperDimension Chess and Haberkorn's
//! space chess) on an 8×8×8 cube.

pub mod arena;
pub mod bench;
pub mod core;
pub mod eval;
pub mod gui;
pub mod learn;
pub mod perft;
pub mod search;
pub mod uci;
