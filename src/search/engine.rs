//! The [`Engine`]: the settings, the transposition table and the thread pool
//! kept between moves. `go` starts a job on the pool (a weakened one below
//! full `Skill Level`, see `skill.rs`) and returns at once, so the
//! protocol loop stays responsive; the job picks the move through
//! `strategy.rs` and reports it as `bestmove`.

use super::limits::{Limits, Settings, Strategy};
use super::params::SearchParams;
use super::report::{Bound, Report, Reporter};
use super::score::Score;
use super::signals::Signals;
use super::{skill, strategy, threads, tt};
use crate::core::{Move, Position};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use thiserror::Error;

impl Drop for Engine {
    /// Stops a running search and waits for it, so the pool is idle when it goes.
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

/// A reporter for a weakened search: it passes everything on, remembers the
/// last line of each principal variation, and replaces the `bestmove` by the
/// move [`skill::pick`] chooses among those lines.
fn weakened(level: u8, mut report: Reporter) -> Reporter {
    let mut lines: Vec<Option<(Move, Score, Option<Move>)>> = Vec::new();
    Box::new(move |r| match r {
        Report::Info(info) => {
            if let (Some(&first), Some(i)) = (info.pv.first(), (info.multipv as usize).checked_sub(1)) {
                if lines.len() <= i {
                    lines.resize(i + 1, None);
                }
                lines[i] = Some((first, info.score, info.pv.get(1).copied()));
            }
            report(Report::Info(info));
        }
        Report::BestMove { best, ponder } => {
            let known: Vec<(Move, Score, Option<Move>)> = lines.iter().flatten().copied().collect();
            let choices: Vec<(Move, Score)> = known.iter().map(|&(m, s, _)| (m, s)).collect();
            let picked = best.and_then(|_| skill::pick(level, &choices, &mut rand::rng()));
            let (best, ponder) = match picked {
                Some(m) if Some(m) != best => (Some(m), known.iter().find(|l| l.0 == m).and_then(|l| l.2)),
                _ => (best, ponder),
            };
            lines.clear();
            report(Report::BestMove { best, ponder });
        }
        other => report(other),
    })
}

/// Why the engine refused new settings; the old ones stay in force.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The system would not give the transposition table's memory.
    #[error("Hash {mb} MiB cannot be allocated ({why}){}", kept.map_or(String::new(), |k| format!("; the table keeps its {k} MiB")))]
    Hash {
        /// The size asked for.
        mb: usize,
        /// The size kept (none for a new engine).
        kept: Option<usize>,
        /// The allocator's reason.
        why: String,
    },
    /// The system would not start the search threads; how many stay (none for a new engine).
    #[error("{}{}", .0, .1.map_or(String::new(), |n| format!("; Threads stays at {n}")))]
    Threads(threads::PoolError, Option<usize>),
}

/// A transposition table of `mb` MiB, or why the memory is not there (the
/// allocation itself is fallible: a `Hash` beyond the machine's memory is
/// an error, not an abort).
fn try_table(mb: usize) -> Result<tt::TranspositionTable, String> {
    tt::TranspositionTable::try_new(mb)
}

/// Set once a search job has finished; waited on by [`Engine::wait`].
#[derive(Default)]
struct Finished {
    done: Mutex<bool>,
    cv: Condvar,
}

impl Finished {
    fn set(&self) {
        if let Ok(mut d) = self.done.lock() {
            *d = true;
        }
        self.cv.notify_all();
    }

    fn is_set(&self) -> bool {
        self.done.lock().map_or(true, |d| *d)
    }

    fn wait(&self) {
        let Ok(mut d) = self.done.lock() else { return };
        while !*d {
            match self.cv.wait(d) {
                Ok(g) => d = g,
                Err(_) => return,
            }
        }
    }
}

/// Marks a job finished when dropped, so that even a job that unwinds releases [`Engine::wait`].
struct FinishOnDrop(Arc<Finished>);

impl Drop for FinishOnDrop {
    fn drop(&mut self) {
        self.0.set();
    }
}

/// What a search to its end reported (see [`Engine::search_line`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchEnd {
    /// The last exact score (the first score if none was exact), if any.
    pub score: Option<Score>,
    /// The principal variation reported with that score.
    pub pv: Vec<Move>,
    /// The best move played, if any.
    pub best: Option<Move>,
}

/// The engine: settings, the search state kept between moves, the
/// persistent search threads and at most one search running on them.
pub struct Engine {
    settings: Settings,
    params: SearchParams,
    tt: Arc<tt::TranspositionTable>,
    pool: Arc<threads::ThreadPool>,
    nodes: Arc<AtomicU64>,
    signals: Arc<Signals>,
    job: Option<Arc<Finished>>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(Settings::default())
    }
}

impl Engine {
    /// An idle engine with these settings; when the system refuses their
    /// table or threads, with the default settings instead (see [`Engine::try_new`]).
    pub fn new(settings: Settings) -> Engine {
        Engine::try_new(settings).unwrap_or_else(|_| {
            Engine::try_new(Settings::default()).expect("the system gives 16 MiB and two threads to start with")
        })
    }

