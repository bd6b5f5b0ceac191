//! Piece values outside the evaluation proper: each game's fitted material
//! (middle game) for move ordering, exchange evaluation and pruning, and the
//! fixed exchange-free values of the `greedy` test baseline.

use super::weights::weights;
use crate::core::{Move, MoveFlag, PieceKind, Position, VariantKind};

/// The material value of a kind in a variant (middle game), for move ordering and pruning.
#[inline]
pub fn piece_value(kind: VariantKind, piece: PieceKind) -> i32 {
    weights(kind).material(piece.index()).0
}

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

/// The material a move wins at once by [`baseline_value`]: the captured
/// piece plus any promotion gain.
pub fn material_gain(pos: &Position, m: Move) -> i32 {
    let captured = match m.flag() {
        MoveFlag::EnPassant => baseline_value(PieceKind::Pawn),
        MoveFlag::Castle => 0,
        MoveFlag::Normal => pos.piece_at(m.to()).map_or(0, |p| baseline_value(p.kind)),
    };
    let promoted = m.promotion_kind().map_or(0, |k| baseline_value(k) - baseline_value(PieceKind::Pawn));
    captured + promoted
}
