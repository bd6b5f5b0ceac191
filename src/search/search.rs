//! The alpha-beta search of one thread: iterative deepening with aspiration
//! windows at the root, principal-variation search with null-move pruning,
//! reverse futility, futility and late-move pruning, late-move reductions and
//! a check extension, then a quiescence search over captures and promotions.
//! Repetitions, the fifty-move rule and dead material score as draws; mate
//! scores count plies from the root and are stored in the TT relative to the node.

use super::eval::{evaluate, piece_value};
use super::history::{History, MAX_PLY, bonus};
use super::movepick::{MoveBuffer, captured, is_quiet};
use super::root::RootMove;
use super::timeman::TimeManager;
use super::tt::{MATE, MATE_BOUND, TranspositionTable, TtBound, score_from_tt, score_to_tt};
use super::{Limits, Signals};
use crate::core::{Move, PieceKind, Position};
use arrayvec::ArrayVec;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Quiescence plies after which only recaptures are searched.
const QS_RECAPTURES_FROM: usize = 4;

/// Above every score.
pub const INF: i32 = MATE + 1;

/// Switches for the pruning and reduction techniques (all on by default), so
/// that self-play can measure each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// Reverse futility (static null-move) pruning.
    pub reverse_futility: bool,
    /// Futility pruning of quiet moves.
    pub futility: bool,
    /// Late-move pruning of quiet moves.
    pub late_move_pruning: bool,
    /// Aspiration windows at the root.
    pub aspiration: bool,
}

impl Default for SearchParams {
    fn default() -> SearchParams {
        SearchParams {
            null_move: true,
            lmr: true,
            reverse_futility: true,
            futility: true,
            late_move_pruning: true,
            aspiration: true,
        }
    }
}

/// A node counter on its own cache line (one per thread, summed for reports).
#[derive(Default, Debug)]
#[repr(align(64))]
pub struct NodeCounter(pub AtomicU64);

/// What all threads of one search share.
pub struct Shared<'a> {
    /// The transposition table.
    pub tt: &'a TranspositionTable,
    /// The protocol's flags (`stop`, pondering).
    pub signals: &'a Signals,
    /// Set by the main thread when the search must end (stop, limits).
    pub abort: AtomicBool,
    /// Nodes per thread.
    pub counters: Vec<NodeCounter>,
    /// The time budget.
    pub time: TimeManager,
    /// The `go` limits.
    pub limits: &'a Limits,
    /// Technique switches.
    pub params: SearchParams,
    /// Lines to search.
    pub multipv: usize,
}

impl Shared<'_> {
    /// Nodes searched by all threads.
    pub fn nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

pub(super) fn lmr_table() -> &'static [[u8; 64]; 64] {
    static T: OnceLock<[[u8; 64]; 64]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [[0u8; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
            }
        }
        t
    })
}

#[derive(Clone, Copy, Default)]
pub(super) struct Frame {
    pub(super) eval: i32,
    pub(super) mv: Move,
}

/// One search thread: its position, move stack, histories and root moves.
pub struct Searcher<'a> {
    pub(super) id: usize,
    pub(super) shared: &'a Shared<'a>,
    pub(super) pos: Position,
    pub(super) hist: History,
    pub(super) buf: MoveBuffer,
    pub(super) nodes: u64,
    pub(super) seldepth: usize,
    pub(super) pv: Vec<[Move; MAX_PLY + 1]>,
    pub(super) pv_len: [usize; MAX_PLY + 1],
    pub(super) stack: [Frame; MAX_PLY + 2],
    /// The root moves, best first after each iteration.
    pub root_moves: Vec<RootMove>,
    /// The last depth completed.
    pub completed_depth: i32,
}

