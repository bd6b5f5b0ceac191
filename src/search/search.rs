//! The alpha-beta search of one thread: iterative deepening with aspiration
//! windows at the root, principal-variation search with null-move pruning,
//! reverse futility, futility and late-move pruning, late-move reductions and
//! a check extension, then a quiescence search over captures and promotions.
//! Repetitions, the fifty-move rule and dead material score as draws; mate
//! scores count plies from the root and are stored in the TT relative to the node.

use super::eval::{evaluate, piece_value};
use super::history::{History, MAX_PLY, bonus};
use super::movepick::{MoveBuffer, captured, is_quiet};
use super::timeman::TimeManager;
use super::tt::{MATE, MATE_BOUND, TranspositionTable, TtBound, score_from_tt, score_to_tt};
use super::{Bound, Info, Limits, Report, Score, Signals};
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

/// Converts an internal score to the protocol's.
pub fn to_score(s: i32) -> Score {
    if s >= MATE_BOUND {
        Score::Mate((MATE - s + 1) / 2)
    } else if s <= -MATE_BOUND {
        Score::Mate(-(MATE + s) / 2)
    } else {
        Score::Cp(s)
    }
}

fn lmr_table() -> &'static [[u8; 64]; 64] {
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

/// Helper threads skip depths by these patterns (Stockfish's Lazy SMP tables).
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

#[derive(Clone, Copy, Default)]
struct Frame {
    eval: i32,
    mv: Move,
}

/// One search thread: its position, move stack, histories and root moves.
pub struct Searcher<'a> {
    id: usize,
    shared: &'a Shared<'a>,
    pos: Position,
    hist: History,
    buf: MoveBuffer,
    nodes: u64,
    seldepth: usize,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    stack: [Frame; MAX_PLY + 2],
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
    fn aborted(&self) -> bool {
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

    /// Iterative deepening to `max_depth`; the main thread reports through `report`.
    pub fn iterate(&mut self, max_depth: i32, mut report: Option<&mut dyn FnMut(Report)>) {
        let sh = self.shared;
        let multipv = sh.multipv.min(self.root_moves.len()).max(1);
        let mut last_best = Move::NONE;
        let mut stable = 0;
        for depth in 1..=max_depth {
            if self.id > 0 {
                let i = (self.id - 1) % 20;
                if depth > 1 && ((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 == 1 {
                    continue;
                }
            }
            for rm in &mut self.root_moves {
                rm.prev_score = rm.best_score();
                rm.score = -INF;
            }
            for pv_idx in 0..multipv {
                self.aspiration(depth, pv_idx, &mut report);
                self.root_moves[..=pv_idx].sort_by_key(|rm| -rm.best_score());
                if self.aborted() {
                    break;
                }
            }
            if self.aborted() {
                break;
            }
            self.completed_depth = depth;
            if let Some(r) = report.as_deref_mut() {
                for i in 0..multipv {
                    r(Report::Info(self.info(depth, i)));
                }
            }
            if self.id != 0 {
                continue;
            }
            let best = &self.root_moves[0];
            if let Some(m) = sh.limits.mate
                && best.score >= MATE - 2 * m as i32
            {
                break;
            }
            stable = if best.mv == last_best { stable + 1 } else { 0 };
            last_best = best.mv;
            let factor = match stable {
                0 => 1.6,
                1 => 1.2,
                2 | 3 => 1.0,
                _ => 0.7,
            };
            if !sh.signals.pondering.load(Ordering::Relaxed) && sh.time.soft_exceeded(factor) {
                break;
            }
        }
    }

    /// The root search of one line at `depth` inside a widening aspiration window.
    fn aspiration(&mut self, depth: i32, pv_idx: usize, report: &mut Option<&mut dyn FnMut(Report)>) {
        let prev = self.root_moves[pv_idx].prev_score;
        let mut delta = 30;
        let (mut alpha, mut beta) = if self.shared.params.aspiration && depth >= 4 && prev.abs() < MATE_BOUND {
            ((prev - delta).max(-INF), (prev + delta).min(INF))
        } else {
            (-INF, INF)
        };
        loop {
            self.seldepth = 0;
            let score = self.root(alpha, beta, depth, pv_idx);
            self.root_moves[pv_idx..].sort_by_key(|rm| -rm.score);
            if self.aborted() {
                return;
            }
            let bound = if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INF);
                Bound::Upper
            } else if score >= beta {
                beta = (score + delta).min(INF);
                Bound::Lower
            } else {
                return;
            };
            self.root_moves[pv_idx].bound = bound;
            if let Some(r) = report.as_deref_mut()
                && self.shared.time.elapsed().as_millis() >= 1000
            {
                r(Report::Info(self.info(depth, pv_idx)));
            }
            delta += delta / 2;
        }
    }

    /// Searches the root moves from `pv_idx` on (the earlier ones are better lines of MultiPV).
    fn root(&mut self, mut alpha: i32, beta: i32, depth: i32, pv_idx: usize) -> i32 {
        let mut best = -INF;
        let lmr = lmr_table();
        for i in pv_idx..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            self.stack[0].mv = m;
            let quiet = is_quiet(&self.pos, m);
            let undo = self.pos.make(m);
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + gives_check as i32;
            let score = if i == pv_idx {
                -self.search(-beta, -alpha, new_depth, 1, true)
            } else {
                let late = i - pv_idx;
                let r = if self.shared.params.lmr && depth >= 3 && quiet && !gives_check && late > 3 {
                    (lmr[depth.min(63) as usize][late.min(63)] as i32 - 1).clamp(0, new_depth - 1)
                } else {
                    0
                };
                let mut s = -self.search(-alpha - 1, -alpha, new_depth - r, 1, false);
                if s > alpha && r > 0 {
                    s = -self.search(-alpha - 1, -alpha, new_depth, 1, false);
                }
                if s > alpha && s < beta {
                    s = -self.search(-beta, -alpha, new_depth, 1, true);
                }
                s
            };
            self.pos.unmake(m, &undo);
            if self.aborted() {
                return best;
            }
            let rm = &mut self.root_moves[i];
            if i == pv_idx || score > alpha {
                rm.score = score;
                rm.bound = Bound::Exact;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(&self.pv[1][1..self.pv_len[1].max(1)]);
            } else {
                rm.score = -INF;
            }
            best = best.max(score);
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        if pv_idx == 0 && best > -INF {
            let m = self.root_moves.iter().max_by_key(|rm| rm.score).map_or(Move::NONE, |rm| rm.mv);
            let bound = if best >= beta { TtBound::Lower } else { TtBound::Exact };
            self.shared.tt.store(self.pos.key(), m, score_to_tt(best, 0), depth, bound);
        }
        best
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
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
    fn search(&mut self, mut alpha: i32, mut beta: i32, depth: i32, ply: usize, pv_node: bool) -> i32 {
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
                    if params.futility && depth <= 6 && eval + 120 + 100 * depth <= alpha {
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

    /// The `info` of line `i` at `depth`.
    pub fn info(&self, depth: i32, i: usize) -> Info {
        let sh = self.shared;
        let rm = &self.root_moves[i];
        let nodes = sh.nodes();
        let ms = sh.time.elapsed().as_millis() as u64;
        Info {
            depth: depth as u32,
            seldepth: rm.seldepth.max(1) as u32,
            multipv: i as u32 + 1,
            score: to_score(rm.best_score()),
            bound: rm.bound,
            nodes,
            nps: nodes * 1000 / ms.max(1),
            hashfull: sh.tt.hashfull(),
            time_ms: ms,
            pv: rm.pv.clone(),
        }
    }
}
