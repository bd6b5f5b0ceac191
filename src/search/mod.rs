//! The search side of the engine: what the protocol layer asks for (limits,
//! settings) and what it gets back (reports), and the [`Engine`] that runs a
//! search on a background thread so the protocol loop stays responsive.
//!
//! The search never prints: it reports through a callback that the UCI layer
//! formats (Stockfish's split between `Engine` and `UCIEngine`).

pub mod eval;
pub mod history;
pub mod movepick;
pub mod params;
pub mod qsearch;
pub mod root;
pub mod score;
#[allow(clippy::module_inception)]
pub mod search;
pub mod see;
pub mod strategy;
pub mod threads;
pub mod timeman;
pub mod tt;
pub mod worker;

pub use params::{SearchParams, Switches, Tunables};

use crate::core::{Move, Position};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
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
    /// width with quiescence, the table and move ordering; see [`Switches::FULL_WIDTH`]).
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
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { hash_mb: 16, threads: 1, multipv: 1, move_overhead_ms: 10, strategy: Strategy::Search }
    }
}

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: getting mated).
    Mate(i32),
}

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

/// Flags shared between the protocol thread and a running search.
#[derive(Default, Debug)]
pub struct Signals {
    /// Set by `stop` (and by the search itself when a limit is reached).
    pub stop: AtomicBool,
    /// Set while pondering; cleared by `ponderhit`.
    pub pondering: AtomicBool,
    /// Set while `go infinite`: `bestmove` waits for `stop` even after the search ends.
    pub infinite: AtomicBool,
}

impl Signals {
    /// Whether the search must stop now.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Waits until neither pondering nor infinite mode holds back the `bestmove`.
    pub fn wait_for_release(&self) {
        while !self.stopped() && (self.pondering.load(Ordering::Relaxed) || self.infinite.load(Ordering::Relaxed)) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The engine: settings, the search state kept between moves, and at most
/// one search running on a background thread.
pub struct Engine {
    settings: Settings,
    params: SearchParams,
    tt: Arc<tt::TranspositionTable>,
    nodes: Arc<AtomicU64>,
    signals: Arc<Signals>,
    worker: Option<JoinHandle<()>>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(Settings::default())
    }
}

impl Engine {
    /// An idle engine with these settings.
    pub fn new(settings: Settings) -> Engine {
        Engine {
            tt: Arc::new(tt::TranspositionTable::new(settings.hash_mb)),
            settings,
            params: SearchParams::default(),
            nodes: Arc::new(AtomicU64::new(0)),
            signals: Arc::new(Signals::default()),
            worker: None,
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Changes the settings (waits for a running search to end first); a new
    /// `hash_mb` reallocates (and so clears) the transposition table.
    pub fn set_settings(&mut self, settings: Settings) {
        self.wait();
        if settings.hash_mb != self.settings.hash_mb {
            self.tt = Arc::new(tt::TranspositionTable::new(settings.hash_mb));
        }
        self.settings = settings;
    }

    /// The search technique switches in force (all on by default).
    pub fn params(&self) -> SearchParams {
        self.params
    }

    /// Switches search techniques on or off (for self-play measurements).
    pub fn set_params(&mut self, params: SearchParams) {
        self.wait();
        self.params = params;
    }

    /// Forgets everything learnt: `ucinewgame`, `Clear Hash`. Histories and
    /// killers live only for one search, so this empties the hash table.
    pub fn clear(&mut self) {
        self.wait();
        self.tt.clear();
    }

    /// Transposition table use of the current search, per mille (sampled).
    pub fn hashfull(&self) -> u32 {
        self.tt.hashfull()
    }

    /// Nodes searched by the last finished search (all threads).
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.worker.as_ref().is_some_and(|w| !w.is_finished())
    }

    /// Starts a search of `pos` on a background thread and returns at once;
    /// the result arrives through `report` as [`Report::BestMove`]. A search
    /// still running is stopped first.
    pub fn go(&mut self, pos: &Position, limits: Limits, mut report: Reporter) {
        self.stop();
        self.wait();
        let signals = Arc::new(Signals::default());
        signals.pondering.store(limits.ponder, Ordering::Relaxed);
        signals.infinite.store(limits.infinite, Ordering::Relaxed);
        self.signals = Arc::clone(&signals);
        let settings = self.settings.clone();
        let params = self.params;
        let tt = Arc::clone(&self.tt);
        let nodes = Arc::clone(&self.nodes);
        nodes.store(0, Ordering::Relaxed);
        let pos = pos.clone();
        let work = move || {
            let (best, ponder) = match settings.strategy {
                Strategy::Search | Strategy::AlphaBeta => {
                    let params = if settings.strategy == Strategy::AlphaBeta {
                        SearchParams { switches: Switches::FULL_WIDTH, ..params }
                    } else {
                        params
                    };
                    let root = strategy::root_moves(&pos, &limits);
                    threads::run(&pos, root, &limits, &settings, params, &tt, &signals, &nodes, &mut report)
                }
                _ => strategy::choose(&pos, &limits, &settings, &signals, &mut report),
            };
            signals.wait_for_release();
            report(Report::BestMove { best, ponder });
        };
        let spawned =
            std::thread::Builder::new().name("cubist-main".into()).stack_size(threads::SEARCH_STACK).spawn(work);
        self.worker = spawned.ok();
    }

    /// Asks a running search to stop; it still reports its `bestmove`.
    pub fn stop(&self) {
        self.signals.stop.store(true, Ordering::Relaxed);
    }

    /// The opponent played the expected move: the ponder search goes on under the clock.
    pub fn ponderhit(&self) {
        self.signals.pondering.store(false, Ordering::Relaxed);
    }

    /// Waits for a running search to finish (after `stop` or its limits).
    pub fn wait(&mut self) {
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
