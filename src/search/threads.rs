//! Lazy SMP: `threads` searchers share the transposition table and one
//! abort flag; helpers skip depths by Stockfish's pattern so that they fill
//! the table ahead of the main thread. The main thread owns the reports; when
//! it ends, the helpers stop, and the move is chosen by a depth-and-score vote
//! over all threads.
//!
//! The threads live in a persistent [`ThreadPool`], as in Stockfish: built
//! when `Threads` changes (a thread the system refuses is an error at
//! `setoption`, never at `go`), each thread asleep on its own condition
//! variable between searches, so a `go` only wakes threads. Thread 0 runs the
//! main searcher, threads 1.. the helpers, and one more thread is the
//! watchdog: it sleeps in steps of [`WATCH_STEP`] and raises the abort flag
//! on `stop` or at the hard time limit, so both are honoured however many
//! searchers compete for the cores (the main thread's own checks come late
//! when hundreds of threads share two). Helpers start one after another (each
//! wakes the next once its own state is built), so a search that ends early
//! never waits for hundreds of half-built helpers.
//!
//! rayon's pool was tried first: with a thousand threads its idle workers
//! spend most of the machine in crossbeam-epoch bookkeeping, and a `go
//! movetime 100` took seconds. The pool below hands each thread its own job
//! and never steals.

use super::history::Histories;
use super::limits::{Limits, Settings};
use super::movepick::capture_score;
use super::params::SearchParams;
use super::report::{Info, Report};
use super::score::{INF, MATE_BOUND, MAX_PLY, to_score};
use super::signals::Signals;
use super::timeman::TimeManager;
use super::tt::TranspositionTable;
use super::worker::{Doorbell, NodeCounter, RootMove, Searcher, Shared};
use crate::core::{Move, Position};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;
use thiserror::Error;

/// Stack size of every search thread. Move lists live in a per-thread heap
/// buffer, so frames are small; this leaves ample room for `MAX_PLY` plies.
pub const SEARCH_STACK: usize = 32 << 20;

/// How often the watchdog looks at `stop` and the clock.
pub const WATCH_STEP: Duration = Duration::from_millis(1);

/// Why the search threads could not be created.
#[derive(Debug, Error)]
#[error("cannot start {threads} search threads: {why}")]
pub struct PoolError {
    /// How many were asked for.
    pub threads: usize,
    /// The system's reason.
    pub why: String,
}

/// A job as a pool thread runs it.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// One pool thread's mailbox.
#[derive(Default)]
struct Mailbox {
    jobs: Mutex<VecDeque<Job>>,
    wake: Condvar,
}

/// What the pool's threads share.
#[derive(Default)]
struct PoolInner {
    mailboxes: Vec<Mailbox>,
    quit: AtomicBool,
}

/// The persistent search threads: thread 0 for the main searcher, helpers
/// 1..`threads`, and the watchdog after them; and each searcher's
/// histories, kept from one search to the next.
pub struct ThreadPool {
    inner: Arc<PoolInner>,
    handles: Vec<JoinHandle<()>>,
    threads: usize,
    histories: Histories,
}

impl ThreadPool {
    /// Starts `threads` search threads (at least one) and the watchdog; an
    /// error, not an abort, when the system refuses a thread (the threads
    /// already started are stopped again). Each thread is spawned only once
    /// the one before it runs: the standard library sets a new thread up
    /// (its signal stack) after `spawn` returns, and a failure there aborts
    /// the process, so under an address-space limit the next thread's stack
    /// must not take the memory that setup needs.
    pub fn new(threads: usize) -> Result<ThreadPool, PoolError> {
        let threads = threads.max(1);
        let inner = Arc::new(PoolInner {
            mailboxes: (0..=threads).map(|_| Mailbox::default()).collect(),
            quit: AtomicBool::new(false),
        });
        let mut pool =
            ThreadPool { inner, handles: Vec::with_capacity(threads + 1), threads, histories: Histories::new(threads) };
        let (running, started) = std::sync::mpsc::channel::<()>();
        for i in 0..=threads {
            let inner = Arc::clone(&pool.inner);
            let running = running.clone();
            let name = if i == threads { "cubist-watchdog".to_string() } else { format!("cubist-search-{i}") };
            let spawned = std::thread::Builder::new().name(name).stack_size(SEARCH_STACK).spawn(move || {
                let _ = running.send(());
                serve(&inner, i)
            });
            match spawned {
                Ok(h) => {
                    // The sender kept here means this waits for the thread itself.
                    let _ = started.recv();
                    pool.handles.push(h);
                }
                // Dropping the pool stops the threads already started.
                Err(e) => return Err(PoolError { threads, why: e.to_string() }),
            }
        }
        Ok(pool)
    }

