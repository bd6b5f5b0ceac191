//! Geometry of the cube, computed once per layer count: the 26 directions, the
//! ray from every square in every direction (as a square list for stepping and
//! as a bitboard), and the squares between two aligned squares.

use super::bitboard::Bitboard;
use super::square::{MAX_LAYERS, NUM_SQUARES, Square};
use std::sync::OnceLock;

/// The number of directions: every (dx, dy, dz) in {−1, 0, 1}³ but (0, 0, 0).
pub const NUM_DIRS: usize = 26;

/// The 26 unit directions (dx, dy, dz), in a fixed order.
pub const DIRS: [(i8, i8, i8); NUM_DIRS] = directions();

const fn directions() -> [(i8, i8, i8); NUM_DIRS] {
    let mut out = [(0, 0, 0); NUM_DIRS];
    let mut n = 0;
    let mut i = 0;
    while i < 27 {
        let d = ((i % 3) as i8 - 1, ((i / 3) % 3) as i8 - 1, (i / 9) as i8 - 1);
        if !(d.0 == 0 && d.1 == 0 && d.2 == 0) {
            out[n] = d;
            n += 1;
        }
        i += 1;
    }
    out
}

/// How many of a direction's components are non-zero: 1 orthogonal, 2 planar
/// diagonal, 3 space diagonal.
pub const fn dir_order(d: usize) -> u8 {
    let (x, y, z) = DIRS[d];
    (x != 0) as u8 + (y != 0) as u8 + (z != 0) as u8
}

/// The index of the direction opposite to `d`.
pub const fn opposite(d: usize) -> usize {
    NUM_DIRS - 1 - d
}

/// The index of direction (dx, dy, dz), if it is one of the 26 (computed
/// from the order of [`DIRS`]: x fastest, then y, then z, skipping (0, 0, 0)).
#[inline]
pub fn dir_index(dx: i8, dy: i8, dz: i8) -> Option<usize> {
    if [dx, dy, dz].iter().any(|c| !(-1..=1).contains(c)) || (dx, dy, dz) == (0, 0, 0) {
        return None;
    }
    let i = (dx + 1) as usize + 3 * (dy + 1) as usize + 9 * (dz + 1) as usize;
    Some(if i > 13 { i - 1 } else { i })
}

/// The longest ray: 7 squares.
pub const MAX_RAY: usize = 7;

/// Rays and lines of a board of a given layer count (3..=8).
pub struct Geometry {
    /// The layer count these tables are for.
    pub layers: u8,
    /// Every square of the board.
    pub board: Bitboard,
    /// `ray_squares[sq * 26 + d]`: the squares from `sq` in direction `d`, nearest first.
    ray_squares: Vec<[Square; MAX_RAY]>,
    /// `ray_len[sq * 26 + d]`: how many of `ray_squares` are on the board.
    ray_len: Vec<u8>,
    /// `rays[d * 512 + sq]`: the same ray as a set.
    rays: Vec<Bitboard>,
}

