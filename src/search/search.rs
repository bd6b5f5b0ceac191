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
use super::movepick::{NodeContext, is_quiet};
use super::score::{INF, MATE_BOUND, MAX_PLY, is_mate, mate_distance, mated_in, score_from_tt, score_to_tt};
use super::see::see_ge;
use super::tt::{TtBound, TtEntry};
use super::worker::Searcher;
use crate::core::Move;
use crate::core::checks::CheckSquares;
use crate::tb::Value;
use arrayvec::ArrayVec;
use std::sync::atomic::Ordering;

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

/// How much deeper than the node a table score is stored (it holds at any depth).
const TB_DEPTH_BONUS: i32 = 6;

/// The quiet moves a node remembers for the malus of a quiet cutoff.
const QUIETS_KEPT: usize = 64;
/// The captures a node remembers for the malus of a cutoff (capture history).
const CAPTURES_KEPT: usize = 32;

/// What a node's move loop decides each move by, fixed before its first move.
struct NodeFacts {
    /// The remaining depth.
    depth: i32,
    /// The node's ply.
    ply: usize,
    /// Whether it is a PV node.
    pv_node: bool,
    /// Whether the static evaluation rose over the last two plies.
    improving: bool,
    /// Whether alpha lies `lost_margin` or more below zero.
    far_behind: bool,
    /// The static evaluation (`-INF` in check).
    eval: i32,
    /// The move ordering's and the histories' view of the node.
    node: NodeContext,
    /// The node's legal moves.
    move_count: i32,
    /// Whether the window lies in mate range within reach of the depth.
    mate_window: bool,
    /// Quiet moves tried before late-move pruning.
    lmp_count: i32,
    /// The deepest depth at which any move pruning acts.
    prune_depth: i32,
    /// Whether the game reads (and so keeps) the capture history.
    capture_history: bool,
    /// The score of a mate in three plies from here.
    mate_in_three: i32,
    /// Whether only checking moves are searched: alpha is a mate within
    /// three plies, which only a mate by this very move beats, and only a
    /// check can mate (any other move scores at most that mate in three).
    only_checks: bool,
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

