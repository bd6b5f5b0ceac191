//! The root of the search: iterative deepening, aspiration windows, the
//! root move list (MultiPV lines and `searchmoves`), Lazy SMP depth skipping
//! for helper threads, time checks between iterations, and `info` reports.

use super::movepick::is_quiet;
use super::report::{Bound, Info, Report};
use super::score::{INF, MATE, MATE_BOUND, score_to_tt, to_score};
use super::search::Child;
use super::tt::TtBound;
use super::worker::Searcher;
use crate::core::Move;
use std::sync::atomic::Ordering;

/// Helper threads skip depths by these patterns (Stockfish's Lazy SMP tables).
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

impl Searcher<'_> {
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
                // A helper that completes the depth limit ends the search for
                // everyone: its result joins the vote, so the depth is reached.
                if depth >= max_depth && sh.limits.depth.is_some() && !sh.limits.infinite {
                    sh.abort.store(true, Ordering::Relaxed);
                    break;
                }
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
            let pct = match stable {
                0 => self.t.tm_changed_pct,
                1 => self.t.tm_held_once_pct,
                2 | 3 => self.t.tm_held_pct,
                _ => self.t.tm_settled_pct,
            };
            let factor = pct as f64 / 100.0;
            if !sh.signals.pondering.load(Ordering::Relaxed) && sh.time.soft_exceeded(factor) {
                break;
            }
        }
    }

    /// The root search of one line at `depth` inside a widening aspiration window.
    fn aspiration(&mut self, depth: i32, pv_idx: usize, report: &mut Option<&mut dyn FnMut(Report)>) {
        let prev = self.root_moves[pv_idx].prev_score;
        let t = self.t;
        let mut delta = t.aspiration_delta;
        let (mut alpha, mut beta) = if self.sw.aspiration && depth >= t.aspiration_min_depth && prev.abs() < MATE_BOUND
        {
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
        let (sw, t) = (self.sw, self.t);
        for i in pv_idx..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            self.set_move(0, m);
            let quiet = is_quiet(&self.pos, m);
            let undo = self.make_move(m);
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + gives_check as i32;
            let late = i - pv_idx;
            let r = if sw.lmr && alpha < MATE_BOUND && depth >= t.lmr_min_depth && quiet && !gives_check && late > 3 {
                (self.lmr[depth.min(63) as usize][late.min(63)] as i32 - 1).clamp(0, (new_depth - 1).max(0))
            } else {
                0
            };
            let score =
                self.search_move(alpha, beta, new_depth, r, Child { ply: 1, pv_node: true, first: i == pv_idx });
            self.unmake_move(m, &undo);
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
            tbhits: sh.tb_hits.load(Ordering::Relaxed),
            time_ms: ms,
            pv: rm.pv.clone(),
        }
    }
}
