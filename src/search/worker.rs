//! One search thread's state: the [`Searcher`] (its position, move stack,
//! histories, per-ply frames, principal variations and root moves), what all
//! threads of one search share ([`Shared`]), and the root move record.
//! The node search lives in `search.rs`, quiescence in `qsearch.rs`, the
//! iterative deepening loop in `root.rs`; all are methods of [`Searcher`].

use super::history::{History, PieceTo, QuietWeights};
use super::limits::Limits;
use super::movepick::MoveBuffer;
use super::movepick::NodeContext;
use super::params::{SearchParams, Switches, Tunables};
use super::report::Bound;
use super::score::{INF, MAX_PLY};
use super::signals::Signals;
use super::timeman::TimeManager;
use super::tt::TranspositionTable;
use crate::core::{Move, PieceKind, Position, Undo};
use crate::eval::{Evaluator, Networks, SearchEval};
use crate::tb::Tablebases;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// A node counter on its own cache line (one per thread, summed for reports).
#[derive(Default, Debug)]
#[repr(align(64))]
pub struct NodeCounter(pub AtomicU64);

/// Wakes a thread that waits in steps (the watchdog) before its step is
/// over: it checks its condition holding `lock` and waits on `rung`, and
/// [`Doorbell::wake`] takes the lock before notifying, so a change made
/// before the wake is never missed for a whole step.
#[derive(Default)]
pub struct Doorbell {
    /// Held by the waiter while it checks its condition.
    pub lock: Mutex<()>,
    /// Notified by [`Doorbell::wake`].
    pub rung: Condvar,
}

impl Doorbell {
    /// Wakes the waiter (after the change it should see has been made).
    pub fn wake(&self) {
        drop(self.lock.lock());
        self.rung.notify_all();
    }
}

/// What all threads of one search share.
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// The protocol's flags (`stop`, pondering).
    pub signals: &'a Signals,
    /// Set by the main thread when the search must end (stop, limits).
    pub abort: AtomicBool,
    /// Rung once `abort` is set at the end of the search, so the watchdog need not sleep out its step.
    pub watchdog: Doorbell,
    /// Nodes per thread.
    pub counters: Vec<NodeCounter>,
    /// The time budget.
    pub time: TimeManager,
    /// The `go` limits.
    pub limits: &'a Limits,
    /// Technique switches and tunable numbers.
    pub params: SearchParams,
    /// Lines to search.
    pub multipv: usize,
    /// The evaluation networks by game.
    pub networks: Networks,
    /// The endgame tables.
    pub tablebases: Tablebases,
    /// Positions found in the endgame tables, all threads.
    pub tb_hits: AtomicU64,
}

impl Shared<'_> {
    /// Nodes searched by all threads.
    pub fn nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

/// A root move with its score at the last depth that searched it and its PV.
#[derive(Clone, Debug)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Score at the current depth (`-INF` when not searched exactly yet).
    pub score: i32,
    /// Score at the previous depth.
    pub prev_score: i32,
    /// Bound of `score`.
    pub bound: Bound,
    /// The principal variation, starting with `mv`.
    pub pv: Vec<Move>,
    /// Deepest ply reached while searching it.
    pub seldepth: usize,
}

impl RootMove {
    /// A root move not searched yet.
    pub fn new(mv: Move) -> RootMove {
        RootMove { mv, score: -INF, prev_score: -INF, bound: Bound::Exact, pv: vec![mv], seldepth: 0 }
    }

    /// The best known score: this depth's, else the previous one.
    pub fn best_score(&self) -> i32 {
        if self.score == -INF { self.prev_score } else { self.score }
    }
}

/// What the search keeps per ply of the current path.
#[derive(Clone, Copy, Default)]
pub(super) struct Frame {
    /// The static evaluation (`-INF` in check).
    pub(super) eval: i32,
    /// The move played from this ply (`Move::NONE` for a null move).
    pub(super) mv: Move,
    /// The piece-to key of `mv`.
    pub(super) piece_to: PieceTo,
}

