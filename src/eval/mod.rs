//! Everything that scores a position, behind one interface: the search
//! holds an [`Evaluator`] per thread and asks it for static scores; `eval`
//! asks it for a trace. Today's implementation is [`Linear`]: a sum of
//! weight × feature over hand-chosen features (material, placement,
//! mobility, king safety, pawn structure), one fitted weight set per game.
//! A learned network is meant to be a second implementation of the trait.
//!
//! Inside, data flows one way: `pair` (the mg/eg unit) → `weights` (the
//! fitted sets) → `psq` (the material and placement tables that
//! `Position` keeps summed in make/unmake) → `linear` (the terms, with
//! its per-thread `cache`) → this module's interface.

pub(crate) mod cache;
pub(crate) mod linear;
pub(crate) mod pair;
pub(crate) mod psq;
pub mod values;
pub mod weights;

pub use linear::{Features, evaluate, features, trace};
pub use pair::Pair;
pub use values::piece_value;

use crate::core::{Move, Position};
use cache::EvalCache;

/// What a search thread's evaluation does for the search: score a position,
/// follow the moves the search makes and takes back (for state kept
/// incrementally, such as a network's accumulator), warm its memory ahead of
/// a lookup, and explain a score.
pub trait Evaluator: Send {
    /// The static evaluation of `pos` in centipawns from the side to move's view.
    fn evaluate(&mut self, pos: &Position) -> i32;

    /// `pos` is about to play `mv`; called before [`Position::make`].
    #[inline(always)]
    fn make(&mut self, pos: &Position, mv: Move) {
        let _ = (pos, mv);
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

/// The linear evaluation with its per-thread cache of evaluations and pawn
/// terms. Material and placement need no move hooks: [`Position`] keeps
/// their sums in make/unmake.
#[derive(Default)]
pub struct Linear {
    cache: EvalCache,
}

impl Evaluator for Linear {
    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        linear::evaluate_cached(pos, &mut self.cache)
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        self.cache.prefetch(key);
    }

    fn trace(&self, pos: &Position) -> String {
        linear::trace(pos)
    }
}
