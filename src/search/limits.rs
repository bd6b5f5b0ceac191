//! What the protocol layer asks of a search: the limits of one `go`, the
//! settings that stay in force between searches, and how a move is chosen.

use super::skill;
use crate::core::{Move, Position};
use crate::eval::Networks;
use crate::tb::Tablebases;
use std::time::Duration;

/// What `go` asks for. Every field is optional; none set means "search until stopped".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// White's remaining clock.
    pub wtime: Option<Duration>,
    /// Black's remaining clock.
    pub btime: Option<Duration>,
    /// White's increment per move.
    pub winc: Option<Duration>,
    /// Black's increment per move.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search to this depth only.
    pub depth: Option<u32>,
    /// Search this many nodes only.
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search exactly this long.
    pub movetime: Option<Duration>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Search in ponder mode: no clock until `ponderhit`, no `bestmove` until `stop` or `ponderhit`.
    pub ponder: bool,
    /// Only these root moves (empty: all).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// The root moves a search of `pos` may choose from: the legal moves,
    /// narrowed to `searchmoves` when any of those is legal.
    pub fn root_moves(&self, pos: &Position) -> Vec<Move> {
        let legal = pos.legal_moves();
        if self.searchmoves.is_empty() {
            return legal.to_vec();
        }
        let chosen: Vec<Move> = legal.iter().copied().filter(|m| self.searchmoves.contains(m)).collect();
        if chosen.is_empty() { legal.to_vec() } else { chosen }
    }
}

/// How the engine chooses its move: the real search, or a test baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// The search.
    #[default]
    Search,
    /// Test baseline: the move that wins the most material at once, ties broken at random.
    Greedy,
    /// Test baseline: a uniformly random legal move.
    Random,
    /// Baseline: the same search with every selective technique off (full
    /// width with quiescence, the table and move ordering; see `Switches::FULL_WIDTH`).
    AlphaBeta,
}

impl Strategy {
    /// The option value names, as `setoption name Strategy` takes them.
    pub const NAMES: [&'static str; 4] = ["search", "greedy", "random", "alphabeta"];

    /// The strategy of an option value (case-insensitive).
    pub fn from_name(name: &str) -> Option<Strategy> {
        match name.to_ascii_lowercase().as_str() {
            "search" => Some(Strategy::Search),
            "greedy" => Some(Strategy::Greedy),
            "random" => Some(Strategy::Random),
            "alphabeta" => Some(Strategy::AlphaBeta),
            _ => None,
        }
    }
}

/// Settings that stay in force between searches (set by UCI options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Lines to report.
    pub multipv: usize,
    /// Time kept back per move for communication, in milliseconds.
    pub move_overhead_ms: u64,
    /// How moves are chosen.
    pub strategy: Strategy,
    /// The evaluation networks by game (a game without one uses the linear evaluation; default: the built-in ones).
    pub networks: Networks,
    /// The endgame tables probed inside the search (default: none).
    pub tablebases: Tablebases,
    /// Playing level, 0 to `skill::MAX_LEVEL` (full strength, the default); see `skill`.
    pub skill_level: u8,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 10,
            strategy: Strategy::Search,
            skill_level: skill::MAX_LEVEL,
            networks: Networks::builtin(),
            tablebases: Tablebases::default(),
        }
    }
}
