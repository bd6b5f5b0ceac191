//! The principal-variation search of a node below the root: transposition
//! table cutoffs, reverse futility and null-move pruning (verified where
//! zugzwang is plausible), then the move loop with late-move and history
//! pruning, futility and exchange pruning near the leaves (a capture with good
//! capture history may lose more), late-move reductions (less for a move
//! with good history, see `lmr_history_div`) and a check extension.
//! Repetitions, the fifty-move rule and dead material score as draws; mate
//! scores count plies from the root.
//!
//! Calibrated for 3D: a node has 100–250 legal moves, so the late-move count
//! grows with the node's move count, and moves that give check without
//! losing material in exchange are never pruned by move count, futility or
//! exchange loss, and are reduced less (a quiet mating check deep in a long
//! move list must still be tried; checks that hang the checking piece,
//! frequent with 26-direction queens, are treated like other moves).
//!
//! Four guards keep short mates visible: no reverse futility at a node
//! whose last move put a piece next to the mover's king when that king has
//! at most `threat_flights` squares to go to; no late-move pruning or
//! reduction while the window lies in mate range (a faster mate or a longer
//! defence is sought) and that mate is within reach of the remaining depth
//! (a long mate found through check extensions would otherwise turn every
//! later iteration full-width); a side whose alpha is `lost_margin` or
//! more below zero makes no null move, prunes no node by reverse futility
//! (the winning side's quiet key move leaves a reply that a static margin
//! cannot refute) and keeps its checks from exchange pruning; and a node
//! whose alpha is already a mate within three plies searches only its
//! checking moves (`mate_checks_only`: nothing else can beat it).

use super::history::{CaptureKey, PieceTo};
use super::movepick::is_quiet;
use super::score::{INF, MATE_BOUND, MAX_PLY, is_mate, mate_distance, mated_in, score_from_tt, score_to_tt};
use super::see::see_ge;
use super::tt::TtBound;
use super::worker::Searcher;
use crate::core::Move;
use crate::core::checks::CheckSquares;
use arrayvec::ArrayVec;

/// Where the move just made sits: the child's ply, whether its node is a
/// PV node, and whether it is the node's first move.
#[derive(Clone, Copy)]
pub(super) struct Child {
    /// The child's ply.
    pub(super) ply: usize,
    /// Whether the parent is a PV node.
    pub(super) pv_node: bool,
    /// Whether this is the parent's first move (searched with the full window).
    pub(super) first: bool,
}

