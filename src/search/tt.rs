//! The transposition table, shared by every search thread without a lock.
//!
//! # Contract
//!
//! The table is a flat array of 64-byte clusters of four entries; each entry
//! is two `AtomicU64` words: `key ^ data` and `data`. Threads read and write
//! both words with `Ordering::Relaxed` and no lock, so a reader may see one
//! word of one store and the other word of another (a torn entry). A probe
//! accepts an entry only when `word0 ^ word1 == key`, which a torn entry fails
//! except with probability about 2⁻⁶⁴ per probe; the search treats whatever it
//! gets as a hint (a move it checks for legality, a bound it trusts only at
//! enough depth), so the rare wrong hit costs strength, never safety. The
//! memory is exactly `Hash` MiB: `hash_mb * 2^20 / 64` clusters, nothing else.

use crate::core::Move;
use crate::core::prefetch::prefetch;
use std::alloc::{Layout, alloc, dealloc};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// What kind of score an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TtBound {
    /// Nothing stored.
    None = 0,
    /// The score is at most this (fail low).
    Upper = 1,
    /// The score is at least this (fail high).
    Lower = 2,
    /// The exact score.
    Exact = 3,
}

impl TtBound {
    /// The bound of a node's result: a fail high, a fail low (no move beat
    /// alpha) or exact.
    pub fn of_result(best: i32, beta: i32, best_move: Move) -> TtBound {
        if best >= beta {
            TtBound::Lower
        } else if best_move.is_none() {
            TtBound::Upper
        } else {
            TtBound::Exact
        }
    }

    /// Whether a stored `score` with this bound settles a node searched with
    /// the window (`alpha`, `beta`).
    pub fn cuts_off(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            TtBound::Exact => true,
            TtBound::Lower => score >= beta,
            TtBound::Upper => score <= alpha,
            TtBound::None => false,
        }
    }
}

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// The best or refuting move, or `Move::NONE`.
    pub best: Move,
    /// The score, relative to the node (mates count from the node, not the root).
    pub score: i32,
    /// The remaining depth it was searched to.
    pub depth: i32,
    /// What the score means.
    pub bound: TtBound,
}

const ENTRIES_PER_CLUSTER: usize = 4;
const WORDS_PER_CLUSTER: usize = ENTRIES_PER_CLUSTER * 2;
const CLUSTER_BYTES: usize = WORDS_PER_CLUSTER * 8;

/// Packs an entry: move 23 bits, score 16, depth 8, bound 2, age 6 (55 bits).
fn pack(best: Move, score: i32, depth: i32, bound: TtBound, age: u8) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = depth.clamp(0, 255) as u64;
    best.bits() as u64 | score << 23 | depth << 39 | (bound as u64) << 47 | ((age & 63) as u64) << 49
}

fn unpack(data: u64) -> (TtEntry, u8) {
    let bound = match data >> 47 & 3 {
        1 => TtBound::Upper,
        2 => TtBound::Lower,
        3 => TtBound::Exact,
        _ => TtBound::None,
    };
    let entry = TtEntry {
        best: Move::from_bits((data & 0x7f_ffff) as u32),
        score: (data >> 23 & 0xffff) as u16 as i16 as i32,
        depth: (data >> 39 & 0xff) as i32,
        bound,
    };
    (entry, (data >> 49 & 63) as u8)
}

/// The size of a huge page, and the alignment of tables at least that large.
const HUGE_PAGE: usize = 2 << 20;

/// The table's words: one zeroed allocation that owns them as a
/// `Box<[AtomicU64]>` would, aligned to [`HUGE_PAGE`] when at least that
/// large and, on Linux, advised to be backed by huge pages.
struct Words {
    ptr: NonNull<AtomicU64>,
    layout: Layout,
}

// SAFETY: `Words` owns its allocation alone, like a `Box<[AtomicU64]>`, and
// `AtomicU64` is `Send` and `Sync`: moving the owner to another thread or
// sharing `&Words` (hence `&[AtomicU64]`) between threads is sound.
unsafe impl Send for Words {}
// SAFETY: as for `Send` above.
unsafe impl Sync for Words {}

