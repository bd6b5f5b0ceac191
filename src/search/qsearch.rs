//! Quiescence: captures and promotions (all evasions when in check) until the
//! position is quiet. Captures that lose material in exchange (3D static
//! exchange evaluation) are skipped, and so are those whose gain cannot lift
//! the score to alpha; after `qs_recaptures_from` plies only recaptures are
//! searched, which keeps hdc's long pawn-eating chains finite.

use super::movepick::BAD_CAPTURE;
use super::score::{INF, MAX_PLY, mated_in, score_from_tt, score_to_tt};
use super::see::captured;
use super::tt::TtBound;
use super::worker::Searcher;
use crate::core::Move;
use crate::eval::piece_value;

impl Searcher<'_> {
    /// The quiescence search at `ply`, `qply` plies below the main search.
    pub(super) fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, qply: usize, pv_node: bool) -> i32 {
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
            return self.static_eval();
        }
        let in_check = self.pos.in_check();
        let key = self.pos.key();
        let tte = self.shared.tt.probe(key);
        if let Some(e) = tte
            && !pv_node
        {
            let s = score_from_tt(e.score, ply);
            if e.bound.cuts_off(s, alpha, beta) {
                return s;
            }
        }
        let stand_pat = if in_check { -INF } else { self.static_eval() };
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let (start, end) = self.buf.generate(&self.pos, !in_check);
        if in_check && start == end {
            return mated_in(ply);
        }
        let tt_move = tte.map_or(Move::NONE, |e| e.best);
        let node = self.node_context(ply);
        let prev = node.prev;
        self.buf.score(&self.pos, start..end, tt_move, &self.hist, node);
        let t = self.t;
        let kind = self.pos.variant().kind;
        let (mut best, mut best_move) = (stand_pat, Move::NONE);
        let recaptures_only = qply >= t.qs_recaptures_from as usize && !prev.is_none();
        for i in start..end {
            let m = self.buf.pick(start, i, end);
            if !in_check {
                if recaptures_only && m.to() != prev.to() {
                    continue;
                }
                // Captures that lose in exchange (ordered below every good one).
                if self.buf.score_at(i) < BAD_CAPTURE / 2 {
                    continue;
                }
                let gain = captured(&self.pos, m).map_or(0, |k| piece_value(kind, k));
                if m.promotion_kind().is_none() && stand_pat + gain + t.qs_futility_margin <= alpha {
                    continue;
                }
            }
            self.set_move(ply, m);
            self.prefetch_child(m);
            let undo = self.make_move(m);
            let score = -self.qsearch(-beta, -alpha, ply + 1, qply + 1, pv_node);
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
                        break;
                    }
                    alpha = score;
                }
            }
        }
        self.buf.truncate(start);
        let bound = TtBound::of_result(best, beta, best_move);
        self.shared.tt.store(key, best_move, score_to_tt(best, ply), 0, bound);
        best
    }
}