    /// An idle engine with these settings, or why the system refuses them.
    pub fn try_new(settings: Settings) -> Result<Engine, EngineError> {
        let pool = threads::ThreadPool::new(settings.threads).map_err(|e| EngineError::Threads(e, None))?;
        let tt =
            try_table(settings.hash_mb).map_err(|why| EngineError::Hash { mb: settings.hash_mb, kept: None, why })?;
        Ok(Engine {
            tt: Arc::new(tt),
            pool: Arc::new(pool),
            settings,
            params: SearchParams::default(),
            nodes: Arc::new(AtomicU64::new(0)),
            signals: Arc::new(Signals::default()),
            job: None,
        })
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Changes the settings (waits for a running search to end first). A new
    /// `hash_mb` reallocates (and so clears) the transposition table, a new
    /// `threads` replaces the thread pool; when the system refuses either,
    /// nothing changes and the error says why.
    pub fn set_settings(&mut self, settings: Settings) -> Result<(), EngineError> {
        self.wait();
        let pool = if settings.threads != self.settings.threads {
            Some(
                threads::ThreadPool::new(settings.threads)
                    .map_err(|e| EngineError::Threads(e, Some(self.pool.threads())))?,
            )
        } else {
            None
        };
        let tt = if settings.hash_mb != self.settings.hash_mb {
            // The old table is released first when the new one is the larger, so both need not fit at once.
            Some(try_table(settings.hash_mb).map_err(|why| EngineError::Hash {
                mb: settings.hash_mb,
                kept: Some(self.settings.hash_mb),
                why,
            })?)
        } else {
            None
        };
        if let Some(pool) = pool {
            self.pool = Arc::new(pool);
        }
        if let Some(tt) = tt {
            self.tt = Arc::new(tt);
        }
        self.settings = settings;
        Ok(())
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

    /// Forgets everything learnt: `ucinewgame`, `Clear Hash`. Empties the
    /// hash table and the search threads' histories (kept between moves).
    pub fn clear(&mut self) {
        self.wait();
        self.tt.clear();
        self.pool.clear_histories();
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
        self.job.as_ref().is_some_and(|f| !f.is_set())
    }

    /// Starts a search of `pos` on the pool's threads and returns at once;
    /// the result arrives through `report` as [`Report::BestMove`]. A search
    /// still running is stopped first.
    pub fn go(&mut self, pos: &Position, mut limits: Limits, mut report: Reporter) {
        self.stop();
        self.wait();
        let mut settings = self.settings.clone();
        if settings.strategy == Strategy::Search && settings.skill_level < skill::MAX_LEVEL {
            let level = settings.skill_level;
            let depth = skill::depth_limit(level);
            limits.depth = Some(limits.depth.map_or(depth, |d| d.min(depth)));
            settings.multipv = settings.multipv.max(skill::MIN_LINES);
            report = weakened(level, report);
        }
        let signals = Arc::new(Signals::default());
        signals.pondering.store(limits.ponder, Ordering::Relaxed);
        signals.infinite.store(limits.infinite, Ordering::Relaxed);
        self.signals = Arc::clone(&signals);
        let params = self.params;
        let tt = Arc::clone(&self.tt);
        let nodes = Arc::clone(&self.nodes);
        nodes.store(0, Ordering::Relaxed);
        let pos = pos.clone();
        let finished = Arc::new(Finished::default());
        self.job = Some(Arc::clone(&finished));
        let pool = Arc::clone(&self.pool);
        self.pool.spawn(move || {
            let _finish = FinishOnDrop(finished);
            let job = threads::SearchJob {
                pos: &pos,
                limits: &limits,
                settings: &settings,
                params,
                tt: &tt,
                signals: &signals,
                nodes_out: &nodes,
            };
            let (best, ponder) = strategy::choose(&pool, job, &mut report);
            // The engine holds the pool until `_finish` says the job is over, so
            // this is never the last reference: a pool is never dropped by its own thread.
            drop(pool);
            signals.wait_for_release();
            report(Report::BestMove { best, ponder });
        });
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
        if let Some(f) = self.job.take() {
            f.wait();
        }
    }
    /// Searches `pos` to `limits` and waits for the end: the last exact
    /// score reported (the first score if none was exact) and the best move.
    /// For tools that search position after position (datagen, books).
    pub fn search_to_end(&mut self, pos: &Position, limits: Limits) -> (Option<Score>, Option<Move>) {
        let end = self.search_line(pos, limits);
        (end.score, end.best)
    }

    /// [`Engine::search_to_end`] with the principal variation of the score
    /// it keeps (for game analysis, which shows the line).
    pub fn search_line(&mut self, pos: &Position, limits: Limits) -> SearchEnd {
        let (tx, rx) = std::sync::mpsc::channel();
        self.go(pos, limits, Box::new(move |r| drop(tx.send(r))));
        self.wait();
        let mut end = SearchEnd::default();
        for r in rx.try_iter() {
            match r {
                Report::Info(i) if i.bound == Bound::Exact || end.score.is_none() => {
                    end.score = Some(i.score);
                    end.pv = i.pv;
                }
                Report::BestMove { best, .. } => end.best = best,
                _ => {}
            }
        }
        end
    }
}
