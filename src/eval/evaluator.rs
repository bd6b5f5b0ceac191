//! The interface between the search and an evaluation.

use crate::core::{PieceChanges, Position};

/// What a search thread's evaluation does for the search: score a position,
/// follow the moves the search makes and takes back (for state kept
/// incrementally, such as a network's accumulator), warm its memory ahead of
/// a lookup, and explain a score.
pub trait Evaluator: Send {
    /// The static evaluation of `pos` in centipawns from the side to move's view.
    fn evaluate(&mut self, pos: &Position) -> i32;

    /// A move has just made `pos`, taking off and putting on the pieces in
    /// `changes` ([`crate::core::Undo::changes`]); called after [`Position::make`].
    #[inline(always)]
    fn make(&mut self, pos: &Position, changes: &PieceChanges) {
        let _ = (pos, changes);
    }

    /// The move last followed by [`Evaluator::make`] was taken back.
    #[inline(always)]
    fn unmake(&mut self) {}

    /// The search will soon evaluate the position of key `key`.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        let _ = key;
    }

    /// A table of the evaluation's terms and its final score, for the UCI `eval` command.
    fn trace(&self, pos: &Position) -> String;
}