impl Searcher<'_> {
    /// Searches the move just made as the `first` (full window) or a later
    /// move of its node, at `new_depth` less `reduction`: a later move gets a
    /// null window, a full-depth re-search if the reduced one beats alpha,
    /// and in PV nodes a full-window re-search if it lands inside the window.
    /// The root and the inner move loop share this routine.
    pub(super) fn search_move(&mut self, alpha: i32, beta: i32, new_depth: i32, reduction: i32, child: Child) -> i32 {
        let Child { ply: child_ply, pv_node, first } = child;
        if first {
            return -self.search(-beta, -alpha, new_depth, child_ply, pv_node);
        }
        let mut score = -self.search(-alpha - 1, -alpha, new_depth - reduction, child_ply, false);
        if score > alpha && reduction > 0 {
            score = -self.search(-alpha - 1, -alpha, new_depth, child_ply, false);
        }
        if pv_node && score > alpha && score < beta {
            score = -self.search(-beta, -alpha, new_depth, child_ply, true);
        }
        score
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
        self.hist.prefetch_countermove(self.pos.side_to_move(), self.stack[ply - 1].mv);
        self.seldepth = self.seldepth.max(ply);
        if self.pos.repetitions(1) || self.pos.is_dead_material() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.static_eval();
        }
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(-mated_in(ply + 1));
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
            if e.bound.cuts_off(s, alpha, beta) {
                return s;
            }
        }
        let eval = if in_check { -INF } else { self.static_eval() };
        self.stack[ply].eval = eval;
        let improving = !in_check && ply >= 2 && eval > self.stack[ply - 2].eval;
        let sw = self.shared.params.switches;
        let t = self.t;
        // A side this far behind faces a mating attack: neither a null-move
        // cutoff nor its static eval can see the mate, and its checks are
        // all it has.
        let far_behind = alpha <= -t.lost_margin;
        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            if sw.reverse_futility
                && depth <= t.rfp_max_depth
                && eval - t.rfp_margin * (depth - improving as i32) >= beta
                && !far_behind
                && !self.threatened(ply)
            {
                return eval;
            }
            if sw.null_move
                && !far_behind
                && depth >= t.nmp_min_depth
                && eval >= beta
                && ply >= self.nmp_min_ply
                && !self.stack[ply - 1].mv.is_none()
                && self.non_pawn_pieces() > 0
                && let Some(s) = self.null_move(beta, eval, depth, ply)
            {
                return s;
            }
        }
        let (start, end) = self.buf.generate(&self.pos, false);
        if start == end {
            return if in_check { mated_in(ply) } else { 0 };
        }
        if self.pos.halfmove_clock() >= 100 {
            self.buf.truncate(start);
            return 0;
        }
        let node = self.node_context(ply);
        let prev = node.prev;
        self.buf.score(&self.pos, start..end, tt_move, &self.hist, node);
        self.hist.clear_killers(ply + 1);
        let move_count = (end - start) as i32;
        // A window in mate range: a mate is proven and a faster one (or a
        // longer defence) is sought; move counts and reductions would hide it.
        // Only a mate within reach of this depth (plus `mate_reach_slack`):
        // one proven further away (through check extensions) cannot be
        // shortened by a full-width search of this depth, which would only
        // explode. A slack of two plies still did in haberkorn: full-width
        // attacks at depth 2 under a mate 5 cost 30 M nodes in tactics.rs's
        // LONG_MATE_FIRST once move order found that mate first.
        let within_reach = |bound: i32| mate_distance(bound, ply).is_some_and(|d| d <= depth + t.mate_reach_slack);
        let mate_window = (alpha >= MATE_BOUND && within_reach(alpha)) || (beta <= -MATE_BOUND && within_reach(beta));
        let lmp_count = (t.lmp_base + depth * depth + t.lmp_share * move_count * depth / 100) / (2 - improving as i32);
        let prune_depth = t
            .lmp_max_depth
            .max(t.history_prune_depth)
            .max(t.futility_max_depth)
            .max(t.see_quiet_depth)
            .max(t.see_capture_depth);
        let (mut best, mut best_move) = (-INF, Move::NONE);
        let mut quiets: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures: ArrayVec<Move, 32> = ArrayVec::new();
        // The capture history is kept only in a game that reads it.
        let capture_history = t.reads_capture_history();
        let mut tried = 0;
        let mut checks = None;
        // Alpha is a mate within three plies: only a mate by this very move
        // beats it, and only a check can mate; any other move scores at most
        // that mate in three.
        let mate_in_three = -mated_in(ply + 3);
        let only_checks = t.mate_checks_only != 0 && alpha >= mate_in_three;
        for i in start..end {
            let m = self.buf.pick(start, i, end);
            if only_checks && !self.gives_check(&mut checks, m) {
                best = best.max(mate_in_three);
                continue;
            }
            let quiet = is_quiet(&self.pos, m);
            let order = self.buf.score_at(i);
            // Decided at most once per move, and only where pruning or LMR asks.
            let mut safe_check = None;
            let mut history = None;
            if !in_check
                && tried > 0
                && depth <= prune_depth
                && best > -MATE_BOUND
                && !*safe_check.get_or_insert_with(|| self.safe_check(&mut checks, m))
            {
                if quiet {
                    if sw.late_move_pruning
                        && !pv_node
                        && !mate_window
                        && depth <= t.lmp_max_depth
                        && tried >= lmp_count
                    {
                        continue;
                    }
                    if depth <= t.history_prune_depth
                        && !mate_window
                        && *history.get_or_insert_with(|| self.hist.quiet_score(&self.pos, m, node.conts, node.quiet))
                            < -t.history_prune_margin * depth
                    {
                        continue;
                    }
                    if sw.futility
                        && depth <= t.futility_max_depth
                        && alpha < MATE_BOUND
                        && eval + t.futility_base + t.futility_depth * depth <= alpha
                    {
                        continue;
                    }
                    if sw.see_pruning
                        && depth <= t.see_quiet_depth
                        && !see_ge(&self.pos, m, -t.see_quiet_margin * depth)
                        && !(far_behind && self.gives_check(&mut checks, m))
                    {
                        continue;
                    }
                } else if sw.see_pruning
                    && !pv_node
                    && depth <= t.see_capture_depth
                    && !see_ge(&self.pos, m, -t.see_capture_margin * depth - self.capture_relief(m))
                {
                    continue;
                }
            }
            let reducible = sw.lmr && !mate_window && depth >= t.lmr_min_depth && tried >= 2 && (quiet || order < 0);
            let safe_check = reducible && safe_check.unwrap_or_else(|| self.safe_check(&mut checks, m));
            let quiet_stat = if reducible && quiet {
                history.unwrap_or_else(|| self.hist.quiet_score(&self.pos, m, node.conts, node.quiet)) / 2
            } else {
                0
            };
            self.set_move(ply, m);
            self.prefetch_child(m);
            let undo = self.make_move(m);
            tried += 1;
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + gives_check as i32;
            let mut r = 0;
            if reducible {
                let number = if t.lmr_move_ref > 0 && move_count > t.lmr_move_ref {
                    (tried * t.lmr_move_ref / move_count).max(1)
                } else {
                    tried
                };
                r = self.lmr[depth.min(63) as usize][number.min(63) as usize] as i32;
                r += !improving as i32 - pv_node as i32;
                r -= if safe_check { t.lmr_check_relief } else { gives_check as i32 };
                r -= quiet_stat / t.lmr_history_div;
                r = r.clamp(0, (new_depth - 1).max(0));
            }
            let score = self.search_move(alpha, beta, new_depth, r, Child { ply: ply + 1, pv_node, first: tried == 1 });
            self.unmake_move(m, &undo);
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
                        let side = self.pos.side_to_move();
                        let b = t.history_bonus(depth);
                        if capture_history {
                            if !quiet {
                                self.hist.update_capture(CaptureKey::of(&self.pos, m), b);
                            }
                            for &c in &captures {
                                self.hist.update_capture(CaptureKey::of(&self.pos, c), -b);
                            }
                        }
                        if quiet {
                            let pt = PieceTo::of(&self.pos, m);
                            self.hist.update(side, m, pt, b);
                            self.hist.update_continuation(node.conts, pt, b);
                            for &q in &quiets {
                                let pt = PieceTo::of(&self.pos, q);
                                self.hist.update(side, q, pt, -b);
                                self.hist.update_continuation(node.conts, pt, -b);
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
            } else if capture_history {
                let _ = captures.try_push(m);
            }
        }
        self.buf.truncate(start);
        let bound = TtBound::of_result(best, beta, best_move);
        let stored = if best_move.is_none() { tt_move } else { best_move };
        self.shared.tt.store(key, stored, score_to_tt(best, ply), depth, bound);
        best
    }

    /// How much further than its depth's margin the capture `m` may lose in
    /// exchange before it is pruned: its capture history over
    /// `capture_see_div` (a capture that cut off often is kept longer).
    fn capture_relief(&self, m: Move) -> i32 {
        if self.t.capture_see_div == 0 {
            return 0;
        }
        self.hist.capture_score(CaptureKey::of(&self.pos, m)) / self.t.capture_see_div
    }

    /// Whether the move that led to this node threatens mate: it put a
    /// piece next to the king of the side to move, and that king has at
    /// most `threat_flights` squares to flee to. Reverse futility must not
    /// answer such a threat with the static evaluation.
    fn threatened(&self, ply: usize) -> bool {
        let prev = self.stack[ply - 1].mv;
        !prev.is_none()
            && self.pos.attacks_king_zone(prev.to())
            && self.pos.king_flights(self.pos.side_to_move()) <= self.t.threat_flights as u32
    }

    /// Whether `m` gives check without losing material in exchange: such
    /// moves are never pruned near the leaves (mates hide among them), while
    /// checks that hang the checking piece, frequent with 26-direction
    /// queens, are pruned like any other move.
    #[inline(always)]
    fn safe_check(&self, checks: &mut Option<CheckSquares>, m: Move) -> bool {
        self.gives_check(checks, m) && see_ge(&self.pos, m, 0)
    }

    /// Whether `m` gives check, decided with the node's check squares
    /// (`checks`, made on the first call: many nodes cut off before one).
    #[inline(always)]
    fn gives_check(&self, checks: &mut Option<CheckSquares>, m: Move) -> bool {
        self.pos.gives_check_with(checks.get_or_insert_with(|| self.pos.check_squares()), m)
    }

    /// Null-move pruning: pass, search reduced with a null window, and cut
    /// off if even that holds beta. With few pieces left (zugzwang is
    /// plausible) a cutoff is verified by a reduced search without null moves.
    fn null_move(&mut self, beta: i32, eval: i32, depth: i32, ply: usize) -> Option<i32> {
        let t = self.t;
        let r = t.nmp_base + depth / t.nmp_depth_div + ((eval - beta) / t.nmp_eval_div).min(2);
        self.set_move(ply, Move::NONE);
        let undo = self.pos.make_null();
        let s = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, false);
        self.pos.unmake_null(&undo);
        if self.aborted() || s < beta {
            return None;
        }
        let s = if is_mate(s) { beta } else { s };
        if self.non_pawn_pieces() > t.nmp_verify_pieces as u32 {
            return Some(s);
        }
        let saved = self.nmp_min_ply;
        self.nmp_min_ply = ply + (3 * (depth - r) / 4).max(1) as usize;
        let v = self.search(beta - 1, beta, depth - r, ply, false);
        self.nmp_min_ply = saved;
        (v >= beta).then_some(s)
    }
}
