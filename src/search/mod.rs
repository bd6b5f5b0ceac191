//! The search side of the engine: what the protocol layer asks for (limits,
//! settings) and what it gets back (reports), and the [`Engine`] that runs a
//! search on a background thread so the protocol loop stays responsive.
//!
//! The search never prints: it reports through a callback that the UCI layer
//! formats (Stockfish's split between `Engine` and `UCIEngine`).

pub mod engine;
pub mod history;
pub mod limits;
pub mod movepick;
pub mod params;
pub mod qsearch;
pub mod report;
pub mod root;
pub mod score;
#[allow(clippy::module_inception)]
pub mod search;
pub mod see;
pub mod signals;
pub mod skill;
pub mod strategy;
pub mod threads;
pub mod timeman;
pub mod tt;
pub mod worker;

pub use engine::{Engine, EngineError};
pub use limits::{Limits, Settings, Strategy};
pub use params::{SearchParams, Switches, Tunables};
pub use report::{Bound, Info, Report, Reporter};
pub use score::Score;
pub use signals::Signals;