impl Words {
    /// `bytes` bytes of zeroed words (whole clusters), or why the system
    /// would not give the memory.
    fn new(bytes: usize) -> Result<Words, String> {
        if bytes == 0 || !bytes.is_multiple_of(CLUSTER_BYTES) {
            return Err(format!("{bytes} bytes are no whole number of clusters"));
        }
        let align = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 64 };
        let layout = Layout::from_size_align(bytes, align).map_err(|e| e.to_string())?;
        // SAFETY: the layout's size is not zero (checked above).
        let raw = unsafe { alloc(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<AtomicU64>()) else {
            return Err(format!("the system refused {bytes} bytes"));
        };
        #[cfg(target_os = "linux")]
        if align == HUGE_PAGE {
            // SAFETY: `raw..raw + bytes` is our own live allocation, starting
            // on a page boundary (2 MiB aligned); MADV_HUGEPAGE only changes
            // how its pages are backed, never their contents, and a failure
            // (no THP in this kernel) leaves ordinary pages.
            unsafe { libc::madvise(raw.cast(), bytes, libc::MADV_HUGEPAGE) };
        }
        // SAFETY: `raw` is valid for `bytes` writes and aligned for u64; all
        // zero bits are a valid `AtomicU64` (0), so every word is initialised.
        unsafe { raw.write_bytes(0, bytes) };
        Ok(Words { ptr, layout })
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    #[inline(always)]
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` points to `layout.size() / 8` initialised words that
        // live as long as `self`, and only shared references are ever made.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size() / 8) }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc` with this very layout and is freed once.
        unsafe { dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}

/// The shared, lock-free transposition table (see the module docs for the contract).
pub struct TranspositionTable {
    words: Words,
    clusters: usize,
    age: AtomicU8,
}

impl TranspositionTable {
    /// A cleared table of exactly `mb` MiB (at least one cluster); aborts
    /// like a `Vec` when the memory is not there.
    #[cfg(test)]
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).unwrap_or_else(|why| panic!("a table of {mb} MiB: {why}"))
    }