impl Geometry {
    /// The tables for `layers` layers (3..=8), built on first use.
    pub fn get(layers: u8) -> &'static Geometry {
        static TABLES: [OnceLock<Geometry>; MAX_LAYERS as usize] = [const { OnceLock::new() }; 8];
        assert!((1..=MAX_LAYERS).contains(&layers), "layer count {layers} out of range");
        TABLES[layers as usize - 1].get_or_init(|| Geometry::build(layers))
    }

    fn build(layers: u8) -> Geometry {
        let mut ray_squares = vec![[Square::new(0, 0, 0); MAX_RAY]; NUM_SQUARES * NUM_DIRS];
        let mut ray_len = vec![0u8; NUM_SQUARES * NUM_DIRS];
        let mut rays = vec![Bitboard::EMPTY; NUM_SQUARES * NUM_DIRS];
        for i in 0..NUM_SQUARES {
            let from = Square::from_index_unchecked(i);
            for (d, &(dx, dy, dz)) in DIRS.iter().enumerate() {
                let mut n = 0;
                let mut cur = from;
                while let Some(next) = cur.offset(dx, dy, dz, layers) {
                    ray_squares[i * NUM_DIRS + d][n] = next;
                    rays[d * NUM_SQUARES + i].set(next);
                    n += 1;
                    cur = next;
                }
                ray_len[i * NUM_DIRS + d] = n as u8;
            }
        }
        Geometry { layers, board: Bitboard::layers(layers), ray_squares, ray_len, rays }
    }

    /// The squares from `sq` in direction `d`, nearest first (empty off the board).
    #[inline(always)]
    pub fn ray_squares(&self, sq: Square, d: usize) -> &[Square] {
        let i = sq.index() * NUM_DIRS + d;
        &self.ray_squares[i][..self.ray_len[i] as usize]
    }

    /// The squares from `sq` in direction `d` as a set.
    #[inline]
    pub fn ray(&self, d: usize, sq: Square) -> Bitboard {
        self.rays[d * NUM_SQUARES + sq.index()]
    }

    /// The direction from `a` towards `b`, if they share a line of the 26 directions.
    pub fn direction(a: Square, b: Square) -> Option<usize> {
        let dx = b.file() as i8 - a.file() as i8;
        let dy = b.rank() as i8 - a.rank() as i8;
        let dz = b.layer() as i8 - a.layer() as i8;
        let n = dx.abs().max(dy.abs()).max(dz.abs());
        if n == 0 || [dx, dy, dz].iter().any(|&c| c != 0 && c.abs() != n) {
            return None;
        }
        dir_index(dx.signum(), dy.signum(), dz.signum())
    }

    /// The squares strictly between two aligned squares (empty if not aligned).
    pub fn between(&self, a: Square, b: Square) -> Bitboard {
        match Geometry::direction(a, b) {
            Some(d) => self.ray(d, a) - self.ray(d, b) - Bitboard::from(b),
            None => Bitboard::EMPTY,
        }
    }

    /// The squares attacked by a slider on `sq` along direction `d` when
    /// `occupied` blocks: up to and including the first occupied square.
    #[inline(always)]
    pub fn slide(&self, sq: Square, d: usize, occupied: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &s in self.ray_squares(sq, d) {
            out.set(s);
            if occupied.has(s) {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_six_directions_with_opposites() {
        assert_eq!((0..NUM_DIRS).filter(|&d| dir_order(d) == 1).count(), 6);
        assert_eq!((0..NUM_DIRS).filter(|&d| dir_order(d) == 2).count(), 12);
        assert_eq!((0..NUM_DIRS).filter(|&d| dir_order(d) == 3).count(), 8);
        for d in 0..NUM_DIRS {
            let (x, y, z) = DIRS[d];
            assert_eq!(DIRS[opposite(d)], (-x, -y, -z));
        }
    }

    #[test]
    fn dir_index_follows_dirs() {
        for dx in -2..=2 {
            for dy in -2..=2 {
                for dz in -2..=2 {
                    assert_eq!(dir_index(dx, dy, dz), DIRS.iter().position(|&d| d == (dx, dy, dz)));
                }
            }
        }
    }

    #[test]
    fn rays_stop_at_the_last_layer() {
        let g = Geometry::get(3);
        let up = dir_index(0, 0, 1).unwrap();
        let a1 = Square::new(0, 0, 0);
        assert_eq!(g.ray_squares(a1, up).len(), 2);
        assert_eq!(g.ray(up, a1).count(), 2);
        let g8 = Geometry::get(8);
        assert_eq!(g8.ray(up, a1).count(), 7);
        let space = dir_index(1, 1, 1).unwrap();
        assert_eq!(g8.ray(space, a1).count(), 7);
    }

    #[test]
    fn between_aligned_and_unaligned() {
        let g = Geometry::get(8);
        let a = Square::new(0, 0, 0);
        let b = Square::new(3, 3, 3);
        assert_eq!(g.between(a, b).count(), 2);
        assert_eq!(g.between(a, Square::new(1, 2, 0)), Bitboard::EMPTY);
        assert_eq!(g.between(a, Square::new(1, 1, 0)), Bitboard::EMPTY);
        assert_eq!(g.between(Square::new(4, 0, 3), Square::new(4, 0, 7)).count(), 3);
    }
}