/// LMR's reductions by depth and move number: `base + ln(depth) ln(move) / divisor`
/// (both in hundredths, from the tunables), built per search thread.
pub(super) fn lmr_table(base: i32, divisor: i32) -> Box<[[u8; 64]]> {
    let mut t: Box<[[u8; 64]]> = vec![[0u8; 64]; 64].into_boxed_slice();
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            let v = base as f64 / 100.0 + (d as f64).ln() * (m as f64).ln() / (divisor.max(1) as f64 / 100.0);
            *r = v.clamp(0.0, 63.0) as u8;
        }
    }
    t
}

/// The heap memory every searcher needs, whatever it searches: its move
/// buffer, its principal-variation table and its LMR table. A search
/// thread keeps it from one search to the next (taken by
/// [`Searcher::new`], put back when the searcher is dropped): allocating
/// and faulting in its half megabyte anew cost datagen's 2,000-node
/// searches several percent of their time.
struct Scratch {
    buf: MoveBuffer,
    pv: Vec<[Move; MAX_PLY + 1]>,
    /// The LMR table and the (base, divisor) it was built for.
    lmr: (Box<[[u8; 64]]>, (i32, i32)),
}

thread_local! {
    /// This thread's [`Scratch`] while no searcher of the thread holds it.
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

impl Scratch {
    /// This thread's scratch memory, emptied, with the LMR table of
    /// `(base, divisor)`: the memory kept since the thread's last search, or new.
    fn take(base: i32, divisor: i32) -> Scratch {
        let mut s = SCRATCH.take().unwrap_or_else(|| Scratch {
            buf: MoveBuffer::new(),
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1],
            lmr: (lmr_table(base, divisor), (base, divisor)),
        });
        s.buf.truncate(0);
        s.pv.iter_mut().for_each(|line| line.fill(Move::NONE));
        if s.lmr.1 != (base, divisor) {
            s.lmr = (lmr_table(base, divisor), (base, divisor));
        }
        s
    }
}

impl Drop for Searcher<'_> {
    /// Keeps the searcher's [`Scratch`] for the thread's next search.
    fn drop(&mut self) {
        SCRATCH.set(Some(Scratch {
            buf: std::mem::take(&mut self.buf),
            pv: std::mem::take(&mut self.pv),
            lmr: (std::mem::take(&mut self.lmr), (self.t.lmr_base, self.t.lmr_divisor)),
        }));
    }
}

/// One search thread: its position, move stack, histories and root moves.
pub struct Searcher<'a> {
    pub(super) id: usize,
    pub(super) shared: &'a Shared<'a>,
    pub(super) pos: Position,
    /// This thread's histories, kept from search to search by the pool.
    pub(super) hist: MutexGuard<'a, History>,
    pub(super) buf: MoveBuffer,
    /// The evaluation (with its per-thread memory).
    pub(super) eval: SearchEval,
    pub(super) nodes: u64,
    pub(super) seldepth: usize,
    pub(super) pv: Vec<[Move; MAX_PLY + 1]>,
    pub(super) pv_len: [usize; MAX_PLY + 1],
    pub(super) stack: [Frame; MAX_PLY + 2],
    pub(super) lmr: Box<[[u8; 64]]>,
    /// The tunables of this position's game.
    pub(super) t: Tunables,
    /// The technique switches of this position's game.
    pub(super) sw: Switches,
    /// Null-move pruning is off above this ply (inside a verification search).
    pub(super) nmp_min_ply: usize,
    /// The root moves, best first after each iteration.
    pub root_moves: Vec<RootMove>,
    /// The last depth completed.
    pub completed_depth: i32,
}

