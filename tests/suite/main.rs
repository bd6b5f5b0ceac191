//! The integration tests, one module per part of the program they drive,
//! built as one test executable: each test executable compiles and links
//! its own copy of what it uses, so one executable instead of eighteen saves
//! most of the suite's build time (docs/performance.md, "Build times").
//! Run one part by its module's name, for example
//! `cargo test --release --test suite arena::`.
//!
//! One stays apart: `tests/no_alloc.rs` installs a counting global
//! allocator, which would count every other test's allocations too. The
//! GUI's tests (`gui::`) need the `gui` feature (on by default); its
//! browser tests are ignored unless asked for
//! (`cargo test --release --test suite -- --ignored gui::`).

mod common;

mod analyse;
mod arena;
mod bench;
mod datagen;
mod fen;
mod front_doors;
mod fuzz_uci;
#[cfg(feature = "gui")]
mod gui;
mod import_cycles;
mod match_resume;
mod perft_cli;
mod perft_vectors;
mod position;
mod properties;
mod python_client;
mod search;
mod shard;
mod sprt_script;
mod spsa;
mod symmetry;
mod tactics;
mod tb;
mod uci;
