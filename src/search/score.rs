//! Scores and the bounds derived from them, in one place: mate scores count
//! plies from the root, are stored in the transposition table relative to the
//! node, and are reported to the protocol as moves.

use std::fmt;

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: getting mated).
    Mate(i32),
}

impl fmt::Display for Score {
    /// As UCI writes it: `cp 35`, `mate -3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// The deepest ply the search reaches (and the size of per-ply tables).
pub const MAX_PLY: usize = 128;
/// Scores at or beyond this magnitude are mates (distance-to-mate encoded).
pub const MATE: i32 = 32_000;
/// The smallest score that is still a mate (mates up to `MAX_PLY` moves away).
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Above every score.
pub const INF: i32 = MATE + 1;

/// The score of being mated at `ply` (from the side to move's view).
#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// The score of giving mate at `ply`.
#[cfg(test)]
#[inline]
pub fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// Plies from the node at `ply` to the mate that `score` (counted from the
/// root) proves, given or suffered; `None` for a score that is no mate.
#[inline]
pub fn mate_distance(score: i32, ply: usize) -> Option<i32> {
    is_mate(score).then(|| MATE - score.abs() - ply as i32)
}

/// Whether a score is a mate score of either sign.
#[inline]
pub fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Converts a score from "relative to the root" to "relative to this node" before storing.
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Converts a stored score back to "relative to the root" at `ply`.
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_report_in_moves() {
        assert_eq!(to_score(mate_in(1)), Score::Mate(1));
        assert_eq!(to_score(mate_in(3)), Score::Mate(2));
        assert_eq!(to_score(mated_in(2)), Score::Mate(-1));
        assert_eq!(to_score(123), Score::Cp(123));
        assert!(is_mate(mated_in(MAX_PLY)) && !is_mate(MATE_BOUND - 1));
        assert_eq!(mate_distance(mate_in(7), 2), Some(5));
        assert_eq!(mate_distance(mated_in(6), 1), Some(5));
        assert_eq!(mate_distance(MATE_BOUND - 1, 0), None);
    }
}