    /// How many searchers the pool holds.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets what the searchers learnt (their histories): a new game.
    pub fn clear_histories(&self) {
        self.histories.clear();
    }

    /// Runs `job` on the main search thread (thread 0) and returns at once.
    pub fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        self.push(0, Box::new(job));
    }

    fn push(&self, thread: usize, job: Job) {
        let mailbox = &self.inner.mailboxes[thread.min(self.threads)];
        if let Ok(mut jobs) = mailbox.jobs.lock() {
            jobs.push_back(job);
        }
        mailbox.wake.notify_one();
    }

    /// Runs `f` with a [`Scope`] whose jobs may borrow anything that outlives
    /// this call; returns once `f` and every job spawned in the scope have
    /// finished, also when `f` unwinds.
    pub fn scope<'env, F, R>(&'env self, f: F) -> R
    where
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> R,
    {
        let scope = Scope { pool: self, pending: Arc::new(Pending::default()), scope: PhantomData, env: PhantomData };
        /// Waits for the scope's jobs when dropped: on return and on unwind alike.
        struct WaitAll<'a>(&'a Pending);
        impl Drop for WaitAll<'_> {
            fn drop(&mut self) {
                self.0.wait_for_none();
            }
        }
        let _wait = WaitAll(&scope.pending);
        f(&scope)
    }
}

impl Drop for ThreadPool {
    /// Stops the threads (idle ones at once; a running job is finished first) and joins them.
    fn drop(&mut self) {
        self.inner.quit.store(true, Ordering::Relaxed);
        for mailbox in &self.inner.mailboxes {
            // Taking the lock orders the store before a thread's next look at `quit`.
            drop(mailbox.jobs.lock());
            mailbox.wake.notify_all();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// A pool thread: runs the jobs of its mailbox in order, sleeping while it is empty.
fn serve(inner: &PoolInner, i: usize) {
    let mailbox = &inner.mailboxes[i];
    loop {
        let job = {
            let Ok(mut jobs) = mailbox.jobs.lock() else { return };
            loop {
                if let Some(job) = jobs.pop_front() {
                    break job;
                }
                if inner.quit.load(Ordering::Relaxed) {
                    return;
                }
                jobs = match mailbox.wake.wait(jobs) {
                    Ok(j) => j,
                    Err(_) => return,
                };
            }
        };
        job();
    }
}

/// How many jobs of a scope have not finished.
#[derive(Default)]
struct Pending {
    count: Mutex<usize>,
    zero: Condvar,
}

impl Pending {
    fn add(&self) {
        if let Ok(mut c) = self.count.lock() {
            *c += 1;
        }
    }

    fn done(&self) {
        if let Ok(mut c) = self.count.lock() {
            *c -= 1;
            if *c == 0 {
                self.zero.notify_all();
            }
        }
    }

    fn wait_for_none(&self) {
        let Ok(mut c) = self.count.lock() else { return };
        while *c > 0 {
            c = match self.zero.wait(c) {
                Ok(c) => c,
                Err(_) => return,
            };
        }
    }
}

/// Jobs on chosen pool threads that may borrow from the caller of
/// [`ThreadPool::scope`], like `std::thread::scope` but on the pool's
/// threads. Both lifetimes are invariant, as in std, so a job can never
/// borrow something that dies before the scope has waited for it.
pub struct Scope<'scope, 'env: 'scope> {
    pool: &'env ThreadPool,
    pending: Arc<Pending>,
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

impl<'scope> Scope<'scope, '_> {
    /// Runs `job` on pool thread `thread` (after any job queued there); a
    /// job may spawn further jobs in the same scope. A panicking job is
    /// contained to itself (release builds abort on panic anyway).
    pub fn spawn_on<F>(&'scope self, thread: usize, job: F)
    where
        F: FnOnce() + Send + 'scope,
    {
        self.pending.add();
        let pending = Arc::clone(&self.pending);
        let job: Box<dyn FnOnce() + Send + 'scope> = Box::new(move || {
            /// Counts the job as finished however it ends.
            struct Done(Arc<Pending>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.done();
                }
            }
            let _done = Done(pending);
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        });
        // SAFETY: the job borrows only data that lives for 'scope, and
        // 'scope ends only when `ThreadPool::scope` returns or unwinds. Before
        // either, `WaitAll` waits until `pending` is zero, which happens only
        // after this job has run to its end (`Done` is dropped last, after
        // the closure and everything it captured). So the job never runs, and
        // nothing it borrowed is touched, after 'scope; erasing the lifetime
        // to hand the box to a long-lived thread is therefore sound. This is
        // the argument `std::thread::scope` rests on.
        let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'scope>, Job>(job) };
        self.pool.push(thread, job);
    }
}

