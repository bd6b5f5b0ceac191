//! Lazy SMP: `threads` searchers on scoped threads share the transposition
//! table and one abort flag; helpers skip depths by Stockfish's pattern so
//! that they fill the table ahead of the main thread. The main thread owns
//! the clock and the reports; when it ends, the helpers stop, and the move is
//! chosen by a depth-and-score vote over all threads.
//!
//! Scoped threads (not rayon's pool) because a search thread blocks for the
//! whole search: a pool brings nothing but a second place to set the stack
//! size, while `std::thread::scope` lets helpers borrow the shared state
//! without `Arc`s and joins them before the result is read.

use super::movepick::capture_score;
use super::score::{INF, MATE_BOUND, MAX_PLY, to_score};
use super::timeman::TimeManager;
use super::tt::TranspositionTable;
use super::worker::{NodeCounter, RootMove, Searcher, Shared};
use super::{Info, Limits, Report, SearchParams, Settings, Signals};
use crate::core::{Move, Position};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Stack size of every search thread. Move lists live in a per-thread heap
/// buffer, so frames are small; this leaves ample room for `MAX_PLY` plies.
pub const SEARCH_STACK: usize = 32 << 20;

/// What a finished thread proposes.
struct Proposal {
    best: Move,
    score: i32,
    depth: i32,
    pv: Vec<Move>,
    seldepth: usize,
}

/// Searches `pos` with `settings.threads` threads and returns the move to
/// play and the expected reply (`None`, `None` without legal moves). The
/// main thread reports through `report`; `nodes_out` receives the node total.
#[allow(clippy::too_many_arguments)]
pub fn run(
    pos: &Position,
    root: Vec<Move>,
    limits: &Limits,
    settings: &Settings,
    params: SearchParams,
    tt: &TranspositionTable,
    signals: &Signals,
    nodes_out: &AtomicU64,
    report: &mut dyn FnMut(Report),
) -> (Option<Move>, Option<Move>) {
    if root.is_empty() {
        return (None, None);
    }
    let start_time = std::time::Instant::now();
    tt.new_search();
    let threads = settings.threads.max(1);
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
        counters: (0..threads).map(|_| NodeCounter::default()).collect(),
        time: TimeManager::with_tunables(
            limits,
            pos.side_to_move(),
            Duration::from_millis(settings.move_overhead_ms),
            start_time,
            &params.tunables,
        ),
        limits,
        params,
        multipv: settings.multipv.max(1),
    };
    let proposals: Vec<Proposal> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|id| {
                let (shared, pos, root_moves) = (&shared, pos.clone(), root_moves.clone());
                std::thread::Builder::new()
                    .name(format!("cubist-search-{id}"))
                    .stack_size(SEARCH_STACK)
                    .spawn_scoped(scope, move || {
                        let mut s = Searcher::new(id, shared, pos, root_moves);
                        s.iterate(max_depth, None);
                        proposal(&s)
                    })
                    .ok()
            })
            .collect();
        let mut main = Searcher::new(0, &shared, pos.clone(), root_moves.clone());
        main.iterate(max_depth, Some(&mut *report));
        // Stopped inside an iteration: the last word on nodes and the line in force.
        if shared.abort.load(Ordering::Relaxed) && main.completed_depth > 0 {
            report(Report::Info(main.info(main.completed_depth, 0)));
        }
        shared.abort.store(true, Ordering::Relaxed);
        let mut all = vec![proposal(&main)];
        all.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        all
    });
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
            time_ms: ms,
            pv: best.pv.clone(),
        }));
    }
    let ponder = best.pv.get(1).copied().or_else(|| ponder_from_tt(pos, best.best, tt));
    (Some(best.best), ponder)
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
