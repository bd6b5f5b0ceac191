//! The per-thread memory of the linear evaluation: whole evaluations by
//! position key and pawn terms by pawn key, both plain caches (a hit gives
//! exactly what evaluating again would).

use super::pair::Pair;
use crate::core::prefetch::prefetch;

/// Pawn slots of an [`EvalCache`] (a power of two).
const PAWN_CACHE_SIZE: usize = 1 << 13;

/// Evaluation slots of an [`EvalCache`] (a power of two).
const EVAL_CACHE_SIZE: usize = 1 << 14;

#[derive(Clone, Copy, Default)]
pub(super) struct PawnEntry {
    /// The pawn key ([`Position::pawn_key`](crate::core::Position::pawn_key)).
    pub(super) key: u64,
    /// The variant tables' id (0: empty).
    pub(super) tables: u8,
    /// The pawn terms, White's less Black's.
    pub(super) balance: Pair,
}

#[derive(Clone, Copy, Default)]
pub(super) struct EvalEntry {
    /// The position key ([`Position::key`](crate::core::Position::key)).
    pub(super) key: u64,
    /// The variant tables' id (0: empty).
    pub(super) tables: u8,
    /// The evaluation from the side to move's view.
    pub(super) score: i32,
}

/// One search thread's memory of evaluations: whole evaluations by position
/// key (the search meets the same position again through transpositions,
/// re-searches and iterations), and pawn terms by pawn key and variant (they
/// depend on the pawns alone, which change in few moves). Both are plain
/// caches: a lookup gives exactly what evaluating again would.
pub struct EvalCache {
    pawns: Box<[PawnEntry]>,
    evals: Box<[EvalEntry]>,
}

impl Default for EvalCache {
    fn default() -> EvalCache {
        EvalCache::new()
    }
}

thread_local! {
    /// A cache that a dropped evaluation left to its thread's next one (see [`EvalCache::take`]).
    static SPARE: std::cell::Cell<Option<EvalCache>> = const { std::cell::Cell::new(None) };
}

impl EvalCache {
    /// The cache this thread's last evaluation left ([`EvalCache::put_back`]),
    /// or an empty one. What it holds stays valid: a hit gives exactly what
    /// evaluating again would, so a search thread's cache is warm from the
    /// start of each search, and its half megabyte is not allocated and
    /// faulted in anew (both counted in datagen's 2,000-node searches).
    pub fn take() -> EvalCache {
        SPARE.take().unwrap_or_default()
    }

    /// Leaves `self` to this thread's next [`EvalCache::take`].
    pub fn put_back(self) {
        SPARE.set(Some(self));
    }

    /// A cache without slots, which nothing may look up (it stands in for
    /// a cache being put back, and allocates nothing).
    pub(super) fn empty() -> EvalCache {
        EvalCache { pawns: Box::default(), evals: Box::default() }
    }

    /// An empty cache (about 450 KB).
    pub fn new() -> EvalCache {
        EvalCache {
            pawns: vec![PawnEntry::default(); PAWN_CACHE_SIZE].into_boxed_slice(),
            evals: vec![EvalEntry::default(); EVAL_CACHE_SIZE].into_boxed_slice(),
        }
    }

    /// The evaluation slot of position key `key`.
    #[inline(always)]
    pub(super) fn eval_slot(&mut self, key: u64) -> &mut EvalEntry {
        &mut self.evals[key as usize & (EVAL_CACHE_SIZE - 1)]
    }

    /// The pawn slot of pawn key `pawn_key`.
    #[inline(always)]
    pub(super) fn pawn_slot(&mut self, pawn_key: u64) -> &mut PawnEntry {
        &mut self.pawns[pawn_key as usize & (PAWN_CACHE_SIZE - 1)]
    }

    /// Starts loading the evaluation slot of position key `key` into the cache.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.evals[key as usize & (EVAL_CACHE_SIZE - 1)]);
    }
}