/// What a finished thread proposes.
struct Proposal {
    best: Move,
    score: i32,
    depth: i32,
    pv: Vec<Move>,
    seldepth: usize,
}

/// One search as the engine hands it to the threads: the position, the
/// `go` limits and settings, the technique switches, and what the search
/// shares with the engine (table, signals, the node total it leaves behind).
#[derive(Clone, Copy)]
pub struct SearchJob<'a> {
    /// The position to search.
    pub pos: &'a Position,
    /// The `go` limits (`searchmoves` chooses the root moves).
    pub limits: &'a Limits,
    /// Threads, MultiPV, move overhead.
    pub settings: &'a Settings,
    /// Technique switches and tunable numbers.
    pub params: SearchParams,
    /// The shared transposition table.
    pub tt: &'a TranspositionTable,
    /// The protocol's flags (`stop`, pondering).
    pub signals: &'a Signals,
    /// Receives the node total of all threads when the search ends.
    pub nodes_out: &'a AtomicU64,
}

/// Searches the job's position with `settings.threads` searchers (at most
/// the pool's) and returns the move to play and the expected reply (`None`,
/// `None` without legal moves). The main searcher runs on the calling thread
/// and reports through `report`; helpers run on `pool` threads 1.., the
/// watchdog on its own; `nodes_out` receives the node total.
pub fn run_on(pool: &ThreadPool, job: SearchJob, report: &mut dyn FnMut(Report)) -> (Option<Move>, Option<Move>) {
    let SearchJob { pos, limits, settings, params, tt, signals, nodes_out } = job;
    let root = limits.root_moves(pos);
    if root.is_empty() {
        return (None, None);
    }
    let start_time = std::time::Instant::now();
    tt.new_search();
    let threads = settings.threads.clamp(1, pool.threads());
    let mut ordered: Vec<(i32, Move)> = root.iter().map(|&m| (capture_score(pos, m).unwrap_or(0), m)).collect();
    ordered.sort_by_key(|&(s, _)| -s);
    let root_moves: Vec<RootMove> = ordered.into_iter().map(|(_, m)| RootMove::new(m)).collect();
    let only_move = root_moves.len() == 1;
    let max_depth = if only_move {
        1
    } else {
        limits.depth.map_or(MAX_PLY as i32 - 1, |d| (d as i32).clamp(1, MAX_PLY as i32 - 1))
    };
    let shared = Shared {
        tt,
        signals,
        abort: AtomicBool::new(false),
        watchdog: Doorbell::default(),
        counters: (0..threads).map(|_| NodeCounter::default()).collect(),
        time: TimeManager::with_tunables(
            limits,
            pos.side_to_move(),
            Duration::from_millis(settings.move_overhead_ms),
            start_time,
            &params.tunables[pos.variant().kind],
        ),
        limits,
        params,
        multipv: settings.multipv.max(1),
        networks: settings.networks.clone(),
        tablebases: settings.tablebases.clone(),
        tb_hits: AtomicU64::new(0),
    };
    // Helpers hand their proposals in here.
    let helper_proposals: Mutex<Vec<Proposal>> = Mutex::new(Vec::new());
    let team = Team {
        threads,
        max_depth,
        shared: &shared,
        histories: &pool.histories,
        pos,
        root_moves: &root_moves,
        proposals: &helper_proposals,
    };
    let main_proposal = pool.scope(|scope| {
        /// Raises the abort flag when the main searcher is done, also if it unwinds.
        struct AbortOnDrop<'a>(&'a Shared<'a>);
        impl Drop for AbortOnDrop<'_> {
            fn drop(&mut self) {
                self.0.abort.store(true, Ordering::Relaxed);
                self.0.watchdog.wake();
            }
        }
        let _abort = AbortOnDrop(&shared);
        let (team, shared) = (&team, &shared);
        scope.spawn_on(pool.threads(), move || watch(shared));
        if threads > 1 {
            scope.spawn_on(1, move || helper(scope, team, 1));
        }
        let mut main = Searcher::new(
            0,
            shared,
            pool.histories.lease(0, shared.params.continuation_history(pos.variant().kind)),
            pos.clone(),
            root_moves.clone(),
        );
        main.iterate(max_depth, Some(&mut *report));
        // Stopped inside an iteration: the last word on nodes and the line in force.
        if shared.abort.load(Ordering::Relaxed) && main.completed_depth > 0 {
            report(Report::Info(main.info(main.completed_depth, 0)));
        }
        proposal(&main)
    });
    let mut proposals = vec![main_proposal];
    proposals.extend(helper_proposals.into_inner().unwrap_or_default());
    nodes_out.store(shared.nodes(), Ordering::Relaxed);
    let chosen = if settings.multipv <= 1 { vote(&proposals) } else { 0 };
    let best = &proposals[chosen];
    if chosen != 0 && (best.best != proposals[0].best || best.depth > proposals[0].depth) {
        let nodes = shared.nodes();
        let ms = shared.time.elapsed().as_millis() as u64;
        report(Report::Info(Info {
            depth: best.depth as u32,
            seldepth: best.seldepth as u32,
            multipv: 1,
            score: to_score(best.score),
            bound: Default::default(),
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: tt.hashfull(),
            tbhits: shared.tb_hits.load(Ordering::Relaxed),
            time_ms: ms,
            pv: best.pv.clone(),
        }));
    }
    let ponder = best.pv.get(1).copied().or_else(|| ponder_from_tt(pos, best.best, tt));
    (Some(best.best), ponder)
}

