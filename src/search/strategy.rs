//! Move choice by strategy: the test baselines `greedy` and `random`, and the
//! dispatch to the search.

use super::tt::TranspositionTable;
use super::{Info, Limits, Report, Score, SearchParams, Settings, Signals, Strategy, Switches, threads};
use crate::core::{Move, MoveFlag, PieceKind, Position};
use rand::seq::IndexedRandom;
use std::sync::atomic::AtomicU64;

/// Material values used by the greedy baseline (centipawns).
pub const fn baseline_value(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::Pawn => 100,
        PieceKind::Knight => 300,
        PieceKind::Bishop => 330,
        PieceKind::Rook => 500,
        PieceKind::Duke => 750,
        PieceKind::Queen => 900,
        PieceKind::King => 0,
    }
}

/// The material a move wins at once: the captured piece plus any promotion gain.
pub fn material_gain(pos: &Position, m: Move) -> i32 {
    let captured = match m.flag() {
        MoveFlag::EnPassant => baseline_value(PieceKind::Pawn),
        MoveFlag::Castle => 0,
        MoveFlag::Normal => pos.piece_at(m.to()).map_or(0, |p| baseline_value(p.kind)),
    };
    let promoted = m.promotion_kind().map_or(0, |k| baseline_value(k) - baseline_value(PieceKind::Pawn));
    captured + promoted
}

/// The root moves a search may choose from (`searchmoves` applied).
pub fn root_moves(pos: &Position, limits: &Limits) -> Vec<Move> {
    let legal = pos.legal_moves();
    if limits.searchmoves.is_empty() {
        return legal.to_vec();
    }
    let chosen: Vec<Move> = legal.iter().copied().filter(|m| limits.searchmoves.contains(m)).collect();
    if chosen.is_empty() { legal.to_vec() } else { chosen }
}

/// Chooses a move for `pos` as `settings.strategy` says; returns the move
/// (`None` when there is none) and the expected reply. The search gets a
/// fresh table of `settings.hash_mb` MiB here; [`super::Engine`] keeps its
/// table between moves instead.
pub fn choose(
    pos: &Position,
    limits: &Limits,
    settings: &Settings,
    signals: &Signals,
    report: &mut dyn FnMut(Report),
) -> (Option<Move>, Option<Move>) {
    let moves = root_moves(pos, limits);
    if moves.is_empty() {
        return (None, None);
    }
    let mut rng = rand::rng();
    match settings.strategy {
        Strategy::Search | Strategy::AlphaBeta => {
            let tt = TranspositionTable::new(settings.hash_mb);
            let nodes = AtomicU64::new(0);
            let mut params = SearchParams::default();
            if settings.strategy == Strategy::AlphaBeta {
                params.switches = Switches::FULL_WIDTH;
            }
            threads::run(pos, moves, limits, settings, params, &tt, signals, &nodes, report)
        }
        Strategy::Random => (moves.choose(&mut rng).copied(), None),
        Strategy::Greedy => {
            let best = moves.iter().map(|&m| material_gain(pos, m)).max().unwrap_or(0);
            let ties: Vec<Move> = moves.iter().copied().filter(|&m| material_gain(pos, m) == best).collect();
            let chosen = ties.choose(&mut rng).copied();
            report(Report::Info(Info {
                depth: 1,
                seldepth: 1,
                multipv: 1,
                score: Score::Cp(best),
                bound: Default::default(),
                nodes: moves.len() as u64,
                nps: 0,
                hashfull: 0,
                time_ms: 0,
                pv: chosen.into_iter().collect(),
            }));
            (chosen, None)
        }
    }
}