impl<'a> Searcher<'a> {
    /// Thread `id` (0 = main) searching `pos` over `root_moves`.
    pub fn new(id: usize, shared: &'a Shared<'a>, pos: Position, root_moves: Vec<RootMove>) -> Searcher<'a> {
        Searcher {
            id,
            shared,
            pos,
            hist: History::new(),
            buf: MoveBuffer::new(),
            nodes: 0,
            seldepth: 0,
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            stack: [Frame::default(); MAX_PLY + 2],
            root_moves,
            completed_depth: 0,
        }
    }

    #[inline]
    pub(super) fn aborted(&self) -> bool {
        self.shared.abort.load(Ordering::Relaxed)
    }

    /// Counts a node; the main thread also checks `stop`, the clock and the node limit.
    #[inline]
    fn count_node(&mut self) {
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

    pub(super) fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let next = self.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..next {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = next;
    }

    fn has_pieces(&self) -> bool {
        let us = self.pos.side_to_move();
        (self.pos.color_pieces(us) - self.pos.pieces(us, PieceKind::Pawn) - self.pos.pieces(us, PieceKind::King)).any()
    }

    /// The principal-variation search of a node below the root.
    pub(super) fn search(&mut self, mut alpha: i32, mut beta: i32, depth: i32, ply: usize, pv_node: bool) -> i32 {
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, 0, pv_node);
        }
        self.pv_len[ply] = ply;
        self.count_node();
        if self.aborted() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.pos.repetitions(1) || self.pos.is_dead_material() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(&self.pos);
        }
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let in_check = self.pos.in_check();
        let key = self.pos.key();
        let tte = self.shared.tt.probe(key);
        let tt_move = tte.map_or(Move::NONE, |e| e.best);
        if let Some(e) = tte
            && !pv_node
            && e.depth >= depth
            && self.pos.halfmove_clock() < 90
        {
            let s = score_from_tt(e.score, ply);
            match e.bound {
                TtBound::Exact => return s,
                TtBound::Lower if s >= beta => return s,
                TtBound::Upper if s <= alpha => return s,
                _ => {}
            }
        }
        let eval = if in_check { -INF } else { evaluate(&self.pos) };
        self.stack[ply].eval = eval;
        let improving = !in_check && ply >= 2 && eval > self.stack[ply - 2].eval;
        let params = self.shared.params;
        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            if params.reverse_futility && depth <= 7 && eval - 90 * (depth - improving as i32) >= beta {
                return eval;
            }
            if params.null_move && depth >= 3 && eval >= beta && !self.stack[ply - 1].mv.is_none() && self.has_pieces()
            {
                let r = 3 + depth / 4 + ((eval - beta) / 200).min(2);
                self.stack[ply].mv = Move::NONE;
                let undo = self.pos.make_null();
                let s = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, false);
                self.pos.unmake_null(&undo);
                if self.aborted() {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }
        let (start, end) = self.buf.generate(&self.pos, false);
        if start == end {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if self.pos.halfmove_clock() >= 100 {
            self.buf.truncate(start);
            return 0;
        }
        let prev = self.stack[ply - 1].mv;
        self.buf.score(&self.pos, start..end, tt_move, &self.hist, ply, prev);
        self.hist.clear_killers(ply + 1);
        let lmr = lmr_table();
        let (mut best, mut best_move) = (-INF, Move::NONE);
        let mut quiets: ArrayVec<Move, 64> = ArrayVec::new();
        let mut tried = 0;
        let mut skip_quiets = false;
        for i in start..end {
            let m = self.buf.pick(i, end);
            let quiet = is_quiet(&self.pos, m);
            if quiet && skip_quiets {
                continue;
            }
            let order = self.buf.score_at(i);
            if !in_check && tried > 0 && best > -MATE_BOUND {
                if quiet {
                    let lmp_count = (3 + depth * depth) / (2 - improving as i32);
                    if params.late_move_pruning && !pv_node && depth <= 8 && tried >= lmp_count {
                        skip_quiets = true;
                        continue;
                    }
                    if params.futility && depth <= 6 && alpha < MATE_BOUND && eval + 120 + 100 * depth <= alpha {
                        skip_quiets = true;
                        continue;
                    }
                } else if !pv_node && depth <= 2 && order < 0 {
                    continue;
                }
            }
            self.stack[ply].mv = m;
            let undo = self.pos.make(m);
            tried += 1;
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + gives_check as i32;
            let mut score;
            if tried == 1 {
                score = -self.search(-beta, -alpha, new_depth, ply + 1, pv_node);
            } else {
                let mut r = 0;
                if params.lmr && depth >= 3 && tried > 2 && (quiet || order < 0) {
                    r = lmr[depth.min(63) as usize][tried.min(63) as usize] as i32;
                    r += !improving as i32 - pv_node as i32 - gives_check as i32;
                    if quiet {
                        r -= self.hist.score(!self.pos.side_to_move(), m) / 8192;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, false);
                if score > alpha && r > 0 {
                    score = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, false);
                }
                if pv_node && score > alpha && score < beta {
                    score = -self.search(-beta, -alpha, new_depth, ply + 1, true);
                }
            }
            self.pos.unmake(m, &undo);
            if self.aborted() {
                self.buf.truncate(start);
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            let side = self.pos.side_to_move();
                            let b = bonus(depth);
                            self.hist.update(side, m, b);
                            for &q in &quiets {
                                self.hist.update(side, q, -b);
                            }
                            self.hist.add_killer(ply, m);
                            self.hist.set_countermove(side, prev, m);
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            if quiet {
                let _ = quiets.try_push(m);
            }
        }
        self.buf.truncate(start);
        let bound = if best >= beta {
            TtBound::Lower
        } else if best_move.is_none() {
            TtBound::Upper
        } else {
            TtBound::Exact
        };
        let stored = if best_move.is_none() { tt_move } else { best_move };
        self.shared.tt.store(key, stored, score_to_tt(best, ply), depth, bound);
        best
    }

    /// Quiescence: captures and promotions (all evasions when in check) until
    /// the position is quiet; from `QS_RECAPTURES_FROM` plies on, recaptures only,
    /// which keeps hdc's long pawn-eating chains finite.
    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, qply: usize, pv_node: bool) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.aborted() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.pos.is_dead_material() || self.pos.repetitions(1) {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(&self.pos);
        }
        let in_check = self.pos.in_check();
        let key = self.pos.key();
        let tte = self.shared.tt.probe(key);
        if let Some(e) = tte
            && !pv_node
        {
            let s = score_from_tt(e.score, ply);
            match e.bound {
                TtBound::Exact => return s,
                TtBound::Lower if s >= beta => return s,
                TtBound::Upper if s <= alpha => return s,
                _ => {}
            }
        }
        let stand_pat = if in_check { -INF } else { evaluate(&self.pos) };
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let (start, end) = self.buf.generate(&self.pos, !in_check);
        if in_check && start == end {
            return -MATE + ply as i32;
        }
        let tt_move = tte.map_or(Move::NONE, |e| e.best);
        let prev = self.stack[ply - 1].mv;
        self.buf.score(&self.pos, start..end, tt_move, &self.hist, ply, prev);
        let kind = self.pos.variant().kind;
        let (mut best, mut best_move) = (stand_pat, Move::NONE);
        let recaptures_only = qply >= QS_RECAPTURES_FROM && !prev.is_none();
        for i in start..end {
            let m = self.buf.pick(i, end);
            if !in_check {
                if recaptures_only && m.to() != prev.to() {
                    continue;
                }
                // Hopeless captures: losing ones, and those that cannot lift the score to alpha.
                if self.buf.score_at(i) < 0 {
                    continue;
                }
                let gain = captured(&self.pos, m).map_or(0, |k| piece_value(kind, k));
                if m.promotion_kind().is_none() && stand_pat + gain + 200 <= alpha {
                    continue;
                }
            }
            self.stack[ply].mv = m;
            let undo = self.pos.make(m);
            let score = -self.qsearch(-beta, -alpha, ply + 1, qply + 1, pv_node);
            self.pos.unmake(m, &undo);
            if self.aborted() {
                self.buf.truncate(start);
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        self.buf.truncate(start);
        let bound = if best >= beta {
            TtBound::Lower
        } else if best_move.is_none() {
            TtBound::Upper
        } else {
            TtBound::Exact
        };
        self.shared.tt.store(key, best_move, score_to_tt(best, ply), 0, bound);
        best
    }
}
