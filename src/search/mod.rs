//! The search side of the engine: what the protocol layer asks for (limits,
//! settings) and what it gets back (reports), the [`Engine`] that runs a
//! search on a background thread so the protocol loop stays responsive, and
//! the search itself: Lazy SMP over a persistent thread pool, iterative
//! deepening, principal-variation and quiescence search, move ordering,
//! the shared transposition table, time management, playing levels and the
//! tunable numbers and switches (`params.rs`).
//!
//! The search never prints: it reports through a callback that the UCI layer
//! formats (Stockfish's split between `Engine` and `UCIEngine`).

pub(crate) mod engine;
pub(crate) mod history;
pub(crate) mod limits;
pub(crate) mod movepick;
pub(crate) mod params;
pub(crate) mod qsearch;
pub(crate) mod report;
pub(crate) mod root;
pub(crate) mod score;
#[allow(clippy::module_inception)]
pub(crate) mod search;
pub(crate) mod see;
pub(crate) mod signals;
pub(crate) mod skill;
pub(crate) mod strategy;
pub(crate) mod threads;
pub(crate) mod timeman;
pub(crate) mod tt;
pub(crate) mod worker;

pub use engine::{Engine, EngineError, SearchEnd};
pub use limits::{Limits, Settings, Strategy};
pub use params::{GameSwitches, GameTunables, ParamError, SearchParams, Switches, TUNABLES, Tunable, Tunables};
pub use report::{Bound, Info, Report, Reporter};
pub use score::Score;
pub use signals::Signals;