/// What the helpers of one search share: how many searchers, how deep, the
/// shared state, the searchers' histories, the root, and where they hand
/// in their proposals.
struct Team<'a> {
    threads: usize,
    max_depth: i32,
    shared: &'a Shared<'a>,
    histories: &'a Histories,
    pos: &'a Position,
    root_moves: &'a [RootMove],
    proposals: &'a Mutex<Vec<Proposal>>,
}

/// Helper `id`: builds its searcher, wakes helper `id + 1` (so that at most
/// one helper at a time is being built), searches until the abort flag, and
/// hands in its proposal. A helper woken after the end does nothing.
fn helper<'scope>(scope: &'scope Scope<'scope, '_>, team: &'scope Team<'scope>, id: usize) {
    let shared = team.shared;
    if shared.abort.load(Ordering::Relaxed) {
        return;
    }
    let mut s = Searcher::new(
        id,
        shared,
        team.histories.lease(id, shared.params.continuation_history(team.pos.variant().kind)),
        team.pos.clone(),
        team.root_moves.to_vec(),
    );
    if id + 1 < team.threads && !shared.abort.load(Ordering::Relaxed) {
        scope.spawn_on(id + 1, move || helper(scope, team, id + 1));
    }
    s.iterate(team.max_depth, None);
    if let Ok(mut all) = team.proposals.lock() {
        all.push(proposal(&s));
    }
}

