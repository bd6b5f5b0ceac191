//! `Bitboard`: a set of squares as 512 bits, one `u64` per layer (word z = layer z).
//!
//! Within a word, bit `rank * 8 + file` is the square, so moves inside a layer
//! are ordinary 64-bit shifts (masked at the a- and h-files) and moves across
//! layers move whole words.

use super::square::Square;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub, SubAssign};

/// The a-file of one layer.
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The h-file of one layer.
pub const FILE_H: u64 = FILE_A << 7;
/// Rank 1 of one layer.
pub const RANK_1: u64 = 0xff;

/// A set of squares of the 8×8×8 cube.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub [u64; 8]);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard([0; 8]);
    /// All 512 squares.
    pub const FULL: Bitboard = Bitboard([!0; 8]);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        let mut w = [0u64; 8];
        w[sq.index() >> 6] = 1 << (sq.index() & 63);
        Bitboard(w)
    }

    /// Every square of the first `layers` layers.
    pub const fn layers(layers: u8) -> Bitboard {
        let mut w = [0u64; 8];
        let mut z = 0;
        while z < layers as usize && z < 8 {
            w[z] = !0;
            z += 1;
        }
        Bitboard(w)
    }

    /// The squares of one rank (0..8) on every layer.
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard([RANK_1 << (8 * rank); 8])
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        live_words(&self.0) == 0
    }

    /// Whether the set holds any square.
    #[inline]
    pub fn any(self) -> bool {
        !self.is_empty()
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn has(&self, sq: Square) -> bool {
        self.0[sq.index() >> 6] >> (sq.index() & 63) & 1 != 0
    }

    /// Adds `sq`.
    #[inline]
    pub fn set(&mut self, sq: Square) {
        self.0[sq.index() >> 6] |= 1 << (sq.index() & 63);
    }

    /// Removes `sq`.
    #[inline]
    pub fn clear(&mut self, sq: Square) {
        self.0[sq.index() >> 6] &= !(1 << (sq.index() & 63));
    }

    /// Flips `sq` in or out.
    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.0[sq.index() >> 6] ^= 1 << (sq.index() & 63);
    }

    /// The number of squares in the set.
    #[inline]
    pub fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the set holds two or more squares.
    #[inline]
    pub fn more_than_one(self) -> bool {
        self.count() > 1
    }

    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        for (z, &w) in self.0.iter().enumerate() {
            if w != 0 {
                return Some(Square::from_index_unchecked(z * 64 + w.trailing_zeros() as usize));
            }
        }
        None
    }

    /// The set moved by (dx, dy, dz) with |dx|, |dz| ≤ 1 and |dy| ≤ 2; squares
    /// pushed off a file, rank or layer edge vanish, never wrap.
    #[inline(always)]
    pub fn shift(self, dx: i32, dy: i32, dz: i32) -> Bitboard {
        let file_mask = match dx {
            1 => !FILE_H,
            -1 => !FILE_A,
            _ => !0,
        };
        let s = dx + 8 * dy;
        // Word t comes from word t - dz, moved between registers (a copy
        // padded with empty words, read back at an offset, made the load
        // wait for the stores it straddles).
        let w = self.0;
        let moved = match dz {
            0 => w,
            1 => [0, w[0], w[1], w[2], w[3], w[4], w[5], w[6]],
            -1 => [w[1], w[2], w[3], w[4], w[5], w[6], w[7], 0],
            _ => std::array::from_fn(|t| usize::try_from(t as i32 - dz).ok().and_then(|i| w.get(i)).map_or(0, |&x| x)),
        };
        let mut out = [0u64; 8];
        if s >= 0 {
            for (o, &w) in out.iter_mut().zip(&moved) {
                *o = (w & file_mask) << s;
            }
        } else {
            for (o, &w) in out.iter_mut().zip(&moved) {
                *o = (w & file_mask) >> -s;
            }
        }
        Bitboard(out)
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt, $aop:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                let mut out = self.0;
                for (o, r) in out.iter_mut().zip(rhs.0) {
                    *o $aop r;
                }
                Bitboard(out)
            }
        }
        impl $atr for Bitboard {
            #[inline(always)]
            fn $af(&mut self, rhs: Bitboard) {
                *self = *self $op rhs;
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &, &=);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |, |=);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^, ^=);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference: the squares of `self` not in `rhs`.
    #[inline(always)]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        self & !rhs
    }
}