impl<'a> Searcher<'a> {
    /// Thread `id` (0 = main) searching `pos` over `root_moves` with its histories `hist`.
    pub fn new(
        id: usize,
        shared: &'a Shared<'a>,
        hist: MutexGuard<'a, History>,
        pos: Position,
        root_moves: Vec<RootMove>,
    ) -> Searcher<'a> {
        let t = shared.params.tunables[pos.variant().kind];
        let sw = shared.params.switches[pos.variant().kind];
        let Scratch { buf, pv, lmr: (lmr, _) } = Scratch::take(t.lmr_base, t.lmr_divisor);
        let eval = SearchEval::new(&shared.networks, &pos);
        Searcher {
            id,
            shared,
            pos,
            hist,
            buf,
            eval,
            nodes: 0,
            seldepth: 0,
            pv,
            pv_len: [0; MAX_PLY + 1],
            stack: [Frame::default(); MAX_PLY + 2],
            nmp_min_ply: 0,
            lmr,
            t,
            sw,
            root_moves,
            completed_depth: 0,
        }
    }

    /// Whether the search must unwind now.
    #[inline]
    pub(super) fn aborted(&self) -> bool {
        self.shared.abort.load(Ordering::Relaxed)
    }

    /// Counts a node; the main thread also checks `stop`, the clock and the node limit.
    #[inline(always)]
    pub(super) fn count_node(&mut self) {
        self.nodes += 1;
        self.shared.counters[self.id].0.store(self.nodes, Ordering::Relaxed);
        if self.id != 0 {
            return;
        }
        let sh = self.shared;
        if let Some(limit) = sh.limits.nodes {
            let total = if sh.counters.len() == 1 {
                self.nodes
            } else if self.nodes & 255 == 0 {
                sh.nodes()
            } else {
                0
            };
            if total >= limit {
                sh.abort.store(true, Ordering::Relaxed);
            }
        }
        if self.nodes & 255 == 0
            && (sh.signals.stopped() || (!sh.signals.pondering.load(Ordering::Relaxed) && sh.time.hard_exceeded()))
        {
            sh.abort.store(true, Ordering::Relaxed);
        }
    }

    /// Records `m` (`Move::NONE` for a null move) as the move played from
    /// `ply`, before it is made.
    #[inline(always)]
    pub(super) fn set_move(&mut self, ply: usize, m: Move) {
        self.stack[ply] = Frame { mv: m, piece_to: PieceTo::of(&self.pos, m), ..self.stack[ply] };
    }

    /// The ordering context of the node at `ply` (at least 1).
    #[inline(always)]
    pub(super) fn node_context(&self, ply: usize) -> NodeContext {
        let conts = if self.t.reads_continuation_history() {
            let two_back = if ply >= 2 { self.stack[ply - 2].piece_to } else { PieceTo::NONE };
            [self.stack[ply - 1].piece_to, two_back]
        } else {
            [PieceTo::NONE; 2]
        };
        NodeContext {
            ply,
            prev: self.stack[ply - 1].mv,
            conts,
            quiet: QuietWeights { cont: self.t.cont_history_weight, piece_to: self.t.piece_to_weight },
            capture_weight: self.t.capture_history_weight,
        }
    }

    /// Makes `m` the head of the PV at `ply`, followed by the child's PV.
    pub(super) fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let next = self.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..next {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = next;
    }

    /// Starts loading what the child after `m` will look up first, its table
    /// cluster and its evaluation-cache slot, while `m` is still being made
    /// (by [`crate::core::Position::key_after`]'s guess of the child's key).
    #[inline(always)]
    pub(super) fn prefetch_child(&self, m: Move) {
        let child = self.pos.key_after(m);
        self.shared.tt.prefetch(child);
        self.eval.prefetch(child);
    }

    /// Plays `m` on the search's position, the evaluation following it.
    #[inline(always)]
    pub(super) fn make_move(&mut self, m: Move) -> Undo {
        let undo = self.pos.make(m);
        self.eval.make(&self.pos, undo.changes());
        undo
    }

    /// Takes back `m`, played by [`Searcher::make_move`].
    #[inline(always)]
    pub(super) fn unmake_move(&mut self, m: Move, undo: &Undo) {
        self.pos.unmake(m, undo);
        self.eval.unmake();
    }

    /// The static evaluation of the search's position.
    #[inline(always)]
    pub(super) fn static_eval(&mut self) -> i32 {
        self.eval.evaluate(&self.pos)
    }

    /// How many pieces other than pawns and the king the side to move has.
    pub(super) fn non_pawn_pieces(&self) -> u32 {
        let us = self.pos.side_to_move();
        (self.pos.color_pieces(us) - self.pos.pieces(us, PieceKind::Pawn) - self.pos.pieces(us, PieceKind::King))
            .count()
    }
}