    /// A cleared table of exactly `mb` MiB (at least one cluster), or why
    /// the system would not give the memory (a `Hash` beyond the machine's).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = mb.max(1).checked_mul(1 << 20).ok_or_else(|| "size overflows".to_string())?;
        let clusters = bytes / CLUSTER_BYTES;
        let words = Words::new(bytes)?;
        Ok(TranspositionTable { words, clusters, age: AtomicU8::new(0) })
    }

    /// The table's size in bytes.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Empties every entry.
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: entries from earlier searches become preferred victims.
    pub fn new_search(&self) {
        self.age.store(self.age.load(Ordering::Relaxed).wrapping_add(1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn cluster(&self, key: u64) -> usize {
        ((key as u128 * self.clusters as u128) >> 64) as usize * WORDS_PER_CLUSTER
    }

    /// Starts loading the cluster of `key` into the cache, so that a
    /// [`TranspositionTable::probe`] soon after finds it there.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.words[self.cluster(key)]);
    }

    /// The entry stored for `key`, if any (a torn or foreign entry is never returned).
    #[inline(always)]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let base = self.cluster(key);
        for i in 0..ENTRIES_PER_CLUSTER {
            let k = self.words[base + 2 * i].load(Ordering::Relaxed);
            let d = self.words[base + 2 * i + 1].load(Ordering::Relaxed);
            if d != 0 && k ^ d == key {
                return Some(unpack(d).0);
            }
        }
        None
    }

    /// Stores a result for `key`. Replaces the same position's entry (keeping
    /// its move when the new one has none, and a deeper exact entry of the
    /// current search), else the slot that is empty, oldest or shallowest.
    pub fn store(&self, key: u64, best: Move, score: i32, depth: i32, bound: TtBound) {
        let base = self.cluster(key);
        let age = self.age.load(Ordering::Relaxed);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for i in 0..ENTRIES_PER_CLUSTER {
            let k = self.words[base + 2 * i].load(Ordering::Relaxed);
            let d = self.words[base + 2 * i + 1].load(Ordering::Relaxed);
            if d == 0 {
                if victim_worth > i32::MIN {
                    victim = i;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            let (old, old_age) = unpack(d);
            if k ^ d == key {
                if bound != TtBound::Exact && old_age == age && old.depth > depth + 2 && old.bound == TtBound::Exact {
                    return;
                }
                let best = if best.is_none() { old.best } else { best };
                self.write(base + 2 * i, key, pack(best, score, depth, bound, age));
                return;
            }
            let stale = (age.wrapping_sub(old_age) & 63) as i32;
            let worth = old.depth - 8 * stale;
            if worth < victim_worth {
                victim = i;
                victim_worth = worth;
            }
        }
        self.write(base + 2 * victim, key, pack(best, score, depth, bound, age));
    }

    #[inline]
    fn write(&self, at: usize, key: u64, data: u64) {
        self.words[at].store(key ^ data, Ordering::Relaxed);
        self.words[at + 1].store(data, Ordering::Relaxed);
    }

    /// Entries of the current search per mille, sampled over the first 1000 clusters' slots.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let sample = self.clusters.min(1000 / ENTRIES_PER_CLUSTER * ENTRIES_PER_CLUSTER);
        let sample = sample.max(1);
        let mut used = 0;
        for c in 0..sample {
            for i in 0..ENTRIES_PER_CLUSTER {
                let d = self.words[c * WORDS_PER_CLUSTER + 2 * i + 1].load(Ordering::Relaxed);
                if d != 0 && unpack(d).1 == age {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * ENTRIES_PER_CLUSTER)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Position, Variant};
    use crate::search::score::{MATE, score_from_tt, score_to_tt};

    #[test]
    fn size_is_exactly_the_hash_setting() {
        assert_eq!(TranspositionTable::new(1).bytes(), 1 << 20);
        assert_eq!(TranspositionTable::new(16).bytes(), 16 << 20);
    }

    #[test]
    fn tables_start_empty_and_large_ones_lie_on_huge_pages_boundaries() {
        for mb in [1, 2, 3, 16] {
            let tt = TranspositionTable::try_new(mb).expect("a small table");
            assert!(tt.words.iter().all(|w| w.load(Ordering::Relaxed) == 0), "{mb} MiB zeroed");
            let align = if mb >= 2 { HUGE_PAGE } else { 64 };
            assert_eq!(tt.words.as_ptr() as usize % align, 0, "{mb} MiB aligned");
            // The last word is ours to write and read back.
            let last = tt.words.len() - 1;
            tt.words[last].store(7, Ordering::Relaxed);
            assert_eq!(tt.words[last].load(Ordering::Relaxed), 7);
        }
        // Tables move to and are shared by other threads, and drop there.
        let tt = TranspositionTable::new(2);
        std::thread::scope(|s| {
            s.spawn(|| tt.store(99, Move::NONE, 1, 1, TtBound::Exact));
        });
        assert!(tt.probe(99).is_some());
        std::thread::spawn(move || drop(tt)).join().unwrap();
    }

    #[test]
    fn a_table_beyond_any_memory_is_an_error_not_an_abort() {
        assert!(TranspositionTable::try_new(usize::MAX >> 20).is_err());
        assert!(TranspositionTable::try_new(usize::MAX).is_err());
    }

    #[test]
    fn store_probe_round_trip_and_clear() {
        let tt = TranspositionTable::new(1);
        let pos = Position::start(Variant::hdc());
        let m = pos.legal_moves()[7];
        tt.store(0x1234_5678_9abc_def0, m, -321, 9, TtBound::Lower);
        let e = tt.probe(0x1234_5678_9abc_def0).expect("stored");
        assert_eq!(e, TtEntry { best: m, score: -321, depth: 9, bound: TtBound::Lower });
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert!(tt.probe(0x1234_5678_9abc_def0).is_none());
    }

    #[test]
    fn prefetching_any_key_leaves_the_table_as_it_was() {
        let tt = TranspositionTable::new(1);
        let key = 0x0f0f_1234_5678_0001;
        tt.store(key, Move::NONE, 77, 5, TtBound::Upper);
        let before = tt.probe(key);
        // Every cluster, first and last included, and keys never stored.
        for k in [0, 1, key, u64::MAX, u64::MAX - 1]
            .into_iter()
            .chain((0..4096u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        {
            tt.prefetch(k);
        }
        assert_eq!(tt.probe(key), before);
        assert!(tt.probe(1).is_none());
    }

    #[test]
    fn torn_entries_are_rejected() {
        let tt = TranspositionTable::new(1);
        let key = 0xdead_beef_0000_0001;
        tt.store(key, Move::NONE, 50, 3, TtBound::Exact);
        let base = tt.cluster(key);
        // Another store's data word lands beside this entry's key word.
        tt.words[base + 1].store(pack(Move::NONE, 999, 3, TtBound::Exact, 0), Ordering::Relaxed);
        assert!(tt.probe(key).is_none());
    }

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        // Mate in 3 plies from a node at ply 5 is mate in 8 plies from the root.
        let at_root = MATE - 8;
        let stored = score_to_tt(at_root, 5);
        assert_eq!(stored, MATE - 3);
        // Found again at ply 2 via a transposition: mate in 5 plies from the root.
        assert_eq!(score_from_tt(stored, 2), MATE - 5);
        assert_eq!(score_to_tt(-(MATE - 8), 5), -(MATE - 3));
        assert_eq!(score_from_tt(score_to_tt(123, 7), 2), 123);
        let tt = TranspositionTable::new(1);
        tt.store(42, Move::NONE, stored, 4, TtBound::Exact);
        assert_eq!(score_from_tt(tt.probe(42).unwrap().score, 5), at_root);
    }

    #[test]
    fn older_entries_are_replaced_first() {
        let tt = TranspositionTable::new(1);
        // Five keys in one cluster: the first stored (deep but old) goes last unless aged.
        let keys: Vec<u64> = (0..5u64).map(|i| i + 1).collect();
        for (i, &k) in keys[..4].iter().enumerate() {
            tt.store(k, Move::NONE, 0, 10 + i as i32, TtBound::Exact);
        }
        tt.new_search();
        tt.store(keys[4], Move::NONE, 0, 1, TtBound::Exact);
        assert!(tt.probe(keys[4]).is_some());
        assert_eq!((0..4).filter(|&i| tt.probe(keys[i]).is_some()).count(), 3);
        assert!(tt.probe(keys[0]).is_none(), "the shallowest of the old entries goes");
    }
}