impl SubAssign for Bitboard {
    #[inline(always)]
    fn sub_assign(&mut self, rhs: Bitboard) {
        *self = *self - rhs;
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(self.0.map(|w| !w))
    }
}

/// Iterates the squares of a bitboard from lowest to highest.
pub struct Squares {
    words: [u64; 8],
    /// Bit `z` set while word `z` has squares left: empty words are skipped
    /// with one bit scan instead of a test each.
    live: u32,
}

impl Iterator for Squares {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.live == 0 {
            return None;
        }
        let z = self.live.trailing_zeros() as usize & 7;
        let w = self.words[z];
        let rest = w & (w - 1);
        self.words[z] = rest;
        if rest == 0 {
            self.live &= self.live - 1;
        }
        Some(Square::from_index_unchecked(z * 64 + w.trailing_zeros() as usize))
    }

    /// Internal iteration (`for_each`, `fold`, `sum`, ...): word by word,
    /// each word's squares by clearing its lowest bit, with nothing stored
    /// back between squares (cheaper than `next`, which must).
    #[inline]
    fn fold<B, F: FnMut(B, Square) -> B>(self, init: B, mut f: F) -> B {
        let mut acc = init;
        let mut live = self.live;
        while live != 0 {
            let z = live.trailing_zeros() as usize & 7;
            live &= live - 1;
            let mut w = self.words[z];
            while w != 0 {
                acc = f(acc, Square::from_index_unchecked(z * 64 + w.trailing_zeros() as usize));
                w &= w - 1;
            }
        }
        acc
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    #[inline]
    fn into_iter(self) -> Squares {
        Squares { words: self.0, live: live_words(&self.0) }
    }
}

/// Bit `z` set for each non-empty word `z` of `w`: two AVX2 compares and
/// masks where the build has AVX2.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn live_words(w: &[u64; 8]) -> u32 {
    use std::arch::x86_64::{
        _mm256_castsi256_pd, _mm256_cmpeq_epi64, _mm256_movemask_pd, _mm256_set_epi64x, _mm256_setzero_si256,
    };
    // SAFETY: these intrinsics only need AVX2, which this build is compiled
    // for (the cfg above); they read and write no memory.
    let empty = unsafe {
        let lo = _mm256_set_epi64x(w[3] as i64, w[2] as i64, w[1] as i64, w[0] as i64);
        let hi = _mm256_set_epi64x(w[7] as i64, w[6] as i64, w[5] as i64, w[4] as i64);
        let zero = _mm256_setzero_si256();
        let lo = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(lo, zero))) as u32;
        let hi = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(hi, zero))) as u32;
        lo | hi << 4
    };
    !empty & 0xff
}