    /// The principal-variation search of a node below the root, in the
    /// steps of Stockfish's `search()`.
    pub(super) fn search(&mut self, alpha: i32, beta: i32, depth: i32, ply: usize, pv_node: bool) -> i32 {
        // Step 1. A leaf: the quiescence search.
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, 0, pv_node);
        }
        // Step 2. The node: counted, stopped, drawn, at the ply limit, or
        // outside the window that the mates still possible leave.
        let (mut alpha, beta) = match self.enter_node(alpha, beta, ply) {
            Ok(window) => window,
            Err(score) => return score,
        };
        // Step 3. The transposition table.
        let in_check = self.pos.in_check();
        let key = self.pos.key();
        let tte = self.shared.tt.probe(key);
        let tt_move = tte.map_or(Move::NONE, |e| e.best);
        if let Some(s) = tte.and_then(|e| self.tt_cutoff(e, alpha, beta, depth, ply, pv_node)) {
            return s;
        }
        // Step 3b. The endgame tables: an exact score where one holds the position.
        if let Some(s) = self.probe_tables(depth, ply) {
            return s;
        }
        // Step 4. The static evaluation, and whether it rose over two plies.
        let eval = if in_check { -INF } else { self.static_eval() };
        self.stack[ply].eval = eval;
        let improving = !in_check && ply >= 2 && eval > self.stack[ply - 2].eval;
        // A side this far behind faces a mating attack: neither a null-move
        // cutoff nor its static eval can see the mate, and its checks are
        // all it has.
        let far_behind = alpha <= -self.t.lost_margin;
        // Step 5. Node pruning: reverse futility and the null move.
        if !pv_node
            && !in_check
            && beta.abs() < MATE_BOUND
            && let Some(s) = self.prune_node(beta, eval, depth, ply, improving, far_behind)
        {
            return s;
        }
        // Step 6. The moves: none is mate or stalemate; the fifty-move rule.
        let (start, end) = match self.node_moves(ply, in_check) {
            Ok(range) => range,
            Err(score) => return score,
        };
        let node = self.node_context(ply);
        self.buf.score(&self.pos, start..end, tt_move, &self.hist, node);
        self.hist.clear_killers(ply + 1);
        // Step 7. What the move loop decides each move by.
        let f = self.node_facts(alpha, beta, depth, ply, pv_node, improving, far_behind, eval, node, end - start);
        let (mut best, mut best_move) = (-INF, Move::NONE);
        let mut quiets: ArrayVec<Move, QUIETS_KEPT> = ArrayVec::new();
        let mut captures: ArrayVec<Move, CAPTURES_KEPT> = ArrayVec::new();
        let mut tried = 0;
        let mut checks = None;
        // Step 8. The move loop.
        for i in start..end {
            let m = self.buf.pick(start, i, end);
            if f.only_checks && !self.gives_check(&mut checks, m) {
                best = best.max(f.mate_in_three);
                continue;
            }
            let quiet = is_quiet(&self.pos, m);
            let order = self.buf.score_at(i);
            // Decided at most once per move, and only where pruning or LMR asks.
            let mut safe_check = None;
            let mut history = None;
            // Step 9. Move pruning near the leaves.
            if !in_check
                && tried > 0
                && depth <= f.prune_depth
                && best > -MATE_BOUND
                && !*safe_check.get_or_insert_with(|| self.safe_check(&mut checks, m))
                && self.prune_move(&f, m, quiet, tried, alpha, &mut history, &mut checks)
            {
                continue;
            }
            let lmr = self.lmr_inputs(&f, m, quiet, order, tried, safe_check, history, &mut checks);
            // Step 10. Make the move, extend a check, reduce a late move, search it.
            self.set_move(ply, m);
            self.prefetch_child(m);
            let undo = self.make_move(m);
            tried += 1;
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + gives_check as i32;
            let r = lmr.map_or(0, |(safe, stat)| self.reduction(&f, tried, new_depth, gives_check, safe, stat));
            let score = self.search_move(alpha, beta, new_depth, r, Child { ply: ply + 1, pv_node, first: tried == 1 });
            self.unmake_move(m, &undo);
            if self.aborted() {
                self.buf.truncate(start);
                return 0;
            }
            // Step 11. A better move: the PV, and at a cutoff the histories.
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        self.update_cutoff_histories(&f, m, quiet, &quiets, &captures);
                        break;
                    }
                    alpha = score;
                }
            }
            // Past the lists' capacity, a later move is left out of the
            // cutoff's malus (a node of 250 moves tries few of them all).
            if quiet {
                let _ = quiets.try_push(m);
            } else if f.capture_history {
                let _ = captures.try_push(m);
            }
        }
        // Step 12. The result into the table.
        self.buf.truncate(start);
        let bound = TtBound::of_result(best, beta, best_move);
        let stored = if best_move.is_none() { tt_move } else { best_move };
        self.shared.tt.store(key, stored, score_to_tt(best, ply), depth, bound);
        best
    }

    /// Step 2 of [`Searcher::search`]: counts the node and returns
    /// `Err(score)` when it ends here (the search was stopped, a repetition
    /// or dead material, the ply limit, a window that no mate still possible
    /// fits), else the window narrowed to those mates.
    #[inline]
    fn enter_node(&mut self, alpha: i32, beta: i32, ply: usize) -> Result<(i32, i32), i32> {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.aborted() {
            return Err(0);
        }
        self.hist.prefetch_countermove(self.pos.side_to_move(), self.stack[ply - 1].mv);
        self.seldepth = self.seldepth.max(ply);
        if self.pos.repetitions(1) || self.pos.is_dead_material() {
            return Err(0);
        }
        if ply >= MAX_PLY - 1 {
            return Err(self.static_eval());
        }
        let alpha = alpha.max(mated_in(ply));
        let beta = beta.min(-mated_in(ply + 1));
        if alpha >= beta {
            return Err(alpha);
        }
        Ok((alpha, beta))
    }

    /// Step 6: the node's moves into the move buffer, or `Err(score)` when
    /// there are none (mate or stalemate) or the fifty-move rule has come.
    #[inline]
    fn node_moves(&mut self, ply: usize, in_check: bool) -> Result<(usize, usize), i32> {
        let (start, end) = self.buf.generate(&self.pos, false);
        if start == end {
            return Err(if in_check { mated_in(ply) } else { 0 });
        }
        if self.pos.halfmove_clock() >= 100 {
            self.buf.truncate(start);
            return Err(0);
        }
        Ok((start, end))
    }

    /// Step 3: the table entry's score when it is deep enough to end a
    /// non-PV node (and the fifty-move rule is more than
    /// `tt_cutoff_halfmoves` plies of play away from deciding it).
    #[inline]
    fn tt_cutoff(&self, e: TtEntry, alpha: i32, beta: i32, depth: i32, ply: usize, pv_node: bool) -> Option<i32> {
        if pv_node || e.depth < depth || i32::from(self.pos.halfmove_clock()) >= self.t.tt_cutoff_halfmoves {
            return None;
        }
        let s = score_from_tt(e.score, ply);
        e.bound.cuts_off(s, alpha, beta).then_some(s)
    }

    /// Step 3b: the score of a position that a loaded endgame table holds,
    /// stored in the transposition table as exact: a mate at the table's
    /// distance from this ply, or a draw (also where the fifty-move rule
    /// would come first). Tables are distance-to-mate, so this is exact in
    /// PV nodes too, and the shortest mate wins at the root.
    fn probe_tables(&self, depth: i32, ply: usize) -> Option<i32> {
        let tb = &self.shared.tablebases;
        let most = tb.max_pieces();
        if most == 0 || self.pos.occupied().count() as usize > most {
            return None;
        }
        let value = tb.probe_at_clock(&self.pos)?;
        self.shared.tb_hits.fetch_add(1, Ordering::Relaxed);
        let score = match value {
            Value::Mate(d) if d % 2 == 1 => -mated_in(ply + d as usize),
            Value::Mate(d) => mated_in(ply + d as usize),
            Value::Draw | Value::Illegal => 0,
        };
        let depth = (depth + TB_DEPTH_BONUS).min(MAX_PLY as i32 - 1);
        self.shared.tt.store(self.pos.key(), Move::NONE, score_to_tt(score, ply), depth, TtBound::Exact);
        Some(score)
    }

    /// Step 5: reverse futility (the static evaluation far above beta near
    /// the leaves) and the null move, at a non-PV node not in check.
    #[inline]
    fn prune_node(
        &mut self,
        beta: i32,
        eval: i32,
        depth: i32,
        ply: usize,
        improving: bool,
        far_behind: bool,
    ) -> Option<i32> {
        let (sw, t) = (self.sw, &self.t);
        if sw.reverse_futility
            && depth <= t.rfp_max_depth
            && eval - t.rfp_margin * (depth - improving as i32) >= beta
            && !far_behind
            && !self.threatened(ply)
        {
            return Some(eval);
        }
        if sw.null_move
            && !far_behind
            && depth >= t.nmp_min_depth
            && eval >= beta
            && ply >= self.nmp_min_ply
            && !self.stack[ply - 1].mv.is_none()
            && self.non_pawn_pieces() > 0
        {
            return self.null_move(beta, eval, depth, ply);
        }
        None
    }

    /// Step 7: what the move loop of a node decides each move by.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn node_facts(
        &self,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        improving: bool,
        far_behind: bool,
        eval: i32,
        node: NodeContext,
        moves: usize,
    ) -> NodeFacts {
        let t = &self.t;
        let move_count = moves as i32;
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
        let mate_in_three = -mated_in(ply + 3);
        NodeFacts {
            depth,
            ply,
            pv_node,
            improving,
            far_behind,
            eval,
            node,
            move_count,
            mate_window,
            lmp_count: (t.lmp_base + depth * depth + t.lmp_share * move_count * depth / 100) / (2 - improving as i32),
            prune_depth: t
                .lmp_max_depth
                .max(t.history_prune_depth)
                .max(t.futility_max_depth)
                .max(t.see_quiet_depth)
                .max(t.see_capture_depth),
            // The capture history is kept only in a game that reads it.
            capture_history: t.reads_capture_history(),
            mate_in_three,
            only_checks: t.mate_checks_only != 0 && alpha >= mate_in_three,
        }
    }

    /// Step 9: whether move `m` (not the first, not a safe check, the node
    /// not in check) is pruned: a quiet move by late-move, history,
    /// futility or exchange pruning, a capture by exchange pruning.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn prune_move(
        &self,
        f: &NodeFacts,
        m: Move,
        quiet: bool,
        tried: i32,
        alpha: i32,
        history: &mut Option<i32>,
        checks: &mut Option<CheckSquares>,
    ) -> bool {
        let (sw, t, depth) = (self.sw, &self.t, f.depth);
        if !quiet {
            return sw.see_pruning
                && !f.pv_node
                && depth <= t.see_capture_depth
                && !see_ge(&self.pos, m, -t.see_capture_margin * depth - self.capture_relief(m));
        }
        if sw.late_move_pruning && !f.pv_node && !f.mate_window && depth <= t.lmp_max_depth && tried >= f.lmp_count {
            return true;
        }
        if sw.history_pruning
            && depth <= t.history_prune_depth
            && !f.mate_window
            && *history.get_or_insert_with(|| self.hist.quiet_score(&self.pos, m, f.node.conts, f.node.quiet))
                < -t.history_prune_margin * depth
        {
            return true;
        }
        if sw.futility
            && depth <= t.futility_max_depth
            && alpha < MATE_BOUND
            && f.eval + t.futility_base + t.futility_depth * depth <= alpha
        {
            return true;
        }
        sw.see_pruning
            && depth <= t.see_quiet_depth
            && !see_ge(&self.pos, m, -t.see_quiet_margin * depth)
            && !(f.far_behind && self.gives_check(checks, m))
    }

    /// Step 9b: whether move `m` (the `tried`th tried so far, `order` its
    /// ordering score) may be reduced, and if so whether it is a safe check
    /// and half its quiet history (the two inputs of the reduction that
    /// are known before the move is made), reusing what pruning decided.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn lmr_inputs(
        &self,
        f: &NodeFacts,
        m: Move,
        quiet: bool,
        order: i32,
        tried: i32,
        safe_check: Option<bool>,
        history: Option<i32>,
        checks: &mut Option<CheckSquares>,
    ) -> Option<(bool, i32)> {
        let reducible =
            self.sw.lmr && !f.mate_window && f.depth >= self.t.lmr_min_depth && tried >= 2 && (quiet || order < 0);
        if !reducible {
            return None;
        }
        let safe_check = safe_check.unwrap_or_else(|| self.safe_check(checks, m));
        let quiet_stat = if quiet {
            history.unwrap_or_else(|| self.hist.quiet_score(&self.pos, m, f.node.conts, f.node.quiet)) / 2
        } else {
            0
        };
        Some((safe_check, quiet_stat))
    }

    /// Step 10: the late-move reduction of the move just made, the `tried`th
    /// of its node, whose child is searched at `new_depth`: from the table
    /// by depth and move number, one ply more when the node is not
    /// improving and one less at a PV node, less for a check, and by the
    /// quiet move's history (`quiet_stat`); never below zero or to depth 0.
    #[inline]
    fn reduction(
        &self,
        f: &NodeFacts,
        tried: i32,
        new_depth: i32,
        gives_check: bool,
        safe_check: bool,
        quiet_stat: i32,
    ) -> i32 {
        let t = &self.t;
        let number = if t.lmr_move_ref > 0 && f.move_count > t.lmr_move_ref {
            (tried * t.lmr_move_ref / f.move_count).max(1)
        } else {
            tried
        };
        let mut r = self.lmr[f.depth.min(63) as usize][number.min(63) as usize] as i32;
        r += !f.improving as i32 - f.pv_node as i32;
        r -= if safe_check { t.lmr_check_relief } else { gives_check as i32 };
        r -= quiet_stat / t.lmr_history_div;
        r.clamp(0, (new_depth - 1).max(0))
    }

    /// Step 11: a cutoff by move `m` rewards it in the histories (its
    /// capture history, or as a quiet move its butterfly, continuation,
    /// killer and countermove slots) and punishes the moves tried before it.
    #[inline]
    fn update_cutoff_histories(&mut self, f: &NodeFacts, m: Move, quiet: bool, quiets: &[Move], captures: &[Move]) {
        let side = self.pos.side_to_move();
        let b = self.t.history_bonus(f.depth);
        if f.capture_history {
            if !quiet {
                self.hist.update_capture(CaptureKey::of(&self.pos, m), b);
            }
            for &c in captures {
                self.hist.update_capture(CaptureKey::of(&self.pos, c), -b);
            }
        }
        if quiet {
            let pt = PieceTo::of(&self.pos, m);
            self.hist.update(side, m, pt, b);
            self.hist.update_continuation(f.node.conts, pt, b);
            for &q in quiets {
                let pt = PieceTo::of(&self.pos, q);
                self.hist.update(side, q, pt, -b);
                self.hist.update_continuation(f.node.conts, pt, -b);
            }
            self.hist.add_killer(f.ply, m);
            self.hist.set_countermove(side, f.node.prev, m);
        }
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