/// The watchdog: raises the abort flag on `stop` or at the hard time limit
/// (not while pondering); returns once the search has ended, woken by its
/// [`Doorbell`] at once (the search waits for it, and a 2,000-node search
/// takes a few milliseconds: a full [`WATCH_STEP`] of sleep after each cost
/// datagen a tenth of its time).
fn watch(shared: &Shared) {
    let bell = &shared.watchdog;
    let mut guard = bell.lock.lock().unwrap_or_else(PoisonError::into_inner);
    while !shared.abort.load(Ordering::Relaxed) {
        let signals = shared.signals;
        if signals.stopped() || (!signals.pondering.load(Ordering::Relaxed) && shared.time.hard_exceeded()) {
            shared.abort.store(true, Ordering::Relaxed);
            return;
        }
        guard = bell.rung.wait_timeout(guard, WATCH_STEP).unwrap_or_else(PoisonError::into_inner).0;
    }
}

fn proposal(s: &Searcher) -> Proposal {
    let rm = &s.root_moves[0];
    Proposal { best: rm.mv, score: rm.best_score(), depth: s.completed_depth, pv: rm.pv.clone(), seldepth: rm.seldepth }
}

/// The thread whose move gathers most votes, each thread voting for its move
/// with weight (score above the worst + 14) × depth; a proven mate wins outright.
fn vote(proposals: &[Proposal]) -> usize {
    let valid: Vec<usize> =
        (0..proposals.len()).filter(|&i| proposals[i].depth > 0 && proposals[i].score > -INF).collect();
    if valid.len() <= 1 {
        return 0;
    }
    let min = valid.iter().map(|&i| proposals[i].score).min().unwrap_or(0);
    let votes = |m: Move| -> i64 {
        valid
            .iter()
            .filter(|&&i| proposals[i].best == m)
            .map(|&i| (proposals[i].score - min + 14) as i64 * proposals[i].depth as i64)
            .sum()
    };
    let mut best = 0;
    for &i in &valid {
        let (p, b) = (&proposals[i], &proposals[best]);
        let better = if b.score >= MATE_BOUND || p.score >= MATE_BOUND {
            p.score > b.score
        } else {
            votes(p.best) > votes(b.best) || (votes(p.best) == votes(b.best) && p.depth > b.depth)
        };
        if better {
            best = i;
        }
    }
    best
}

/// The reply stored in the table after `best`, if it is legal there.
fn ponder_from_tt(pos: &Position, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut p = pos.clone();
    p.make(best);
    let reply = tt.probe(p.key())?.best;
    (!reply.is_none() && p.is_legal(reply)).then_some(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prop(m: Move, score: i32, depth: i32) -> Proposal {
        Proposal { best: m, score, depth, pv: vec![m], seldepth: depth as usize }
    }

    #[test]
    fn the_vote_prefers_agreement_depth_and_mates() {
        let pos = Position::start(crate::core::Variant::hdc());
        let ms = pos.legal_moves();
        let (a, b) = (ms[0], ms[1]);
        // Two helpers agree on b at the same depth: b wins over the main thread's a.
        assert_eq!(vote(&[prop(a, 20, 8), prop(b, 20, 8), prop(b, 20, 8)]), 1);
        // A lone deeper thread with a far better score wins.
        assert_eq!(vote(&[prop(a, 0, 6), prop(b, 300, 9)]), 1);
        // A mate beats any vote.
        assert_eq!(vote(&[prop(a, 50, 10), prop(a, 50, 10), prop(b, super::super::score::MATE - 5, 4)]), 2);
        // A thread that completed no depth has no say.
        assert_eq!(vote(&[prop(a, 0, 3), prop(b, 500, 0)]), 0);
    }
}