/// Bit `z` set for each non-empty word `z` of `w`.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
#[inline(always)]
fn live_words(w: &[u64; 8]) -> u32 {
    w.iter().enumerate().fold(0, |m, (z, &w)| m | ((w != 0) as u32) << z)
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.set(sq);
        }
        bb
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.into_iter().map(|s| s.to_string())).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(x: u8, y: u8, z: u8) -> Square {
        Square::new(x, y, z)
    }

    #[test]
    fn live_words_marks_exactly_the_non_empty_words() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(5);
        // Every pattern of empty words, with one bit, the top bit or random bits in the others.
        for pattern in 0u32..256 {
            for fill in [1u64, 1 << 63, !0, rng.random::<u64>() | 1] {
                let words: [u64; 8] = std::array::from_fn(|z| if pattern >> z & 1 != 0 { fill } else { 0 });
                let expected = words.iter().enumerate().fold(0, |m, (z, &w)| m | ((w != 0) as u32) << z);
                assert_eq!(live_words(&words), expected, "{words:x?}");
                assert_eq!(live_words(&words), pattern);
                let bb = Bitboard(words);
                assert_eq!(bb.is_empty(), pattern == 0);
                assert_eq!(bb.into_iter().count() as u32, bb.count());
            }
        }
    }

    #[test]
    fn set_algebra_and_iteration() {
        let a: Bitboard = [sq(0, 0, 0), sq(7, 7, 7), sq(3, 4, 5)].into_iter().collect();
        let b: Bitboard = [sq(3, 4, 5)].into_iter().collect();
        assert_eq!(a.count(), 3);
        assert_eq!((a - b).count(), 2);
        assert_eq!(a & b, b);
        assert_eq!((a | b), a);
        assert_eq!((a ^ b).count(), 2);
        assert_eq!((!a).count(), 509);
        assert_eq!(a.first(), Some(sq(0, 0, 0)));
        assert_eq!(a.into_iter().collect::<Vec<_>>(), vec![sq(0, 0, 0), sq(3, 4, 5), sq(7, 7, 7)]);
        assert!(Bitboard::EMPTY.is_empty());
        assert!(a.more_than_one() && !b.more_than_one());
    }

    #[test]
    fn iteration_lists_every_square_in_order_past_empty_words() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(5);
        for round in 0..2000 {
            // Sparse, dense and word-aligned sets, with whole words empty.
            let density = [2, 30, 300][round % 3];
            let mut words = [0u64; 8];
            for (z, w) in words.iter_mut().enumerate() {
                if rng.random_range(0..3) > 0 || z == 7 {
                    for bit in 0..64 {
                        if rng.random_range(0..1000) < density {
                            *w |= 1 << bit;
                        }
                    }
                }
            }
            let b = Bitboard(words);
            let expect: Vec<usize> = (0..512).filter(|&i| words[i / 64] >> (i % 64) & 1 != 0).collect();
            let mut got = Vec::new();
            // A `for` loop steps with `next`.
            for s in b {
                got.push(s.index());
            }
            assert_eq!(got, expect, "{words:x?}");
            // Internal iteration (`fold`) lists the same, also for the rest
            // of an iterator that `next` has begun.
            let mut folded = Vec::new();
            b.into_iter().for_each(|s| folded.push(s.index()));
            assert_eq!(folded, expect, "{words:x?}");
            let taken = rng.random_range(0..=expect.len());
            let mut rest = b.into_iter();
            let head: Vec<usize> = rest.by_ref().take(taken).map(|s| s.index()).collect();
            let tail = rest.fold(head, |mut v, s| {
                v.push(s.index());
                v
            });
            assert_eq!(tail, expect, "{words:x?} after {taken}");
        }
    }

    #[test]
    fn shifts_never_wrap_in_any_of_the_26_directions() {
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if (dx, dy, dz) == (0, 0, 0) {
                        continue;
                    }
                    for i in 0..512 {
                        let s = Square::from_index(i).unwrap();
                        let moved = Bitboard::from(s).shift(dx, dy, dz);
                        let expect: Bitboard = s.offset(dx as i8, dy as i8, dz as i8, 8).into_iter().collect();
                        assert_eq!(moved, expect, "{s} by ({dx},{dy},{dz})");
                    }
                }
            }
        }
        // Several layers at once (beyond what the rules need): off the cube they vanish.
        assert_eq!(Bitboard::from(sq(4, 1, 3)).shift(1, 0, 2), Bitboard::from(sq(5, 1, 5)));
        assert_eq!(Bitboard::from(sq(4, 1, 3)).shift(0, -1, -3), Bitboard::from(sq(4, 0, 0)));
        assert!(Bitboard::from(sq(4, 1, 3)).shift(0, 0, 5).is_empty());
        assert!(Bitboard::from(sq(4, 1, 3)).shift(0, 0, -4).is_empty());
        // Two ranks at once, as a double pawn step does.
        assert_eq!(Bitboard::from(sq(4, 1, 3)).shift(0, 2, 0), Bitboard::from(sq(4, 3, 3)));
        assert!(Bitboard::from(sq(4, 6, 3)).shift(0, 2, 0).is_empty());
    }
}
