//! What a running search tells the protocol layer: `info` lines, messages
//! and the final `bestmove`, through a [`Reporter`] callback.

use super::score::Score;
use crate::core::Move;

/// Whether a reported score is exact or a bound from a failed aspiration window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Bound {
    /// The score is exact.
    #[default]
    Exact,
    /// The true score is at least this.
    Lower,
    /// The true score is at most this.
    Upper,
}

/// One `info` line of a search in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Completed depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Which line (1-based) of MultiPV.
    pub multipv: u32,
    /// The line's score.
    pub score: Score,
    /// Exact or bound.
    pub bound: Bound,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Transposition table use, per mille.
    pub hashfull: u32,
    /// Positions found in the endgame tables.
    pub tbhits: u64,
    /// Time since the search started.
    pub time_ms: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// What a running search tells the protocol layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    /// Progress of the search.
    Info(Info),
    /// A free-text message (`info string`).
    Message(String),
    /// The search is over: the move to play (`None` when there is no legal
    /// move) and the expected reply.
    BestMove {
        /// The chosen move.
        best: Option<Move>,
        /// The expected reply, if known.
        ponder: Option<Move>,
    },
}

/// The callback a search reports through; called from the search thread.
pub type Reporter = Box<dyn FnMut(Report) + Send + 'static>;
